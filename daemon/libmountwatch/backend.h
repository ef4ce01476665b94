/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel interface behind an ops table (like libmount's monitor_opers):
 * the manager only sees mount events, mount summaries and per-mount records,
 * so the core never #ifdefs on the kernel interface. backend-watchqueue.c is
 * the watch_mount(2) + fsinfo(2) backend; others can be added later.
 */
#ifndef MOUNTWATCH_BACKEND_H
#define MOUNTWATCH_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "mount-info.h"

typedef enum MountEventType {
	/* The kernel's enum mount_notification_subtype, same numbers. */
	MOUNT_EVENT_NEW_MOUNT = 0,
	MOUNT_EVENT_UNMOUNT = 1,
	MOUNT_EVENT_EXPIRY = 2,
	MOUNT_EVENT_READONLY = 3,
	MOUNT_EVENT_SETATTR = 4,
	MOUNT_EVENT_MOVE_FROM = 5,
	MOUNT_EVENT_MOVE_TO = 6,
	/* Queue meta events. */
	MOUNT_EVENT_LOSS = 100,         /* records were lost: resync */
	MOUNT_EVENT_WATCH_REMOVED = 101, /* the watched object went away */
} MountEventType;

typedef struct MountEvent {
	MountEventType type;
	uint64_t triggered_on; /* unique ID; the parent for topology events */
	uint64_t auxiliary;    /* unique ID of the child for topology events */
	uint32_t flags;        /* NOTIFY_MOUNT_* info flags */
} MountEvent;

/* One element of the full listing used by resync (fsinfo MOUNT_ALL). */
typedef struct MountSummary {
	uint64_t unique_id;
	uint32_t mnt_id;
	uint32_t parent_id;
	uint64_t notify_sum;
} MountSummary;

typedef struct Backend Backend;

typedef struct BackendOps {
	const char *name;
	/* Creates the queue, sets its filter and arms the watch on path. */
	int (*open)(Backend **ret, const char *path, unsigned queue_size);
	Backend *(*close)(Backend *b);
	int (*get_fd)(Backend *b);
	/*
	 * Reads up to n_max events without blocking. Returns the number read,
	 * 0 once the queue is empty.
	 */
	int (*read_events)(Backend *b, MountEvent *events, size_t n_max);
	/* Every mount connected to the watched path. */
	int (*list_all)(Backend *b, MountSummary **ret, size_t *ret_n);
	/* The children of one mount. */
	int (*list_children)(Backend *b, uint64_t unique_id, MountSummary **ret, size_t *ret_n);
	/*
	 * The full record of one mount; -ENOENT if it is gone. The kernel names
	 * the parent by its 32-bit ID only: parent_unique_id is left 0 for the
	 * manager to resolve (it usually knows it without asking).
	 */
	int (*query_mount)(Backend *b, uint64_t unique_id, MountInfo *ret);
	/* The unique ID of a mount given its 32-bit ID (may cost O(mounts)). */
	int (*resolve_mnt_id)(Backend *b, uint32_t mnt_id, uint64_t *ret);
} BackendOps;

/* Every backend object starts with this. */
struct Backend {
	const BackendOps *ops;
};

extern const BackendOps backend_watchqueue_ops;

/* NULL-terminated list of the product's backends, the default first. */
extern const BackendOps *const backend_table[];
const BackendOps *backend_find(const char *name);

#endif
