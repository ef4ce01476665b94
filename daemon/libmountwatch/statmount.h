/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * statmount(2) and listmount(2) (mainline 6.8 and later), for every part of
 * mountwatch that runs on a stock kernel: the fanotify backend, the
 * mountinfo backend's unique IDs and the host benchmark. One home for the
 * raw calls, the growing result buffer, the feature probe and the mapping of
 * a statmount record onto MountInfo.
 *
 * What each kernel gives (STATMOUNT_* request bits):
 *   6.8   SB_BASIC MNT_BASIC PROPAGATE_FROM MNT_ROOT MNT_POINT FS_TYPE
 *   6.10  MNT_NS_ID        6.11  MNT_OPTS
 *   6.13  FS_SUBTYPE SB_SOURCE OPT_ARRAY OPT_SEC_ARRAY
 *   6.15  SUPPORTED_MASK (the kernel says what it supports)
 * statmount_supported() finds out which of these the running kernel has.
 */
#ifndef MOUNTWATCH_STATMOUNT_H
#define MOUNTWATCH_STATMOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "mainline-uapi.h"
#include "mount-info.h"

/* What a full MountInfo record needs; statmount_query() asks for these. */
#define STATMOUNT_MOUNT_INFO_MASK                                                             \
	(MW_STATMOUNT_SB_BASIC | MW_STATMOUNT_MNT_BASIC | MW_STATMOUNT_MNT_ROOT |            \
	 MW_STATMOUNT_MNT_POINT | MW_STATMOUNT_FS_TYPE | MW_STATMOUNT_MNT_OPTS |             \
	 MW_STATMOUNT_FS_SUBTYPE | MW_STATMOUNT_SB_SOURCE)

/*
 * Only what a remount or mount_setattr() can change (no path strings): what a
 * rescan by statmount would ask for (host-bench measures it against reading
 * mountinfo).
 */
#define STATMOUNT_ATTR_MASK (MW_STATMOUNT_SB_BASIC | MW_STATMOUNT_MNT_BASIC | MW_STATMOUNT_MNT_OPTS)

/*
 * A result buffer that grows as needed; reuse one for many calls. Zero-
 * initialise it; statmount_buf_done() frees it.
 */
typedef struct StatmountBuf {
	struct mw_statmount *sm;
	size_t size;
} StatmountBuf;

void statmount_buf_done(StatmountBuf *b);

/*
 * statmount(2) of the mount with this unique ID in the caller's mount
 * namespace, asking for mask. On success b->sm holds the record (its ->mask
 * says what the kernel filled). Returns 0, -ENOENT if there is no such mount
 * (it was unmounted), -ENOSYS on kernels before 6.8, else -errno.
 */
/*
 * The mount namespace statmount(2) and listmount(2) ask about: 0 for the
 * caller's, else a namespace ID (NS_GET_MNTNS_ID). The watcher sets it
 * around its backend's calls (mw_watcher_new_ns()); per thread, as a
 * watcher is used from one thread.
 */
extern __thread uint64_t statmount_mnt_ns_id;

int statmount_get(uint64_t unique_id, uint64_t mask, StatmountBuf *b);

/*
 * The string field at offset off of a record if the kernel filled the field
 * (its request bit is in sm->mask), else NULL. The pointer is into sm.
 */
const char *statmount_str(const struct mw_statmount *sm, uint64_t flag, uint32_t off);

/*
 * Fills *ret (zeroed first) from a record with STATMOUNT_MOUNT_INFO_MASK:
 * UniqueId and ParentUniqueId are statmount's unique IDs (the namespace's
 * root gets parent 0, as in the watch_queue backend), SuperOptions is built
 * as mountinfo's field 11 ("ro"/"rw", the generic sb flags, then mnt_opts),
 * FsType is "type.subtype" as mountinfo shows it, and SuperblockId is the
 * superblock's device number (major << 32 | minor): mainline has no
 * superblock unique ID, and a live superblock's s_dev is unique. Strings the
 * kernel did not give (SB_SOURCE before 6.13) are left NULL for the caller
 * to fill. notify_sum is 0. Returns 0 or -ENOMEM; the caller owns *ret's
 * strings (mount_info_done()).
 */
int statmount_to_mount_info(const struct mw_statmount *sm, MountInfo *ret);

/* statmount_get() with STATMOUNT_MOUNT_INFO_MASK, then statmount_to_mount_info(). */
int statmount_query(uint64_t unique_id, StatmountBuf *b, MountInfo *ret);

/*
 * listmount(2) of every mount in the caller's mount namespace that its root
 * can reach, in ascending unique-ID order. *ret is malloc()ed, the caller
 * frees it. Returns 0, -ENOSYS before 6.8, else -errno.
 */
int listmount_all(uint64_t **ret, size_t *ret_n);

/* listmount(2) of the mounts below the one with this unique ID (-ENOENT if it is gone). */
int listmount_below(uint64_t unique_id, uint64_t **ret, size_t *ret_n);

/*
 * The MW_STATMOUNT_* bits the running kernel supports: its own answer
 * (STATMOUNT_SUPPORTED_MASK, 6.15), else what it filled in a record of the
 * namespace root when asked for everything this header knows. Returns 0,
 * -ENOSYS without statmount(2), else -errno.
 */
int statmount_supported(uint64_t *ret);

#endif /* MOUNTWATCH_STATMOUNT_H */
