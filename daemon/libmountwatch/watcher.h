/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The watcher inside: struct mw_watcher and the functions the library's
 * modules share. watcher.c is the public API (lifecycle, batches, the
 * backend choice), apply.c applies events and resyncs to the table,
 * counters.c mirrors the kernel's counters.
 */
#ifndef MOUNTWATCH_WATCHER_H
#define MOUNTWATCH_WATCHER_H

#include <stdbool.h>
#include <stdint.h>

#include "mountwatch/mountwatch.h"

#include "backend.h"
#include "counters.h"
#include "table.h"
#include "utab.h"

/* One change as the callback sees it (mw_change_get_*()). */
struct mw_change {
	enum mw_change_type type;
	uint64_t unique_id;
	const Mount *mount;
	const char *mount_point;
	uint32_t fields;
	const struct mw_resync_stats *resync;
};

struct mw_watcher {
	Backend *backend;
	char *path;
	unsigned queue_size;
	char *backend_reason;
	Table *table;
	CounterMirror mirror;

	uint64_t generation, events, overruns, resyncs;
	struct mw_resync_stats last_resync;
	unsigned announced; /* changes announced by the current mw_watcher_process() */
	uint64_t last_new;  /* the last mount a NEW_MOUNT added: its superblock for the next (same_sb) */
	bool quiet;         /* taking the first snapshot: announce nothing */

	/* The batch: events read since the last end of a batch. */
	bool resync_pending;
	/*
	 * A failed resync: its negative errno (0: none failed since the last
	 * that succeeded), when it is retried and the delay before the next.
	 */
	int resync_error;
	uint64_t resync_due, resync_backoff;
	uint64_t *detached; /* unique IDs moved away during this batch */
	size_t n_detached, n_detached_alloc;
	bool waited;       /* this batch already waited for a MOVE_TO */
	uint64_t deadline; /* CLOCK_MONOTONIC usec; UINT64_MAX: none */
	/*
	 * The counters since the last resync (BACKEND_COUNTERS): the records
	 * that were in the queue when it listed the mounts are counted in the
	 * listing and mirrored again when read, and nothing tells them from
	 * the records posted after it. So the sums may be too high (never too
	 * low: no mount that changed is skipped) until a listing taken with
	 * the queue empty finds it still empty after: watcher_verify(), at
	 * the end of a batch that found the queue empty, once verify_due has come.
	 */
	bool sums_unsure;
	uint64_t verify_due, verify_backoff;

	mw_change_fn change_fn;
	void *userdata;
	/*
	 * Inside the change callback: the calls that would change the table
	 * return -EBUSY, and mw_watcher_free() only sets free_pending; the
	 * public call that ran the callback frees w on its way out.
	 */
	unsigned in_callback;
	bool free_pending;

	/*
	 * /run/mount/utab (mw_watcher_new() only: the fake kernel's tests have
	 * none): its inotify fd and the backend's share epoll_fd, the fd the
	 * caller polls; utab_dirty until a change of it is applied.
	 */
	Utab utab;
	bool utab_on, utab_dirty;
	int epoll_fd;

	/*
	 * mw_watcher_new_ns(): the namespace's ID for statmount/listmount
	 * (statmount_mnt_ns_id, set around each public call that reaches the
	 * backend) and its fd for a reopen; 0 / -1: the caller's namespace.
	 */
	uint64_t mnt_ns_id;
	int mntns_fd;

	/*
	 * The mount the watched path resolved to when the watch was armed
	 * (0: unknown, or the backend says itself: BACKEND_WATCH_REMOVAL).
	 * watch_gone once it went away: every later process or resync
	 * returns -ENOLINK, the table empty, until a reopen.
	 */
	uint64_t watched_id;
	bool watch_gone;
	/*
	 * Where a resync's listing starts (list_subtree): the lowest mount of
	 * the stack the watched mount is in, so that the mounts of the lower
	 * ones, covered but at the path, are listed too. 0: list_all.
	 */
	uint64_t list_top;

	/* mw_watcher_set_attachment() */
	void *attachment;
	void (*attachment_destroy)(void *data);
};

/* A watcher on an open backend (taking it over); no snapshot yet. For tests and mw_watcher_new(). */
int watcher_new_with_backend(mw_watcher **ret, Backend *b, const char *path);
/* The first table: a resync that announces nothing; the generation stays 0. */
int watcher_snapshot(mw_watcher *w);

/* Follows /run/mount/utab (dir) from now on; its options go into each mount's record. */
int watcher_enable_utab(mw_watcher *w, const char *dir);
/* Applies a change of utab: a CHANGED (MW_FIELD_USER_OPTIONS) for each mount whose options differ. */
int watcher_utab_sync(mw_watcher *w);
/* utab's options for the mount info describes, by its place among the mounts at its mount point. */
const char *watcher_utab_options(const mw_watcher *w, const MountInfo *info);
/*
 * After a mount came to, left or moved from point: the other mounts there
 * of the same source and root may take other lines of utab (libmount gives
 * the last line to the last mount). A CHANGED for each whose options differ;
 * also_e: e itself too, whatever utab names (a moved mount's options were
 * those of the point it left).
 */
int watcher_utab_refresh(mw_watcher *w, const char *point, Mount *also_e);

/* apply.c */
bool watcher_has_counters(const mw_watcher *w);
void watcher_announce(mw_watcher *w, enum mw_change_type type, const Mount *e, uint64_t unique_id,
		      const char *mount_point, uint32_t fields, const struct mw_resync_stats *rs);
/*
 * The watched mount went away: every mount left in the table is removed
 * (children first, each announced), and from now on -ENOLINK. Returns
 * -ENOLINK, or -ENOMEM if it could not finish (the next call goes on).
 */
int watcher_watch_gone(mw_watcher *w);
/* Whether ev says the watched mount went away (any backend). */
bool watcher_event_is_watch_gone(const mw_watcher *w, const MountEvent *ev);
/* Applies one event (exposed for tests). */
int watcher_apply_event(mw_watcher *w, const MountEvent *ev);
/*
 * Reads one batch of records from the queue and applies them; after a loss
 * drops the rest unapplied (the resync that follows lists everything).
 * Returns how many were read (0: the queue was empty) or a negative errno.
 */
int watcher_read_apply(mw_watcher *w, bool *lost);
/* Ends a batch of events: drops what moved away and did not come back, resyncs if needed. */
int watcher_finish_batch(mw_watcher *w);
/*
 * announce: false for the first snapshot. A resync that fails (or could not
 * query every mount) stays pending, to be retried with a growing delay.
 */
int watcher_resync(mw_watcher *w, struct mw_resync_stats *ret, bool announce);
/*
 * With the queue just found empty: lists the mounts and, if the queue is
 * still empty, keeps the listing's sums (re-reading the mounts whose sums
 * were off); else applies the records it read and tries again later.
 */
int watcher_verify(mw_watcher *w);

/* The counters wait for watcher_verify() (not for a resync, which comes first). */
static inline bool watcher_verify_waiting(const mw_watcher *w)
{
	return w->sums_unsure && !w->resync_pending;
}

#endif
