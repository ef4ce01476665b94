/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public API of libmountwatch (include/mountwatch/mountwatch.h): the
 * watcher's lifecycle, the choice of backend, batches of events and the
 * short wait for the second half of a move, and read access to the table.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <linux/nsfs.h>

#include "log.h"
#include "ns.h"
#include "statmount.h"
#include "util.h"
#include "watcher.h"

/*
 * The kernel posts a move's MOVE_FROM and MOVE_TO back to back, but a read
 * can fall between them. Ending the batch there would drop the moved tree
 * and read it back when MOVE_TO comes: the batch stays open this long for
 * MOVE_TO instead, once per batch (mw_watcher_get_timeout()), while a mount
 * that moved away has not arrived. A mount moved out of a watched
 * subdirectory gets no MOVE_TO and is dropped after it.
 */
#define MOVE_TO_WAIT_USEC 20000

/*
 * The most records one mw_watcher_process() call reads, so that under a
 * storm the caller's event loop still serves its other work (bus calls,
 * timers, the watchdog) between calls; the timeout then says "at once".
 */
#define PROCESS_MAX_EVENTS 256

int watcher_new_with_backend(mw_watcher **ret, Backend *b, const char *path)
{
	mw_watcher *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->deadline = UINT64_MAX;
	w->backend = b;
	w->epoll_fd = -1;
	w->mntns_fd = -1;
	w->utab.inotify_fd = w->utab.dir_fd = -1;
	r = path_normalize(path, &w->path);
	if (r >= 0)
		r = table_new(&w->table);
	if (r < 0) {
		w->backend = NULL; /* stays the caller's */
		mw_watcher_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

int watcher_snapshot(mw_watcher *w)
{
	int r;

	w->quiet = true;
	r = watcher_resync(w, NULL, false);
	w->quiet = false;
	w->generation = 0;
	return r;
}

static void watcher_free_now(mw_watcher *w)
{
	mw_watcher_set_attachment(w, NULL, NULL);
	if (w->backend)
		w->backend->ops->close(w->backend);
	table_free(w->table);
	utab_done(&w->utab);
	if (w->epoll_fd >= 0)
		close(w->epoll_fd);
	if (w->mntns_fd >= 0)
		close(w->mntns_fd);
	counter_mirror_done(&w->mirror);
	free(w->detached);
	free(w->path);
	free(w->backend_reason);
	free(w);
}

_public_ mw_watcher *mw_watcher_free(mw_watcher *w)
{
	if (!w)
		return NULL;
	if (w->in_callback) {
		/* The call that runs the callback still uses w: it frees it on its way out. */
		w->free_pending = true;
		return NULL;
	}
	watcher_free_now(w);
	return NULL;
}

/*
 * The way out of a public call that may have run the change callback: if
 * the callback freed the watcher, it is freed now and the call says so.
 */
static int watcher_leave(mw_watcher *w, int r)
{
	if (!w->free_pending || w->in_callback)
		return r;
	watcher_free_now(w);
	return -ECANCELED;
}

/* "(ENOSYS)", or "(errno 1234)" for a number glibc has no name for: into f. */
static void write_errno_name(FILE *f, int e)
{
	const char *n = strerrorname_np(e);

	if (n)
		fprintf(f, "(%s)", n);
	else
		fprintf(f, "(errno %d)", e);
}

/*
 * Opens the backend name (NULL/"auto": the first that works) on path, or
 * with probe, tries each (and closes it again). Writes one line per backend
 * tried to *reason. Returns 0 with *ret set (unless probe), -EINVAL for an
 * unknown name, -EOPNOTSUPP if none works, another negative errno for a real
 * failure of the named backend.
 */
static int open_backend(const char *name, const char *path, unsigned queue_size, bool probe,
			Backend **ret, char **reason)
{
	bool any = !name || streq_ptr(name, "auto");
	_cleanup_free_ char *text = NULL;
	size_t size = 0;
	FILE *f;
	int r = -EOPNOTSUPP;

	if (!any && !backend_find(name))
		return -EINVAL;
	/* The kernel's largest watch_queue; refused the same on the backends without a queue. */
	if (queue_size > MW_QUEUE_SIZE_MAX)
		return -EINVAL;
	/*
	 * One answer for a path that is not there, or not a directory,
	 * whichever backend: some would refuse it, others arm a watch on the
	 * namespace and accept it. A directory, as watch_mount(2) requires:
	 * what hangs below a file mount is nothing to follow.
	 */
	if (!probe) {
		struct stat st;

		if (fstatat(AT_FDCWD, path, &st, AT_NO_AUTOMOUNT) < 0)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}
	f = open_memstream(&text, &size);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; backend_table[i]; i++) {
		const BackendOps *ops = backend_table[i];
		const char *why = NULL;
		Backend *b = NULL;

		if (!any && !streq_ptr(ops->name, name))
			continue;
		if (probe && ops->probe) {
			r = ops->probe(&why);
		} else {
			r = ops->open(&b, path, queue_size, &why);
			if (r >= 0 && probe)
				ops->close(b);
		}
		if (r >= 0 && probe) {
			fprintf(f, "%s: ok\n", ops->name);
			continue;
		}
		if (r >= 0) {
			fprintf(f, "%s: %s\n", ops->name, any ? "chosen: the first that works here" : "chosen by name");
			*ret = b;
			break;
		}
		if (r == -EOPNOTSUPP)
			fprintf(f, "%s: not supported by this kernel: %s\n", ops->name, why ?: "EOPNOTSUPP");
		else {
			fprintf(f, "%s: failed: %s ", ops->name, strerror(-r));
			write_errno_name(f, -r);
			fputc('\n', f);
		}
	}
	if (fclose(f) != 0) {
		if (r >= 0 && !probe)
			(*ret)->ops->close(*ret);
		return -ENOMEM;
	}
	if (r < 0 && any)
		r = -EOPNOTSUPP;
	if (size > 0 && text[size - 1] == '\n')
		text[size - 1] = 0;
	*reason = TAKE_PTR(text);
	return probe ? 0 : r;
}

_public_ int mw_watcher_probe(const char *backend, char **ret)
{
	return open_backend(backend, "/", 0, true, NULL, ret);
}

/*
 * The watcher's namespace for the kernel queries of one public call:
 * statmount_mnt_ns_id and query_mntns_fd (ns.h); ns_id_leave() restores
 * what the caller had.
 */
typedef struct NsIds {
	uint64_t mnt_ns_id;
	int mntns_fd;
} NsIds;

static NsIds ns_id_enter(const mw_watcher *w)
{
	NsIds old = { statmount_mnt_ns_id, query_mntns_fd };

	statmount_mnt_ns_id = w->mnt_ns_id;
	query_mntns_fd = w->mntns_fd;
	return old;
}

static void ns_id_leave(NsIds old)
{
	statmount_mnt_ns_id = old.mnt_ns_id;
	query_mntns_fd = old.mntns_fd;
}

/*
 * The mount the watched path resolves to now, for the backends whose kernel
 * does not say when it goes away (BACKEND_WATCH_REMOVAL): the kernel's
 * unique ID (statx, Linux 6.8) if the backend knows the mount by it, else
 * the 32-bit ID (statx, 5.8) the backend resolves. Neither: 0, and the
 * watcher cannot tell (libmountwatch(3) says so). Called in the watcher's
 * namespace.
 */
static void watcher_find_watched(mw_watcher *w)
{
	const BackendOps *ops = w->backend->ops;
	struct statx stx;
	MountInfo info = {};
	uint64_t id;

	w->watched_id = w->list_top = 0;
	w->watch_gone = false;
	if (ops->flags & BACKEND_WATCH_REMOVAL)
		return;
	if (statx(AT_FDCWD, w->path, AT_NO_AUTOMOUNT, MW_STATX_MNT_ID_UNIQUE, &stx) == 0 &&
	    (stx.stx_mask & MW_STATX_MNT_ID_UNIQUE) && ops->query_mount(w->backend, stx.stx_mnt_id, NULL, &info) >= 0) {
		mount_info_done(&info);
		w->watched_id = stx.stx_mnt_id;
	} else if (statx(AT_FDCWD, w->path, AT_NO_AUTOMOUNT, STATX_MNT_ID, &stx) == 0 &&
		   (stx.stx_mask & STATX_MNT_ID) && ops->resolve_mnt_id &&
		   ops->resolve_mnt_id(w->backend, (uint32_t)stx.stx_mnt_id, &id) >= 0) {
		w->watched_id = id;
	}
	if (!w->watched_id) {
		lib_debug("Cannot tell which mount %s is on: its going away will not be noticed.", w->path);
		return;
	}
	/* Down the stack: each mount whose parent has the same mount point is on top of it. */
	id = w->watched_id;
	if (ops->query_mount(w->backend, id, NULL, &info) < 0)
		return;
	for (unsigned depth = 0; depth < 4096 && info.parent_unique_id && info.parent_unique_id != id; depth++) {
		MountInfo p = {};

		if (ops->query_mount(w->backend, info.parent_unique_id, NULL, &p) < 0)
			break;
		if (!streq_ptr(p.mount_point, info.mount_point)) {
			mount_info_done(&p);
			break;
		}
		id = p.unique_id;
		mount_info_done(&info);
		info = p;
	}
	mount_info_done(&info);
	w->list_top = id;
}

static int watcher_new(mw_watcher **ret, int mntns_fd, uint64_t mnt_ns_id, const char *path,
		       const char *backend, unsigned queue_size)
{
	_cleanup_free_ char *reason = NULL;
	mw_watcher *w;
	Backend *b = NULL;
	NsSaved saved;
	int r;

	if (!ret || !path || path[0] != '/')
		return -EINVAL;
	r = ns_enter(mntns_fd, &saved);
	if (r < 0)
		return r;
	statmount_mnt_ns_id = mnt_ns_id;
	r = open_backend(backend, path, queue_size, false, &b, &reason);
	if (r >= 0) {
		r = watcher_new_with_backend(&w, b, path);
		if (r < 0)
			b->ops->close(b);
	}
	if (r >= 0) {
		w->mnt_ns_id = mnt_ns_id;
		w->queue_size = queue_size;
		w->backend_reason = TAKE_PTR(reason);
		/* First: the snapshot lists only the watched subtree where it can. */
		watcher_find_watched(w);
		r = watcher_enable_utab(w, UTAB_DIR);
		if (r >= 0)
			r = watcher_snapshot(w);
		if (r >= 0 && mntns_fd >= 0) {
			w->mntns_fd = fcntl(mntns_fd, F_DUPFD_CLOEXEC, 3);
			if (w->mntns_fd < 0)
				r = -errno;
		}
		if (r < 0)
			mw_watcher_free(w);
	}
	statmount_mnt_ns_id = 0;
	ns_leave(&saved);
	if (r < 0)
		return r;
	*ret = w;
	return 0;
}

_public_ int mw_watcher_new_ns(mw_watcher **ret, int mntns_fd, const char *path, const char *backend,
			       unsigned queue_size)
{
	uint64_t id = 0;

	if (mntns_fd < -1)
		return -EBADF;
	if (mntns_fd >= 0) {
		int type = ioctl(mntns_fd, NS_GET_NSTYPE);

		if (type < 0 && errno == EBADF)
			return -EBADF;
		if (type != CLONE_NEWNS)
			return -EINVAL;
		/* statmount(2)/listmount(2) need its ID (6.11), or they would ask about ours. */
		if (ioctl(mntns_fd, MW_NS_GET_MNTNS_ID, &id) < 0)
			return errno == ENOTTY || errno == EINVAL ? -EOPNOTSUPP : -errno;
	}
	return watcher_new(ret, mntns_fd, id, path, backend, queue_size);
}

_public_ int mw_watcher_new(mw_watcher **ret, const char *path, const char *backend, unsigned queue_size)
{
	return watcher_new(ret, -1, 0, path, backend, queue_size);
}

static int watcher_reopen(mw_watcher *w, const char *path, const char *backend, unsigned queue_size)
{
	_cleanup_free_ char *reason = NULL, *p = NULL;
	Backend *b = NULL;
	int r;

	if (!path || path[0] != '/')
		return -EINVAL;
	r = path_normalize(path, &p);
	if (r < 0)
		return r;
	r = open_backend(backend, p, queue_size, false, &b, &reason);
	if (r < 0)
		return r;
	if (w->epoll_fd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN };

		if (epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, b->ops->get_fd(b), &ev) < 0) {
			r = -errno;
			b->ops->close(b);
			return r;
		}
	}
	/*
	 * Out of epoll_fd explicitly: closing an fd removes it only once no
	 * other fd refers to its file, and its number may come back.
	 */
	if (w->epoll_fd >= 0)
		(void)epoll_ctl(w->epoll_fd, EPOLL_CTL_DEL, w->backend->ops->get_fd(w->backend), NULL);
	w->backend->ops->close(w->backend);
	w->backend = b;
	free(w->path);
	w->path = TAKE_PTR(p);
	free(w->backend_reason);
	w->backend_reason = TAKE_PTR(reason);
	w->queue_size = queue_size;
	/* Nothing of the old batch carries over. */
	w->n_detached = 0;
	w->deadline = UINT64_MAX;
	w->waited = false;
	w->sums_unsure = false;
	counter_mirror_done(&w->mirror);
	watcher_find_watched(w);
	/*
	 * The new watch is in place: a failed resync is no failure to reopen
	 * (the caller would think the old watch still runs). It is retried,
	 * and mw_watcher_get_resync_error() says so meanwhile.
	 */
	(void)watcher_resync(w, NULL, true);
	return 0;
}

_public_ int mw_watcher_reopen(mw_watcher *w, const char *path, const char *backend, unsigned queue_size)
{
	NsSaved saved;
	NsIds old;
	int r;

	if (w->in_callback)
		return -EBUSY;
	/* The new watch is armed in the watcher's namespace, as the first (the queries inside it too). */
	r = ns_enter(w->mntns_fd, &saved);
	if (r < 0)
		return r;
	old = ns_id_enter(w);
	query_mntns_fd = -1;
	r = watcher_reopen(w, path, backend, queue_size);
	ns_id_leave(old);
	ns_leave(&saved);
	return watcher_leave(w, r);
}

_public_ const char *mw_watcher_get_backend(const mw_watcher *w)
{
	return w->backend->ops->name;
}

_public_ const char *mw_watcher_get_backend_reason(const mw_watcher *w)
{
	return w->backend_reason ?: "";
}

_public_ const char *mw_watcher_get_path(const mw_watcher *w)
{
	return w->path;
}

_public_ void mw_watcher_set_change_fn(mw_watcher *w, mw_change_fn fn, void *userdata)
{
	w->change_fn = fn;
	w->userdata = userdata;
}

_public_ int mw_watcher_get_fd(const mw_watcher *w)
{
	return w->epoll_fd >= 0 ? w->epoll_fd : w->backend->ops->get_fd(w->backend);
}

int watcher_enable_utab(mw_watcher *w, const char *dir)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int r;

	r = utab_open(&w->utab, dir);
	if (r < 0)
		return r;
	w->utab_on = true;
	if (w->utab.inotify_fd < 0)
		return 0; /* no such directory: nothing to follow, no options */
	w->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epoll_fd < 0)
		return -errno;
	if (epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, w->backend->ops->get_fd(w->backend), &ev) < 0 ||
	    epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, w->utab.inotify_fd, &ev) < 0)
		return -errno;
	return 0;
}

/* How many other mounts at info's mount point, of its source and root, come after it in mountinfo. */
static size_t utab_later(const mw_watcher *w, const MountInfo *info)
{
	size_t n = 0;

	for (const Mount *c = table_first_at(w->table, info->mount_point); c; c = c->point_next)
		if (!c->detached && c->info.unique_id > info->unique_id &&
		    streq_ptr(c->info.mount_point, info->mount_point) && streq_ptr(c->info.source, info->source) &&
		    streq_ptr(c->info.root, info->root))
			n++;
	return n;
}

const char *watcher_utab_options(const mw_watcher *w, const MountInfo *info)
{
	return utab_options(&w->utab, info, utab_later(w, info));
}

/* e's options as utab gives them now; a CHANGED (USER_OPTIONS) if they differ. */
static int utab_apply(mw_watcher *w, Mount *e)
{
	const char *o = watcher_utab_options(w, &e->info);
	char *t;

	if (streq_ptr(o ?: "", e->info.user_options ?: ""))
		return 0;
	t = o ? strdup(o) : NULL;
	if (o && !t)
		return -ENOMEM;
	free(e->info.user_options);
	e->info.user_options = t;
	watcher_announce(w, MW_CHANGE_CHANGED, e, e->info.unique_id, e->info.mount_point,
			 1U << MW_FIELD_USER_OPTIONS, NULL);
	return 0;
}

int watcher_utab_sync(mw_watcher *w)
{
	size_t i = 0;
	Mount *e;
	int r;

	if (!w->utab_on)
		return 0;
	r = utab_check(&w->utab);
	if (r < 0)
		return r;
	if (r > 0)
		w->utab_dirty = true;
	if (!w->utab_dirty)
		return 0;
	r = utab_read(&w->utab);
	if (r < 0)
		return r; /* still dirty: the next call tries again */
	while (table_iterate(w->table, &i, &e)) {
		r = utab_apply(w, e);
		if (r < 0)
			return r;
	}
	w->utab_dirty = false;
	return 0;
}

int watcher_utab_refresh(mw_watcher *w, const char *point, Mount *also_e)
{
	int r;

	if (!w->utab_on)
		return 0;
	if (also_e) {
		r = utab_apply(w, also_e);
		if (r < 0)
			return r;
	}
	if (!point || !utab_names_target(&w->utab, point))
		return 0;
	for (Mount *c = table_first_at(w->table, point); c; c = c->point_next) {
		if (c == also_e || c->detached || !streq_ptr(c->info.mount_point, point))
			continue;
		r = utab_apply(w, c);
		if (r < 0)
			return r;
	}
	return 0;
}

_public_ uint64_t mw_watcher_get_timeout(const mw_watcher *w)
{
	uint64_t t = w->deadline;

	if (w->watch_gone)
		return UINT64_MAX;
	if (w->resync_pending && w->resync_error < 0 && w->resync_due < t)
		t = w->resync_due;
	if (watcher_verify_waiting(w) && w->verify_due < t)
		t = w->verify_due;
	return t;
}

_public_ int mw_watcher_get_resync_error(const mw_watcher *w)
{
	return w->resync_pending ? w->resync_error : 0;
}

/*
 * A mount that moved away has not arrived yet: its MOVE_TO may still come.
 * Not only after a MOVE_FROM: pivot_root(2) posts the old root's MOVE_TO
 * after the new root's, behind those of every mount below the new root.
 */
static bool waits_for_move_to(const mw_watcher *w)
{
	for (size_t i = 0; i < w->n_detached; i++) {
		const Mount *e = table_get(w->table, w->detached[i]);

		if (e && e->detached)
			return true;
	}
	return false;
}

/*
 * After a loss the resync lists every mount anyway: the records queued
 * behind the loss are read and dropped unapplied (up to n_max of them),
 * except those that must not be missed.
 */
static int drop_after_loss(mw_watcher *w, const MountEvent *events, int n, size_t n_max)
{
	MountEvent more[64];
	size_t dropped = 0;
	int r;

	for (;;) {
		for (int i = 0; i < n; i++) {
			if (events[i].type != MOUNT_EVENT_LOSS && events[i].type != MOUNT_EVENT_WATCH_REMOVED) {
				w->events++;
				continue;
			}
			r = watcher_apply_event(w, &events[i]); /* counts the loss; -ENOLINK */
			if (r < 0)
				return r;
		}
		dropped += (size_t)n;
		if (dropped >= n_max)
			return 0;
		n = w->backend->ops->read_events(w->backend, more, ELEMENTSOF(more));
		if (n < 0)
			return lib_debug_errno(n, "Failed to read mount notifications: %m");
		if (n == 0)
			return 0;
		events = more;
	}
}

int watcher_read_apply(mw_watcher *w, bool *lost)
{
	MountEvent events[64];
	int n, r;

	*lost = false;
	n = w->backend->ops->read_events(w->backend, events, ELEMENTSOF(events));
	if (n < 0)
		return lib_debug_errno(n, "Failed to read mount notifications: %m");
	for (int i = 0; i < n; i++) {
		r = watcher_apply_event(w, &events[i]);
		if (r == -ENOLINK || r == -ENOMEM)
			return r;
		if (events[i].type == MOUNT_EVENT_LOSS) {
			*lost = true;
			r = drop_after_loss(w, events + i + 1, n - i - 1, PROCESS_MAX_EVENTS);
			if (r < 0)
				return r;
			break;
		}
	}
	return n;
}

static int watcher_process(mw_watcher *w)
{
	bool got = false, lost = false, more = false;
	size_t total = 0;
	int n, r;

	w->announced = 0;
	if (w->watch_gone)
		return watcher_watch_gone(w); /* (finishes emptying the table after -ENOMEM) */
	r = watcher_utab_sync(w);
	if (r < 0)
		return r;
	while (!lost) {
		if (total >= PROCESS_MAX_EVENTS) {
			more = true; /* maybe: the next call finds out */
			break;
		}
		n = watcher_read_apply(w, &lost);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		got = true;
		total += (size_t)n;
	}
	/* (more implies !lost: the loop stops reading at a loss.) */
	if (!lost && waits_for_move_to(w)) {
		if (more) {
			/* Its MOVE_TO is likely next in the queue: keep the batch open. */
			w->deadline = now_usec();
			return (int)w->announced;
		}
		if (!w->waited) {
			/* The first time this batch: keep it open a little. */
			w->waited = true;
			w->deadline = now_usec() + MOVE_TO_WAIT_USEC;
			return (int)w->announced;
		}
		if (!got && w->deadline != UINT64_MAX && now_usec() < w->deadline)
			return (int)w->announced; /* woken early, nothing new */
	}
	/* More may be queued: call again at once, after the caller's other work. */
	w->deadline = more ? now_usec() : UINT64_MAX;
	w->waited = false;
	r = watcher_finish_batch(w);
	if (r < 0)
		return r;
	/* The queue was found empty: the time to confirm the counters, if due. */
	if (!more && !lost && watcher_verify_waiting(w) && now_usec() >= w->verify_due) {
		r = watcher_verify(w);
		if (r < 0)
			return r;
	}
	return (int)w->announced;
}

_public_ int mw_watcher_process(mw_watcher *w)
{
	NsIds old;
	int r;

	if (w->in_callback)
		return -EBUSY;
	old = ns_id_enter(w);
	r = watcher_process(w);
	ns_id_leave(old);
	return watcher_leave(w, r);
}

_public_ int mw_watcher_resync(mw_watcher *w, struct mw_resync_stats *ret)
{
	NsIds old;
	int r;

	if (w->in_callback)
		return -EBUSY;
	if (w->watch_gone)
		return -ENOLINK;
	old = ns_id_enter(w);
	r = watcher_resync(w, ret, true);
	ns_id_leave(old);
	return watcher_leave(w, r);
}

_public_ size_t mw_watcher_count(const mw_watcher *w)
{
	return table_size(w->table);
}

_public_ const mw_mount *mw_watcher_get_mount(const mw_watcher *w, uint64_t unique_id)
{
	return table_get(w->table, unique_id);
}

_public_ const mw_mount *mw_watcher_get_mount_by_path(const mw_watcher *w, const char *mount_point)
{
	_cleanup_free_ char *p = NULL;

	if (!mount_point || path_normalize(mount_point, &p) < 0)
		return NULL;
	return table_topmost_at(w->table, p);
}

_public_ int mw_watcher_iterate(const mw_watcher *w, size_t *i, const mw_mount **ret)
{
	Mount *e;

	if (!table_iterate(w->table, i, &e))
		return 0;
	*ret = e;
	return 1;
}

_public_ uint64_t mw_watcher_get_generation(const mw_watcher *w)
{
	return w->generation;
}

_public_ uint64_t mw_watcher_get_events(const mw_watcher *w)
{
	return w->events;
}

_public_ uint64_t mw_watcher_get_overruns(const mw_watcher *w)
{
	return w->overruns;
}

_public_ uint64_t mw_watcher_get_resyncs(const mw_watcher *w)
{
	return w->resyncs;
}

_public_ const struct mw_resync_stats *mw_watcher_get_last_resync(const mw_watcher *w)
{
	return &w->last_resync;
}

_public_ void mw_watcher_set_attachment(mw_watcher *w, void *data, void (*destroy)(void *data))
{
	void *old = w->attachment;
	void (*old_destroy)(void *) = w->attachment_destroy;

	w->attachment = data;
	w->attachment_destroy = destroy;
	if (old && old_destroy)
		old_destroy(old);
}

_public_ void *mw_watcher_get_attachment(const mw_watcher *w)
{
	return w->attachment;
}

_public_ bool mw_backend_name_is_valid(const char *name)
{
	return name && (streq_ptr(name, "auto") || backend_find(name));
}
