/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two costs of libmountwatch's fanotify and mountinfo backends on the host's
 * kernel, at N mounts, in a private mount namespace of this process (issue
 * 27): a resync of a watcher on a 10-mount subtree against one of a watcher
 * on "/" (time, CPU and mounts re-read per mw_watcher_resync()), and the CPU
 * an idle watcher spends on the propagation verification (a re-read 5 s
 * after the snapshot, then after 10, 20, 40 s: backend.h), measured over a
 * quiet window of 65 s (three re-reads). Prints
 * numbers; no pass or fail. Run as root:
 *
 *   resync-bench [N...]      default: 1000 10000
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mountwatch/mountwatch.h"

#define DIR "/tmp/mw-resync-bench"
#define SUB DIR "/sub"
#define REPS 20
#define IDLE_SECONDS 65

static int die(const char *what)
{
	fprintf(stderr, "resync-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double clock_us(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The namespace's mount count, from mountinfo's lines. */
static size_t count_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t n = 0;
	int c;

	if (!f)
		die("mountinfo");
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Bind mounts of one directory below DIR/m until the namespace has n mounts. */
static void grow_to(size_t n, size_t *made)
{
	char p[96];

	for (size_t have = count_mounts(); have < n; have++, (*made)++) {
		snprintf(p, sizeof(p), DIR "/m/%zu", *made);
		if (mkdir(p, 0755) < 0 || mount(DIR "/src", p, NULL, MS_BIND, NULL) < 0)
			die("bind mount");
	}
}

/* Processes what is queued until the watcher has nothing pending. */
static void settle(mw_watcher *w)
{
	for (;;) {
		struct pollfd p = { .fd = mw_watcher_get_fd(w), .events = POLLIN };
		int k = poll(&p, 1, 200);

		if (k < 0 || mw_watcher_process(w) < 0)
			die("process");
		if (k == 0 && mw_watcher_get_timeout(w) == UINT64_MAX)
			return;
	}
}

static void resync_cost(const char *backend, const char *path, size_t n)
{
	struct mw_resync_stats s = {};
	mw_watcher *w;
	double t0, c0, t, c;
	int r;

	r = mw_watcher_new(&w, path, backend, 0);
	if (r < 0) {
		errno = -r;
		die("mw_watcher_new");
	}
	settle(w);
	t0 = clock_us(CLOCK_MONOTONIC);
	c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 0; i < REPS; i++)
		if (mw_watcher_resync(w, &s) < 0)
			die("resync");
	t = (clock_us(CLOCK_MONOTONIC) - t0) / REPS;
	c = (clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0) / REPS;
	printf("| %zu | %s | %-8s | %6zu | %6u | %10.0f | %10.0f |\n", n, backend, path[1] ? "subtree" : "/",
	       mw_watcher_count(w), s.requeried, t, c);
	mw_watcher_free(w);
}

/* An idle watcher: its CPU over IDLE_SECONDS, all of it the verification's re-reads. */
static void idle_cost(const char *backend, size_t n)
{
	mw_watcher *w;
	double c0, c, end;
	int r;

	r = mw_watcher_new(&w, "/", backend, 0);
	if (r < 0) {
		errno = -r;
		die("mw_watcher_new");
	}
	settle(w);
	c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
	end = clock_us(CLOCK_MONOTONIC) + IDLE_SECONDS * 1e6;
	while (clock_us(CLOCK_MONOTONIC) < end) {
		struct pollfd p = { .fd = mw_watcher_get_fd(w), .events = POLLIN };

		if (poll(&p, 1, 250) < 0 || mw_watcher_process(w) < 0)
			die("process");
	}
	c = clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0;
	printf("| %zu | %s | %d s | %.1f ms | %.1f ms | %.3f %% |\n", n, backend, IDLE_SECONDS, c / 1e3,
	       c / 1e3 / IDLE_SECONDS * 60, c / (IDLE_SECONDS * 1e6) * 100);
	mw_watcher_free(w);
}

int main(int argc, char **argv)
{
	static const char *const backends[] = { "fanotify", "mountinfo" };
	size_t sizes[8] = { 1000, 10000 }, n_sizes = 2, made = 0;
	char p[96];

	if (argc > 1) {
		n_sizes = 0;
		for (int i = 1; i < argc && n_sizes < 8; i++)
			sizes[n_sizes++] = strtoul(argv[i], NULL, 10);
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("a private mount namespace");
	if (mkdir(DIR, 0755) < 0 && errno != EEXIST)
		die(DIR);
	if (mount("bench", DIR, "tmpfs", 0, "size=16m") < 0 || mkdir(DIR "/src", 0755) < 0 ||
	    mkdir(DIR "/m", 0755) < 0 || mkdir(SUB, 0755) < 0)
		die("the bench's tmpfs");
	/* The watched subtree: a tmpfs and 9 below it, 10 mounts. */
	if (mount("sub", SUB, "tmpfs", 0, "size=64k") < 0)
		die("subtree");
	for (int i = 0; i < 9; i++) {
		snprintf(p, sizeof(p), SUB "/%d", i);
		if (mkdir(p, 0755) < 0 || mount("sub", p, "tmpfs", 0, "size=64k") < 0)
			die("subtree");
	}
	for (size_t k = 0; k < n_sizes; k++) {
		grow_to(sizes[k], &made);
		printf("\n%zu mounts in the namespace\n\n", count_mounts());
		printf("| mounts | backend | watcher | table | re-read | µs per resync | CPU µs per resync |\n");
		printf("|---|---|---|---|---|---|---|\n");
		for (size_t b = 0; b < 2; b++) {
			resync_cost(backends[b], SUB, sizes[k]);
			resync_cost(backends[b], "/", sizes[k]);
		}
		printf("\n| mounts | backend | idle window | CPU in it | CPU per minute | of a core |\n");
		printf("|---|---|---|---|---|---|\n");
		for (size_t b = 0; b < 2; b++)
			idle_cost(backends[b], sizes[k]);
	}
	return 0;
}
