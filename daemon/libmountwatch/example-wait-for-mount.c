/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An automounter-style libmountwatch client: waits until something is
 * mounted at PATH, says so, then says when it goes, and exits.
 * Usage: example-wait-for-mount PATH [BACKEND]
 */
#include <mountwatch/mountwatch.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char *argv[])
{
	const mw_mount *m;
	uint64_t id = 0;
	mw_watcher *w;
	int r;

	if (argc < 2 || argc > 3 || argv[1][0] != '/')
		return fprintf(stderr, "Usage: %s PATH [BACKEND]\n", argv[0]), 2;
	r = mw_watcher_new(&w, "/", argc > 2 ? argv[2] : "auto", 0);
	if (r < 0)
		return fprintf(stderr, "Failed to watch mounts: %s\n", strerror(-r)), 1;
	printf("waiting for %s (%s backend)\n", argv[1], mw_watcher_get_backend(w));
	for (;;) {
		struct pollfd p = { .fd = mw_watcher_get_fd(w), .events = POLLIN };
		uint64_t t = mw_watcher_get_timeout(w);
		struct timespec now;
		long long ms = 0;

		if (!id && (m = mw_watcher_get_mount_by_path(w, argv[1]))) {
			id = mw_mount_get_unique_id(m);
			printf("mounted: %s (%s from %s)\n", mw_mount_get_mount_point(m), mw_mount_get_fstype(m),
			       mw_mount_get_source(m));
		} else if (id && (!(m = mw_watcher_get_mount(w, id)) || strcmp(mw_mount_get_mount_point(m), argv[1]))) {
			printf("gone: %s\n", argv[1]);
			break;
		}
		fflush(stdout);
		if (t != UINT64_MAX) { /* a deadline: milliseconds from now, at least 0 */
			clock_gettime(CLOCK_MONOTONIC, &now);
			ms = (long long)(t / 1000) - (now.tv_sec * 1000LL + now.tv_nsec / 1000000);
		}
		r = poll(&p, 1, t == UINT64_MAX ? -1 : ms > 0 ? (int)ms : 0) < 0 ? -errno : mw_watcher_process(w);
		if (r < 0)
			return fprintf(stderr, "Failed to follow mounts: %s\n", strerror(-r)), 1;
	}
	mw_watcher_free(w);
	return 0;
}
