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
 *       table, one query round (a statmount(2) and two fsinfo(2)) per new
 *       mount: libmountwatch's watch_queue backend, as mountwatchd uses it;
 *       (e) and (f) the same library with its fanotify and mountinfo
 *       backends;
 *   (g) libmount as systemd's PID 1 and udisks use it: mnt_monitor for
 *       the wake-up, mnt_table_parse_mtab() of the whole table and the same
 *       diff;
 *   (h) findmnt --poll (util-linux), what people run by hand: a process of
 *       its own whose lines the benchmark reads; its CPU is findmnt's;
 *   (d) mountwatchd itself, on the system bus, started by systemd; a client
 *       (a thread of the benchmark with a connection of its own) receives
 *       every signal of mountwatchd's unique name, having called
 *       Subscribe(), and the benchmark waits for its MountAdded /
 *       MountRemoved; with --objects the client follows the ObjectManager
 *       instead, as GLib's GDBusObjectManagerClient does
 *       (GetManagedObjects(), then InterfacesAdded with the new mount's
 *       properties / InterfacesRemoved: one message per change).
 *
 * (a)-(c), (e)-(h) run in a private mount namespace, so PID 1 and mountwatchd
 * do not see their changes; (d) runs in mountwatchd's namespace: PID 1's for
 * the system's daemon, so systemd (the classic watcher of (a), for real)
 * sees those changes too, or a private one with a private bus and daemon
 * (vm/guest/bench --private), where only mountwatchd's messages are routed. Beside
 * mountwatchd's CPU time over the same window are printed the bus daemon's
 * (dbus-daemon or dbus-broker, named from /proc/PID/comm), PID 1's, the
 * client's, and the whole system's: mountwatchd + bus daemon + client, what
 * a subscribed client costs the machine beside PID 1's re-reading; and the
 * bus messages per change (signals the client received). mountwatchd and
 * the bus daemon are measured by their cgroups' cpu.stat where each has a
 * cgroup v2 of its own (so dbus-broker-launch counts with dbus-broker),
 * else (the host mode) by their processes; PID 1 by its process.
 *
 * (d) also measures in bulk, each step until everyone is idle: making the N
 * mounts there back to back and removing them again (one lazy umount), the
 * burst case of systemd issues #8703 / #10268, against the CPU the mount
 * calls themselves took (the mounting thread's), first before the client
 * has subscribed (mountwatchd follows them and sends nothing), then with a
 * client of SubscribeBatched() that follows MountsChanged (one message per
 * batch; not with --objects), then with the per-mount client; and a line
 * per step with mountwatchd + bus daemon against nobody's; and remounting the tmpfs
 * whose directory the N binds show read-only and back (MS_REMOUNT of one
 * superblock: one SB_CHANGED record on the series' kernel, a signal per
 * mount whose properties changed).
 *
 * With --pid1-only nothing but PID 1 follows the changes (no mountwatchd),
 * made in PID 1's namespace: for each N, the N binds made back to back,
 * then K changes each seen by libmountwatch ("auto", what the patched PID
 * 1's watcher picks) beside it and followed by PID 1 going idle (PID 1's CPU
 * per change against the library's in the same rounds), the binds' tmpfs
 * remounted read-only and back (N + 1 mounts at once), then one lazy umount
 * of all of it; PID 1's CPU against the mount calls' own (issue 29's
 * baseline, and the stock and the patched PID 1 side by side when each is
 * booted: vm/run --pid1). A step after which PID 1 is still busy at
 * --timeout fails its size rather than print a number cut short.
 *
 * By default each change waits until the watcher has seen it (paced): the
 * cost per change, without merging. --burst makes the changes back to back
 * and ends with a marker mount; the poll-based watchers then merge wake-ups.
 *
 * CPU time is the watcher's whole process (user + system, in the kernel's
 * nanoseconds, clock_getcpuclockid(3); a thread's for (d)'s client, a
 * cgroup's as said above) from the first change until it has seen the last
 * one and gone idle. The initial snapshot is not counted for anyone. Latency
 * is from the return of mount(2) / umount(2) until the watcher has reported
 * the change.
 *
 * Must run as root. On a kernel without the syscalls a watcher is skipped
 * and the reason printed. Functions return a negative errno on failure.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
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
	W_FINDMNT,	/* (h): findmnt --poll, a process of its own */
	W_DAEMON,	/* (d) and the rows measured beside it, in the order of Others */
	W_BUS,		/* the bus daemon during (d) */
	W_PID1,		/* systemd during (d) */
	W_CLIENT,	/* (d)'s client: the thread that receives the signals */
	W_SYSTEM,	/* mountwatchd + bus daemon + client */
	_W_MAX,
	_W_CHILD_MAX = W_DAEMON, /* (a)-(c), (e)-(h) run as child processes */
	_W_BESIDE_MAX = W_SYSTEM - W_DAEMON, /* the processes (d) measures */
};

/* The processes (d) measures, in the order of their rows. */
enum {
	O_DAEMON = W_DAEMON - W_DAEMON,
	O_BUS = W_BUS - W_DAEMON,
	O_PID1 = W_PID1 - W_DAEMON,
	O_CLIENT = W_CLIENT - W_DAEMON,
};

static const char *const watcher_names[_W_MAX] = {
	[W_MOUNTINFO] = "(a) poll + re-read /proc/self/mountinfo",
	[W_LISTMOUNT] = "(b) poll + listmount(2) + statmount(2)",
	[W_LIB_WQ] = "(c) libmountwatch watch_queue backend",
	[W_LIB_FAN] = "(e) libmountwatch fanotify backend",
	[W_LIB_MI] = "(f) libmountwatch mountinfo backend",
	[W_LIBMOUNT] = "(g) libmount monitor + parse_mtab",
	[W_FINDMNT] = "(h) findmnt --poll",
	[W_DAEMON] = "(d) mountwatchd, signals on the bus",
	[W_BUS] = "    the bus daemon during (d), all traffic",
	[W_PID1] = "    systemd PID 1 during (d)",
	[W_CLIENT] = "    the client during (d), its thread",
	[W_SYSTEM] = "    whole system: mountwatchd+bus+client",
};

/* The same in the summary's columns and the progress lines. */
static const char *const watcher_short[_W_MAX] = {
	[W_MOUNTINFO] = "(a) mountinfo",
	[W_LISTMOUNT] = "(b) listmount",
	[W_LIB_WQ] = "(c) watch_queue",
	[W_LIB_FAN] = "(e) fanotify",
	[W_LIB_MI] = "(f) lib mountinfo",
	[W_LIBMOUNT] = "(g) libmount",
	[W_FINDMNT] = "(h) findmnt",
	[W_DAEMON] = "(d) mountwatchd",
	[W_BUS] = "bus daemon",
	[W_PID1] = "PID 1",
	[W_CLIENT] = "the client",
	[W_SYSTEM] = "(d) whole system",
};

/* The option letter of each watcher, in the enum's order. */
static const char watcher_letters[] = "abcefghd";

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
	int32_t cpu_pid;	/* REPORT_READY: the process whose CPU is the watcher's; 0: its own */
} Report;

typedef struct Result {
	int status;		/* 0 measured, 1 skipped, -errno failed */
	char note[160];		/* why skipped or failed */
	unsigned changes;
	uint64_t cpu_ns;
	uint64_t wall_ns;
	uint64_t latency_ns;	/* summed over the changes waited for */
	unsigned latencies;
	uint64_t wakeups;	/* re-reads (a, b), read(2)s (c), voluntary context switches (d) */
	bool has_wakeups;
	uint64_t messages;	/* (d): signals of mountwatchd's unique name the client received */
	size_t table_size;	/* mounts in the watched namespace */
	unsigned rounds;
	double min_per, max_per; /* CPU ns per change, cheapest and dearest round */
} Result;

/*
 * (d)'s bulk steps, each one call or a loop of calls back to back, then
 * measured until all are idle: the N mounts made and removed again (the
 * burst case), and the superblock they share remounted read-only and back;
 * before them the N mounts made and removed with no client subscribed, so
 * that mountwatchd sends nothing and the bus routes nothing (what a burst
 * costs while nobody listens), then with a client that called
 * SubscribeBatched() and follows MountsChanged (one message per batch).
 */
enum {
	BULK_MOUNT,
	BULK_UMOUNT,
	BULK_REMOUNT_RO,
	BULK_REMOUNT_RW,
	BULK_MOUNT_ALONE,	/* the same two, first, with nobody subscribed */
	BULK_UMOUNT_ALONE,
	BULK_MOUNT_BATCHED,	/* the same two, second, with a client of SubscribeBatched() */
	BULK_UMOUNT_BATCHED,
	_BULK_MAX,
};

typedef struct Burst {
	bool measured;
	size_t mounts;		/* mounts it changed */
	uint64_t wall_ns;	/* until all were idle */
	uint64_t cpu_ns[_W_BESIDE_MAX];	/* mountwatchd, bus daemon, PID 1, client */
	uint64_t calls_ns;	/* the mounting thread's CPU in the mount(2) / umount2(2) calls */
	uint64_t messages;	/* signals of mountwatchd the client received */
	uint64_t wakeups;	/* mountwatchd's voluntary context switches */
	bool caught_up;		/* mountwatchd's table showed the step in the end */
} Burst;

typedef struct Bulk {
	Burst step[_BULK_MAX];
	bool on[_W_BESIDE_MAX];	/* which of the processes were measured */
} Bulk;

static struct {
	size_t sizes[16];
	size_t n_sizes;
	unsigned changes;	/* 0: per size, see default_changes() */
	unsigned rounds;
	bool burst;
	bool objects;		/* (d)'s client: ObjectManager, not Subscribe() */
	bool pid1_only;		/* --pid1-only: PID 1 alone, see pid1_size() */
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

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/*
 * Where a CPU time (user + system, in nanoseconds) is read: a process's or a
 * thread's CPU clock, or the usage_usec of a cgroup's cpu.stat (a service
 * of several processes, such as dbus-broker-launch + dbus-broker).
 */
typedef struct CpuSource {
	clockid_t clock;
	FILE *cpu_stat;		/* the cgroup's, when set; then clock is unused */
} CpuSource;

/* The calling thread's CPU time: what the calls it makes cost, kernel work included. */
static uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static int cpu_source_process(CpuSource *s, pid_t pid)
{
	clockid_t clock;
	int r;

	r = clock_getcpuclockid(pid, &clock);
	if (r != 0)
		return -r;
	*s = (CpuSource){ .clock = clock };
	return 0;
}

static void cpu_source_done(CpuSource *s)
{
	if (s->cpu_stat)
		fclose(s->cpu_stat);
	*s = (CpuSource){};
}

static int cpu_read(const CpuSource *s, uint64_t *ret)
{
	struct timespec ts;

	if (s->cpu_stat) {
		char buf[512];
		ssize_t k = pread(fileno(s->cpu_stat), buf, sizeof(buf) - 1, 0);
		uint64_t usec;
		char *p;

		if (k < 0)
			return -errno;
		buf[k] = 0;
		/* "usage_usec N" is its first line, in every kernel with cgroup v2. */
		p = strstr(buf, "usage_usec ");
		if (!p)
			return -EBADMSG;
		p += strlen("usage_usec ");
		p[strcspn(p, "\n")] = 0;
		if (parse_u64(p, &usec) < 0)
			return -EBADMSG;
		*ret = usec * 1000;
		return 0;
	}
	if (clock_gettime(s->clock, &ts) < 0)
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

/*
 * Waits until s's CPU time stands still (under 1% over window_ns; PID 1
 * needs a longer window, as it rate-limits its mountinfo re-reads), at most
 * max_ns, and returns the time then.
 */
static int settle(const CpuSource *s, const char *name, uint64_t window_ns, uint64_t max_ns,
		  uint64_t *ret)
{
	uint64_t start = now_ns(), a, b, first;
	int r;

	r = cpu_read(s, &a);
	first = a;
	while (r >= 0) {
		sleep_ns(window_ns);
		r = cpu_read(s, &b);
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

/* ---- the watchers' common part ---- */

typedef struct Watcher {
	int report_fd;
	const char *target;
	const char *marker;
	bool report_target;	/* paced: every change of the target */
	const char *backend;	/* (c), (e), (f): libmountwatch's backend */
	uint64_t wakeups;
	uint64_t changed;	/* mounts found changed in place */
	pid_t cpu_pid;		/* (h): findmnt, whose CPU is measured instead */
} Watcher;

static void watcher_report(Watcher *w, uint32_t kind, int error)
{
	Report rep = { .kind = kind, .error = error, .wakeups = w->wakeups, .cpu_pid = w->cpu_pid };

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

static void wm_change(mw_watcher *mw, const mw_change *c, void *userdata)
{
	Watcher *w = userdata;

	if (mw_change_get_type(c) == MW_CHANGE_ADDED)
		watcher_saw(w, mw_change_get_mount_point(c), true);
	else if (mw_change_get_type(c) == MW_CHANGE_REMOVED)
		watcher_saw(w, mw_change_get_mount_point(c), false);
}

/*
 * The library mountwatchd is built on, as any program would use it, with the
 * backend w->backend: watch_queue (watch_mount(2), one query round per new
 * mount - a statmount(2) and two fsinfo(2) - nothing for a removal), fanotify (the event, a statmount(2) of the
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

/* ---- (h) findmnt --poll: util-linux's own watcher, as people run it ---- */

/* ACTION is mount, umount, remount or move; our paths need no escaping in --raw. */
static char *const findmnt_argv[] = { "findmnt", "--poll", "--raw", "--noheadings",
				      "-o", "ACTION,TARGET", NULL };

/*
 * Starts findmnt --poll with its output on a pipe: returns the pipe's read
 * end and findmnt's PID in *ret_pid, or the errno of execvp(3) (-ENOENT: not
 * installed), passed back on a close-on-exec pipe.
 */
static int findmnt_start(pid_t *ret_pid)
{
	int out[2], err[2], e = 0;
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		e = -errno;
		close(out[0]);
		close(out[1]);
		return e;
	}
	pid = fork();
	if (pid == 0) {
		/* Killed with us: the parent measuring it kills us with SIGKILL. */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(out[1], STDOUT_FILENO) >= 0)
			execvp(findmnt_argv[0], findmnt_argv);
		e = -errno;
		(void)!write(err[1], &e, sizeof(e));
		_exit(127);
	}
	if (pid < 0)
		e = -errno;
	close(out[1]);
	close(err[1]);
	if (pid > 0 && read(err[0], &e, sizeof(e)) != sizeof(e))
		e = 0; /* end of file: it runs */
	close(err[0]);
	if (e < 0) {
		close(out[0]);
		if (pid > 0)
			(void)waitpid(pid, NULL, 0);
		return e;
	}
	*ret_pid = pid;
	return out[0];
}

/* findmnt's output, read line by line: with a timeout, so no stdio. */
typedef struct LineReader {
	int fd;
	size_t len;
	char buf[4096];
	char line[4096];
} LineReader;

/*
 * Reads findmnt's next line, "ACTION TARGET", into r->line (the ACTION) and
 * *ret_target; -ETIMEDOUT after timeout_ms (-1: none), -EPIPE when it has
 * exited.
 */
static int findmnt_next(LineReader *r, int timeout_ms, char **ret_target)
{
	for (;;) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		char *nl = memchr(r->buf, '\n', r->len), *sp;
		ssize_t k;

		if (nl) {
			size_t n = (size_t)(nl - r->buf);

			memcpy(r->line, r->buf, n);
			r->line[n] = 0;
			r->len -= n + 1;
			memmove(r->buf, nl + 1, r->len);
			sp = strchr(r->line, ' ');
			if (!sp)
				return -EBADMSG;
			*sp = 0;
			*ret_target = sp + 1;
			return 0;
		}
		if (r->len == sizeof(r->buf))
			return -EBADMSG; /* a line longer than any path here */
		k = poll(&p, 1, timeout_ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ETIMEDOUT;
		k = read(r->fd, r->buf + r->len, sizeof(r->buf) - r->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EPIPE;
		r->len += (size_t)k;
	}
}

/* Reads findmnt's lines until it reports @action at @target. */
static int findmnt_expect(LineReader *r, int timeout_ms, const char *action, const char *target)
{
	for (;;) {
		char *t;
		int k = findmnt_next(r, timeout_ms, &t);

		if (k < 0)
			return k;
		if (strcmp(r->line, action) == 0 && strcmp(t, target) == 0)
			return 0;
	}
}

/*
 * findmnt --poll (util-linux): libmount parses the whole table on every
 * wake-up and prints what differs. It runs as its own process; its CPU is
 * what is measured (w->cpu_pid), this process only translates its lines.
 * findmnt says nothing when it has read the table and waits: once its CPU
 * time stands still, a probe mounted at the marker says it is ready when
 * findmnt reports it. A probe made before findmnt had read the table (it
 * was idle before it started) goes unreported, and is made again with a
 * longer wait each time: at 10,000 mounts findmnt takes seconds a change.
 */
static int watch_findmnt(Watcher *w)
{
	LineReader *rd;
	CpuSource cpu;
	uint64_t unused;
	int r;

	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->fd = findmnt_start(&w->cpu_pid);
	if (rd->fd < 0) {
		r = rd->fd;
		free(rd);
		return r;
	}
	r = cpu_source_process(&cpu, w->cpu_pid);
	if (r >= 0)
		r = settle(&cpu, NULL, 200 * NSEC_PER_MSEC, (uint64_t)arg.timeout_s * NSEC_PER_SEC,
			   &unused);
	if (r < 0)
		goto out;
	for (int wait_ms = 1000; r >= 0; wait_ms = wait_ms < 600000 ? 2 * wait_ms : wait_ms) {
		r = mount_small(w->marker);
		if (r >= 0)
			r = findmnt_expect(rd, wait_ms, "mount", w->marker);
		if (r != -ETIMEDOUT)
			break;
		r = umount_busy(w->marker);
		if (r < 0)
			break;
	}
	if (r >= 0)
		r = umount_busy(w->marker);
	if (r >= 0)
		r = findmnt_expect(rd, -1, "umount", w->marker);
	if (r < 0)
		goto out;
	watcher_report(w, REPORT_READY, 0);
	for (;;) {
		char *target;

		r = findmnt_next(rd, -1, &target);
		if (r < 0)
			break;
		if (strcmp(rd->line, "mount") == 0)
			watcher_saw(w, target, true);
		else if (strcmp(rd->line, "umount") == 0)
			watcher_saw(w, target, false);
		else
			w->changed++; /* remount, move */
	}
out:
	close(rd->fd);
	free(rd);
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
	/* the bus observer (Client) */
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

typedef struct Place {
	char base[64];
	char target[96];
	char marker[96];
} Place;

/* The backend each of (c), (e), (f) asks libmountwatch for. */
static const char *const lib_backend[_W_CHILD_MAX] = {
	[W_LIB_WQ] = "watch_queue",
	[W_LIB_FAN] = "fanotify",
	[W_LIB_MI] = "mountinfo",
};

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

/* A failed measurement: its status (a negative errno) and its note, "what: error". */
static void note_fail(int *status, char *note, size_t size, int r, const char *what)
{
	*status = r < 0 ? r : -EIO;
	snprintf(note, size, "%s: %s", what, strerror(r < 0 ? -r : EIO));
}

static void result_fail(Result *res, int r, const char *what)
{
	note_fail(&res->status, res->note, sizeof(res->note), r, what);
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

/*
 * Forks watcher w (with libmountwatch's backend, for (c), (e), (f)) in this
 * mount namespace, following pl's target (paced: every change of it) and
 * marker; its reports come on *ret_fd, the first REPORT_READY once its
 * snapshot is taken, or REPORT_ERROR. The caller kills and reaps *ret_pid.
 */
static int start_watcher(int w, const char *backend, const Place *pl, pid_t *ret_pid, int *ret_fd)
{
	static int (*const run[_W_CHILD_MAX])(Watcher *) = {
		[W_MOUNTINFO] = watch_mountinfo,
		[W_LISTMOUNT] = watch_listmount,
		[W_LIB_WQ] = watch_library,
		[W_LIB_FAN] = watch_library,
		[W_LIB_MI] = watch_library,
		[W_LIBMOUNT] = watch_libmount,
		[W_FINDMNT] = watch_findmnt,
	};
	int fds[2], r;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (pid == 0) {
		Watcher wa = {
			.report_fd = fds[1],
			.target = pl->target,
			.marker = pl->marker,
			.report_target = !arg.burst,
			.backend = backend,
		};

		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		r = run[w](&wa);
		watcher_report(&wa, REPORT_ERROR, r);
		_exit(1);
	}
	close(fds[1]);
	*ret_pid = pid;
	*ret_fd = fds[0];
	return 0;
}

static void run_child_watcher(int w, const Place *pl, unsigned k, Result *res)
{
	Observer o = { .wait = pipe_wait };
	uint64_t cpu0, cpu1, deadline;
	CpuSource cpu = {};
	Report rep;
	pid_t pid;
	int r;

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
	r = start_watcher(w, lib_backend[w], pl, &pid, &o.fd);
	if (r < 0) {
		result_fail(res, r, "fork");
		return;
	}

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
		} else if (w == W_FINDMNT && r == -ENOENT) {
			res->status = 1;
			snprintf(res->note, sizeof(res->note), "no findmnt on PATH (util-linux)");
		} else {
			result_fail(res, r, "snapshot");
		}
		goto out;
	}
	o.wakeups = rep.wakeups;
	/* findmnt's own CPU, not that of the process reading its lines. */
	r = cpu_source_process(&cpu, rep.cpu_pid > 0 ? rep.cpu_pid : pid);
	if (r >= 0)
		r = settle(&cpu, NULL, 200 * NSEC_PER_MSEC, 10 * NSEC_PER_SEC, &cpu0);
	if (r < 0) {
		result_fail(res, r, "CPU clock");
		goto out;
	}
	{
		uint64_t w0 = o.wakeups;

		progress(true, "%s: snapshot taken, making %u changes", watcher_short[w], k);
		r = make_changes(&o, w, pl, k, res);
		if (r == 0)
			r = settle(&cpu, NULL, 200 * NSEC_PER_MSEC, 10 * NSEC_PER_SEC, &cpu1);
		if (r < 0) {
			result_fail(res, r,
				    r == -ETIMEDOUT ? "waiting for the watcher" : "changes");
			goto out;
		}
		res->cpu_ns = cpu1 - cpu0;
		res->wakeups = o.wakeups - w0;
		/* findmnt's wake-ups are its own, not counted. */
		res->has_wakeups = rep.cpu_pid <= 0;
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

/* A new directory for the place, and the paths in it. */
static int place_init(Place *pl)
{
	strcpy(pl->base, "/run/mount-bench.XXXXXX");
	if (!mkdtemp(pl->base)) {
		pl->base[0] = 0;
		return -errno;
	}
	snprintf(pl->target, sizeof(pl->target), "%s/target", pl->base);
	snprintf(pl->marker, sizeof(pl->marker), "%s/marker", pl->base);
	return 0;
}

/*
 * A tmpfs at the place with N binds of one of its directories (all of one
 * superblock), made back to back; the mount(2) calls' CPU time in
 * *ret_calls_ns.
 */
static int setup_place(Place *pl, size_t n, uint64_t *ret_calls_ns)
{
	uint64_t calls = 0;
	char path[128];
	if (sys_mount("mount-bench", pl->base, "tmpfs", 0, "mode=0755") < 0)
		return -errno;
	/* Nothing made below propagates anywhere else. */
	if (sys_mount(NULL, pl->base, NULL, MS_PRIVATE, NULL) < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/src", pl->base);
	if (mkdir(path, 0755) < 0 || mkdir(pl->target, 0755) < 0 || mkdir(pl->marker, 0755) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		char dst[128];

		snprintf(dst, sizeof(dst), "%s/b%zu", pl->base, i);
		if (mkdir(dst, 0755) < 0)
			return -errno;
	}
	for (size_t i = 0; i < n; i++) {
		char dst[128];
		uint64_t t;

		snprintf(dst, sizeof(dst), "%s/b%zu", pl->base, i);
		t = thread_cpu_ns();
		if (sys_mount(path, dst, NULL, MS_BIND, NULL) < 0)
			return -errno;
		calls += thread_cpu_ns() - t;
		progress(false, "%zu/%zu bind mounts", i + 1, n);
	}
	if (ret_calls_ns)
		*ret_calls_ns = calls;
	return 0;
}

/* All of it, with one lazy umount; that call's CPU time in *ret_calls_ns. */
static void teardown_place(const Place *pl, uint64_t *ret_calls_ns)
{
	uint64_t t = thread_cpu_ns();

	(void)sys_umount2(pl->base, MNT_DETACH);
	if (ret_calls_ns)
		*ret_calls_ns = thread_cpu_ns() - t;
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
		hello.error = place_init(&pl);
	if (hello.error >= 0)
		hello.error = setup_place(&pl, n, NULL);
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
	teardown_place(&pl, NULL);
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

/*
 * (d)'s client: a bus connection of its own, served by a thread of its own
 * once the measurement starts, so that its CPU time (the thread's clock) is
 * measured apart from the thread that makes the changes. It receives every
 * signal of mountwatchd's unique name (a match on the sender, any member),
 * counts them, and fills o.seen from MountAdded / MountRemoved (with
 * --objects: from InterfacesAdded's MountPoint and the InterfacesRemoved of
 * the object that had the target's); the thread making the changes waits
 * on cond.
 */
typedef struct Client {
	Observer o;		/* first: bus_wait() is given &client->o */
	sd_bus *bus;		/* the thread's alone while it runs */
	sd_bus_slot *slot;
	pthread_t thread;
	bool running;
	int stop[2];		/* a pipe: closing stop[1] ends the thread */
	pthread_mutex_t lock;	/* guards o.seen, messages and error */
	pthread_cond_t cond;
	uint64_t messages;
	int error;		/* the thread's failure, once it has ended */
	char target_path[96];	/* --objects: the object of the target's mount */
	bool batched;		/* SubscribeBatched() and MountsChanged, not Subscribe() */
} Client;

/*
 * --objects: the MountPoint of the mount in InterfacesAdded (o path,
 * a{sa{sv}} interfaces), read as a GLib client reads the whole message.
 * Returns 1 and sets *ret_path and *ret_mp, 0 if it has none, or -errno.
 */
static int read_interfaces_added(sd_bus_message *m, const char **ret_path, const char **ret_mp)
{
	const char *path, *iface, *name, *mp = NULL;
	int r;

	r = sd_bus_message_read(m, "o", &path);
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "{sa{sv}}");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
		r = sd_bus_message_read(m, "s", &iface);
		if (r >= 0 && strcmp(iface, MW_MOUNT_IFACE) != 0)
			r = sd_bus_message_skip(m, "a{sv}");
		else if (r >= 0) {
			r = sd_bus_message_enter_container(m, 'a', "{sv}");
			while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
				r = sd_bus_message_read(m, "s", &name);
				if (r >= 0 && strcmp(name, "MountPoint") == 0)
					r = sd_bus_message_read(m, "v", "s", &mp);
				else if (r >= 0)
					r = sd_bus_message_skip(m, "v");
				if (r >= 0)
					r = sd_bus_message_exit_container(m);
			}
			if (r >= 0)
				r = sd_bus_message_exit_container(m);
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	if (r < 0)
		return r;
	if (!mp)
		return 0;
	*ret_path = path;
	*ret_mp = mp;
	return 1;
}

/* The change @m reports about the target or the marker (SEEN_*), or -1. */
static int client_seen_kind(Client *c, sd_bus_message *m)
{
	bool added = sd_bus_message_is_signal(m, MW_MANAGER_IFACE, "MountAdded");
	const char *path, *mp;
	uint64_t id, gen;

	if (arg.objects) {
		if (sd_bus_message_is_signal(m, "org.freedesktop.DBus.ObjectManager",
					     "InterfacesAdded")) {
			if (read_interfaces_added(m, &path, &mp) <= 0)
				return -1;
			if (strcmp(mp, c->o.target) == 0) {
				snprintf(c->target_path, sizeof(c->target_path), "%s", path);
				return SEEN_TARGET_ADDED;
			}
			return strcmp(mp, c->o.marker) == 0 ? SEEN_MARKER_ADDED : -1;
		}
		if (sd_bus_message_is_signal(m, "org.freedesktop.DBus.ObjectManager",
					     "InterfacesRemoved") &&
		    sd_bus_message_read(m, "o", &path) >= 0 && strcmp(path, c->target_path) == 0)
			return SEEN_TARGET_REMOVED;
		return -1;
	}
	if ((added || sd_bus_message_is_signal(m, MW_MANAGER_IFACE, "MountRemoved")) &&
	    sd_bus_message_read(m, "tost", &id, &path, &mp, &gen) >= 0) {
		if (strcmp(mp, c->o.target) == 0)
			return added ? SEEN_TARGET_ADDED : SEEN_TARGET_REMOVED;
		if (added && strcmp(mp, c->o.marker) == 0)
			return SEEN_MARKER_ADDED;
	}
	return -1;
}

/*
 * A batched client: what each MountsChanged entry (generation, kind,
 * unique ID, mount point, values) says about the target or the marker,
 * added to seen[]. Returns 0 or -errno.
 */
static int client_seen_batch(Client *c, sd_bus_message *m, unsigned seen[_SEEN_MAX])
{
	const char *kind, *mp;
	uint64_t id, gen;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "(tstsa{sv})");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'r', "tstsa{sv}")) > 0) {
		r = sd_bus_message_read(m, "tsts", &gen, &kind, &id, &mp);
		if (r >= 0)
			r = sd_bus_message_skip(m, "a{sv}");
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
		if (r < 0)
			break;
		if (strcmp(mp, c->o.target) == 0 && strcmp(kind, "changed") != 0)
			seen[kind[0] == 'a' ? SEEN_TARGET_ADDED : SEEN_TARGET_REMOVED]++;
		else if (strcmp(kind, "added") == 0 && strcmp(mp, c->o.marker) == 0)
			seen[SEEN_MARKER_ADDED]++;
	}
	return r < 0 ? r : 0;
}

static int on_daemon_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	Client *c = userdata;
	unsigned seen[_SEEN_MAX] = {};
	bool any = false;
	int kind;

	(void)error;
	/* Every signal is counted; the target's and marker's are waited for. */
	if (c->batched && sd_bus_message_is_signal(m, MW_MANAGER_IFACE, "MountsChanged"))
		(void)client_seen_batch(c, m, seen);
	else {
		kind = client_seen_kind(c, m);
		if (kind >= 0)
			seen[kind]++;
	}
	pthread_mutex_lock(&c->lock);
	c->messages++;
	for (int i = 0; i < _SEEN_MAX; i++) {
		c->o.seen[i] += seen[i];
		any = any || seen[i];
	}
	if (any)
		pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* The client's loop: the bus until stop[1] is closed, or the bus fails. */
static void *client_thread(void *userdata)
{
	Client *c = userdata;
	int r;

	for (;;) {
		struct pollfd p[2] = { { .fd = sd_bus_get_fd(c->bus) },
				       { .fd = c->stop[0], .events = POLLIN } };
		uint64_t until;
		int ms = -1;

		r = sd_bus_process(c->bus, NULL);
		if (r < 0)
			break;
		if (r > 0)
			continue;
		r = sd_bus_get_events(c->bus);
		if (r < 0)
			break;
		p[0].events = (short)r;
		r = sd_bus_get_timeout(c->bus, &until);
		if (r < 0)
			break;
		if (until != UINT64_MAX) {
			uint64_t now = now_usec();

			ms = until > now ? (int)((until - now + 999) / 1000) : 0;
		}
		if (poll(p, 2, ms) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (p[1].revents) {
			r = 0;
			break;
		}
	}
	pthread_mutex_lock(&c->lock);
	c->error = r < 0 ? r : -ECANCELED;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Observer.wait for (d): until the client thread has seen it. */
static int bus_wait(Observer *o, int kind, unsigned count, uint64_t deadline)
{
	Client *c = (Client *)o;
	struct timespec ts = { .tv_sec = (time_t)(deadline / NSEC_PER_SEC),
			       .tv_nsec = (long)(deadline % NSEC_PER_SEC) };
	int r = 0;

	pthread_mutex_lock(&c->lock);
	while (o->seen[kind] < count && !c->error && r == 0)
		r = pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	if (o->seen[kind] >= count)
		r = 0;
	else if (c->error)
		r = c->error;
	else
		r = r == ETIMEDOUT ? -ETIMEDOUT : -r;
	pthread_mutex_unlock(&c->lock);
	return r;
}

static uint64_t client_messages(Client *c)
{
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->messages;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/*
 * Connects the client, adds its match on @sender (mountwatchd's unique
 * name), subscribes - Subscribe(), with batched SubscribeBatched(), or with
 * --objects GetManagedObjects() -
 * and starts its thread, whose CPU clock goes to *ret_cpu. *ret_subscribed
 * is false when the daemon has no Subscribe() (older ones send their
 * signals unconditionally).
 */
static int client_start(Client *c, const char *sender, const Place *pl, bool batched, CpuSource *ret_cpu,
			bool *ret_subscribed)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	pthread_condattr_t ca;
	char match[128];
	clockid_t clock;
	int r;

	*c = (Client){ .o.wait = bus_wait, .o.target = pl->target, .o.marker = pl->marker,
		       .stop = { -1, -1 }, .batched = batched };
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* bus_wait()'s deadlines are now_ns() */
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	r = sd_bus_open_system(&c->bus);
	if (r < 0)
		return r;
	/* Every signal of the daemon, as an ObjectManager client (GLib's) asks for them. */
	snprintf(match, sizeof(match), "type='signal',sender='%s'", sender);
	r = sd_bus_add_match(c->bus, &c->slot, match, on_daemon_signal, c);
	if (r < 0)
		return r;
	/*
	 * After the match, before the changes. A daemon without Subscribe()
	 * (UnknownMethod) sends every signal to everyone anyway; any other
	 * error is the daemon's failure. The ObjectManager's listing is read
	 * and dropped: the benchmark follows only its own mounts.
	 */
	if (arg.objects)
		r = sd_bus_call_method(c->bus, MW_BUS_NAME, MW_MANAGER_PATH,
				       "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
				       &error, NULL, NULL);
	else
		r = sd_bus_call_method(c->bus, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE,
				       batched ? "SubscribeBatched" : "Subscribe", &error, NULL, NULL);
	if (r < 0 && (arg.objects || batched || !sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD)))
		return r;
	*ret_subscribed = r >= 0;
	if (pipe2(c->stop, O_CLOEXEC) < 0)
		return -errno;
	r = pthread_create(&c->thread, NULL, client_thread, c);
	if (r != 0)
		return -r;
	c->running = true;
	r = pthread_getcpuclockid(c->thread, &clock);
	if (r != 0)
		return -r;
	*ret_cpu = (CpuSource){ .clock = clock };
	return 0;
}

static void client_stop(Client *c)
{
	if (!c->bus)
		return; /* never started */
	if (c->running) {
		close(c->stop[1]);
		c->stop[1] = -1;
		pthread_join(c->thread, NULL);
		c->running = false;
	}
	if (c->stop[0] >= 0)
		close(c->stop[0]);
	if (c->stop[1] >= 0)
		close(c->stop[1]);
	c->stop[0] = c->stop[1] = -1;
	c->slot = sd_bus_slot_unref(c->slot);
	c->bus = sd_bus_flush_close_unref(c->bus);
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

/* Who owns @name now, ":1.N": the sender of its signals. */
static int bus_owner(sd_bus *bus, const char *name, char *buf, size_t size)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *owner;
	int r;

	r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "GetNameOwner", &error, &reply, "s", name);
	if (r >= 0)
		r = sd_bus_message_read(reply, "s", &owner);
	if (r >= 0)
		snprintf(buf, size, "%s", owner);
	sd_bus_message_unref(reply);
	return r;
}

/*
 * The bus daemon's PID, as the bus says it (dbus-daemon answers for itself);
 * else systemd's MainPID of the bus's unit (dbus.service, an alias of
 * dbus-broker.service where the broker is the bus). The bus's own
 * credentials would name PID 1, which made the socket (socket activation).
 */
static int bus_daemon_pid(sd_bus *bus, pid_t *ret)
{
	sd_bus_message *reply = NULL;
	uint32_t pid = 0;
	int r;

	r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "GetConnectionUnixProcessID", NULL, &reply,
			       "s", "org.freedesktop.DBus");
	if (r >= 0)
		r = sd_bus_message_read(reply, "u", &pid);
	sd_bus_message_unref(reply);
	if (r < 0 || pid == 0)
		r = sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1",
						"/org/freedesktop/systemd1/unit/dbus_2eservice",
						"org.freedesktop.systemd1.Service", "MainPID", NULL,
						'u', &pid);
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

/* The cgroup v2 path of @pid ("/system.slice/dbus.service"), from /proc/PID/cgroup. */
static int cgroup_of(pid_t pid, char *buf, size_t size)
{
	_cleanup_free_ char *line = NULL;
	size_t line_size = 0;
	char path[64];
	int r = -ENOENT;
	FILE *f;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &line_size, f) > 0)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, size, "%s", line + 3);
			r = 0;
			break;
		}
	fclose(f);
	return r;
}

/*
 * Measures @pid by its cgroup's cpu.stat when that cgroup is a service of
 * its own (cgroup v2 at /sys/fs/cgroup; not the root, not this benchmark's,
 * not @other's), else by its own CPU clock: the host mode's private bus and
 * daemon sit in the benchmark's cgroup. Returns 1 for a cgroup, 0 for the
 * process.
 */
static int cpu_source_service(CpuSource *s, pid_t pid, pid_t other)
{
	char cg[256], mine[256], theirs[256], path[300];
	FILE *f;

	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 &&
	    cgroup_of(pid, cg, sizeof(cg)) >= 0 && strcmp(cg, "/") != 0 &&
	    cgroup_of(0, mine, sizeof(mine)) >= 0 && strcmp(cg, mine) != 0 &&
	    (other <= 0 || cgroup_of(other, theirs, sizeof(theirs)) < 0 ||
	     strcmp(cg, theirs) != 0)) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.stat", cg);
		f = fopen(path, "re");
		if (f) {
			*s = (CpuSource){ .cpu_stat = f };
			return 1;
		}
	}
	return cpu_source_process(s, pid);
}

/* The processes that (d) measures beside mountwatchd, in the order of the result rows. */
typedef struct Others {
	CpuSource src[_W_BESIDE_MAX];	/* mountwatchd, bus daemon, PID 1, client */
	bool on[_W_BESIDE_MAX];		/* measured; false if unknown or gone */
	bool cgroup[_W_BESIDE_MAX];	/* by its cgroup's cpu.stat */
	uint64_t cpu[_W_BESIDE_MAX];
} Others;

/* What the bus daemon is ("dbus-daemon", "dbus-broker"), from /proc/PID/comm. */
static char bus_label[32] = "bus daemon";

static const char *other_name(int i)
{
	static const char *const names[_W_BESIDE_MAX] = {
		[O_DAEMON] = "mountwatchd",
		[O_PID1] = "PID 1",
		[O_CLIENT] = "the client",
	};

	return names[i] ?: bus_label;
}

static void others_read(Others *o)
{
	for (int i = 0; i < _W_BESIDE_MAX; i++)
		if (o->on[i] && cpu_read(&o->src[i], &o->cpu[i]) < 0)
			o->on[i] = false;
}

/*
 * Waits until each is idle and adds the CPU time each spent since o was
 * read to spent[]; returns the wall time until the last was idle.
 */
static uint64_t others_settle(Others *o, uint64_t since, uint64_t spent[_W_BESIDE_MAX])
{
	for (int i = 0; i < _W_BESIDE_MAX; i++) {
		uint64_t v;

		if (!o->on[i])
			continue;
		if (settle(&o->src[i], other_name(i),
			   (i == O_PID1 ? 1500 : 200) * NSEC_PER_MSEC,
			   600 * NSEC_PER_SEC, &v) < 0) {
			o->on[i] = false;
			continue;
		}
		spent[i] += v - o->cpu[i];
		o->cpu[i] = v;
	}
	return now_ns() - since;
}

static void others_done(Others *o)
{
	for (int i = 0; i < _W_BESIDE_MAX; i++) {
		cpu_source_done(&o->src[i]);
		o->on[i] = false;
	}
}

/* The Backend property of the mountwatchd that (d) measured. */
static char daemon_backend[24];

/* How (d) was measured, for the lines below its table. */
static struct {
	bool subscribed;	/* Subscribe() answered (else: an older daemon) */
	bool cgroup[_W_BESIDE_MAX];
	bool pid1;		/* PID 1 shares the namespace and is measured */
} daemon_how;

/* Whether PID 1 sees this process's mounts (not so in a private namespace). */
static bool pid1_shares_mount_ns(void)
{
	struct stat a, b;

	return stat("/proc/1/ns/mnt", &a) == 0 && stat("/proc/self/ns/mnt", &b) == 0 &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

typedef struct Daemon {
	Client c;
	sd_bus *bus;		/* this thread's calls */
	pid_t pid;		/* mountwatchd's */
	Others ot;
	Place pl;
	size_t table_size;
} Daemon;

/*
 * How often mountwatchd (one thread) went to sleep: the voluntary context
 * switches of /proc/PID/status - its wake-ups, and any wait for a lock in
 * the kernel. 0 if unknown.
 */
static uint64_t daemon_wakeups(const Daemon *d)
{
	_cleanup_free_ char *line = NULL;
	char path[64];
	uint64_t v = 0;
	size_t size = 0;
	FILE *f;

	if (d->pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)d->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (getline(&line, &size, f) > 0)
		if (sscanf(line, "voluntary_ctxt_switches: %" SCNu64, &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Whether mountwatchd has applied bulk step @step: as many mounts as
 * mountinfo, or (a remount) the last bind's SuperOptions read-only or
 * read-write. Returns 1 or 0, or -errno.
 */
static int daemon_caught_up(Daemon *d, int step, size_t n)
{
	_cleanup_free_ char *opts = NULL;
	sd_bus_message *reply = NULL;
	const char *path;
	char mp[128];
	uint32_t count;
	int r;

	if (step == BULK_MOUNT || step == BULK_UMOUNT) {
		r = bus_mount_count(d->bus, &count);
		return r < 0 ? r : count == count_mounts();
	}
	if (n)
		snprintf(mp, sizeof(mp), "%s/b%zu", d->pl.base, n - 1);
	else
		snprintf(mp, sizeof(mp), "%s", d->pl.base);
	r = sd_bus_call_method(d->bus, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE,
			       "GetMountByPath", NULL, &reply, "s", mp);
	if (r >= 0)
		r = sd_bus_message_read(reply, "o", &path);
	if (r >= 0)
		r = sd_bus_get_property_string(d->bus, MW_BUS_NAME, path, MW_MOUNT_IFACE,
					       "SuperOptions", NULL, &opts);
	sd_bus_message_unref(reply);
	if (r < 0)
		return r;
	return strncmp(opts, step == BULK_REMOUNT_RO ? "ro" : "rw", 2) == 0 &&
	       (!opts[2] || opts[2] == ',');
}

typedef struct BulkStart {
	uint64_t t0, messages, wakeups;
} BulkStart;

/* Where the counts stand before a bulk step (the CPU clocks: others_read()). */
static BulkStart bulk_start(Daemon *d)
{
	BulkStart s = { .wakeups = daemon_wakeups(d),
			.messages = d->c.running ? client_messages(&d->c) : 0 };

	others_read(&d->ot);
	s.t0 = now_ns();
	return s;
}

/*
 * One bulk step: the mounting thread's calls (measured by the caller), then
 * every measured process until idle, and the client's messages. Idle is not
 * done: a daemon that has not applied the step yet is waited for (and
 * measured until idle again), up to the timeout, and the step says so if it
 * never does.
 */
static void bulk_settle(Daemon *d, Burst *b, int step, size_t n, const BulkStart *s)
{
	uint64_t deadline = s->t0 + (uint64_t)arg.timeout_s * NSEC_PER_SEC;
	int r;

	b->wall_ns = others_settle(&d->ot, s->t0, b->cpu_ns);
	while ((r = daemon_caught_up(d, step, n)) == 0 && now_ns() < deadline) {
		sleep_ns(100 * NSEC_PER_MSEC);
		b->wall_ns = others_settle(&d->ot, s->t0, b->cpu_ns);
	}
	b->caught_up = r > 0;
	b->messages = d->c.running ? client_messages(&d->c) - s->messages : 0;
	b->wakeups = daemon_wakeups(d) - s->wakeups;
	b->measured = true;
}

/* Bulk: the N binds made back to back at d->pl (set up by place_init()), measured. */
static int bulk_mount(Daemon *d, size_t n, Burst *b)
{
	BulkStart s;
	int r;

	progress(true, "(d) %zu bind mounts in mountwatchd's namespace%s", n,
		 d->c.running ? "" : ", nobody subscribed");
	s = bulk_start(d);
	r = setup_place(&d->pl, n, &b->calls_ns);
	if (r < 0)
		return r;
	b->mounts = n;
	bulk_settle(d, b, BULK_MOUNT, n, &s);
	return 0;
}

/* Bulk: all of d->pl removed with one lazy umount, measured. */
static void bulk_umount(Daemon *d, size_t n, Burst *b)
{
	BulkStart s;

	progress(true, "(d) removing the %zu bind mounts (one lazy umount)%s", n,
		 d->c.running ? "" : ", nobody subscribed");
	s = bulk_start(d);
	teardown_place(&d->pl, &b->calls_ns);
	b->mounts = n + 1;
	bulk_settle(d, b, BULK_UMOUNT, n, &s);
}

/*
 * Connects to mountwatchd and makes the N mounts in PID 1's namespace, with
 * the client subscribed, having made and removed them first with nobody
 * subscribed. Returns 0, or 1 with a reason in *res when (d) cannot run.
 */
static int daemon_open(Daemon *d, size_t n, Result *res, Bulk *bulk)
{
	char sender[64], comm_path[64];
	uint32_t count = 0;
	pid_t pid[_W_BESIDE_MAX] = {};
	int r;

	*d = (Daemon){ .c.stop = { -1, -1 } };
	r = sd_bus_open_system(&d->bus);
	if (r < 0) {
		res->status = 1;
		snprintf(res->note, sizeof(res->note), "no system bus: %s", strerror(-r));
		return 1;
	}
	/* A call starts it through D-Bus activation if it is not running. */
	r = bus_mount_count(d->bus, &count);
	if (r >= 0)
		r = bus_pid(d->bus, MW_BUS_NAME, &pid[O_DAEMON]);
	if (r >= 0)
		r = bus_owner(d->bus, MW_BUS_NAME, sender, sizeof(sender));
	if (r < 0) {
		res->status = 1;
		snprintf(res->note, sizeof(res->note), "mountwatchd is not on the bus: %s",
			 strerror(-r));
		return 1;
	}
	d->pid = pid[O_DAEMON];
	(void)bus_daemon_pid(d->bus, &pid[O_BUS]);
	/* In a private namespace (the host mode) PID 1 sees none of this. */
	pid[O_PID1] = pid1_shares_mount_ns() ? 1 : 0;
	for (int i = 0; i < O_CLIENT; i++) {
		if (pid[i] <= 0)
			continue;
		/* PID 1 by itself: init.scope may hold more than systemd. */
		r = i == O_PID1 ? cpu_source_process(&d->ot.src[i], pid[i]) :
			     cpu_source_service(&d->ot.src[i], pid[i], pid[i == O_DAEMON ? O_BUS : O_DAEMON]);
		d->ot.on[i] = r >= 0;
		d->ot.cgroup[i] = r > 0;
	}
	if (pid[O_BUS] > 0) {
		FILE *f;

		snprintf(comm_path, sizeof(comm_path), "/proc/%d/comm", (int)pid[O_BUS]);
		f = fopen(comm_path, "re");
		if (f) {
			if (fgets(bus_label, sizeof(bus_label), f))
				bus_label[strcspn(bus_label, "\n")] = 0;
			fclose(f);
			/* The bus's PID is the launcher's ("dbus-broker-lau", cut to
			 * 15 bytes); its cgroup holds the broker too. */
			if (strncmp(bus_label, "dbus-broker", 11) == 0)
				snprintf(bus_label, sizeof(bus_label), "dbus-broker");
		}
	}
	{
		_cleanup_free_ char *b = NULL;

		if (sd_bus_get_property_string(d->bus, MW_BUS_NAME, MW_MANAGER_PATH,
					       MW_MANAGER_IFACE, "Backend", NULL, &b) >= 0)
			snprintf(daemon_backend, sizeof(daemon_backend), "%s", b);
	}

	/*
	 * The burst with nobody subscribed, before the client exists: the
	 * daemon follows it and sends no signal.
	 */
	memcpy(bulk->on, d->ot.on, sizeof(bulk->on));
	r = place_init(&d->pl);
	if (r >= 0)
		r = bulk_mount(d, n, &bulk->step[BULK_MOUNT_ALONE]);
	if (r < 0) {
		result_fail(res, r, "setting up the mounts");
		return r;
	}
	bulk_umount(d, n, &bulk->step[BULK_UMOUNT_ALONE]);

	/*
	 * The same with a batched client (SubscribeBatched()), which leaves
	 * again before the per-mount one comes. Not with --objects: an
	 * ObjectManager client has no batched form.
	 */
	if (!arg.objects) {
		bool batched_ok;

		r = place_init(&d->pl);
		if (r >= 0)
			r = client_start(&d->c, sender, &d->pl, true, &d->ot.src[O_CLIENT], &batched_ok);
		if (r < 0) {
			result_fail(res, r, "the batched client (match, SubscribeBatched())");
			return r;
		}
		d->ot.on[O_CLIENT] = true;
		r = bulk_mount(d, n, &bulk->step[BULK_MOUNT_BATCHED]);
		if (r < 0) {
			result_fail(res, r, "setting up the mounts");
			return r;
		}
		bulk_umount(d, n, &bulk->step[BULK_UMOUNT_BATCHED]);
		client_stop(&d->c);
	}

	/* The paths first: the client's thread compares with them from its start. */
	r = place_init(&d->pl);
	if (r >= 0)
		r = client_start(&d->c, sender, &d->pl, false, &d->ot.src[O_CLIENT], &daemon_how.subscribed);
	if (r < 0) {
		result_fail(res, r, "the client (match, Subscribe())");
		return r;
	}
	d->ot.on[O_CLIENT] = true;
	memcpy(daemon_how.cgroup, d->ot.cgroup, sizeof(daemon_how.cgroup));
	daemon_how.pid1 = d->ot.on[O_PID1];
	bulk->on[O_CLIENT] = true;

	r = bulk_mount(d, n, &bulk->step[BULK_MOUNT]);
	if (r < 0) {
		result_fail(res, r, "setting up the mounts");
		return r;
	}
	r = bus_mount_count(d->bus, &count);
	if (r < 0) {
		result_fail(res, r, "reading MountCount");
		return r;
	}
	d->table_size = count_mounts();
	if (count != d->table_size)
		fprintf(stderr, "note: mountwatchd counts %" PRIu32 " mounts, mountinfo %zu\n",
			count, d->table_size);
	return 0;
}

/* One round of k changes; out[] are the rows from W_DAEMON on. */
static void daemon_round(Daemon *d, unsigned k, Result out[_W_MAX - W_DAEMON])
{
	uint64_t spent[_W_BESIDE_MAX] = {}, m0, w0;
	Result *sys = &out[W_SYSTEM - W_DAEMON];
	int r;

	/* Counted anew each round: the client's totals go on from the last. */
	pthread_mutex_lock(&d->c.lock);
	memset(d->c.o.seen, 0, sizeof(d->c.o.seen));
	pthread_mutex_unlock(&d->c.lock);
	progress(true, "(d) mountwatchd: making %u changes", k);
	w0 = daemon_wakeups(d);
	others_read(&d->ot);
	m0 = client_messages(&d->c);
	r = make_changes(&d->c.o, W_DAEMON, &d->pl, k, &out[0]);
	if (r < 0) {
		(void)sys_umount2(d->pl.target, MNT_DETACH);
		(void)sys_umount2(d->pl.marker, MNT_DETACH);
		for (int i = 1; i < _W_MAX - W_DAEMON; i++)
			out[i].status = 1; /* rows hidden */
		result_fail(&out[0], r, r == -ETIMEDOUT ? "waiting for the signal" : "changes");
		return;
	}
	/* Each is measured until it is idle again: what the changes cost it. */
	(void)others_settle(&d->ot, 0, spent);
	out[0].messages = client_messages(&d->c) - m0;
	out[0].wakeups = daemon_wakeups(d) - w0;
	out[0].has_wakeups = w0 > 0;
	if (arg.burst) {
		uint64_t unused[_W_BESIDE_MAX] = {};

		/* The marker goes again, outside the measurement. */
		(void)umount_busy(d->pl.marker);
		(void)others_settle(&d->ot, 0, unused);
	}
	if (!d->ot.on[O_DAEMON]) {
		result_fail(&out[0], -ESRCH, "mountwatchd's CPU clock");
		for (int i = 1; i < _W_MAX - W_DAEMON; i++)
			out[i].status = 1;
		return;
	}
	for (int i = 0; i < _W_BESIDE_MAX; i++) {
		if (!d->ot.on[i]) {
			out[i].status = 1;
			/* PID 1 outside this namespace (the host mode) has nothing to say. */
			if (i != O_PID1)
				snprintf(out[i].note, sizeof(out[i].note),
					 "its PID or CPU time is unknown");
			continue;
		}
		out[i].cpu_ns = spent[i];
		out[i].changes = out[0].changes;
		out[i].table_size = d->table_size;
	}
	/* The whole system: all that mountwatchd, its bus and its client spend. */
	*sys = out[0];
	sys->latencies = 0;
	sys->messages = 0;
	sys->has_wakeups = false;
	for (int i = O_BUS; i < _W_BESIDE_MAX; i++) {
		if (i == O_PID1)
			continue;
		if (!d->ot.on[i]) {
			sys->status = 1;
			snprintf(sys->note, sizeof(sys->note), "%s's CPU was not measured",
				 other_name(i));
			break;
		}
		sys->cpu_ns += spent[i];
	}
}

/*
 * The superblock the N binds share (the tmpfs at pl.base, its directory src
 * bound N times) remounted read-only and back: one change of N + 1 mounts,
 * one SB_CHANGED record on the series' kernel; the daemon signals each
 * mount whose properties changed.
 */
static void daemon_remount(Daemon *d, size_t n, Bulk *bulk)
{
	for (int i = BULK_REMOUNT_RO; i <= BULK_REMOUNT_RW; i++) {
		Burst *b = &bulk->step[i];
		unsigned long flags = MS_REMOUNT | (i == BULK_REMOUNT_RO ? MS_RDONLY : 0);
		BulkStart s;
		uint64_t t;

		progress(true, "(d) remounting the %zu binds' tmpfs %s", n,
			 i == BULK_REMOUNT_RO ? "read-only" : "read-write");
		s = bulk_start(d);
		t = thread_cpu_ns();
		if (sys_mount(NULL, d->pl.base, NULL, flags, NULL) < 0) {
			fprintf(stderr, "mount-bench: remounting %s: %m\n", d->pl.base);
			return;
		}
		b->calls_ns = thread_cpu_ns() - t;
		b->mounts = n + 1;
		bulk_settle(d, b, i, n, &s);
	}
}

static void daemon_close(Daemon *d, size_t n, Bulk *bulk)
{
	if (bulk->step[BULK_MOUNT].measured && d->c.running) {
		daemon_remount(d, n, bulk);
		bulk_umount(d, n, &bulk->step[BULK_UMOUNT]);
	} else if (d->pl.base[0]) {
		teardown_place(&d->pl, NULL);
	}
	client_stop(&d->c);
	others_done(&d->ot);
	d->bus = sd_bus_flush_close_unref(d->bus);
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
	total->messages += one->messages;
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
		for (int w = W_DAEMON + 1; w < _W_MAX; w++)
			res[w].status = 1;

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
			Result one[_W_MAX - W_DAEMON] = {};

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
			for (int i = 0; i < _W_MAX - W_DAEMON; i++)
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

/* How (d) was measured, and the bus messages per change. */
static void print_daemon_notes(const Result *d)
{
	printf("    bus messages per change during (d): %.1f (every signal of mountwatchd's\n"
	       "        unique name that the client received)\n",
	       d->changes ? (double)d->messages / d->changes : 0.0);
	if (d->has_wakeups && d->changes)
		printf("    mountwatchd's wake-ups per change: %.2f (its voluntary context switches)\n",
		       (double)d->wakeups / d->changes);
	printf("    the client %s\n", arg.objects ?
	       "called GetManagedObjects() and followed InterfacesAdded/Removed (--objects)" :
	       daemon_how.subscribed ? "called Subscribe() and followed MountAdded/Removed" :
	       "called Subscribe(): UnknownMethod, this mountwatchd signals to all");
	if (daemon_how.pid1)
		printf("    NOTE: %s's CPU is all its traffic: with PID 1 in this namespace that\n"
		       "        includes systemd's own signals about its mount units (to its\n"
		       "        subscribers, such as logind), which mountwatchd does not cause\n",
		       bus_label);
	printf("    CPU by cgroup (cpu.stat usage_usec) or process: mountwatchd by its %s,\n"
	       "        %s by its %s, %sthe client by its thread\n",
	       daemon_how.cgroup[O_DAEMON] ? "cgroup" : "process", bus_label,
	       daemon_how.cgroup[O_BUS] ? "cgroup" : "process",
	       daemon_how.pid1 ? "PID 1 by its process, " : "");
}

/* (d)'s bulk steps, one column each. */
static void print_bulk(const Bulk *b)
{
	static const char *const head[_BULK_MAX] = { "mount all", "umount all", "remount ro",
						     "remount rw", "mount all", "umount all",
						     "mount all", "umount all" };
	char name[64];

	printf("%-42s", "(d) in bulk: N binds made back to back,");
	for (int j = 0; j < _BULK_MAX; j++)
		printf(" %11s", head[j]);
	printf("\n    %-38s", "lazily unmounted, their tmpfs remounted;");
	for (int j = 0; j < _BULK_MAX; j++)
		printf(" %11s", j < BULK_MOUNT_ALONE ? "" : j < BULK_MOUNT_BATCHED ? "nobody" : "batched");
	printf("\n    %-38s", "");
	for (int j = 0; j < _BULK_MAX; j++)
		printf(" %11s", j < BULK_MOUNT_ALONE ? "" : "subscribed");
	printf("\n    %-38s", "mounts changed");
	for (int j = 0; j < _BULK_MAX; j++)
		if (b->step[j].measured)
			printf(" %11zu", b->step[j].mounts);
		else
			printf(" %11s", "-");
	for (int i = 0; i < _W_BESIDE_MAX; i++) {
		if (!b->on[i])
			continue;
		snprintf(name, sizeof(name), "%s CPU ms", i == O_PID1 ? "systemd PID 1" :
			 other_name(i));
		printf("\n    %-38s", name);
		for (int j = 0; j < _BULK_MAX; j++)
			if (b->step[j].measured && !(i == O_CLIENT && (j == BULK_MOUNT_ALONE || j == BULK_UMOUNT_ALONE)))
				print_ms(b->step[j].cpu_ns[i], 11);
			else
				printf(" %11s", "-");
	}
	printf("\n    %-38s", "the mount calls' CPU ms");
	for (int j = 0; j < _BULK_MAX; j++)
		if (b->step[j].measured)
			print_ms(b->step[j].calls_ns, 11);
		else
			printf(" %11s", "-");
	snprintf(name, sizeof(name), "(mountwatchd + %s) / calls", bus_label);
	printf("\n    %-38s", name);
	for (int j = 0; j < _BULK_MAX; j++) {
		const Burst *s = &b->step[j];

		if (s->measured && s->calls_ns && b->on[O_DAEMON] && b->on[O_BUS])
			printf(" %10.2fx", (double)(s->cpu_ns[O_DAEMON] + s->cpu_ns[O_BUS]) / s->calls_ns);
		else
			printf(" %11s", "-");
	}
	printf("\n    %-38s", "bus messages to the client per mount");
	for (int j = 0; j < _BULK_MAX; j++)
		if (b->step[j].measured && b->step[j].mounts)
			printf(" %11.3f", (double)b->step[j].messages / b->step[j].mounts);
		else
			printf(" %11s", "-");
	printf("\n    %-38s", "mountwatchd's wake-ups per mount");
	for (int j = 0; j < _BULK_MAX; j++)
		if (b->step[j].measured && b->step[j].mounts && b->step[j].wakeups)
			printf(" %11.2f", (double)b->step[j].wakeups / b->step[j].mounts);
		else
			printf(" %11s", "-");
	printf("\n    %-38s", "until all were idle, s");
	for (int j = 0; j < _BULK_MAX; j++)
		if (b->step[j].measured)
			printf(" %11.1f", (double)b->step[j].wall_ns / NSEC_PER_SEC);
		else
			printf(" %11s", "-");
	printf("\n");
	/* Issue 28's target: a batched subscriber costs daemon + bus at most 1.5x nobody's storm. */
	for (int j = BULK_MOUNT_BATCHED; j <= BULK_UMOUNT_BATCHED && b->on[O_DAEMON] && b->on[O_BUS]; j++) {
		const Burst *x = &b->step[j], *alone = &b->step[j - BULK_MOUNT_BATCHED + BULK_MOUNT_ALONE],
			    *one = &b->step[j - BULK_MOUNT_BATCHED + BULK_MOUNT];
		uint64_t base = alone->cpu_ns[O_DAEMON] + alone->cpu_ns[O_BUS];

		if (!x->measured || !alone->measured || !base)
			continue;
		printf("    %s: (mountwatchd + %s) with a batched subscriber / with nobody: %.2fx",
		       head[j], bus_label, (double)(x->cpu_ns[O_DAEMON] + x->cpu_ns[O_BUS]) / base);
		if (one->measured)
			printf("; with a per-mount subscriber / with nobody: %.2fx",
			       (double)(one->cpu_ns[O_DAEMON] + one->cpu_ns[O_BUS]) / base);
		printf("\n");
	}
	for (int j = 0; j < _BULK_MAX; j++)
		if (b->step[j].measured && !b->step[j].caught_up)
			printf("    NOTE: %s: mountwatchd's table did not show it within %u s\n",
			       head[j], arg.timeout_s);
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
		} else if (w == W_BUS) {
			char name[64];

			snprintf(name, sizeof(name), "    %s during (d), all traffic", bus_label);
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
	if (res[W_DAEMON].status == 0)
		print_daemon_notes(&res[W_DAEMON]);
	if (bulk->step[BULK_MOUNT].measured)
		print_bulk(bulk);
	fflush(stdout);
}

/* ---- --pid1-only: what PID 1 pays, with nothing else following mounts ---- */

typedef struct Pid1Cost {
	int status;		/* 0 measured, -errno failed */
	char note[160];
	size_t table_size;	/* mounts in the namespace with the N binds */
	uint64_t binds_calls_ns, binds_pid1_ns, binds_wall_ns;
	unsigned changes;
	uint64_t changes_pid1_ns, changes_wall_ns;
	int lib_status;		/* the library beside PID 1: 0 measured, else -errno */
	char lib_note[96];
	uint64_t changes_lib_ns, remount_lib_ns;
	uint64_t remount_calls_ns, remount_pid1_ns, remount_wall_ns;
	uint64_t umount_call_ns, umount_pid1_ns, umount_wall_ns;
} Pid1Cost;

/*
 * PID 1 idle again: its CPU still over a window long enough for its mount
 * event source's rate limit (5 wake-ups a second by default) to have let
 * a deferred re-read through. -ETIME if it is still busy after --timeout
 * (the stock PID 1 after the lazy umount of 10,000 binds under TCG needs
 * more than the default): a number cut short is not printed.
 */
static int pid1_idle(const CpuSource *pid1, uint64_t window_ns, uint64_t *ret)
{
	uint64_t max = (uint64_t)arg.timeout_s * NSEC_PER_SEC, t = now_ns();
	int r;

	r = settle(pid1, "PID 1", window_ns, max, ret);
	if (r >= 0 && now_ns() - t > max)
		return -ETIME;
	return r;
}

/* The per-change default of --pid1-only: fewer for big tables, where the stock PID 1 takes seconds each. */
static unsigned pid1_changes(size_t n)
{
	if (arg.changes)
		return arg.changes;
	return n <= 2000 ? 40 : n <= 5000 ? 20 : 10;
}

/*
 * libmountwatch ("auto": the backend PID 1's watcher picks) beside PID 1,
 * following the same changes in the same namespace: forked once the N
 * binds are made (its snapshot is not counted), its CPU until it is idle.
 */
static int pid1_library_start(const Place *pl, pid_t *ret_pid, int *ret_fd, CpuSource *ret_cpu)
{
	uint64_t deadline = now_ns() + (uint64_t)arg.timeout_s * NSEC_PER_SEC;
	Report rep;
	int r;

	r = start_watcher(W_LIB_WQ, "auto", pl, ret_pid, ret_fd);
	if (r < 0)
		return r;
	do
		r = read_report(*ret_fd, &rep, deadline);
	while (r == 0);
	if (r > 0 && rep.kind == REPORT_ERROR)
		r = rep.error < 0 ? rep.error : -EIO;
	if (r >= 0)
		r = cpu_source_process(ret_cpu, *ret_pid);
	return r < 0 ? r : 0;
}

static int library_idle(const CpuSource *lib, uint64_t *ret)
{
	return settle(lib, NULL, 200 * NSEC_PER_MSEC, 10 * NSEC_PER_SEC, ret);
}

/*
 * The tmpfs under the N binds (pl.base, its directory src bound N times)
 * remounted read-only and back, each call followed by PID 1 going idle:
 * N + 1 mounts change at once, one SB_CHANGED record per watch on the
 * series' kernel; every one of their units changes (Options), so PID 1's
 * cost is O(N) either way, against the calls' own CPU.
 */
static int pid1_remount(const Place *pl, const CpuSource *pid1, uint64_t *pid1_ns, Pid1Cost *c)
{
	for (int ro = 1; ro >= 0; ro--) {
		uint64_t t = thread_cpu_ns();
		int r;

		if (sys_mount(NULL, pl->base, NULL, MS_REMOUNT | (ro ? MS_RDONLY : 0), NULL) < 0)
			return -errno;
		c->remount_calls_ns += thread_cpu_ns() - t;
		r = pid1_idle(pid1, NSEC_PER_SEC, pid1_ns);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * One size: N binds made back to back (the burst), K changes at the target
 * (a small tmpfs mounted and unmounted), each seen by libmountwatch beside
 * PID 1 and followed by PID 1 going idle, the binds' tmpfs remounted
 * read-only and back, and one lazy umount of the whole place. PID 1's CPU
 * (its CPU clock: user + system in the kernel's nanoseconds, what
 * /proc/1/stat's utime + stime count in ticks) from before each step until
 * it is idle after it; the library's over the changes and the remount.
 */
static void pid1_size(size_t n, unsigned k, Pid1Cost *c)
{
	const char *step = "PID 1's CPU clock";
	CpuSource pid1 = {}, lib = {};
	uint64_t a, b, t, l0 = 0, l1 = 0;
	Observer o = { .wait = pipe_wait, .fd = -1 };
	pid_t libpid = 0;
	Place pl = {};
	int r;

	*c = (Pid1Cost){};
	r = cpu_source_process(&pid1, 1);
	if (r >= 0) {
		step = "mkdtemp";
		r = place_init(&pl);
	}
	if (r >= 0) {
		step = "the N binds";
		r = pid1_idle(&pid1, NSEC_PER_SEC, &a);
	}
	if (r < 0)
		goto fail;
	progress(true, "N=%zu: %zu binds back to back", n, n);
	t = now_ns();
	r = setup_place(&pl, n, &c->binds_calls_ns);
	if (r >= 0)
		r = pid1_idle(&pid1, NSEC_PER_SEC, &b);
	if (r < 0)
		goto fail;
	c->binds_pid1_ns = b - a;
	c->binds_wall_ns = now_ns() - t;
	c->table_size = count_mounts();

	c->lib_status = pid1_library_start(&pl, &libpid, &o.fd, &lib);
	if (c->lib_status >= 0)
		c->lib_status = library_idle(&lib, &l0);
	if (c->lib_status < 0)
		note_fail(&c->lib_status, c->lib_note, sizeof(c->lib_note), c->lib_status, "libmountwatch");
	progress(true, "N=%zu: %u changes, each until PID 1 is idle%s", n, k,
		 c->lib_status < 0 ? "" : ", libmountwatch beside it");
	step = "the changes";
	r = pid1_idle(&pid1, NSEC_PER_SEC, &a);
	t = now_ns();
	for (unsigned i = 0; i < k && r >= 0; i++) {
		bool mounting = i % 2 == 0;

		r = mounting ? mount_small(pl.target) : umount_busy(pl.target);
		if (r >= 0 && c->lib_status >= 0) {
			/* the library has seen it: its CPU for each change is in the window */
			int q = o.wait(&o, mounting ? SEEN_TARGET_ADDED : SEEN_TARGET_REMOVED, i / 2 + 1,
				       now_ns() + (uint64_t)arg.timeout_s * NSEC_PER_SEC);

			if (q < 0)
				note_fail(&c->lib_status, c->lib_note, sizeof(c->lib_note), q,
					  "libmountwatch during the changes");
		}
		if (r >= 0)
			r = pid1_idle(&pid1, 250 * NSEC_PER_MSEC, &b);
		progress(false, "N=%zu: %u/%u changes", n, i + 1, k);
	}
	/* A last re-read the rate limit deferred past the last window. */
	if (r >= 0)
		r = pid1_idle(&pid1, NSEC_PER_SEC, &b);
	if (r < 0)
		goto fail;
	c->changes = k;
	c->changes_pid1_ns = b - a;
	c->changes_wall_ns = now_ns() - t;
	if (c->lib_status >= 0) {
		c->lib_status = library_idle(&lib, &l1);
		c->changes_lib_ns = l1 - l0;
		l0 = l1;
	}

	progress(true, "N=%zu: the binds' tmpfs remounted read-only and back", n);
	step = "the remount";
	a = b;
	t = now_ns();
	r = pid1_remount(&pl, &pid1, &b, c);
	if (r < 0)
		goto fail;
	c->remount_pid1_ns = b - a;
	c->remount_wall_ns = now_ns() - t;
	if (c->lib_status >= 0 && library_idle(&lib, &l1) >= 0)
		c->remount_lib_ns = l1 - l0;
	if (libpid > 0) {
		/* Not during the umount: that step is PID 1's alone, as before. */
		(void)kill(libpid, SIGKILL);
		(void)waitpid(libpid, NULL, 0);
		libpid = 0;
	}

	progress(true, "N=%zu: one lazy umount of it all", n);
	step = "waiting after the umount";
	r = pid1_idle(&pid1, NSEC_PER_SEC, &a);
	if (r < 0)
		goto fail;
	t = now_ns();
	teardown_place(&pl, &c->umount_call_ns);
	pl.base[0] = 0;
	r = pid1_idle(&pid1, NSEC_PER_SEC, &b);
	if (r < 0)
		goto fail;
	c->umount_pid1_ns = b - a;
	c->umount_wall_ns = now_ns() - t;
	goto out;
fail:
	note_fail(&c->status, c->note, sizeof(c->note), r, step);
	if (r == -ETIME)
		snprintf(c->note, sizeof(c->note), "%s: PID 1 still busy after --timeout %u s", step,
			 arg.timeout_s);
out:
	if (libpid > 0) {
		(void)kill(libpid, SIGKILL);
		(void)waitpid(libpid, NULL, 0);
	}
	if (o.fd >= 0)
		close(o.fd);
	if (pl.base[0])
		teardown_place(&pl, NULL);
	cpu_source_done(&lib);
	cpu_source_done(&pid1);
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static double to_ms(uint64_t ns)
{
	return (double)ns / NSEC_PER_MSEC;
}

/* The --pid1-only run: every size, one table, the ratios. */
static int pid1_only(void)
{
	Pid1Cost cost[16];
	char exe[256] = "";
	ssize_t len;

	if (!pid1_shares_mount_ns()) {
		fprintf(stderr, "mount-bench --pid1-only: run me in PID 1's mount namespace\n");
		return 2;
	}
	len = readlink("/proc/1/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = 0;
	printf("PID 1 (%s) alone follows the changes, in its own mount namespace; its CPU\n"
	       "until it is idle after each step (user + system). Changes: a small tmpfs\n"
	       "mounted and unmounted at one place, each waited for, libmountwatch (auto)\n"
	       "following them beside PID 1; the remount: the tmpfs under the N binds\n"
	       "read-only and back; the burst: N binds back to back, then one lazy umount\n"
	       "of them, against the calls' own CPU.\n",
	       exe);
	for (size_t i = 0; i < arg.n_sizes; i++) {
		size_t n = arg.sizes[i];

		pid1_size(n, pid1_changes(n), &cost[i]);
	}
	printf("\n%7s %7s %8s %8s | %10s %10s %8s | %10s %10s %8s | %8s | %10s %10s %8s %8s\n",
	       "N", "mounts", "ms/chg", "lib", "binds ms", "PID 1 ms", "ratio", "umount ms", "PID 1 ms",
	       "ratio", "burst", "remount ms", "PID 1 ms", "ratio", "lib ms");
	for (size_t i = 0; i < arg.n_sizes; i++) {
		const Pid1Cost *c = &cost[i];

		if (c->status < 0) {
			printf("%7zu failed: %s\n", arg.sizes[i], c->note);
			continue;
		}
		printf("%7zu %7zu %8.2f %8.3f | %10.1f %10.1f %7.1fx | %10.1f %10.1f %7.1fx | %7.1fx |"
		       " %10.1f %10.1f %7.1fx %8.1f\n",
		       arg.sizes[i], c->table_size,
		       to_ms(c->changes_pid1_ns) / c->changes,
		       c->lib_status < 0 ? -1.0 : to_ms(c->changes_lib_ns) / c->changes,
		       to_ms(c->binds_calls_ns), to_ms(c->binds_pid1_ns), ratio(c->binds_pid1_ns, c->binds_calls_ns),
		       to_ms(c->umount_call_ns), to_ms(c->umount_pid1_ns), ratio(c->umount_pid1_ns, c->umount_call_ns),
		       ratio(c->binds_pid1_ns + c->umount_pid1_ns, c->binds_calls_ns + c->umount_call_ns),
		       to_ms(c->remount_calls_ns), to_ms(c->remount_pid1_ns),
		       ratio(c->remount_pid1_ns, c->remount_calls_ns),
		       c->lib_status < 0 ? -1.0 : to_ms(c->remount_lib_ns));
		if (c->lib_status < 0)
			printf("%7s libmountwatch not measured (-1): %s\n", "", c->lib_note);
	}
	printf("ms/chg: PID 1's CPU per change; lib: libmountwatch's beside it, the same\n"
	       "changes (changes per size:");
	for (size_t i = 0; i < arg.n_sizes; i++)
		printf(" %u", cost[i].changes);
	printf("); ratio: PID 1's CPU / the calls' own; burst: binds + umount together;\n"
	       "remount: ro + rw of the binds' tmpfs, lib ms the library's. Wall time per size:\n"
	       "binds, changes, remount, umount until PID 1 was idle:");
	for (size_t i = 0; i < arg.n_sizes; i++)
		if (cost[i].status >= 0)
			printf(" N=%zu %.0f/%.0f/%.0f/%.0f s", arg.sizes[i],
			       (double)cost[i].binds_wall_ns / NSEC_PER_SEC,
			       (double)cost[i].changes_wall_ns / NSEC_PER_SEC,
			       (double)cost[i].remount_wall_ns / NSEC_PER_SEC,
			       (double)cost[i].umount_wall_ns / NSEC_PER_SEC);
	printf("\n");
	for (size_t i = 0; i < arg.n_sizes; i++)
		if (cost[i].status < 0)
			return 1;
	return 0;
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
		"monitor + mnt_table_parse_mtab() (as systemd uses it), (h) findmnt\n"
		"--poll, (d) mountwatchd on the system bus (whichever backend it uses)\n"
		"with a subscribed client, beside the bus daemon, PID 1, the client and\n"
		"their sum, and in bulk (the N mounts made and removed, their superblock\n"
		"remounted); for N background mounts each (default: 100 1000 5000).\n"
		"Run as root. A watcher the kernel cannot run is skipped with the reason.\n"
		"\n"
		"  -k, --changes=K   changes per size (even; default 400, 200, 100, 40 for\n"
		"                    N up to 100, 1000, 5000, more)\n"
		"  -r, --rounds=R    split the changes into R rounds, the watchers taking\n"
		"                    turns, in another order each round (default 3)\n"
		"  -b, --burst       make the changes back to back, not each waited for\n"
		"  -w, --watchers=L  which to run, letters of abcdefgh (default: all)\n"
		"  -o, --objects     (d)'s client follows the ObjectManager (GetManagedObjects,\n"
		"                    InterfacesAdded/Removed) as GLib's does, not Subscribe()\n"
		"  -t, --timeout=S   give up on a watcher that has not seen a change in S s\n"
		"                    (default 600)\n"
		"  -p, --pid1-only   PID 1's CPU per change (K, default 40 up to N = 2000,\n"
		"                    20 up to 5000, 10 above) beside libmountwatch's own, for\n"
		"                    the binds' tmpfs remounted, and for the N binds + one lazy\n"
		"                    umount against the calls' own; in PID 1's mount namespace\n"
		"                    (N = 10000 on the stock PID 1 under TCG: -t 3600)\n"
		"  -h, --help        this text\n");
}

static int parse_args(int argc, char **argv)
{
	static const struct option options[] = {
		{ "changes", required_argument, NULL, 'k' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "burst", no_argument, NULL, 'b' },
		{ "watchers", required_argument, NULL, 'w' },
		{ "objects", no_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 't' },
		{ "pid1-only", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *watchers = watcher_letters;
	int c;

	while ((c = getopt_long(argc, argv, "k:r:bw:ot:ph", options, NULL)) >= 0) {
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
		case 'o':
			arg.objects = true;
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
		case 'p':
			arg.pid1_only = true;
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

/*
 * mountwatchd's CPU per change over that of libmountwatch with the same
 * backend, where both ran (in the same rounds, taking turns): what the
 * daemon adds to the library it is built on.
 */
static void print_daemon_over_library(double ratios[][_W_MAX])
{
	static const struct { const char *backend; int w; } libs[] = {
		{ "watch_queue", W_LIB_WQ }, { "fanotify", W_LIB_FAN }, { "mountinfo", W_LIB_MI },
	};
	bool any = false;

	for (size_t b = 0; b < ELEMENTSOF(libs); b++) {
		if (strcmp(daemon_backend, libs[b].backend) != 0)
			continue;
		for (size_t i = 0; i < arg.n_sizes; i++) {
			if (ratios[i][W_DAEMON] <= 0 || ratios[i][libs[b].w] <= 0)
				continue;
			if (!any)
				printf("mountwatchd's CPU per change / %s's, same rounds:",
				       watcher_short[libs[b].w]);
			any = true;
			printf(" N=%zu %.2fx", arg.sizes[i],
			       ratios[i][libs[b].w] / ratios[i][W_DAEMON]);
		}
	}
	if (any)
		printf("\n");
}

/*
 * What running mountwatchd with one subscribed client costs the machine per
 * change against each re-reading watcher measured beside it: the benchmark's
 * own parser (a) and what users run, libmount (g) and findmnt (h).
 */
static void print_system_over_rereaders(double ratios[][_W_MAX])
{
	static const int rereaders[] = { W_MOUNTINFO, W_LIBMOUNT, W_FINDMNT };

	for (size_t j = 0; j < ELEMENTSOF(rereaders); j++) {
		int w = rereaders[j];
		bool any = false;

		for (size_t i = 0; i < arg.n_sizes; i++) {
			/* ratios[][w] is (a)'s CPU per change / w's; (a)'s own is 1. */
			double per_a = w == W_MOUNTINFO ? 1 : ratios[i][w];

			if (ratios[i][W_SYSTEM] <= 0 || per_a <= 0)
				continue;
			if (!any)
				printf("the whole system's CPU per change / %s's:", watcher_short[w]);
			any = true;
			printf(" N=%zu %.2fx", arg.sizes[i], per_a / ratios[i][W_SYSTEM]);
		}
		if (any)
			printf("\n");
	}
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
	if (arg.pid1_only) {
		int r = pid1_only();

		progress(true, "done");
		return r;
	}

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
	for (int w = W_LISTMOUNT; w <= W_SYSTEM; w++)
		if (w <= W_DAEMON || w == W_SYSTEM)
			printf(" %18s", watcher_short[w]);
	printf("\n");
	for (size_t i = 0; i < arg.n_sizes; i++) {
		printf("%8zu", arg.sizes[i]);
		for (int w = W_LISTMOUNT; w <= W_SYSTEM; w++)
			if (w > W_DAEMON && w != W_SYSTEM)
				continue;
			else if (ratios[i][w] > 0)
				printf(" %17.1fx", ratios[i][w]);
			else
				printf(" %18s", "-");
		printf("\n");
	}
	print_daemon_over_library(ratios);
	print_system_over_rereaders(ratios);
	progress(true, "done");
	return 0;
}
