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
 * success. Strings and objects returned as const pointers belong to the
 * watcher and stay valid until the next call of mw_watcher_process(),
 * mw_watcher_resync(), mw_watcher_reopen() or mw_watcher_free() on it.
 * Objects are opaque (libmount style) so that they can grow without a new
 * soname. A watcher is not thread-safe: use each from one thread; distinct
 * watchers may be used from distinct threads. The library never prints
 * (mw_set_log_fn()) and never aborts; an allocation failure is -ENOMEM.
 */
#ifndef MOUNTWATCH_MOUNTWATCH_H
#define MOUNTWATCH_MOUNTWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mw_watcher mw_watcher;
/*
 * One mount of the watcher's copy. Opaque: read it with the mw_mount_get_*()
 * getters. Owned by the watcher; valid until the next mw_watcher_process(),
 * mw_watcher_resync(), mw_watcher_reopen() or mw_watcher_free(), unless the
 * caller takes a reference with mw_mount_ref().
 */
typedef struct mw_mount mw_mount;
/* One change, handed to the change callback; valid only during the callback. */
typedef struct mw_change mw_change;

/* Propagation types (the Propagation field), numbered as fsinfo's MOUNT_PROPAGATION_*. */
enum mw_propagation {
	MW_PROPAGATION_UNKNOWN = 0,
	MW_PROPAGATION_UNBINDABLE = 1,
	MW_PROPAGATION_PRIVATE = 2,
	MW_PROPAGATION_SLAVE = 3,
	MW_PROPAGATION_SHARED = 4,
};

/*
 * The fields of a mount as changes name them (1 << MW_FIELD_*). New fields
 * are added before _MW_FIELD_MAX, which therefore grows between releases:
 * size nothing by it that crosses the library's boundary.
 */
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
	MW_FIELD_USER_OPTIONS,  /* /run/mount/utab's options for the mount */
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
	MW_CHANGE_RESYNCED,   /* a resync ended: mw_change_get_resync() says what it changed */
};

/*
 * What one resync changed. Frozen for soname 0: these four counts and their
 * order never change (a new count gets a getter of its own, see
 * libmountwatch(3)), so callers may declare it on their stack.
 */
struct mw_resync_stats {
	unsigned added, removed, changed;
	unsigned requeried; /* mounts whose record had to be read again */
};

/*
 * Called after the watcher's copy reflects the change; c and what it points
 * to are the watcher's, valid during the call. Inside it, mw_watcher_process(),
 * mw_watcher_resync() and mw_watcher_reopen() return -EBUSY, and
 * mw_watcher_free() is deferred until the callback returns (the running
 * mw_watcher_process() then returns -ECANCELED); every getter may be called.
 */
typedef void (*mw_change_fn)(mw_watcher *w, const mw_change *c, void *userdata);

/* ---- the watcher ---- */

/*
 * Opens a watcher on the mounts at and below path (absolute). backend is NULL
 * or "auto" (the first of watch_queue, fanotify, mountinfo that this kernel
 * has), or a backend's name. queue_size is the kernel queue's length where the
 * backend has one (0: its default; at most MW_QUEUE_SIZE_MAX on every
 * backend). The watch is armed, then the snapshot taken.
 * Returns 0 and the new watcher in *ret (free with mw_watcher_free()); -EINVAL
 * for a NULL ret, a path that is NULL or not absolute, an unknown backend name
 * or a queue_size above MW_QUEUE_SIZE_MAX; the path's own error (-ENOENT,
 * -ENOTDIR, -ENAMETOOLONG, -EACCES ...) if it cannot be resolved, -ENOTDIR if
 * it is not a directory (as watch_mount(2) requires); -EOPNOTSUPP if
 * the named backend (or, for auto, none) works on this kernel —
 * mw_watcher_probe() says why. The same arguments give the same error on
 * every backend.
 */
#define MW_QUEUE_SIZE_MAX 512 /* the kernel's largest notification queue (watch_queue) */
int mw_watcher_new(mw_watcher **ret, const char *path, const char *backend, unsigned queue_size);

/*
 * As mw_watcher_new(), in the mount namespace of mntns_fd (an nsfs fd, as
 * open("/proc/PID/ns/mnt") gives; -1: the caller's), as libmount's
 * mnt_monitor_enable_fanotify(mn, enable, ns_fd). path is resolved there,
 * and utab is that namespace's. The calling thread enters the namespace
 * while the watch is opened (and reopened) and returns to its own; that
 * needs CAP_SYS_ADMIN, and a thread that shares filesystem attributes with
 * others has them unshared (unshare(CLONE_FS)). Later calls ask the kernel
 * about that namespace by its ID. -EINVAL if mntns_fd is not a mount
 * namespace; -EBADF if it is not an open fd (or below -1); -EOPNOTSUPP on a
 * kernel that cannot name one (before 6.11).
 */
int mw_watcher_new_ns(mw_watcher **ret, int mntns_fd, const char *path, const char *backend,
		      unsigned queue_size);

/* Closes the watch and frees w (refs taken with mw_mount_ref() stay). Returns NULL. */
mw_watcher *mw_watcher_free(mw_watcher *w);

/*
 * Why backend (NULL/"auto": every backend, in order) can or cannot run here:
 * a malloc'ed text, one line per backend ("fanotify: ok", "watch_queue:
 * watch_mount(2) missing (ENOSYS)"), for the caller to free. Returns 0, or
 * -ENOMEM / -EINVAL (unknown name).
 */
int mw_watcher_probe(const char *backend, char **ret);

/* Whether name is "auto" or the name of a backend this library has (it may not work here). */
bool mw_backend_name_is_valid(const char *name);

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
 * if the watched mount went away, on every backend (each mount of the copy
 * is announced REMOVED first; the copy is then empty and every later
 * process or resync returns -ENOLINK: free the watcher or reopen it);
 * -EBUSY from inside the change callback; another negative errno if reading
 * failed or the resynchronisation failed (it is retried: see
 * mw_watcher_get_resync_error()).
 */
int mw_watcher_process(mw_watcher *w);

/*
 * Compares the copy with the kernel's table and repairs it: announces each
 * difference as a change, then MW_CHANGE_RESYNCED. Returns 0 with the counts
 * in *ret (may be NULL), -EBUSY from inside the change callback, -ENOLINK
 * if the watched mount went away (as mw_watcher_process()), or another
 * negative errno. Reads only the watched subtree where the backend can
 * (libmountwatch(3)).
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

/* One mount by unique ID; NULL if the copy has none. */
const mw_mount *mw_watcher_get_mount(const mw_watcher *w, uint64_t unique_id);

/*
 * The topmost mount at mount_point: the raw bytes of an absolute path (as
 * the kernel has it, not escaped; "//a/./b/" is "/a/b"); NULL if nothing is
 * mounted there or the path is not absolute.
 */
const mw_mount *mw_watcher_get_mount_by_path(const mw_watcher *w, const char *mount_point);

/*
 * Iterates the copy, in no order: start with *i = 0; returns 1 with *ret set,
 * 0 at the end. No other call on w between the steps.
 */
int mw_watcher_iterate(const mw_watcher *w, size_t *i, const mw_mount **ret);

/* Statistics, each since mw_watcher_new(). */
uint64_t mw_watcher_get_generation(const mw_watcher *w); /* changes announced */
uint64_t mw_watcher_get_events(const mw_watcher *w);     /* kernel records read */
uint64_t mw_watcher_get_overruns(const mw_watcher *w);   /* losses */
uint64_t mw_watcher_get_resyncs(const mw_watcher *w);
/* What the last resync changed (all 0 before the first); the watcher's record. */
const struct mw_resync_stats *mw_watcher_get_last_resync(const mw_watcher *w);

/*
 * One slot for a helper's state (mountwatch-sd-event.h keeps its event
 * sources there): destroy(data) is called when the slot is set again or the
 * watcher is freed. NULL data empties it.
 */
void mw_watcher_set_attachment(mw_watcher *w, void *data, void (*destroy)(void *data));
void *mw_watcher_get_attachment(const mw_watcher *w);

/* ---- a mount ---- */

/*
 * Strings are never NULL ("" when absent) and are the kernel's raw bytes,
 * not escaped: a mount point may hold any byte but NUL, invalid UTF-8, a
 * newline or a backslash. Escape them where they are shown.
 */
uint64_t mw_mount_get_unique_id(const mw_mount *m);        /* 64-bit, never reused */
uint32_t mw_mount_get_mount_id(const mw_mount *m);         /* the 32-bit ID of mountinfo */
uint64_t mw_mount_get_parent_unique_id(const mw_mount *m); /* 0: the parent is not watched */
uint32_t mw_mount_get_parent_id(const mw_mount *m);
const char *mw_mount_get_mount_point(const mw_mount *m);
const char *mw_mount_get_root(const mw_mount *m);          /* the mounted directory in its filesystem */
const char *mw_mount_get_source(const mw_mount *m);
const char *mw_mount_get_fstype(const mw_mount *m);
const char *mw_mount_get_options(const mw_mount *m);       /* per-mount VFS options: mountinfo's field 6 */
const char *mw_mount_get_super_options(const mw_mount *m); /* the superblock's: mountinfo's field 11 */
const char *mw_mount_get_user_options(const mw_mount *m);  /* /run/mount/utab's, "" if none */
uint64_t mw_mount_get_attributes(const mw_mount *m);       /* MOUNT_ATTR_* */
bool mw_mount_is_read_only(const mw_mount *m);
uint32_t mw_mount_get_propagation(const mw_mount *m);      /* enum mw_propagation */
uint32_t mw_mount_get_peer_group(const mw_mount *m);
uint32_t mw_mount_get_master_group(const mw_mount *m);
uint64_t mw_mount_get_superblock_id(const mw_mount *m);
dev_t mw_mount_get_device(const mw_mount *m);
/*
 * ChangeCount. watch_queue: the kernel's mnt_notify_sum (changes at or below
 * the mount). Other backends: the number of changes this watcher applied to it.
 */
uint64_t mw_mount_get_change_count(const mw_mount *m);

/*
 * Takes a reference: m then outlives the watcher's next process() and its
 * free(). While the watcher keeps the mount, the getters return its current
 * values (strings read before a process() may be gone after it); once the
 * watcher drops it, the values stay those it last had. NULL-safe.
 */
mw_mount *mw_mount_ref(mw_mount *m);
/* Drops a reference taken with mw_mount_ref(). NULL-safe; returns NULL. */
mw_mount *mw_mount_unref(mw_mount *m);

/* ---- a change (in the callback) ---- */

enum mw_change_type mw_change_get_type(const mw_change *c);
/* The mount (SUPERBLOCK: the superblock), else 0. */
uint64_t mw_change_get_unique_id(const mw_change *c);
/* The mount now: ADDED, MOVED, CHANGED; NULL for REMOVED, SUPERBLOCK, LOST, RESYNCED. */
const mw_mount *mw_change_get_mount(const mw_change *c);
/* ADDED, MOVED, CHANGED: the mount's point; REMOVED: where it was; else "". Raw bytes. */
const char *mw_change_get_mount_point(const mw_change *c);
/* MOVED, CHANGED: 1 << MW_FIELD_* of what differs; else 0. */
uint32_t mw_change_get_fields(const mw_change *c);
/* RESYNCED: what the resync changed; else NULL. */
const struct mw_resync_stats *mw_change_get_resync(const mw_change *c);

/* ---- names ---- */

/* "MountPoint", ... : the field's name; NULL if out of range. */
const char *mw_field_name(unsigned field);
/* "shared", "private", "slave", "unbindable", or "unknown". */
const char *mw_propagation_name(uint32_t propagation);

/* ---- logging ---- */

/*
 * The library prints nothing. fn, if set, receives its debug messages (one
 * line each, no newline; level as syslog's LOG_*); the environment variable
 * MOUNTWATCH_DEBUG=all (or 1) sends them to stderr when no fn is set.
 * Process-wide; set it before creating watchers.
 */
typedef void (*mw_log_fn)(int level, const char *message, void *userdata);
void mw_set_log_fn(mw_log_fn fn, void *userdata);

#ifdef __cplusplus
}
#endif

#endif
