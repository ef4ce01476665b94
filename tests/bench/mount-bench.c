/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mount-bench: what it costs a program to learn about mount changes, the old
 * way and with mountwatch, measured side by side on the same changes.
 *
 * For each size N it makes N bind mounts under a private tmpfs, then makes K
 * changes (a small tmpfs mounted and unmounted at one place, alternately)
 * while a watcher runs. The watchers take turns, K/R changes each, in R
 * rounds whose order rotates, so that a change in the (shared, emulated)
 * machine's speed falls on all of them alike:
 *
 *   (a) poll(2) on /proc/self/mountinfo, re-read and parse all of it and
 *       diff it against the previous copy on every wake-up (what libmount,
 *       systemd and GLib do);
 *   (b) the same wake-up, then listmount(2) + statmount(2) of every mount
 *       and the same diff (6.8+ kernels);
 *   (c) watch_mount(2) on a notification pipe, each record applied to a
 *       table, one fsinfo(2) round (the daemon's seven queries) per new
 *       mount: libmountwatch's watch_queue backend, as mountwatchd uses it;
 *   (g) libmount as systemd's PID 1 and udisks use it: mnt_monitor for
 *       the wake-up, mnt_table_parse_mtab() of the whole table and the same
 *       diff;
 *   (d) mountwatchd itself, on the system bus, started by systemd; the
 *       benchmark waits for its MountAdded / MountRemoved signals.
 *
 * (a)-(c), (e)-(g) run in a private mount namespace, so PID 1 and mountwatchd do not
 * see their changes; (d) has to run in PID 1's namespace, so systemd (the
 * classic watcher of (a), for real) sees those changes too, and its CPU time
 * over the same window is printed beside mountwatchd's, with dbus-daemon's.
 * Making the N mounts there and removing them again (one lazy umount) are
 * the burst case of systemd issues #8703 / #10268: the CPU that mountwatchd,
 * dbus-daemon and PID 1 spend on them until idle is printed too.
 *
 * By default each change waits until the watcher has seen it (paced): the
 * cost per change, without merging. --burst makes the changes back to back
 * and ends with a marker mount; the poll-based watchers then merge wake-ups.
 *
 * CPU time is the watcher's whole process (user + system, in the kernel's
 * nanoseconds, clock_getcpuclockid(3)) from the first change until it has
 * seen the last one and gone idle. The initial snapshot is not counted for
 * anyone. Latency is from the return of mount(2) / umount(2) until the
 * watcher has reported the change.
 *
 * Must run as root. On a kernel without the syscalls a watcher is skipped
 * and the reason printed. Functions return a negative errno on failure.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/fsinfo.h>
#include <linux/mount.h>
#include <linux/watch_queue.h>
#include <libmount.h>
#include <systemd/sd-bus.h>

#include "mountwatch/mountwatch.h"

#include "bus-api.h"
#include "hashmap.h"
#include "statmount.h"
#include "util.h"

/*
 * glibc's <fcntl.h> and <sys/mount.h> (which includes it) clash with the
 * UAPI headers, so as in daemon/: no <fcntl.h>, and mount(2) and sys_umount2(2)
 * as raw system calls.
 */
#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif

static int sys_mount(const char *source, const char *target, const char *fstype,
		     unsigned long flags, const void *data)
{
	return (int)syscall(SYS_mount, source, target, fstype, flags, data);
}

static int sys_umount2(const char *target, int flags)
{
	return (int)syscall(SYS_umount2, target, flags);
}


#define NSEC_PER_MSEC ((uint64_t)1000000)
#define NSEC_PER_SEC ((uint64_t)1000000000)

enum {
	W_MOUNTINFO,
	W_LISTMOUNT,
	W_LIB_WQ,	/* (c), (e), (f): libmountwatch, one backend each */
	W_LIB_FAN,
	W_LIB_MI,
	W_LIBMOUNT,	/* (g): libmount's monitor and parser */
	W_DAEMON,
	W_DBUS,	/* dbus-daemon during (d) */
	W_PID1,	/* systemd during (d) */
	_W_MAX,
	_W_CHILD_MAX = W_DAEMON, /* (a)-(c), (e)-(g) run as child processes */
};

static const char *const watcher_names[_W_MAX] = {
	[W_MOUNTINFO] = "(a) poll + re-read /proc/self/mountinfo",
	[W_LISTMOUNT] = "(b) poll + listmount(2) + statmount(2)",
	[W_LIB_WQ] = "(c) libmountwatch watch_queue backend",
	[W_LIB_FAN] = "(e) libmountwatch fanotify backend",
	[W_LIB_MI] = "(f) libmountwatch mountinfo backend",
	[W_LIBMOUNT] = "(g) libmount monitor + parse_mtab",
	[W_DAEMON] = "(d) mountwatchd, signals on the bus",
	[W_DBUS] = "    dbus-daemon during (d), all traffic",
	[W_PID1] = "    systemd PID 1 during (d)",
};

/* What a watcher reports to the process making the changes. */
enum {
	SEEN_TARGET_ADDED,
	SEEN_TARGET_REMOVED,
	SEEN_MARKER_ADDED,
	_SEEN_MAX,
	REPORT_READY = _SEEN_MAX,
	REPORT_ERROR,
};

typedef struct Report {
	uint32_t kind;
	int32_t error;
	uint64_t wakeups;
} Report;

typedef struct Result {
	int status;		/* 0 measured, 1 skipped, -errno failed */
	char note[160];		/* why skipped or failed */
	unsigned changes;
	uint64_t cpu_ns;
	uint64_t wall_ns;
	uint64_t latency_ns;	/* summed over the changes waited for */
	unsigned latencies;
	uint64_t wakeups;	/* re-reads (a, b), read(2)s (c) */
	bool has_wakeups;
	size_t table_size;	/* mounts in the watched namespace */
	unsigned rounds;
	double min_per, max_per; /* CPU ns per change, cheapest and dearest round */
} Result;

/* (d)'s set-up and removal of the N mounts, back to back: the burst case. */
typedef struct Bulk {
	bool measured;
	bool pid1;		/* PID 1 shares the namespace and was measured */
	uint64_t setup_wall_ns, teardown_wall_ns;	/* until all were idle */
	uint64_t setup_cpu_ns[3], teardown_cpu_ns[3];	/* mountwatchd, dbus-daemon, PID 1 */
} Bulk;

static struct {
	size_t sizes[16];
	size_t n_sizes;
	unsigned changes;	/* 0: per size, see default_changes() */
	unsigned rounds;
	bool burst;
	bool want[_W_MAX];
	unsigned timeout_s;
} arg = {
	.rounds = 3,
	.timeout_s = 600,
};

static uint64_t t_begin;
static bool progress_tty;
static uint64_t progress_last;

/* ---- small helpers ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The CPU time of a whole process, user + system, in nanoseconds. */
static int cpu_of(pid_t pid, uint64_t *ret)
{
	struct timespec ts;
	clockid_t clk;
	int r;

	r = clock_getcpuclockid(pid, &clk);
	if (r != 0)
		return -r;
	if (clock_gettime(clk, &ts) < 0)
		return -errno;
	*ret = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	return 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void elapsed(char *buf, size_t size)
{
	uint64_t s = (now_ns() - t_begin) / NSEC_PER_SEC;

	snprintf(buf, size, "%" PRIu64 ":%02" PRIu64, s / 60, s % 60);
}

/*
 * A progress line on stderr with the elapsed time: a stage line when force
 * is set, otherwise at most one line in 10 s (or a rewritten line on a
 * terminal), so that a log shows a long step moving without filling up.
 */
__attribute__((format(printf, 2, 3)))
static void progress(bool force, const char *fmt, ...)
{
	char t[32], msg[256];
	uint64_t now = now_ns();
	va_list ap;

	if (!force && now - progress_last < (progress_tty ? NSEC_PER_SEC / 4 : 10 * NSEC_PER_SEC))
		return;
	progress_last = now;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	elapsed(t, sizeof(t));
	if (progress_tty)
		fprintf(stderr, "\r\033[K[%s] %s%s", t, msg, force ? "\n" : "");
	else
		fprintf(stderr, "[%s] %s\n", t, msg);
}

/* ---- the watchers' common part ---- */

typedef struct Watcher {
	int report_fd;
	const char *target;
	const char *marker;
	bool report_target;	/* paced: every change of the target */
	const char *backend;	/* (c), (e), (f): libmountwatch's backend */
	uint64_t wakeups;
	uint64_t changed;	/* mounts found changed in place */
} Watcher;

static void watcher_report(Watcher *w, uint32_t kind, int error)
{
	Report rep = { .kind = kind, .error = error, .wakeups = w->wakeups };

	if (write(w->report_fd, &rep, sizeof(rep)) != sizeof(rep))
		_exit(2);
}

/* Called by every watcher for each mount it finds added or removed. */
static void watcher_saw(Watcher *w, const char *mount_point, bool added)
{
	if (w->report_target && strcmp(mount_point, w->target) == 0)
		watcher_report(w, added ? SEEN_TARGET_ADDED : SEEN_TARGET_REMOVED, 0);
	else if (added && strcmp(mount_point, w->marker) == 0)
		watcher_report(w, SEEN_MARKER_ADDED, 0);
}

static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h;
}

/* ---- (a) and (b) alike: read every mount again on each wake-up ---- */

/* One mount as read; the offsets are in the table's strings. */
typedef struct MountEntry {
	uint64_t id;
	uint64_t hash;		/* (b): of the whole statmount record */
	size_t line, len;	/* (a): the line as read */
	size_t mount_point;
} MountEntry;

typedef struct MountTable {
	MountEntry *e;
	size_t n, cap;
	char *str;
	size_t str_len, str_cap;
} MountTable;

/* Reads every mount into @t; @fd is mountinfo, open for the wake-ups. */
typedef int (*MountScan)(int fd, void *userdata, MountTable *t);

static void mount_table_done(MountTable *t)
{
	free(t->e);
	free(t->str);
	*t = (MountTable){};
}

/* Return: a new, zeroed entry at the end of @t, or NULL if out of memory. */
static MountEntry *mount_table_add(MountTable *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		MountEntry *e = realloc(t->e, cap * sizeof(*e));

		if (!e)
			return NULL;
		t->e = e;
		t->cap = cap;
	}
	t->e[t->n] = (MountEntry){};
	return &t->e[t->n++];
}

/*
 * Compares two readings as a watcher must to learn what changed: by mount
 * ID, then by content (the line, or the hash). Where IDs are reused, as
 * mountinfo's are, one at another mount point is a removal and an addition;
 * listmount's are unique.
 */
static int mount_diff(Watcher *w, const MountTable *old, const MountTable *new, bool ids_reused,
		      Hashmap **map, unsigned char **seen, size_t *seen_cap)
{
	int r;

	/* libmountwatch's map: from each ID to its index + 1 in old. */
	*map = hashmap_free(*map);
	r = hashmap_new(map);
	if (r < 0)
		return r;
	if (*seen_cap < old->n) {
		unsigned char *s = realloc(*seen, old->n);

		if (!s)
			return -ENOMEM;
		*seen = s;
		*seen_cap = old->n;
	}
	memset(*seen, 0, old->n);
	for (size_t i = 0; i < old->n; i++) {
		r = hashmap_put(*map, old->e[i].id, (void *)(uintptr_t)(i + 1));
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < new->n; i++) {
		const MountEntry *e = &new->e[i], *o;
		uintptr_t j = (uintptr_t)hashmap_get(*map, e->id);

		if (j-- == 0 ||
		    (ids_reused && strcmp(old->str + old->e[j].mount_point,
					  new->str + e->mount_point) != 0)) {
			watcher_saw(w, new->str + e->mount_point, true);
			continue;
		}
		(*seen)[j] = 1;
		/* Same mount; another line or hash is a changed mount. */
		o = &old->e[j];
		if (o->hash != e->hash || o->len != e->len ||
		    memcmp(old->str + o->line, new->str + e->line, e->len))
			w->changed++;
	}
	for (size_t j = 0; j < old->n; j++)
		if (!(*seen)[j])
			watcher_saw(w, old->str + old->e[j].mount_point, false);
	return 0;
}

/*
 * Waits for mountinfo to change (with @mn, libmount's monitor: as its users
 * do, through its fd, reading every change it has), then reads it all with
 * @scan and compares.
 */
static int watch_rescan(Watcher *w, MountScan scan, void *userdata, bool ids_reused,
			struct libmnt_monitor *mn)
{
	MountTable a = {}, b = {}, *old = &a, *new = &b;
	unsigned char *seen = NULL;
	size_t seen_cap = 0;
	Hashmap *map = NULL;
	struct pollfd pfd;
	FILE *f;
	int r;

	/* For (b) too: 6.12 has no other change notification. */
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	pfd.fd = fileno(f);
	pfd.events = POLLPRI;
	if (mn) {
		pfd.fd = mnt_monitor_get_fd(mn);
		pfd.events = POLLIN;
		if (pfd.fd < 0)
			return pfd.fd;
	}
	r = scan(pfd.fd, userdata, old);
	if (r < 0)
		return r;
	watcher_report(w, REPORT_READY, 0);
	for (;;) {
		MountTable *t;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		w->wakeups++;
		while (mn && mnt_monitor_next_change(mn, NULL, NULL) == 0)
			;
		r = scan(pfd.fd, userdata, new);
		if (r < 0)
			return r;
		r = mount_diff(w, old, new, ids_reused, &map, &seen, &seen_cap);
		if (r < 0)
			return r;
		t = old;
		old = new;
		new = t;
	}
	mount_table_done(&a);
	mount_table_done(&b);
	return 0;
}

/* ---- (a) the classic watcher: /proc/self/mountinfo ---- */

/*
 * Reads the whole file from the start and splits it into entries, each
 * line's fields NUL-separated where parsed, its mount point unescaped.
 */
static int mi_read(int fd, void *userdata, MountTable *t)
{
	char *p, *end;
	int r;

	(void)userdata;
	r = read_full(fd, &t->str, &t->str_cap, &t->str_len);
	if (r < 0)
		return r;

	t->n = 0;
	for (p = t->str, end = t->str + t->str_len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *f[5];
		MountEntry *e;
		int i;

		if (!nl)
			nl = end;
		e = mount_table_add(t);
		if (!e)
			return -ENOMEM;
		e->line = (size_t)(p - t->str);
		e->len = (size_t)(nl - p);
		*nl = 0;
		/* ID, parent ID, major:minor, root, mount point, ... */
		f[0] = p;
		for (i = 1; i < 5; i++) {
			f[i] = strchr(f[i - 1], ' ');
			if (!f[i])
				return -EBADMSG;
			f[i]++;
		}
		e->id = strtoull(f[0], NULL, 10);
		{
			char *sp = strchr(f[4], ' ');

			if (!sp)
				return -EBADMSG;
			*sp = 0;
		}
		unescape_octal(f[4]);
		e->mount_point = (size_t)(f[4] - t->str);
		p = nl + 1;
	}
	return 0;
}

static int watch_mountinfo(Watcher *w)
{
	return watch_rescan(w, mi_read, NULL, true, NULL);
}

/* ---- (b) listmount(2) + statmount(2) ---- */

/* What (b) asks statmount(2) for: what mountinfo shows. */
#define STATMOUNT_ALL (MW_STATMOUNT_SB_BASIC | MW_STATMOUNT_MNT_BASIC | MW_STATMOUNT_PROPAGATE_FROM | \
		       MW_STATMOUNT_MNT_ROOT | MW_STATMOUNT_MNT_POINT | MW_STATMOUNT_FS_TYPE |   \
		       MW_STATMOUNT_MNT_OPTS)

static int lm_add(MountTable *t, uint64_t id, uint64_t hash, const char *mp)
{
	size_t len = strlen(mp) + 1;
	MountEntry *e;

	e = mount_table_add(t);
	if (!e)
		return -ENOMEM;
	if (t->str_cap - t->str_len < len) {
		size_t cap = t->str_cap ? 2 * t->str_cap : 1 << 16;
		char *s;

		while (cap - t->str_len < len)
			cap *= 2;
		s = realloc(t->str, cap);
		if (!s)
			return -ENOMEM;
		t->str = s;
		t->str_cap = cap;
	}
	memcpy(t->str + t->str_len, mp, len);
	e->id = id;
	e->hash = hash;
	e->mount_point = t->str_len;
	t->str_len += len;
	return 0;
}

/*
 * Lists every mount of the namespace and reads each with statmount(2), with
 * libmountwatch's calls (statmount.h), as its backends do.
 */
static int lm_scan(int fd, void *userdata, MountTable *t)
{
	StatmountBuf *b = userdata;
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n;
	int r;

	(void)fd;
	r = listmount_all(&ids, &n);
	if (r < 0)
		return r;
	t->n = 0;
	t->str_len = 0;
	for (size_t i = 0; i < n; i++) {
		const char *mp;

		r = statmount_get(ids[i], STATMOUNT_ALL, b);
		if (r == -ENOENT)
			continue; /* gone since listmount */
		if (r < 0)
			return r;
		mp = statmount_str(b->sm, MW_STATMOUNT_MNT_POINT, b->sm->mnt_point);
		r = lm_add(t, ids[i], fnv1a(b->sm, b->sm->size), mp ? mp : "");
		if (r < 0)
			return r;
	}
	return 0;
}

static int watch_listmount(Watcher *w)
{
	StatmountBuf b = {};
	int r;

	r = watch_rescan(w, lm_scan, &b, false, NULL);
	statmount_buf_done(&b);
	return r;
}

/* ---- (g) libmount: its monitor and its parser, as PID 1 uses them ---- */

/* Every mount as libmount parses the table (mountinfo, plus utab where there is one). */
static int lmnt_scan(int fd, void *userdata, MountTable *t)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int r;

	(void)fd;
	(void)userdata;
	r = tb && it ? mnt_table_parse_mtab(tb, NULL) : -ENOMEM;
	t->n = 0;
	t->str_len = 0;
	while (r >= 0 && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *v[] = { mnt_fs_get_target(fs), mnt_fs_get_source(fs), mnt_fs_get_fstype(fs),
				    mnt_fs_get_vfs_options(fs), mnt_fs_get_fs_options(fs), mnt_fs_get_root(fs) };
		uint64_t h = 0;

		/* A changed mount: another hash of what PID 1 compares. */
		for (size_t i = 0; i < ELEMENTSOF(v); i++)
			h = h * 31 + (v[i] ? fnv1a(v[i], strlen(v[i])) : 0);
		r = lm_add(t, (uint64_t)mnt_fs_get_id(fs), h, v[0] ?: "");
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return r < 0 ? r : 0;
}

static int watch_libmount(Watcher *w)
{
	struct libmnt_monitor *mn = mnt_new_monitor();
	int r;

	if (!mn)
		return -ENOMEM;
	/* The kernel's table; PID 1 also enables the userspace one (utab). */
	r = mnt_monitor_enable_kernel(mn, 1);
	if (r >= 0)
		r = mnt_monitor_enable_userspace(mn, 1, NULL);
	if (r >= 0)
		r = watch_rescan(w, lmnt_scan, NULL, true, mn);
	mnt_unref_monitor(mn);
	return r;
}

/* ---- (c), (e), (f): libmountwatch, one backend each ---- */

static void wm_change(mw_watcher *mw, const struct mw_change *c, void *userdata)
{
	Watcher *w = userdata;

	if (c->type == MW_CHANGE_ADDED)
		watcher_saw(w, c->mount_point, true);
	else if (c->type == MW_CHANGE_REMOVED)
		watcher_saw(w, c->mount_point, false);
}

/*
 * The library mountwatchd is built on, as any program would use it, with the
 * backend w->backend: watch_queue (watch_mount(2), one fsinfo(2) round per new
 * mount, nothing for a removal), fanotify (the event, a statmount(2) of the
 * new mount, and the mountinfo rescan that every wake-up of mountinfo asks
 * for) or mountinfo (re-read, parse and diff on every wake-up).
 */
static int watch_library(Watcher *w)
{
	mw_watcher *mw;
	int r;

	r = mw_watcher_new(&mw, "/", w->backend, 256);
	if (r < 0)
		return r == -EOPNOTSUPP ? -ENOSYS : r;
	mw_watcher_set_change_fn(mw, wm_change, w);
	watcher_report(w, REPORT_READY, 0);
	for (;;) {
		struct pollfd p = { .fd = mw_watcher_get_fd(mw), .events = POLLIN };
		uint64_t t = mw_watcher_get_timeout(mw);
		int ms = -1;

		if (t != UINT64_MAX) {
			uint64_t now = now_ns() / 1000;

			ms = t > now ? (int)((t - now + 999) / 1000) : 0;
		}
		if (poll(&p, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		w->wakeups++;
		r = mw_watcher_process(mw);
		if (r < 0)
			break;
	}
	mw_watcher_free(mw);
	return r;
}

/* ---- running one child watcher ---- */

typedef struct Observer Observer;
struct Observer {
	/* Waits until seen[kind] reaches count; -ETIMEDOUT at the deadline. */
	int (*wait)(Observer *o, int kind, unsigned count, uint64_t deadline);
	unsigned seen[_SEEN_MAX];
	uint64_t wakeups;
	/* pipe observers */
	int fd;
	/* bus observer */
	sd_bus *bus;
	const char *target, *marker;
};

static int read_report(int fd, Report *rep, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t now = now_ns();
	ssize_t k;
	int r;

	if (now >= deadline)
		return -ETIMEDOUT;
	r = poll(&pfd, 1, (int)((deadline - now) / NSEC_PER_MSEC) + 1);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return -ETIMEDOUT;
	k = read(fd, rep, sizeof(*rep));
	if (k < 0)
		return -errno;
	if (k == 0)
		return -EPIPE; /* the watcher died */
	if (k != sizeof(*rep))
		return -EBADMSG;
	return 1;
}

static int pipe_wait(Observer *o, int kind, unsigned count, uint64_t deadline)
{
	while (o->seen[kind] < count) {
		Report rep;
		int r = read_report(o->fd, &rep, deadline);

		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if (rep.kind == REPORT_ERROR)
			return rep.error < 0 ? rep.error : -EIO;
		if (rep.kind < _SEEN_MAX) {
			o->seen[rep.kind]++;
			o->wakeups = rep.wakeups;
		}
	}
	return 0;
}

/*
 * Waits until pid's CPU clock stands still (under 1% over window_ns; PID 1
 * needs a longer window, as it rate-limits its mountinfo re-reads), at most
 * max_ns, and returns the clock then.
 */
static int settle(pid_t pid, const char *name, uint64_t window_ns, uint64_t max_ns, uint64_t *ret)
{
	uint64_t start = now_ns(), a, b, first;
	int r;

	r = cpu_of(pid, &a);
	first = a;
	while (r >= 0) {
		sleep_ns(window_ns);
		r = cpu_of(pid, &b);
		if (r < 0)
			break;
		if (b - a < window_ns / 100 || now_ns() - start > max_ns) {
			*ret = b;
			return 0;
		}
		a = b;
		if (name)
			progress(false, "waiting for %s to be idle: %" PRIu64 " s, %.1f s CPU",
				 name, (now_ns() - start) / NSEC_PER_SEC,
				 (double)(b - first) / NSEC_PER_SEC);
	}
	return r;
}

typedef struct Place {
	char base[64];
	char target[96];
	char marker[96];
} Place;

static const char *const watcher_short[] = { "(a) mountinfo", "(b) listmount",
					     "(c) watch_queue", "(e) fanotify",
					     "(f) lib mountinfo", "(g) libmount", "(d) mountwatchd" };

/* The option letter of each watcher, in the enum's order. */
static const char watcher_letters[] = "abcefgd";

/* The backend each of (c), (e), (f) asks libmountwatch for. */
static const char *const lib_backend[_W_CHILD_MAX] = {
	[W_LIB_WQ] = "watch_queue",
	[W_LIB_FAN] = "fanotify",
	[W_LIB_MI] = "mountinfo",
};

/* The change: a small tmpfs. */
static int mount_small(const char *path)
{
	if (sys_mount("mount-bench", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0)
		return -errno;
	return 0;
}

/*
 * A watcher that is reading a mount it was just told about (fsinfo(2)) pins
 * it for a moment, and umount(2) says EBUSY: back to back, that happens.
 * Try again, as any unmounting program would have to.
 */
static int umount_busy(const char *path)
{
	for (unsigned i = 0;; i++) {
		if (sys_umount2(path, 0) == 0)
			return 0;
		if (errno != EBUSY || i == 10000)
			return -errno;
		sleep_ns(NSEC_PER_MSEC / 10);
	}
}

/*
 * Makes the changes while o's watcher runs: in paced mode each one waits
 * until the watcher has seen it. Adds the wall time and latencies to res.
 */
static int make_changes(Observer *o, int w, const Place *pl, unsigned k, Result *res)
{
	uint64_t t0 = now_ns(), t, deadline;
	int r;

	for (unsigned i = 0; i < k; i++) {
		bool mounting = i % 2 == 0;

		r = mounting ? mount_small(pl->target) : umount_busy(pl->target);
		if (r < 0)
			return r;
		if (arg.burst)
			continue;
		t = now_ns();
		deadline = t + (uint64_t)arg.timeout_s * NSEC_PER_SEC;
		r = o->wait(o, mounting ? SEEN_TARGET_ADDED : SEEN_TARGET_REMOVED, i / 2 + 1,
			    deadline);
		if (r < 0)
			return r;
		res->latency_ns += now_ns() - t;
		res->latencies++;
		progress(false, "%s: %u/%u changes", watcher_short[w], i + 1, k);
	}
	if (arg.burst) {
		/* The marker is the last change; the watcher has seen all when it sees it. */
		r = mount_small(pl->marker);
		if (r < 0)
			return r;
		t = now_ns();
		deadline = t + (uint64_t)arg.timeout_s * NSEC_PER_SEC;
		r = o->wait(o, SEEN_MARKER_ADDED, 1, deadline);
		if (r < 0)
			return r;
		res->latency_ns += now_ns() - t;
		res->latencies++;
		k++;
	}
	res->wall_ns = now_ns() - t0;
	res->changes = k;
	return 0;
}

static void result_fail(Result *res, int r, const char *what)
{
	res->status = r < 0 ? r : -EIO;
	snprintf(res->note, sizeof(res->note), "%s: %s", what, strerror(r < 0 ? -r : EIO));
}

static size_t count_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void run_child_watcher(int w, const Place *pl, unsigned k, Result *res)
{
	static int (*const run[_W_CHILD_MAX])(Watcher *) = {
		[W_MOUNTINFO] = watch_mountinfo,
		[W_LISTMOUNT] = watch_listmount,
		[W_LIB_WQ] = watch_library,
		[W_LIB_FAN] = watch_library,
		[W_LIB_MI] = watch_library,
		[W_LIBMOUNT] = watch_libmount,
	};
	Observer o = { .wait = pipe_wait };
	uint64_t cpu0, cpu1, deadline;
	int fds[2], r;
	Report rep;
	pid_t pid;

	if (lib_backend[w]) {
		_cleanup_free_ char *why = NULL;

		/* "name: ok", or the reason this kernel cannot run it. */
		if (mw_watcher_probe(lib_backend[w], &why) >= 0 && !strstr(why, ": ok")) {
			why[strcspn(why, "\n")] = 0;
			res->status = 1;
			snprintf(res->note, sizeof(res->note), "%s", why);
			return;
		}
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		result_fail(res, -errno, "pipe");
		return;
	}
	pid = fork();
	if (pid < 0) {
		result_fail(res, -errno, "fork");
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		Watcher wa = {
			.report_fd = fds[1],
			.target = pl->target,
			.marker = pl->marker,
			.report_target = !arg.burst,
			.backend = lib_backend[w],
		};

		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		r = run[w](&wa);
		watcher_report(&wa, REPORT_ERROR, r);
		_exit(1);
	}
	close(fds[1]);
	o.fd = fds[0];

	deadline = now_ns() + (uint64_t)arg.timeout_s * NSEC_PER_SEC;
	do
		r = read_report(o.fd, &rep, deadline);
	while (r == 0);
	if (r > 0 && rep.kind == REPORT_ERROR)
		r = rep.error < 0 ? rep.error : -EIO;
	if (r < 0) {
		if (r == -ENOSYS) {
			res->status = 1;
			snprintf(res->note, sizeof(res->note), "this kernel has no %s (ENOSYS)",
				 w == W_LISTMOUNT ? "listmount(2)" : "watch_mount(2) or fsinfo(2)");
		} else {
			result_fail(res, r, "snapshot");
		}
		goto out;
	}
	o.wakeups = rep.wakeups;
	r = settle(pid, NULL, 200 * NSEC_PER_MSEC, 10 * NSEC_PER_SEC, &cpu0);
	if (r < 0) {
		result_fail(res, r, "CPU clock");
		goto out;
	}
	{
		uint64_t w0 = o.wakeups;

		progress(true, "%s: snapshot taken, making %u changes", watcher_short[w], k);
		r = make_changes(&o, w, pl, k, res);
		if (r == 0)
			r = settle(pid, NULL, 200 * NSEC_PER_MSEC, 10 * NSEC_PER_SEC, &cpu1);
		if (r < 0) {
			result_fail(res, r,
				    r == -ETIMEDOUT ? "waiting for the watcher" : "changes");
			goto out;
		}
		res->cpu_ns = cpu1 - cpu0;
		res->wakeups = o.wakeups - w0;
		res->has_wakeups = true;
	}
out:
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
	close(o.fd);
	/* Leave the target as we found it for the next watcher. */
	(void)sys_umount2(pl->target, MNT_DETACH);
	(void)sys_umount2(pl->marker, MNT_DETACH);
}

/* ---- the background mounts ---- */

static int setup_place(Place *pl, size_t n)
{
	char path[128];

	strcpy(pl->base, "/run/mount-bench.XXXXXX");
	if (!mkdtemp(pl->base))
		return -errno;
	if (sys_mount("mount-bench", pl->base, "tmpfs", 0, "mode=0755") < 0)
		return -errno;
	/* Nothing made below propagates anywhere else. */
	if (sys_mount(NULL, pl->base, NULL, MS_PRIVATE, NULL) < 0)
		return -errno;
	snprintf(pl->target, sizeof(pl->target), "%s/target", pl->base);
	snprintf(pl->marker, sizeof(pl->marker), "%s/marker", pl->base);
	snprintf(path, sizeof(path), "%s/src", pl->base);
	if (mkdir(path, 0755) < 0 || mkdir(pl->target, 0755) < 0 || mkdir(pl->marker, 0755) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		char dst[128];

		snprintf(dst, sizeof(dst), "%s/b%zu", pl->base, i);
		if (mkdir(dst, 0755) < 0 || sys_mount(path, dst, NULL, MS_BIND, NULL) < 0)
			return -errno;
		progress(false, "%zu/%zu bind mounts", i + 1, n);
	}
	return 0;
}

static void teardown_place(const Place *pl)
{
	(void)sys_umount2(pl->base, MNT_DETACH);
	(void)rmdir(pl->base);
}

/*
 * (a)-(c) run in a child process with its own mount namespace, which
 * holds the N mounts; it runs one watcher at a time on request.
 */
typedef struct Private {
	pid_t pid;
	int cmd_fd, result_fd;
} Private;

typedef struct Command {
	int32_t watcher;	/* -1: tear down and exit */
	uint32_t changes;
} Command;

typedef struct Hello {
	int32_t error;
	uint32_t table_size;
} Hello;

static void private_serve(size_t n, int cmd_fd, int result_fd)
{
	Hello hello = {};
	Command cmd;
	Place pl;

	if (unshare(CLONE_NEWNS) < 0 || sys_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		hello.error = -errno;
	else
		hello.error = setup_place(&pl, n);
	hello.table_size = (uint32_t)count_mounts();
	if (write(result_fd, &hello, sizeof(hello)) != sizeof(hello) || hello.error < 0)
		_exit(1);
	while (read(cmd_fd, &cmd, sizeof(cmd)) == sizeof(cmd) && cmd.watcher >= 0) {
		Result res = { .table_size = hello.table_size };

		run_child_watcher(cmd.watcher, &pl, cmd.changes, &res);
		if (write(result_fd, &res, sizeof(res)) != sizeof(res))
			_exit(1);
	}
	/* Cheap here: nobody else sees this namespace. */
	teardown_place(&pl);
	_exit(0);
}

static int private_start(Private *p, size_t n, Hello *hello)
{
	int cmd[2], result[2];

	if (pipe2(cmd, O_CLOEXEC) < 0 || pipe2(result, O_CLOEXEC) < 0)
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(cmd[1]);
		close(result[0]);
		private_serve(n, cmd[0], result[1]);
	}
	close(cmd[0]);
	close(result[1]);
	p->cmd_fd = cmd[1];
	p->result_fd = result[0];
	if (read(p->result_fd, hello, sizeof(*hello)) != sizeof(*hello))
		return -EIO;
	return hello->error;
}

static int private_run(Private *p, int w, unsigned k, Result *res)
{
	Command cmd = { .watcher = w, .changes = k };

	if (write(p->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd) ||
	    read(p->result_fd, res, sizeof(*res)) != sizeof(*res))
		return -EIO;
	return 0;
}

static void private_stop(Private *p)
{
	Command cmd = { .watcher = -1 };

	if (p->pid <= 0)
		return;
	progress(true, "removing the private namespace's mounts");
	(void)!write(p->cmd_fd, &cmd, sizeof(cmd));
	close(p->cmd_fd);
	close(p->result_fd);
	(void)waitpid(p->pid, NULL, 0);
	p->pid = 0;
}

/* ---- (d) mountwatchd ---- */

static int on_manager_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	Observer *o = userdata;
	const char *member = sd_bus_message_get_member(m), *path, *mp;
	uint64_t id, gen;
	bool added;

	if (member && strcmp(member, "MountAdded") == 0)
		added = true;
	else if (member && strcmp(member, "MountRemoved") == 0)
		added = false;
	else
		return 0;
	if (sd_bus_message_read(m, "tost", &id, &path, &mp, &gen) < 0)
		return 0;
	if (strcmp(mp, o->target) == 0)
		o->seen[added ? SEEN_TARGET_ADDED : SEEN_TARGET_REMOVED]++;
	else if (added && strcmp(mp, o->marker) == 0)
		o->seen[SEEN_MARKER_ADDED]++;
	return 0;
}

static int bus_wait(Observer *o, int kind, unsigned count, uint64_t deadline)
{
	while (o->seen[kind] < count) {
		uint64_t now = now_ns();
		int r = sd_bus_process(o->bus, NULL);

		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (now >= deadline)
			return -ETIMEDOUT;
		r = sd_bus_wait(o->bus, (deadline - now) / 1000);
		if (r < 0 && r != -EINTR)
			return r;
	}
	return 0;
}

static int bus_pid(sd_bus *bus, const char *name, pid_t *ret)
{
	sd_bus_creds *c = NULL;
	int r;

	r = sd_bus_get_name_creds(bus, name, SD_BUS_CREDS_PID, &c);
	if (r >= 0)
		r = sd_bus_creds_get_pid(c, ret);
	sd_bus_creds_unref(c);
	return r;
}

/*
 * The bus's own credentials would name PID 1, which made the socket
 * (socket activation); systemd knows the daemon's PID.
 */
static int dbus_daemon_pid(sd_bus *bus, pid_t *ret)
{
	uint32_t pid;
	int r;

	r = sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1",
					"/org/freedesktop/systemd1/unit/dbus_2eservice",
					"org.freedesktop.systemd1.Service", "MainPID", NULL, 'u',
					&pid);
	if (r < 0)
		return r;
	if (pid == 0)
		return -ESRCH;
	*ret = (pid_t)pid;
	return 0;
}

static int bus_mount_count(sd_bus *bus, uint32_t *ret)
{
	return sd_bus_get_property_trivial(bus, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE, "MountCount",
					   NULL, 'u', ret);
}

/* The processes whose CPU time (d) measures, in the order of the result rows. */
typedef struct Others {
	pid_t pid[3];		/* mountwatchd, dbus-daemon, PID 1; 0 if unknown */
	uint64_t cpu[3];
} Others;

static const char *const other_names[3] = { "mountwatchd", "dbus-daemon", "PID 1" };

static void others_read(Others *o)
{
	for (int i = 0; i < 3; i++)
		if (o->pid[i] > 0 && cpu_of(o->pid[i], &o->cpu[i]) < 0)
			o->pid[i] = 0;
}

/*
 * Waits until each is idle and adds the CPU time each spent since o was
 * read to spent[]; returns the wall time until the last was idle.
 */
static uint64_t others_settle(Others *o, uint64_t since, uint64_t spent[3])
{
	for (int i = 0; i < 3; i++) {
		uint64_t v;

		if (o->pid[i] <= 0)
			continue;
		if (settle(o->pid[i], other_names[i], (i == 2 ? 1500 : 200) * NSEC_PER_MSEC,
			   600 * NSEC_PER_SEC, &v) < 0) {
			o->pid[i] = 0;
			continue;
		}
		spent[i] += v - o->cpu[i];
		o->cpu[i] = v;
	}
	return now_ns() - since;
}

/* The Backend property of the mountwatchd that (d) measured. */
static char daemon_backend[24];

/* Whether PID 1 sees this process's mounts (not so in a private namespace). */
static bool pid1_shares_mount_ns(void)
{
	struct stat a, b;

	return stat("/proc/1/ns/mnt", &a) == 0 && stat("/proc/self/ns/mnt", &b) == 0 &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

typedef struct Daemon {
	Observer o;
	sd_bus_slot *slot;
	Others ot;
	Place pl;
	size_t table_size;
} Daemon;

/*
 * Connects to mountwatchd and makes the N mounts in PID 1's namespace.
 * Returns 0, or 1 with a reason in *res when (d) cannot run.
 */
static int daemon_open(Daemon *d, size_t n, Result *res, Bulk *bulk)
{
	uint32_t count = 0;
	uint64_t t0;
	int r;

	*d = (Daemon){ .o.wait = bus_wait };
	r = sd_bus_open_system(&d->o.bus);
	if (r < 0) {
		res->status = 1;
		snprintf(res->note, sizeof(res->note), "no system bus: %s", strerror(-r));
		return 1;
	}
	/* A call starts it through D-Bus activation if it is not running. */
	r = bus_mount_count(d->o.bus, &count);
	if (r >= 0)
		r = bus_pid(d->o.bus, MW_BUS_NAME, &d->ot.pid[0]);
	if (r < 0) {
		res->status = 1;
		snprintf(res->note, sizeof(res->note), "mountwatchd is not on the bus: %s",
			 strerror(-r));
		return 1;
	}
	(void)dbus_daemon_pid(d->o.bus, &d->ot.pid[1]);
	/* In a private namespace (the host mode) PID 1 sees none of this. */
	d->ot.pid[2] = pid1_shares_mount_ns() ? 1 : 0;
	{
		_cleanup_free_ char *b = NULL;

		if (sd_bus_get_property_string(d->o.bus, MW_BUS_NAME, MW_MANAGER_PATH,
					       MW_MANAGER_IFACE, "Backend", NULL, &b) >= 0)
			snprintf(daemon_backend, sizeof(daemon_backend), "%s", b);
	}

	progress(true, "(d) %zu bind mounts in mountwatchd's namespace", n);
	others_read(&d->ot);
	t0 = now_ns();
	r = setup_place(&d->pl, n);
	if (r < 0) {
		result_fail(res, r, "setting up the mounts");
		return r;
	}
	bulk->setup_wall_ns = others_settle(&d->ot, t0, bulk->setup_cpu_ns);
	r = bus_mount_count(d->o.bus, &count);
	if (r < 0) {
		result_fail(res, r, "reading MountCount");
		return r;
	}
	d->table_size = count_mounts();
	if (count != d->table_size)
		fprintf(stderr, "note: mountwatchd counts %" PRIu32 " mounts, mountinfo %zu\n",
			count, d->table_size);

	/* Subscribed only now: the set-up's signals would queue up unread. */
	r = sd_bus_match_signal(d->o.bus, &d->slot, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE, NULL,
				on_manager_signal, &d->o);
	if (r < 0) {
		result_fail(res, r, "subscribing to the signals");
		return r;
	}
	d->o.target = d->pl.target;
	d->o.marker = d->pl.marker;
	return 0;
}

/* One round of k changes; out[] are the rows of mountwatchd, dbus-daemon, PID 1. */
static void daemon_round(Daemon *d, unsigned k, Result out[3])
{
	uint64_t spent[3] = {};
	int r;

	/* Counted anew each round: the observer's totals go on from the last. */
	memset(d->o.seen, 0, sizeof(d->o.seen));
	progress(true, "(d) mountwatchd: making %u changes", k);
	others_read(&d->ot);
	r = make_changes(&d->o, W_DAEMON, &d->pl, k, &out[0]);
	if (r < 0) {
		(void)sys_umount2(d->pl.target, MNT_DETACH);
		(void)sys_umount2(d->pl.marker, MNT_DETACH);
		out[1].status = out[2].status = 1; /* rows hidden */
		result_fail(&out[0], r, r == -ETIMEDOUT ? "waiting for the signal" : "changes");
		return;
	}
	/* Each is measured until it is idle again: what the changes cost it. */
	(void)others_settle(&d->ot, 0, spent);
	if (arg.burst) {
		uint64_t unused[3] = {};

		/* The marker goes again, outside the measurement. */
		(void)umount_busy(d->pl.marker);
		(void)others_settle(&d->ot, 0, unused);
	}
	for (int i = 0; i < 3; i++) {
		if (d->ot.pid[i] <= 0) {
			if (i == 0) {
				result_fail(&out[0], -ESRCH, "mountwatchd's CPU clock");
				out[1].status = out[2].status = 1;
				break;
			}
			out[i].status = 1;
			continue;
		}
		out[i].cpu_ns = spent[i];
		out[i].changes = out[0].changes;
		out[i].table_size = d->table_size;
	}
	out[0].table_size = d->table_size;
}

static void daemon_close(Daemon *d, size_t n, Bulk *bulk)
{
	uint64_t t0;

	d->slot = sd_bus_slot_unref(d->slot);
	if (d->pl.base[0]) {
		progress(true, "(d) removing the %zu bind mounts (one lazy umount)", n);
		others_read(&d->ot);
		t0 = now_ns();
		teardown_place(&d->pl);
		bulk->teardown_wall_ns = others_settle(&d->ot, t0, bulk->teardown_cpu_ns);
		bulk->measured = true;
		bulk->pid1 = d->ot.pid[2] > 0;
	}
	d->o.bus = sd_bus_flush_close_unref(d->o.bus);
}

/* Adds one round's result to a watcher's total; the first failure sticks. */
static void result_add(Result *total, const Result *one)
{
	double per;

	if (total->status != 0)
		return;
	if (one->status != 0) {
		*total = *one;
		return;
	}
	per = one->changes ? (double)one->cpu_ns / one->changes : 0;
	if (!total->rounds || per < total->min_per)
		total->min_per = per;
	if (!total->rounds || per > total->max_per)
		total->max_per = per;
	total->rounds++;
	total->changes += one->changes;
	total->cpu_ns += one->cpu_ns;
	total->wall_ns += one->wall_ns;
	total->latency_ns += one->latency_ns;
	total->latencies += one->latencies;
	total->wakeups += one->wakeups;
	total->has_wakeups = one->has_wakeups;
	total->table_size = one->table_size;
}

/*
 * One size: both sets of N mounts, then the watchers in rounds, each round
 * in another order, so that a change in the machine's load falls on all of
 * them alike.
 */
static void run_size(size_t n, unsigned k, Result res[_W_MAX], Bulk *bulk)
{
	unsigned kr = (k / arg.rounds + 1) & ~1U;
	Private priv = {};
	Daemon d = {};
	Hello hello;
	int r;

	if (kr < 2)
		kr = 2;
	for (int w = 0; w < _W_MAX; w++)
		if (!arg.want[w < W_DAEMON ? w : W_DAEMON])
			res[w].status = 1;

	bool any_child = false;

	for (int w = 0; w < _W_CHILD_MAX; w++)
		any_child |= arg.want[w];
	if (any_child) {
		progress(true, "N=%zu: %zu bind mounts in a private mount namespace", n, n);
		r = private_start(&priv, n, &hello);
		if (r < 0)
			for (int w = 0; w < W_DAEMON; w++)
				if (res[w].status == 0)
					result_fail(&res[w], r, "setting up the mounts");
	}
	if (res[W_DAEMON].status == 0 && daemon_open(&d, n, &res[W_DAEMON], bulk) != 0)
		res[W_DBUS].status = res[W_PID1].status = 1;

	for (unsigned round = 0; round < arg.rounds; round++) {
		bool any = false;

		for (int w = 0; w <= W_DAEMON; w++)
			any |= res[w].status == 0;
		if (!any)
			break;
		progress(true, "N=%zu: round %u of %u, %u changes per watcher", n, round + 1,
			 arg.rounds, kr);
		for (int j = 0; j <= W_DAEMON; j++) {
			int w = (int)(round + (unsigned)j) % (W_DAEMON + 1);
			Result one[3] = {};

			if (res[w].status != 0)
				continue;
			if (w < W_DAEMON) {
				r = private_run(&priv, w, kr, &one[0]);
				if (r < 0)
					result_fail(&one[0], r, "the namespace's process");
				result_add(&res[w], &one[0]);
				continue;
			}
			daemon_round(&d, kr, one);
			for (int i = 0; i < 3; i++)
				result_add(&res[W_DAEMON + i], &one[i]);
		}
	}
	private_stop(&priv);
	daemon_close(&d, n, bulk);
}

/* ---- the report ---- */

static void print_ms(uint64_t ns, int width)
{
	printf(" %*.*f", width, ns >= 100 * NSEC_PER_MSEC ? 0 : ns >= NSEC_PER_MSEC ? 1 : 3,
	       (double)ns / NSEC_PER_MSEC);
}

static void print_table(size_t n, const Result res[_W_MAX], const Bulk *bulk,
			double ratios[_W_MAX])
{
	const Result *a = &res[W_MOUNTINFO];
	double a_per = a->status == 0 && a->changes ? (double)a->cpu_ns / a->changes : 0;
	unsigned k = 0, rounds = 0;

	for (int w = 0; w < _W_MAX && !k; w++)
		if (res[w].status == 0) {
			k = res[w].changes;
			rounds = res[w].rounds;
		}
	if (k)
		printf("\n%zu background mounts: %u changes per watcher in %u round%s, %s\n", n, k,
		       rounds, rounds == 1 ? "" : "s",
		       arg.burst ? "back to back, each round ending with a marker mount" :
				   "each one waited for");
	else
		printf("\n%zu background mounts: nothing measured\n", n);
	printf("%-42s %6s %9s %9s %15s %9s %7s %8s\n", "watcher", "mounts", "CPU ms", "ms/change",
	       "rounds' range", "latency", "wakeups", "(a)/this");
	for (int w = 0; w < _W_MAX; w++) {
		const Result *x = &res[w];
		char range[32];
		int digits;

		if (x->status == 1 && !x->note[0])
			continue; /* not asked for */
		if (w == W_DAEMON && daemon_backend[0]) {
			char name[64];

			snprintf(name, sizeof(name), "(d) mountwatchd (%s), bus signals",
				 daemon_backend);
			printf("%-42s", name);
		} else {
			printf("%-42s", watcher_names[w]);
		}
		if (x->status != 0) {
			printf(" %s: %s\n", x->status > 0 ? "skipped" : "FAILED", x->note);
			continue;
		}
		printf(" %6zu", x->table_size);
		print_ms(x->cpu_ns, 9);
		print_ms(x->changes ? x->cpu_ns / x->changes : 0, 9);
		/* As print_ms(): fewer decimals for bigger numbers. */
		digits = x->max_per >= 1e8 ? 0 : x->max_per >= 1e6 ? 1 : 3;
		snprintf(range, sizeof(range), "%.*f-%.*f", digits, x->min_per / 1e6, digits,
			 x->max_per / 1e6);
		printf(" %15s", range);
		if (x->latencies)
			print_ms(x->latency_ns / x->latencies, 9);
		else
			printf(" %9s", "-");
		if (x->has_wakeups)
			printf(" %7" PRIu64, x->wakeups);
		else
			printf(" %7s", "-");
		if (a_per > 0 && x->cpu_ns > 0)
			printf(" %7.1fx", a_per / ((double)x->cpu_ns / x->changes));
		else
			printf(" %8s", "-");
		printf("\n");
	}
	for (int w = 0; w < _W_MAX; w++) {
		const Result *x = &res[w];

		ratios[w] = a_per > 0 && x->status == 0 && x->cpu_ns ?
				    a_per / ((double)x->cpu_ns / x->changes) : 0;
	}
	if (bulk->measured) {
		printf("%-42s %12s %12s\n", "the N mounts made / lazily unmounted in (d)",
		       "mount all", "umount all");
		for (int i = 0; i < (bulk->pid1 ? 3 : 2); i++)
			printf("    %-38s %10.2f s %10.2f s\n", i == 0 ? "mountwatchd CPU" :
			       i == 1 ? "dbus-daemon CPU" : "systemd PID 1 CPU",
			       (double)bulk->setup_cpu_ns[i] / NSEC_PER_SEC,
			       (double)bulk->teardown_cpu_ns[i] / NSEC_PER_SEC);
		printf("    %-38s %10.1f s %10.1f s\n",
		       bulk->pid1 ? "until all three were idle" : "until both were idle",
		       (double)bulk->setup_wall_ns / NSEC_PER_SEC,
		       (double)bulk->teardown_wall_ns / NSEC_PER_SEC);
	}
	fflush(stdout);
}

/* Fewer changes for bigger tables: the classic watchers' cost grows with N. */
static unsigned default_changes(size_t n)
{
	if (arg.changes)
		return arg.changes;
	if (n <= 100)
		return 400;
	if (n <= 1000)
		return 200;
	if (n <= 5000)
		return 100;
	return 40;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mount-bench [OPTIONS] [N...]\n"
		"\n"
		"Measures what learning about mount changes costs: (a) re-reading\n"
		"/proc/self/mountinfo, (b) listmount+statmount, libmountwatch with its\n"
		"(c) watch_queue, (e) fanotify and (f) mountinfo backend, (g) libmount's\n"
		"monitor + mnt_table_parse_mtab() (as systemd uses it), (d) mountwatchd\n"
		"on the system bus (whichever backend it uses); for N background mounts\n"
		"each (default: 100 1000 5000). Run as root. A watcher the kernel cannot\n"
		"run is skipped with the reason.\n"
		"\n"
		"  -k, --changes=K   changes per size (even; default 400, 200, 100, 40 for\n"
		"                    N up to 100, 1000, 5000, more)\n"
		"  -r, --rounds=R    split the changes into R rounds, the watchers taking\n"
		"                    turns, in another order each round (default 3)\n"
		"  -b, --burst       make the changes back to back, not each waited for\n"
		"  -w, --watchers=L  which to run, letters of abcdefg (default: all)\n"
		"  -t, --timeout=S   give up on a watcher that has not seen a change in S s\n"
		"                    (default 600)\n"
		"  -h, --help        this text\n");
}

static int parse_args(int argc, char **argv)
{
	static const struct option options[] = {
		{ "changes", required_argument, NULL, 'k' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "burst", no_argument, NULL, 'b' },
		{ "watchers", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *watchers = watcher_letters;
	int c;

	while ((c = getopt_long(argc, argv, "k:r:bw:t:h", options, NULL)) >= 0) {
		switch (c) {
		case 'k':
			arg.changes = (unsigned)strtoul(optarg, NULL, 10);
			if (arg.changes < 2 || arg.changes > 100000 || arg.changes % 2) {
				fprintf(stderr, "--changes: an even number from 2 to 100000\n");
				return -EINVAL;
			}
			break;
		case 'r':
			arg.rounds = (unsigned)strtoul(optarg, NULL, 10);
			if (arg.rounds < 1 || arg.rounds > 100) {
				fprintf(stderr, "--rounds: a number from 1 to 100\n");
				return -EINVAL;
			}
			break;
		case 'b':
			arg.burst = true;
			break;
		case 'w':
			watchers = optarg;
			if (!*watchers || strspn(watchers, watcher_letters) != strlen(watchers)) {
				fprintf(stderr, "--watchers: letters of %s\n", watcher_letters);
				return -EINVAL;
			}
			break;
		case 't':
			arg.timeout_s = (unsigned)strtoul(optarg, NULL, 10);
			if (!arg.timeout_s) {
				fprintf(stderr, "--timeout: seconds, at least 1\n");
				return -EINVAL;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	for (const char *p = watchers; *p; p++)
		arg.want[strchr(watcher_letters, *p) - watcher_letters] = true;
	for (; optind < argc; optind++) {
		char *end;
		unsigned long v = strtoul(argv[optind], &end, 10);

		if (*end || v > 100000 || arg.n_sizes == sizeof(arg.sizes) / sizeof(arg.sizes[0])) {
			fprintf(stderr, "N: a number of mounts up to 100000, at most 16 of them\n");
			return -EINVAL;
		}
		arg.sizes[arg.n_sizes++] = v;
	}
	if (!arg.n_sizes) {
		arg.sizes[0] = 100;
		arg.sizes[1] = 1000;
		arg.sizes[2] = 5000;
		arg.n_sizes = 3;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double ratios[16][_W_MAX] = {};

	if (parse_args(argc, argv) < 0)
		return 2;
	if (geteuid() != 0) {
		fprintf(stderr, "mount-bench: must run as root (it mounts).\n");
		return 2;
	}
	/* A helper that died must show up as an error, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	t_begin = progress_last = now_ns();
	progress_tty = isatty(STDERR_FILENO);
	setvbuf(stdout, NULL, _IOLBF, 0);

	{
		struct utsname u;

		(void)uname(&u);
		printf("mount-bench on Linux %s, %ld CPUs; %s changes. CPU = the watcher's\n"
		       "user + system time until it is idle after its last change; latency =\n"
		       "change done -> watcher knows; (a)/this = (a)'s CPU per change / this\n"
		       "one's.\n",
		       u.release, sysconf(_SC_NPROCESSORS_ONLN),
		       arg.burst ? "back-to-back" : "paced");
	}
	for (size_t i = 0; i < arg.n_sizes; i++) {
		Result r[_W_MAX] = {};
		Bulk bulk = {};
		size_t n = arg.sizes[i];
		unsigned k = default_changes(n);

		run_size(n, k, r, &bulk);
		print_table(n, r, &bulk, ratios[i]);
	}

	printf("\nSummary: CPU per change of (a) re-reading mountinfo, divided by that of\n");
	printf("%8s", "N");
	for (int w = W_LISTMOUNT; w <= W_DAEMON; w++)
		printf(" %18s", watcher_short[w]);
	printf("\n");
	for (size_t i = 0; i < arg.n_sizes; i++) {
		printf("%8zu", arg.sizes[i]);
		for (int w = W_LISTMOUNT; w <= W_DAEMON; w++)
			if (ratios[i][w] > 0)
				printf(" %17.1fx", ratios[i][w]);
			else
				printf(" %18s", "-");
		printf("\n");
	}
	progress(true, "done");
	return 0;
}
