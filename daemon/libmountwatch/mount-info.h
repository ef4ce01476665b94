/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the library knows about one mount, as a backend reports it, and how
 * two such records differ (the fields of a change).
 */
#ifndef MOUNTWATCH_MOUNT_INFO_H
#define MOUNTWATCH_MOUNT_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include "mountwatch/mountwatch.h"

/*
 * One mount's record as a backend reports it; the table's mw_mount holds
 * one (table.h). Strings are the kernel's raw bytes.
 */
typedef struct MountInfo {
	uint64_t unique_id;        /* 64-bit, never reused (statmount's mnt_id) */
	uint32_t mnt_id;           /* the 32-bit ID of /proc/self/mountinfo */
	uint64_t parent_unique_id; /* 0: the parent is not below the watched path */
	uint32_t parent_id;
	char *mount_point;
	char *root;                /* the mounted directory inside its filesystem */
	char *source;
	char *fstype;
	char *super_options;       /* the superblock's options */
	char *user_options;        /* /run/mount/utab's (NULL: none) */
	uint64_t attributes;       /* MOUNT_ATTR_* */
	uint32_t propagation;      /* enum mw_propagation */
	uint32_t peer_group;
	uint32_t master_group;
	uint64_t superblock_id;
	uint32_t dev_major;
	uint32_t dev_minor;
	/* ChangeCount: see mw_mount_get_change_count(). */
	uint64_t notify_sum;
} MountInfo;

void mount_info_done(MountInfo *info);
/*
 * Makes "" of a NULL string. The strings stay the kernel's raw bytes (any
 * byte but NUL): escaping is for where they are shown (escape_for_display()).
 */
int mount_info_fill_strings(MountInfo *info);
int mount_info_copy(MountInfo *dst, const MountInfo *src);

/* Bitmask (1 << MW_FIELD_*) of the fields whose values differ. */
uint32_t mount_info_diff(const MountInfo *a, const MountInfo *b);

/* The per-mount options as mountinfo's field 6 shows them ("rw,nosuid,relatime"). */
int mount_info_options(const MountInfo *info, char *buf, size_t size);
bool mount_info_read_only(const MountInfo *info);
/*
 * Whether a and b are mounts of one superblock by what statmount(2) tells:
 * the same device and type. Only while both superblocks live: a device is
 * reused once its superblock is gone (see BackendOps.query_mount).
 */
bool mount_info_same_device(const MountInfo *a, const MountInfo *b);
/* The Propagation property's names: "shared", "private", "slave", "unbindable" ("unknown"). */
const char *propagation_to_string(uint32_t p);
/* The PROPAGATION_* number of a name; -EINVAL for anything else. */
int propagation_from_string(const char *s);

#endif
