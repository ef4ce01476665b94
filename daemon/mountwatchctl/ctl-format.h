/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountwatchctl's output: the mount records it reads from the bus and the
 * table, tree (in the style of the fsinfo samples' test-mntinfo) and JSON
 * renderings of them, and what monitor says when the daemon comes or goes.
 * Pure functions, so they are unit-tested.
 */
#ifndef MOUNTWATCH_CTL_FORMAT_H
#define MOUNTWATCH_CTL_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct CtlMount {
	uint64_t unique_id, parent_unique_id, attributes, superblock_id, change_count;
	uint32_t mount_id, parent_id, peer_group, master_group;
	char *object_path, *mount_point, *root, *source, *fstype, *options, *super_options;
	char *propagation, *device;
	bool read_only;
} CtlMount;

void ctl_mount_done(CtlMount *m);
void ctl_mounts_free(CtlMount *m, size_t n);

/* Writes s as a JSON string (quoted, escaped). */
void json_string(FILE *f, const char *s);

/* Sorts by mount point, then unique ID. */
void ctl_mounts_sort(CtlMount *m, size_t n);

void format_list(FILE *f, const CtlMount *m, size_t n);
void format_list_json(FILE *f, const CtlMount *m, size_t n);
void format_show(FILE *f, const CtlMount *m);
void format_show_json(FILE *f, const CtlMount *m);

/*
 * The tree below root_id (0: every mount whose parent is not in the list).
 * Sorts m (by parent, then mount point). Returns -ENOENT if root_id is absent.
 */
int format_tree(FILE *f, CtlMount *m, size_t n, uint64_t root_id);
int format_tree_json(FILE *f, CtlMount *m, size_t n, uint64_t root_id);

int propagation_number(const char *s);

/*
 * What monitor says when NameOwnerChanged(name, old_owner, new_owner)
 * arrives for the daemon's bus name `watched`: NULL when there is nothing to
 * say (another name, or no change of owner).
 */
const char *owner_change_message(const char *watched, const char *name, const char *old_owner,
				 const char *new_owner);

#endif
