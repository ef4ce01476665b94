/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What one mount-table change costs a watcher on a stock kernel (the host's,
 * mainline >= 6.15), at N mounts, in a private mount namespace of this
 * process: the fanotify backend's work (read the event, statmount the new
 * mount; then, because every change also wakes mountinfo pollers, the
 * rescan: re-read mountinfo and compare line digests) against a rescan by
 * statmount and against the mountinfo backend's work (re-read
 * /proc/self/mountinfo and parse it, as libmount does). Prints microseconds
 * per change and ratios; no pass or fail.
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

/* Handles whatever the watch has now, as a library would; returns the events. */
static unsigned handle(FanotifyWatch *w, StatmountBuf *b)
{
	uint64_t last_attached = 0;
	unsigned n = 0;

	for (;;) {
		FanotifyEvent ev[64];
		int k = fanotify_watch_read(w, ev, ELEMENTSOF(ev));

		if (k < 0)
			die("fanotify_watch_read");
		if (k == 0)
			return n;
		for (int i = 0; i < k; i++) {
			MountInfo info;

			if ((ev[i].type == FANOTIFY_EVENT_ATTACH || ev[i].type == FANOTIFY_EVENT_MOVE) &&
			    statmount_query(ev[i].unique_id, b, &info) >= 0) {
				mount_info_done(&info);
				last_attached = ev[i].unique_id;
			}
			/*
			 * CHANGED: here only the new mount's line (the probe mount's,
			 * whose unique ID a library would find by its 32-bit ID): the
			 * re-query it costs.
			 */
			if (ev[i].type == FANOTIFY_EVENT_CHANGED && last_attached &&
			    statmount_query(last_attached, b, &info) >= 0)
				mount_info_done(&info);
		}
		n += (unsigned)k;
	}
}

static void run(size_t n, size_t *have)
{
	_cleanup_free_ char *buf = NULL;
	size_t bufsize = 1 << 20;
	double t_fan = 0, t_sm = 0, t_burst, t_resync = 0, t_read = 0, t_parse = 0, t0;
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
		struct libmnt_table *tb;
		uint64_t *ids;
		size_t n_ids;

		/* One change: a mount (the next one an unmount). */
		if (rep % 2 == 0 ? mount("x", DIR "/probe", "tmpfs", 0, NULL) < 0 : umount(DIR "/probe") < 0)
			die("probe mount");

		/* fanotify: the event, its statmount, the rescan of the mountinfo wake-up. */
		(void)poll(&(struct pollfd){ .fd = fanotify_watch_get_fd(w), .events = POLLIN }, 1, 1000);
		t0 = now_us();
		if (handle(w, &b) == 0)
			die("no event");
		t_fan += now_us() - t0;

		/* The rescan done by statmount instead: every mount's attributes. */
		t0 = now_us();
		if (listmount_all(&ids, &n_ids) < 0)
			die("listmount");
		for (size_t i = 0; i < n_ids; i++)
			(void)statmount_get(ids[i], STATMOUNT_ATTR_MASK, &b);
		t_sm += now_us() - t0;
		free(ids);

		/* A full resync (after an overflow): listmount + full statmount. */
		if (rep % 10 == 0) {
			t0 = now_us();
			if (listmount_all(&ids, &n_ids) < 0)
				die("listmount");
			for (size_t i = 0; i < n_ids; i++) {
				MountInfo info;

				if (statmount_query(ids[i], &b, &info) >= 0)
					mount_info_done(&info);
			}
			t_resync += (now_us() - t0) * 10;
			free(ids);
		}

		/* mountinfo: re-read the file ... */
		t0 = now_us();
		for (size_t off = 0;;) {
			ssize_t r = pread(mi, buf + off, bufsize - off, (off_t)off);

			if (r < 0)
				die("reading mountinfo");
			if (r == 0)
				break;
			off += (size_t)r;
			if (off == bufsize) {
				char *t2 = realloc(buf, bufsize *= 2);

				if (!t2)
					die("realloc");
				buf = t2;
			}
		}
		t_read += now_us() - t0;
		/* ... and parse it as a consumer would (libmount). */
		t0 = now_us();
		tb = mnt_new_table_from_file("/proc/self/mountinfo");
		if (!tb)
			die("libmount");
		mnt_unref_table(tb);
		t_parse += now_us() - t0;
	}

	/* A burst: BURST mounts stacked on one directory, then their unmounts, handled together. */
	(void)handle(w, &b);
	for (unsigned i = 0; i < BURST; i++)
		if (mount("x", DIR "/probe", "tmpfs", 0, NULL) < 0)
			die("burst mount");
	for (unsigned i = 0; i < BURST; i++)
		if (umount(DIR "/probe") < 0)
			die("burst umount");
	t0 = now_us();
	if (handle(w, &b) < 2 * BURST)
		die("events missing from the burst");
	t_burst = (now_us() - t0) / (2 * BURST);

	fanotify_watch_free(w);
	close(mi);
	statmount_buf_done(&b);
	t_fan /= REPS;
	t_sm /= REPS;
	t_resync /= REPS;
	t_read /= REPS;
	t_parse /= REPS;
	printf("%7zu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %7.2f %7.2f\n", n, t_fan, t_burst, t_sm,
	       t_resync, t_read, t_parse, t_parse / t_fan, t_parse / t_burst);
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
	printf("# fanotify: the fanotify backend's work for one isolated change: the event, a\n");
	printf("#   statmount of the new mount, and the rescan that the mountinfo wake-up asks\n");
	printf("#   for (re-read mountinfo, compare each line's digest)\n");
	printf("# burst: %d mounts then their unmounts, handled together (one rescan)\n", BURST);
	printf("# sm-rescan: that rescan done by statmount of every mount instead (attributes)\n");
	printf("# resync: listmount + full statmount of every mount (after an overflow)\n");
	printf("# mi-read: pread /proc/self/mountinfo; mi-parse: libmount reads and parses it\n");
	printf("#   (the mountinfo backend's work per change, before its diff)\n");
	printf("# mi/fan = mi-parse / fanotify; mi/burst = mi-parse / burst\n");
	printf("%7s %9s %9s %9s %9s %9s %9s %7s %7s\n", "mounts", "fanotify", "burst", "sm-rescan",
	       "resync", "mi-read", "mi-parse", "mi/fan", "mi/burst");
	for (size_t i = 0; i < n_sizes; i++)
		run(sizes[i], &have);
	return 0;
}
