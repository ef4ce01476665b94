/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmountwatch: follow the mount table below a path, with the best interface
 * the running kernel has, from any event loop.
 *
 * A watcher keeps an exact copy of the mounts at and below a path. It arms the
 * kernel's notifications first and takes its snapshot after, so nothing that
 * happens meanwhile is missed. Give mw_watcher_get_fd() to your event loop
 * (poll for POLLIN), call mw_watcher_process() when it is readable or when the
 * deadline of mw_watcher_get_timeout() has passed; each change is handed to
 * the callback of mw_watcher_set_change_fn() after the copy is updated.
 *
 * Backends (chosen by mw_watcher_new(), "auto" takes the first that works):
 *   "watch_queue"  watch_mount(2) + fsinfo(2) (the mountwatch kernel series):
 *                  every kind of change, O(1) per change; after a loss only
 *                  the mounts whose kernel counters differ are re-read.
 *   "fanotify"     fanotify mount events + statmount/listmount (Linux >= 6.15):
 *                  O(1) for attach, detach and move; attribute changes are
 *                  found by re-reading every mount (O(N)) when
 *                  /proc/self/mountinfo signals a change.
 *   "mountinfo"    any kernel: /proc/self/mountinfo re-read and compared on
 *                  every change (O(N)). Unique IDs come from statmount(2)
 *                  where the kernel has it, else the library assigns them
 *                  (64-bit with the top bit set, never reused by one watcher).
 *
 * Rules for every function: an int result is 0 (or a documented count) on
 * success and a negative errno on failure; out-parameters are set only on
 * success. Strings and records returned as const pointers belong to the
 * watcher and stay valid until the next call of mw_watcher_process(),
 * mw_watcher_resync(), mw_watcher_reopen() or mw_watcher_free() on it.
 * A watcher is not thread-safe: use it from one thread.
 */
#ifndef MOUNTWATCH_MOUNTWATCH_H
#define MOUNTWATCH_MOUNTWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mw_watcher mw_watcher;

/* Propagation types (the Propagation field), numbered as fsinfo's MOUNT_PROPAGATION_*. */
enum mw_propagation {
	MW_PROPAGATION_UNKNOWN = 0,
	MW_PROPAGATION_UNBINDABLE = 1,
	MW_PROPAGATION_PRIVATE = 2,
	MW_PROPAGATION_SLAVE = 3,
	MW_PROPAGATION_SHARED = 4,
};

/* One mount. The strings are never NULL in records a watcher returns. */
struct mw_mount {
	uint64_t unique_id;        /* 64-bit, never reused (statmount's mnt_id) */
	uint32_t mnt_id;           /* the 32-bit ID of /proc/self/mountinfo */
	uint64_t parent_unique_id; /* 0: the parent is not below the watched path */
	uint32_t parent_id;
	char *mount_point;
	char *root;                /* the mounted directory inside its filesystem */
	char *source;
	char *fstype;
	char *super_options;       /* the superblock's options */
	uint64_t attributes;       /* MOUNT_ATTR_* */
	uint32_t propagation;      /* enum mw_propagation */
	uint32_t peer_group;
	uint32_t master_group;
	uint64_t superblock_id;
	uint32_t dev_major;
	uint32_t dev_minor;
	/*
	 * ChangeCount. watch_queue: the kernel's mnt_notify_sum (changes at or
	 * below the mount, kept current from the events). Other backends: the
	 * number of changes this watcher applied to the mount.
	 */
	uint64_t notify_sum;
};

/* The fields of struct mw_mount as changes name them (1 << MW_FIELD_*). */
enum mw_field {
	MW_FIELD_UNIQUE_ID,
	MW_FIELD_MOUNT_ID,
	MW_FIELD_PARENT_UNIQUE_ID,
	MW_FIELD_PARENT_ID,
	MW_FIELD_MOUNT_POINT,
	MW_FIELD_ROOT,
	MW_FIELD_SOURCE,
	MW_FIELD_FS_TYPE,
	MW_FIELD_OPTIONS,       /* derived from attributes: mountinfo's field 6 */
	MW_FIELD_SUPER_OPTIONS,
	MW_FIELD_ATTRIBUTES,
	MW_FIELD_READ_ONLY,     /* derived from attributes */
	MW_FIELD_PROPAGATION,
	MW_FIELD_PEER_GROUP,
	MW_FIELD_MASTER_GROUP,
	MW_FIELD_SUPERBLOCK_ID,
	MW_FIELD_DEVICE,
	MW_FIELD_CHANGE_COUNT,
	_MW_FIELD_MAX,
};

enum mw_change_type {
	MW_CHANGE_ADDED,      /* a mount appeared: mount */
	MW_CHANGE_REMOVED,    /* a mount went: unique_id, mount_point (where it was) */
	MW_CHANGE_MOVED,      /* a mount moved: mount, fields (MOUNT_POINT, PARENT_* ...) */
	MW_CHANGE_CHANGED,    /* a mount's attributes changed: mount, fields */
	MW_CHANGE_SUPERBLOCK, /* a superblock changed (remount): unique_id = its superblock ID;
				 CHANGED follows for each of its mounts whose record changed */
	MW_CHANGE_LOST,       /* the kernel dropped notifications: a resync follows in the same
				 mw_watcher_process() call */
	MW_CHANGE_RESYNCED,   /* a resync ended: resync says what it changed */
};

struct mw_resync_stats {
	unsigned added, removed, changed;
	unsigned requeried; /* mounts whose record had to be read again */
};

struct mw_change {
	enum mw_change_type type;
	uint64_t unique_id;            /* the mount (SUPERBLOCK: the superblock), else 0 */
	const struct mw_mount *mount;  /* the record now: ADDED, MOVED, CHANGED; else NULL */
	const char *mount_point;       /* ADDED, MOVED, CHANGED: the mount's; REMOVED: where it was */
	uint32_t fields;               /* MOVED, CHANGED: 1 << MW_FIELD_* of what differs */
	const struct mw_resync_stats *resync; /* RESYNCED */
};

/* Called after the watcher's copy reflects the change. c and what it points to are the watcher's. */
typedef void (*mw_change_fn)(mw_watcher *w, const struct mw_change *c, void *userdata);

/*
 * Opens a watcher on the mounts at and below path (absolute). backend is NULL
 * or "auto" (the first of watch_queue, fanotify, mountinfo that this kernel
 * has), or a backend's name. queue_size is the kernel queue's length where the
 * backend has one (0: its default). The watch is armed, then the snapshot taken.
 * Returns 0 and the new watcher in *ret (free with mw_watcher_free()); -EINVAL
 * for a bad path or an unknown backend name; -EOPNOTSUPP if the named backend
 * (or, for auto, none) works on this kernel — mw_watcher_probe() says why.
 */
int mw_watcher_new(mw_watcher **ret, const char *path, const char *backend, unsigned queue_size);

/* Closes the watch and frees w and everything it returned. Returns NULL. */
mw_watcher *mw_watcher_free(mw_watcher *w);

/*
 * Why backend (NULL/"auto": every backend, in order) can or cannot run here:
 * a malloc'ed text, one line per backend ("fanotify: ok", "watch_queue:
 * watch_mount(2) missing (ENOSYS)"), for the caller to free. Returns 0, or
 * -ENOMEM / -EINVAL (unknown name).
 */
int mw_watcher_probe(const char *backend, char **ret);

/*
 * Watches another path or with another backend: opens the new watch first
 * (on failure w is unchanged), then resynchronises, announcing the
 * differences (if that fails, it is retried as after a loss: see
 * mw_watcher_get_resync_error()). Returns 0 or a negative errno as
 * mw_watcher_new().
 */
int mw_watcher_reopen(mw_watcher *w, const char *path, const char *backend, unsigned queue_size);

/* The backend in use ("watch_queue", "fanotify", "mountinfo"); the watcher's string. */
const char *mw_watcher_get_backend(const mw_watcher *w);
/* Why it was chosen: one line per backend tried, as mw_watcher_probe(); the watcher's string. */
const char *mw_watcher_get_backend_reason(const mw_watcher *w);
/* The watched path, normalised; the watcher's string. */
const char *mw_watcher_get_path(const mw_watcher *w);

/* Installs the change callback (NULL: none). Changes during mw_watcher_new() are never announced. */
void mw_watcher_set_change_fn(mw_watcher *w, mw_change_fn fn, void *userdata);

/* The fd to poll for POLLIN; owned by w. */
int mw_watcher_get_fd(const mw_watcher *w);

/*
 * The CLOCK_MONOTONIC time (microseconds) by which mw_watcher_process() must
 * be called even if the fd stays quiet (a move whose second half the kernel
 * has not posted yet), or UINT64_MAX for none.
 */
uint64_t mw_watcher_get_timeout(const mw_watcher *w);

/*
 * Reads what the kernel posted, applies it and calls the change callback for
 * each change. Never blocks. Reads at most a few hundred records per call, so
 * that a storm of changes cannot starve the caller's other work: when it
 * stops early, mw_watcher_get_timeout() returns a time already passed (call
 * again once the loop has served the rest). After a loss it applies nothing
 * more of what is queued (the records behind the loss are dropped) and
 * resynchronises. Returns the number of changes announced (>= 0); -ENOLINK
 * if the watched mount went away (the watcher is then useless: free it);
 * another negative errno if reading failed or the resynchronisation failed
 * (it is retried: see mw_watcher_get_resync_error()).
 */
int mw_watcher_process(mw_watcher *w);

/*
 * Compares the copy with the kernel's table and repairs it: announces each
 * difference as a change, then MW_CHANGE_RESYNCED. Returns 0 with the counts
 * in *ret (may be NULL), or a negative errno.
 */
int mw_watcher_resync(mw_watcher *w, struct mw_resync_stats *ret);

/*
 * 0 while the copy is current. After a resynchronisation failed (or could
 * not query every mount), its negative errno until one succeeds: the copy
 * may then miss changes. mw_watcher_process() retries after 0.1 s, then
 * after twice as long each time, up to 10 s; mw_watcher_get_timeout()
 * includes the time of the next retry.
 */
int mw_watcher_get_resync_error(const mw_watcher *w);

/* The number of mounts in the copy. */
size_t mw_watcher_count(const mw_watcher *w);

/* One mount's record by unique ID; NULL if the copy has none. The watcher's. */
const struct mw_mount *mw_watcher_get_mount(const mw_watcher *w, uint64_t unique_id);

/*
 * The topmost mount at mount_point (absolute; "//a/./b/" is "/a/b"); NULL if
 * nothing is mounted there or the path is not absolute. The watcher's.
 */
const struct mw_mount *mw_watcher_get_mount_by_path(const mw_watcher *w, const char *mount_point);

/*
 * Iterates the copy, in no order: start with *i = 0; returns 1 with *ret set,
 * 0 at the end. No other call on w between the steps.
 */
int mw_watcher_iterate(const mw_watcher *w, size_t *i, const struct mw_mount **ret);

/*
 * A copy of every record, for the caller: *ret is an array of *ret_n records
 * (sorted by mount point) to free with mw_mounts_free(). Returns 0 or -ENOMEM.
 */
int mw_watcher_snapshot(const mw_watcher *w, struct mw_mount **ret, size_t *ret_n);
/* Frees what mw_watcher_snapshot() returned. Returns NULL. */
struct mw_mount *mw_mounts_free(struct mw_mount *mounts, size_t n);

struct mw_stats {
	uint64_t generation; /* changes announced since mw_watcher_new() */
	uint64_t events;     /* kernel records read */
	uint64_t overruns;   /* losses */
	uint64_t resyncs;
	struct mw_resync_stats last_resync;
};
/* Fills *ret. */
void mw_watcher_get_stats(const mw_watcher *w, struct mw_stats *ret);

/* "MountPoint", ... : the field's name (the D-Bus property's); NULL if out of range. */
const char *mw_field_name(unsigned field);
/* "shared", "private", "slave", "unbindable", or "unknown". */
const char *mw_propagation_name(uint32_t propagation);
/*
 * The per-mount options as mountinfo's field 6 shows them ("rw,nosuid,relatime")
 * into buf. Returns 0, or -ENOBUFS if size is too small.
 */
int mw_mount_options(const struct mw_mount *m, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
