/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What one mount-table change costs a watcher on a stock kernel (the host's,
 * mainline >= 6.15), at N mounts, in a private mount namespace of this
 * process: the fanotify backend's work (read the event, statmount the new
 * mount; then, because every change also wakes mountinfo pollers, the
 * attribute rescan of all N mounts) against the mountinfo backend's work
 * (re-read /proc/self/mountinfo; and parse it, as libmount does). Prints
 * microseconds per change and ratios; no pass or fail.
 *
 *   host-bench [N...]      default: 100 1000 10000
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <libmount/libmount.h>

#include "fanotify-watch.h"
#include "statmount.h"
#include "util.h"

#define DIR "/tmp/mwbench"
#define REPS 200
#define BURST 500

static volatile size_t scan_sink;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int die(const char *what)
{
	fprintf(stderr, "host-bench: %s: %m\n", what);
	exit(1);
}

/* Grows the namespace to n mounts (bind mounts of one tmpfs directory). */
static void grow_to(size_t n, size_t *have)
{
	char p[64];
	uint64_t *ids;
	size_t cur;

	if (listmount_all(&ids, &cur) < 0)
		die("listmount");
	free(ids);
	for (; cur < n; cur++, (*have)++) {
		snprintf(p, sizeof(p), DIR "/m/%zu", *have);
		if (mkdir(p, 0755) < 0 || mount(DIR "/src", p, NULL, MS_BIND, NULL) < 0)
			die("bind mount");
	}
}

/*
 * What a rescan through the text would cost on top of the read: find, in
 * every line, the fields a remount or mount_setattr() changes (mount ID,
 * per-mount options, optional fields, super options) without copying.
 */
static size_t light_scan(const char *buf, size_t len)
{
	size_t n = 0;

	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)) ?: end;
		const char *f = p;

		/* Fields 1-6 are space-separated; then optional fields up to " - ". */
		for (int i = 0; i < 6 && f < nl; i++)
			f = (const char *)memchr(f, ' ', (size_t)(nl - f)) + 1;
		f = memmem(f, (size_t)(nl - f), " - ", 3);
		n += f ? (size_t)(nl - f) : 0;
		p = nl + 1;
	}
	return n;
}

/* Waits until the watch has something, then hands back its events. */
static int wait_read(FanotifyWatch *w, FanotifyEvent *ev, size_t n)
{
	int k;

	(void)poll(&(struct pollfd){ .fd = fanotify_watch_get_fd(w), .events = POLLIN }, 1, 1000);
	k = fanotify_watch_read(w, ev, n);
	if (k < 0)
		die("fanotify_watch_read");
	return k;
}

static void run(size_t n, size_t *have)
{
	_cleanup_free_ char *buf = NULL;
	size_t bufsize = 1 << 20;
	size_t buf_len = 0;
	double t_scan = 0;
	double t_event = 0, t_rescan = 0, t_basic = 0, t_burst = 0, t_resync = 0, t_read = 0, t_parse = 0, t0;
	unsigned n_events = 0, n_rescans = 0;
	StatmountBuf b = {};
	FanotifyWatch *w;
	int mi;

	grow_to(n, have);
	if (fanotify_watch_new(&w, 0) < 0)
		die("fanotify_watch_new");
	buf = malloc(bufsize);
	mi = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (!buf || mi < 0)
		die("mountinfo");

	for (unsigned rep = 0; rep < REPS; rep++) {
		FanotifyEvent ev[8];
		uint64_t *ids;
		size_t n_ids;
		int k;

		/* One change: a mount (the next one an unmount). */
		if (rep % 2 == 0 ? mount("x", DIR "/probe", "tmpfs", 0, NULL) < 0 : umount(DIR "/probe") < 0)
			die("probe mount");

		/* fanotify: the event and its one statmount ... */
		k = wait_read(w, ev, ELEMENTSOF(ev));
		t0 = now_us();
		for (int i = 0; i < k; i++) {
			MountInfo info;

			if (ev[i].type == FANOTIFY_EVENT_ATTACH || ev[i].type == FANOTIFY_EVENT_MOVE) {
				if (statmount_query(ev[i].unique_id, &b, &info) >= 0)
					mount_info_done(&info);
				n_events++;
			} else if (ev[i].type == FANOTIFY_EVENT_DETACH) {
				n_events++;
			}
		}
		t_event += now_us() - t0;
		/* ... and the attribute rescan the mountinfo wake-up asks for. */
		if (listmount_all(&ids, &n_ids) < 0)
			die("listmount");
		t0 = now_us();
		for (size_t i = 0; i < n_ids; i++)
			(void)statmount_get(ids[i], STATMOUNT_ATTR_MASK, &b);
		t_rescan += now_us() - t0;
		n_rescans++;
		/* The floor: no option strings (SB_BASIC | MNT_BASIC only). */
		t0 = now_us();
		for (size_t i = 0; i < n_ids; i++)
			(void)statmount_get(ids[i], MW_STATMOUNT_SB_BASIC | MW_STATMOUNT_MNT_BASIC, &b);
		t_basic += now_us() - t0;

		/* A full resync (after an overflow): listmount + full statmount. */
		if (rep % 10 == 0) {
			t0 = now_us();
			free(ids);
			if (listmount_all(&ids, &n_ids) < 0)
				die("listmount");
			for (size_t i = 0; i < n_ids; i++) {
				MountInfo info;

				if (statmount_query(ids[i], &b, &info) >= 0)
					mount_info_done(&info);
			}
			t_resync += (now_us() - t0) * 10;
		}
		free(ids);

		/* mountinfo: re-read the file ... */
		t0 = now_us();
		for (size_t off = 0;;) {
			ssize_t r = pread(mi, buf + off, bufsize - off, (off_t)off);

			if (r < 0)
				die("reading mountinfo");
			if (r == 0) {
				buf_len = off;
				break;
			}
			off += (size_t)r;
			if (off == bufsize) {
				char *t2 = realloc(buf, bufsize *= 2);

				if (!t2)
					die("realloc");
				buf = t2;
			}
		}
		t_read += now_us() - t0;
		scan_sink = light_scan(buf, buf_len);
		t_scan += now_us() - t0; /* the read and the scan */
		/* ... and parse it as a consumer would (libmount). */
		t0 = now_us();
		struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
		if (!tb)
			die("libmount");
		mnt_unref_table(tb);
		t_parse += now_us() - t0;
	}
	/*
	 * A burst: BURST mounts stacked on one directory, then their unmounts,
	 * handled together: 2 * BURST events and one rescan.
	 */
	while (fanotify_watch_read(w, (FanotifyEvent[8]){}, 8) > 0)
		;
	for (unsigned i = 0; i < BURST; i++)
		if (mount("x", DIR "/probe", "tmpfs", 0, NULL) < 0)
			die("burst mount");
	for (unsigned i = 0; i < BURST; i++)
		if (umount(DIR "/probe") < 0)
			die("burst umount");
	t0 = now_us();
	for (;;) {
		FanotifyEvent ev[64];
		int k = fanotify_watch_read(w, ev, ELEMENTSOF(ev));

		if (k < 0)
			die("fanotify_watch_read");
		if (k == 0)
			break;
		for (int i = 0; i < k; i++) {
			MountInfo info;
			uint64_t *ids;
			size_t n_ids;

			if (ev[i].type == FANOTIFY_EVENT_ATTACH &&
			    statmount_query(ev[i].unique_id, &b, &info) >= 0)
				mount_info_done(&info);
			if (ev[i].type != FANOTIFY_EVENT_RESCAN)
				continue;
			if (listmount_all(&ids, &n_ids) < 0)
				die("listmount");
			for (size_t j = 0; j < n_ids; j++)
				(void)statmount_get(ids[j], STATMOUNT_ATTR_MASK, &b);
			free(ids);
		}
	}
	t_burst = (now_us() - t0) / (2 * BURST);
	fanotify_watch_free(w);
	close(mi);
	statmount_buf_done(&b);

	t_event /= REPS;
	t_rescan /= REPS;
	t_resync /= REPS;
	t_read /= REPS;
	t_parse /= REPS;
	t_basic /= REPS;
	t_scan /= REPS;
	printf("%7zu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %7.2f %7.2f\n", n,
	       t_event, t_rescan, t_basic, t_event + t_rescan, t_burst, t_resync, t_read, t_scan,
	       t_parse, t_parse / (t_event + t_rescan), t_parse / t_burst);
}

int main(int argc, char **argv)
{
	size_t sizes[16] = { 100, 1000, 10000 }, n_sizes = 3, have = 0;
	double load[3] = {};
	struct utsname u;
	time_t t = time(NULL);
	char date[32];

	if (argc > 1) {
		n_sizes = 0;
		for (int i = 1; i < argc && n_sizes < ELEMENTSOF(sizes); i++)
			sizes[n_sizes++] = strtoul(argv[i], NULL, 10);
	}
	if (unshare(CLONE_NEWNS) < 0) {
		printf("SKIP: unshare(CLONE_NEWNS): %m\n");
		return 77;
	}
	if (mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) < 0)
		die("making / private");
	if (mkdir(DIR, 0755) < 0 && errno != EEXIST)
		die(DIR);
	if (mount("mwbench", DIR, "tmpfs", 0, NULL) < 0 || mkdir(DIR "/src", 0755) < 0 ||
	    mkdir(DIR "/m", 0755) < 0 || mkdir(DIR "/probe", 0755) < 0)
		die("set-up");

	(void)getloadavg(load, 3);
	(void)uname(&u);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	printf("# %s, Linux %s, load %.2f %.2f %.2f, %d reps per size\n", date, u.release, load[0],
	       load[1], load[2], REPS);
	printf("# microseconds per change (a tmpfs mount or unmount), wall clock\n");
	printf("# fan-event: read the fanotify event + statmount the mount (O(1))\n");
	printf("# fan-rescan: attribute statmount of every mount after the mountinfo wake-up (O(N))\n");
	printf("# fan-basic: the same without option strings (SB_BASIC|MNT_BASIC): the floor\n");
	printf("# fan-total: one isolated change = fan-event + fan-rescan\n");
	printf("# fan-burst: %d mounts then their unmounts, handled together: one rescan\n", BURST);
	printf("# resync: listmount + full statmount of every mount (after an overflow)\n");
	printf("# mi-read: pread /proc/self/mountinfo; mi-scan: that + finding the attribute fields\n");
	printf("#   of every line without copying (a cheaper rescan); mi-parse: libmount reads and\n");
	printf("#   parses it (the mountinfo backend's work per change)\n");
	printf("# mi/fan = mi-parse / fan-total; mi/burst = mi-parse / fan-burst\n");
	printf("%7s %9s %9s %9s %9s %9s %9s %9s %9s %9s %7s %7s\n", "mounts", "fan-event",
	       "fan-rescan", "fan-basic", "fan-total", "fan-burst", "resync", "mi-read", "mi-scan",
	       "mi-parse", "mi/fan", "mi/burst");
	for (size_t i = 0; i < n_sizes; i++)
		run(sizes[i], &have);
	return 0;
}
