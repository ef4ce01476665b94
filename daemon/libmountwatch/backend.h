/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel interface behind an ops table (like libmount's monitor_opers):
 * the watcher only sees mount events, mount summaries and per-mount records,
 * so the core never #ifdefs on the kernel interface. backend-watchqueue.c is
 * the watch_mount(2) + fsinfo(2) backend, backend-fanotify.c the fanotify +
 * statmount one, backend-mountinfo.c the /proc/self/mountinfo one.
 * ../../notes/backend-ops.md (outside the repository) was the agreement.
 */
#ifndef MOUNTWATCH_BACKEND_H
#define MOUNTWATCH_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mount-info.h"

/*
 * How often the backends whose kernel interface says nothing of a
 * propagation change (fanotify, mountinfo: mount --make-shared posts no
 * event and no mountinfo change) look for one themselves: a mountinfo
 * read and compare, O(mounts). At 10,000 mounts that is one 13 ms re-read
 * (README's table) every 5 s, about 0.3% of a core; at 100 mounts, nothing
 * to measure.
 */
#define PROPAGATION_VERIFY_USEC (5 * 1000000ULL)
/*
 * ... 5 s after a change; each verification that finds nothing, with no
 * change in its window, doubles the wait, up to this (5, 10, 20, 40, 60 s):
 * on an idle system a re-read a minute, not 12 (resync-bench's idle CPU
 * at 10,000 mounts: tests/bench/measurements.md, 2026-12-06). The price:
 * a propagation change alone on a system idle for minutes is announced up
 * to 60 s late; one made within a minute of any other change, as mount(8)
 * and systemd make them (mount, then --make-*), still within 5 s to 10 s.
 */
#define PROPAGATION_VERIFY_MAX_USEC (60 * 1000000ULL)

typedef enum MountEventType {
	/* The kernel's enum mount_notification_subtype, same numbers. */
	MOUNT_EVENT_NEW_MOUNT = 0,
	MOUNT_EVENT_UNMOUNT = 1,
	MOUNT_EVENT_EXPIRY = 2,
	MOUNT_EVENT_READONLY = 3,
	MOUNT_EVENT_SETATTR = 4,
	MOUNT_EVENT_MOVE_FROM = 5,
	MOUNT_EVENT_MOVE_TO = 6,
	/* triggered_on: one mount of the superblock; auxiliary: the superblock's ID. */
	MOUNT_EVENT_SB_CHANGED = 7,
	/*
	 * Events of backends whose kernel names no parent (auxiliary is the
	 * mount, triggered_on 0): a mount appeared (or, known, changed place) ...
	 */
	MOUNT_EVENT_ATTACH = 8,
	/* ... went away (with what the table has below it) ... */
	MOUNT_EVENT_DETACH = 9,
	/* ... moved within the namespace. */
	MOUNT_EVENT_MOVED = 10,
	/* Something changed, the backend cannot say what: re-read every mount. */
	MOUNT_EVENT_RESCAN = 11,
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

enum {
	/*
	 * notify_sum is the kernel's mnt_notify_sum: resync compares sums and
	 * the watcher mirrors the kernel's counting rule (counters.c).
	 */
	BACKEND_COUNTERS = 1U << 0,
	/*
	 * A move is reported for every mount whose mount point changed, not
	 * only for the one that moved: the watcher does not rewrite the
	 * descendants' points itself (the backend's are exact).
	 */
	BACKEND_MOVES_EACH = 1U << 1,
	/*
	 * A superblock change is one MOUNT_EVENT_SB_CHANGED (the kernel's
	 * NOTIFY_MOUNT_SB_CHANGED): the watcher updates every mount of that
	 * superblock from one query, and a change of one mount never makes it
	 * re-read the others.
	 */
	BACKEND_SB_EVENTS = 1U << 2,
	/*
	 * Every mount of a tree that moves is reported on its own (the
	 * kernel's MOVE_TO for each mount below a moved one), so a tree moved
	 * in from outside the watch needs no listing of its children. Not
	 * BACKEND_MOVES_EACH alone: mountinfo reports a mount whose point
	 * changed, not the unchanged children of one that came back.
	 */
	BACKEND_MOVES_SUBTREE = 1U << 3,
	/*
	 * The kernel says when the watched mount goes away (watch_queue's
	 * removal notification, MOUNT_EVENT_WATCH_REMOVED). Without it the
	 * watcher looks for that mount itself: a DETACH or UNMOUNT naming it,
	 * or a listing without it (watcher_watch_gone()).
	 */
	BACKEND_WATCH_REMOVAL = 1U << 4,
};

/*
 * One element of the full listing used by resync. unique_id always; the
 * rest only with BACKEND_COUNTERS (else 0: every mount is queried).
 */
typedef struct MountSummary {
	uint64_t unique_id;
	uint32_t mnt_id;
	uint32_t parent_id;
	uint64_t notify_sum;
} MountSummary;

typedef struct Backend Backend;

typedef struct BackendOps {
	const char *name;
	unsigned flags; /* BACKEND_* */
	/*
	 * Creates the queue, sets its filter and arms the watch on path.
	 * -EOPNOTSUPP if this kernel lacks the interface, with a one-line reason
	 * (static) in *why; any other negative errno is a real failure.
	 */
	int (*open)(Backend **ret, const char *path, unsigned queue_size, const char **why);
	Backend *(*close)(Backend *b);
	/*
	 * Optional: whether open() could work here, opening only what that
	 * takes (mw_watcher_probe(), e.g. a unit's ExecCondition, must not
	 * parse the mount table). As open(): 0, or -EOPNOTSUPP with *why.
	 * Without it, probing opens and closes the backend.
	 */
	int (*probe)(const char **why);
	/* One fd, readable (POLLIN) when read_events may return something. */
	int (*get_fd)(Backend *b);
	/*
	 * Reads up to n_max events without blocking. Returns the number read,
	 * 0 once the queue is empty.
	 */
	int (*read_events)(Backend *b, MountEvent *events, size_t n_max);
	/* Every mount connected to the watched path (the watcher filters by path). */
	int (*list_all)(Backend *b, MountSummary **ret, size_t *ret_n);
	/*
	 * Optional: what a resync of a watcher on path lists instead of
	 * list_all, so that its cost follows the watched subtree, not the
	 * namespace: at least top (the mount path is on), top's parent (the
	 * watcher keeps it as top's parent), and every mount below top that is
	 * at or below path; more is allowed (the watcher filters by path).
	 * -ENOENT if top is gone.
	 */
	int (*list_subtree)(Backend *b, uint64_t top, const char *path, MountSummary **ret, size_t *ret_n);
	/* Optional: the children of one mount. */
	int (*list_children)(Backend *b, uint64_t unique_id, MountSummary **ret, size_t *ret_n);
	/*
	 * The full record of one mount; -ENOENT if it is gone. A backend that
	 * knows the parent's unique ID sets parent_unique_id; 0 leaves it to the
	 * watcher to resolve from parent_id (it usually knows without asking).
	 *
	 * same_sb, if not NULL, is a mount in the watcher's table (so its
	 * superblock lives: a live superblock's device is its own), given only
	 * for a mount new to the table, whose counters the watcher knows
	 * already. If the queried mount has the same device, a backend may
	 * copy superblock_id from it and leave notify_sum 0 instead of asking
	 * the kernel: the 2,000th bind of a filesystem costs no superblock
	 * query.
	 */
	int (*query_mount)(Backend *b, uint64_t unique_id, const MountInfo *same_sb, MountInfo *ret);
	/* Optional: the unique ID of a mount given its 32-bit ID (may cost O(mounts)). */
	int (*resolve_mnt_id)(Backend *b, uint32_t mnt_id, uint64_t *ret);
} BackendOps;

/* Every backend object starts with this. */
struct Backend {
	const BackendOps *ops;
};

extern const BackendOps backend_watchqueue_ops;
extern const BackendOps backend_fanotify_ops;
extern const BackendOps backend_mountinfo_ops;

/* NULL-terminated list of the product's backends, in the order "auto" tries them. */
extern const BackendOps *const backend_table[];
const BackendOps *backend_find(const char *name);

/* Whether path is prefix or below it (prefix normalised); *rest: what follows prefix. */
bool path_has_prefix(const char *path, const char *prefix, const char **rest);

#endif
