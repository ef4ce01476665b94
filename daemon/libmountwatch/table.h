/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount table: mounts keyed by 64-bit unique ID, with a child index
 * (keyed by the parent's unique ID, so children may arrive before their
 * parent), an index by the 32-bit mount ID and one by mount point. All
 * operations but iteration are O(1) expected, independent of the table size.
 */
#ifndef MOUNTWATCH_TABLE_H
#define MOUNTWATCH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mount-info.h"

typedef struct Table Table;
/* The public mw_mount (its getters are in mount.c) is the table's node. */
typedef struct mw_mount Mount;

struct mw_mount {
	/* 1 while in the table, plus mw_mount_ref()'s; 0 frees it. */
	unsigned n_ref;
	MountInfo info;
	char options[128];                  /* mw_mount_get_options(): derived from attributes */
	Mount *sibling_prev, *sibling_next; /* same parent_unique_id */
	Mount *point_prev, *point_next;     /* same mount point hash */
	Mount *sb_prev, *sb_next;           /* same superblock */
	bool detached;                      /* moved away, not yet seen arriving */
	/*
	 * The parent as the events read so far say (0: none known, or moved
	 * away): the counter mirror walks ancestors along this, not along
	 * info.parent_unique_id, which a query filled from the present that
	 * records still in the queue may have changed.
	 */
	uint64_t event_parent;
};

int table_new(Table **ret);
Table *table_free(Table *t);
void table_freep(Table **t);

size_t table_size(const Table *t);
Mount *table_get(const Table *t, uint64_t unique_id);
Mount *table_get_by_mnt_id(const Table *t, uint32_t mnt_id);
Mount *table_parent(const Table *t, const Mount *m);
/* First child of the mount with this unique ID; go on with ->sibling_next. */
Mount *table_first_child(const Table *t, uint64_t unique_id);
/* First mount of a superblock; go on with ->sb_next. */
Mount *table_first_of_superblock(const Table *t, uint64_t superblock_id);
/*
 * The first mount whose mount point hashes as mount_point's: go on with
 * ->point_next, and compare the mount points (other strings share hashes).
 */
Mount *table_first_at(const Table *t, const char *mount_point);
/* The topmost of the mounts stacked at mount_point, or NULL. */
Mount *table_topmost_at(const Table *t, const char *mount_point);

/* Adds a mount, taking over *info's strings (*info is zeroed). -EEXIST if present. */
int table_add(Table *t, MountInfo *info, Mount **ret);
/*
 * Replaces m's record by *info (taking its strings) and re-indexes it.
 * Returns the mask of properties that changed (>= 0).
 */
int table_update(Table *t, Mount *m, MountInfo *info);
/* Removes m and drops the table's reference (frees it unless the caller holds one). */
void table_remove(Table *t, Mount *m);
/* Drops one reference; the last frees m. */
void mount_unref(Mount *m);

/* Start with *i = 0; returns 0 at the end. No changes during iteration. */
int table_iterate(const Table *t, size_t *i, Mount **m);

#endif
