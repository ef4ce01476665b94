/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-syscalls: fsinfo(2) and watch_mount(2) fed random and boundary
 * arguments from several threads while other threads churn the mount table,
 * in a private mount namespace (issue 10). Every call must succeed or fail
 * with an errno its man page documents. Alongside: notification pipes with
 * random queue sizes and filters, closed while records are delivered; deep
 * chains lazily unmounted; detached trees changed and attached or dropped;
 * child processes that watch mounts of a namespace of their own, pivot_root
 * in it, and exit with the watches live. The kernel must say nothing about
 * any of it: vm/run fails a boot whose console shows a report, and on the
 * debug kernel (vm/test-debug) the guest runner scans kmemleak afterwards.
 *
 * Then, with nothing else changing mounts, the propagation part
 * (fuzz-propagation.c, issue 30): as nobody in a user namespace of its own,
 * rounds of propagation trees with stacked mounts and watches taken down by
 * propagated umounts, and mounts below what survived, whose records must
 * reach the watch above them.
 *
 * Usage: fuzz-syscalls [CALLS [SEED [ROUNDS]]]: CALLS fsinfo/watch_mount
 * calls in all (default 200,000: about 20 s in the TCG guest), SEED for the
 * random numbers (default 1, as in the suite; the threads' interleaving
 * still varies from run to run; give another to explore), ROUNDS of the
 * propagation part (default CALLS / 2,000: 100, about 25 s in the TCG guest;
 * at most 60 s of them).
 * Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
/* <fcntl.h> has what <linux/fcntl.h> would define again. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "mountwatch/syscalls.h"
#include "fuzz.h"

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#define MOUNT_ATTR_NOEXEC 0x00000008
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

#define BASE "/run/mw-fuzz"
#define DIRS 12
#define FSINFO_THREADS 2
#define CHURN_THREADS 2

struct mount_attr_arg {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static atomic_ulong calls, fsinfo_ok, watch_ok, churn_ops, records;
atomic_ulong unexpected;
static atomic_bool stop;
static unsigned long max_calls = 200000;
/* Unique mount IDs seen lately, for FSINFO_FLAGS_QUERY_MOUNT. */
static _Atomic uint64_t ids[64];
/* A page that is not mapped, one that is read-only, and the writable page before the unmapped one. */
static char *page_none, *page_ro, *page_rw;
static int fd_path, fd_file;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
/* How often each errno came back, per syscall: which checks the calls reached. */
#define ERRNO_MAX 134
static atomic_ulong fsinfo_errno[ERRNO_MAX], watch_errno[ERRNO_MAX];

void report(const char *call, int err, const char *args)
{
	unsigned long n = atomic_fetch_add(&unexpected, 1);

	if (n >= 20)
		return;
	pthread_mutex_lock(&report_lock);
	printf("# %s failed with %s (%d), which its man page does not list: %s\n", call,
	       strerrorname_np(err) ?: "?", err, args);
	pthread_mutex_unlock(&report_lock);
}

bool documented(int err, const int *list)
{
	for (; *list; list++)
		if (*list == err)
			return true;
	return false;
}

/* fsinfo(2)'s ERRORS, with EIO (the filesystem's own errors are passed on). */
const int fsinfo_errors[] = { E2BIG, EACCES, EAGAIN, EBADF, EFAULT, EINTR, EINVAL, ELOOP,
				     ENAMETOOLONG, ENOENT, ENOTDIR, EXDEV, EMSGSIZE, ENODATA, ENOMEM,
				     EOPNOTSUPP, EOVERFLOW, EPERM, ERANGE, EIO, 0 };
/* watch_mount(2)'s ERRORS. */
const int watch_errors[] = { EACCES, EAGAIN, EPERM, EBADF, EBADSLT, EBUSY, EFAULT, EINVAL, ELOOP,
				    ENAMETOOLONG, ENOBUFS, ENOENT, ENOMEM, ENOTDIR, 0 };

static void remember_id(const char *path)
{
	static atomic_uint next;
	uint64_t id = mount_id(path);

	if (id)
		ids[atomic_fetch_add(&next, 1) % 64] = id;
}

static void dir_path(unsigned *seed, char *buf, size_t size)
{
	unsigned a = rnd(seed, DIRS), b = rnd(seed, 3);

	if (b == 0)
		snprintf(buf, size, BASE "/d%u", a);
	else
		snprintf(buf, size, BASE "/d%u/d%u", a, rnd(seed, DIRS));
}

/* A pathname argument of some kind; may be NULL or point nowhere. */
static const char *any_path(unsigned *seed, char *buf, size_t size, bool query_mount)
{
	static char long_name[5000];

	switch (rnd(seed, query_mount ? 12 : 9)) {
	case 0:
		return NULL;
	case 1:
		return "";
	case 2:
		return "/";
	case 3:
		return page_none;
	case 4:
		if (!long_name[0])
			memset(long_name, 'x', sizeof(long_name) - 1);
		return long_name;
	case 5:
		return "/nonexistent/x";
	case 6:
		return "/proc/self/status";
	case 9:
		snprintf(buf, size, "%" PRIu64, ids[rnd(seed, 64)]);
		return buf;
	case 10: {
		static const char *const odd[] = { "18446744073709551616", "-1", "0x10", "1 ", "abc",
						   "99999999999", "00000000000000000000000001" };
		return odd[rnd(seed, 7)];
	}
	case 11:
		snprintf(buf, size, "%" PRIu64, (uint64_t)rnd(seed, 4096));
		return buf;
	default:
		dir_path(seed, buf, size);
		return buf;
	}
}

static int any_dfd(unsigned *seed, int pipe_fd)
{
	switch (rnd(seed, 8)) {
	case 0:
		return fd_path;
	case 1:
		return fd_file;
	case 2:
		return -1;
	case 3:
		return 9999;
	case 4:
		return pipe_fd;
	default:
		return AT_FDCWD;
	}
}

const uint32_t requests[] = {
	FSINFO_ATTR_STATFS, FSINFO_ATTR_IDS, FSINFO_ATTR_LIMITS, FSINFO_ATTR_SUPPORTS,
	FSINFO_ATTR_TIMESTAMP_INFO, FSINFO_ATTR_VOLUME_ID, FSINFO_ATTR_VOLUME_UUID, FSINFO_ATTR_VOLUME_NAME,
	FSINFO_ATTR_FEATURES, FSINFO_ATTR_SOURCE, FSINFO_ATTR_CONFIGURATION, FSINFO_ATTR_FS_STATISTICS,
	FSINFO_ATTR_ERROR_STATE, FSINFO_ATTR_FSINFO_ATTRIBUTE_INFO, FSINFO_ATTR_FSINFO_ATTRIBUTES,
	FSINFO_ATTR_MOUNT_INFO, FSINFO_ATTR_MOUNT_PATH, FSINFO_ATTR_MOUNT_POINT, FSINFO_ATTR_MOUNT_POINT_FULL,
	FSINFO_ATTR_MOUNT_TOPOLOGY, FSINFO_ATTR_MOUNT_CHILDREN, FSINFO_ATTR_MOUNT_ALL,
};
const size_t n_requests = sizeof(requests) / sizeof(requests[0]);

/*
 * One fsinfo(2) call: half of them well-formed (a known attribute of a
 * mount that may be changing under it, into a good buffer), so that they
 * get past the argument checks; the rest with random and boundary values
 * in every argument.
 */
static void fuzz_fsinfo(unsigned *seed, char *buf, size_t buf_size)
{
	struct fsinfo_params p = {}, *pp = &p;
	char path_buf[64], args[256];
	size_t psize = sizeof(p), rsize;
	void *result = buf;
	const char *path;
	int dfd;
	long r;

	if (rnd(seed, 2)) {
		p.request = requests[rnd(seed, n_requests)];
		p.Nth = rnd(seed, 8) ? 0 : rnd(seed, 3);
		if (rnd(seed, 2)) {
			p.flags = FSINFO_FLAGS_QUERY_MOUNT;
			snprintf(path_buf, sizeof(path_buf), "%" PRIu64, ids[rnd(seed, 64)]);
		} else {
			dir_path(seed, path_buf, sizeof(path_buf));
		}
		path = path_buf;
		dfd = AT_FDCWD;
		rsize = rnd(seed, 4) ? buf_size : rnd(seed, 64);
		goto call;
	}
	switch (rnd(seed, 4)) {
	case 0:
		p.flags = FSINFO_FLAGS_QUERY_MOUNT;
		break;
	case 1:
		p.flags = rnd(seed, 8);
		break;
	case 2:
		p.flags = (uint32_t)rnd64(seed);
		break;
	default:
		p.flags = FSINFO_FLAGS_QUERY_PATH;
	}
	p.request = rnd(seed, 8) ? requests[rnd(seed, n_requests)] :
				   (uint32_t)rnd64(seed) & (rnd(seed, 2) ? 0x3ff : ~0U);
	p.Nth = rnd(seed, 4) ? rnd(seed, 3) : (uint32_t)rnd64(seed);
	p.Mth = rnd(seed, 4) ? rnd(seed, 2) : (uint32_t)rnd64(seed);
	if (!rnd(seed, 6))
		p.at_flags = (uint32_t)rnd64(seed) & (rnd(seed, 2) ? 0x1f00 : ~0U);
	if (!rnd(seed, 6))
		p.resolve_flags = rnd(seed, 2) ? 1ULL << rnd(seed, 7) : rnd64(seed);
	if (!rnd(seed, 20))
		p.__reserved = 1;
	switch (rnd(seed, 12)) {
	case 0:
		pp = NULL;
		psize = rnd(seed, 2) ? 0 : sizeof(p);
		break;
	case 1:
		psize = rnd(seed, sizeof(p));
		break;
	case 2: {
		/* Larger than the kernel's struct: zero tail (fine) or not (E2BIG). */
		static __thread char big[64];

		memset(big, 0, sizeof(big));
		memcpy(big, &p, sizeof(p));
		big[sizeof(p) + rnd(seed, 8)] = (char)rnd(seed, 2);
		pp = (struct fsinfo_params *)big;
		psize = sizeof(p) + 8 + rnd(seed, 24);
		break;
	}
	case 3:
		psize = 4096 + rnd(seed, 3);
		break;
	case 4:
		pp = (struct fsinfo_params *)page_none;
		break;
	case 5:
		/* Read-only is fine for params (zeroes: statfs of the path). */
		pp = (struct fsinfo_params *)page_ro;
		break;
	}
	switch (rnd(seed, 10)) {
	case 0:
		result = NULL;
		rsize = rnd(seed, 2) ? 0 : 16;
		break;
	case 1:
		rsize = rnd(seed, 2);
		break;
	case 2:
		rsize = 1 + 2 * rnd(seed, 64);
		break;
	case 3:
		result = page_none;
		rsize = 1 + rnd(seed, 4096);
		break;
	case 4:
		result = page_ro;
		rsize = 1 + rnd(seed, 4096);
		break;
	case 5:
		/* More than is mapped: the writable page ends in the unmapped one. */
		result = page_rw + 4096 - 64;
		rsize = 64 + 1 + rnd(seed, 1 << 20);
		break;
	case 6:
		rsize = rnd(seed, 2) ? (size_t)1 << 33 : SIZE_MAX;
		break;
	default:
		rsize = buf_size;
	}
	path = any_path(seed, path_buf, sizeof(path_buf), (p.flags & FSINFO_FLAGS_QUERY_MASK) == 2);
	dfd = any_dfd(seed, fd_file);
call:
	r = fsinfo(dfd, path, pp, psize, result, rsize);
	atomic_fetch_add(&calls, 1);
	if (r >= 0) {
		atomic_fetch_add(&fsinfo_ok, 1);
		return;
	}
	if (errno < ERRNO_MAX)
		atomic_fetch_add(&fsinfo_errno[errno], 1);
	if (!documented(errno, fsinfo_errors)) {
		int err = errno;

		snprintf(args, sizeof(args),
			 "dfd %d, path %s, flags %#x, request %#x, Nth %u, Mth %u, at_flags %#x, "
			 "resolve %#" PRIx64 ", params size %zu, buffer size %zu",
			 dfd, path == page_none ? "(unmapped)" : path ? (strlen(path) > 40 ? "(long)" : path) : "NULL",
			 p.flags, p.request, p.Nth, p.Mth, p.at_flags, (uint64_t)p.resolve_flags, psize, rsize);
		report("fsinfo", err, args);
	}
}

static void *fsinfo_thread(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	size_t size = 1 << 16;
	char *buf = malloc(size);

	while (!atomic_load(&stop) && atomic_load(&calls) < max_calls)
		fuzz_fsinfo(&seed, buf, size);
	free(buf);
	return NULL;
}

/* A notification pipe with a random queue size and filter; -1 if refused. */
static int new_queue(unsigned *seed)
{
	int fds[2];

	if (pipe2(fds, O_NOTIFICATION_PIPE | O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	close(fds[1]);
	switch (rnd(seed, 6)) {
	case 0:
		(void)ioctl(fds[0], IOC_WATCH_QUEUE_SET_SIZE, rnd(seed, 2) ? 0UL : (unsigned long)rnd64(seed));
		break;
	case 1:
		(void)ioctl(fds[0], IOC_WATCH_QUEUE_SET_SIZE, 1UL + rnd(seed, 3));
		break;
	default:
		(void)ioctl(fds[0], IOC_WATCH_QUEUE_SET_SIZE, 16UL << rnd(seed, 6));
	}
	if (!rnd(seed, 3)) {
		struct {
			struct watch_notification_filter f;
			struct watch_notification_type_filter t[3];
		} flt = {};
		unsigned n = rnd(seed, 4);

		flt.f.nr_filters = rnd(seed, 10) ? n : (uint32_t)rnd64(seed);
		flt.f.__reserved = !rnd(seed, 10);
		for (unsigned i = 0; i < 3; i++) {
			flt.t[i].type = rnd(seed, 4) ? WATCH_TYPE_MOUNT_NOTIFY : rnd(seed, 40);
			flt.t[i].info_filter = (uint32_t)rnd64(seed) & (rnd(seed, 2) ? 0 : ~0U);
			flt.t[i].info_mask = (uint32_t)rnd64(seed) & (rnd(seed, 2) ? 0 : ~0U);
			for (unsigned k = 0; k < 8; k++)
				flt.t[i].subtype_filter[k] = rnd(seed, 2) ? ~0U : (uint32_t)rnd64(seed);
		}
		(void)ioctl(fds[0], IOC_WATCH_QUEUE_SET_FILTER, rnd(seed, 8) ? (void *)&flt : page_none);
	}
	return fds[0];
}

/*
 * One watch_mount(2) call on one of the queues q[4] (replaced now and then,
 * with watches on them), after reading what they hold. Returns its result.
 */
static int fuzz_watch(unsigned *seed, int q[4])
{
	char buf[4096], path_buf[64], args[200];
	unsigned i = rnd(seed, 4);
	int dfd, wfd, id, r;
	unsigned at_flags;
	const char *path;

	if (q[i] < 0 || !rnd(seed, 50)) {
		if (q[i] >= 0)
			close(q[i]); /* with watches on it, maybe while records arrive */
		q[i] = new_queue(seed);
	}
	while (q[i] >= 0 && read(q[i], buf, rnd(seed, 2) ? sizeof(buf) : 1 + rnd(seed, 200)) > 0)
		atomic_fetch_add(&records, 1);
	path = any_path(seed, path_buf, sizeof(path_buf), false);
	dfd = any_dfd(seed, q[i]);
	if (rnd(seed, 2)) {
		/* Well-formed: a watch added or removed on one of our directories. */
		dir_path(seed, path_buf, sizeof(path_buf));
		path = path_buf;
		dfd = AT_FDCWD;
	}
	switch (rnd(seed, 8)) {
	case 0:
		wfd = fd_file; /* not a notification pipe */
		break;
	case 1:
		wfd = rnd(seed, 2) ? -1 : 9999;
		break;
	default:
		wfd = q[i];
	}
	switch (rnd(seed, 6)) {
	case 0:
		id = -1; /* remove */
		break;
	case 1:
		id = (int)rnd64(seed);
		break;
	case 2:
		id = 255 + rnd(seed, 3);
		break;
	default:
		id = rnd(seed, 256);
	}
	at_flags = rnd(seed, 5) ? (rnd(seed, 2) ? AT_NO_AUTOMOUNT : 0) : (unsigned)rnd64(seed);
	if (path == path_buf && dfd == AT_FDCWD && rnd(seed, 2)) {
		wfd = q[i];
		at_flags = 0;
		id = rnd(seed, 4) ? (int)rnd(seed, 8) : -1;
	}
	r = watch_mount(dfd, path, at_flags, wfd, id);
	atomic_fetch_add(&calls, 1);
	if (r == 0)
		atomic_fetch_add(&watch_ok, 1);
	else if (errno < ERRNO_MAX)
		atomic_fetch_add(&watch_errno[errno], 1);
	if (r < 0 && !documented(errno, watch_errors)) {
		int err = errno;

		snprintf(args, sizeof(args), "dfd %d, path %s, at_flags %#x, watch_fd %d, watch_id %d",
			 dfd, path == page_none ? "(unmapped)" :
			 path ? (strlen(path) > 40 ? "(long)" : path) : "NULL", at_flags, wfd, id);
		report("watch_mount", err, args);
	}
	return r;
}

/* Watches added and removed with random arguments; records read; queues closed mid-delivery. */
static void *watch_thread(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	int q[4] = { -1, -1, -1, -1 };

	while (!atomic_load(&stop) && atomic_load(&calls) < max_calls)
		(void)fuzz_watch(&seed, q);
	for (unsigned i = 0; i < 4; i++)
		if (q[i] >= 0)
			close(q[i]);
	return NULL;
}

/*
 * The same calls from an unprivileged user (nobody, no capabilities), as a
 * hostile local user would make them: every errno documented, and not one
 * watch added (watch_mount needs CAP_SYS_ADMIN over the mount namespace).
 * Runs in a child; returns how many watches were added, or -1.
 */
static int unprivileged(unsigned seed, unsigned long n)
{
	int pfd[2], added = -1;
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int q[4] = { -1, -1, -1, -1 }, count = 0;
		unsigned long before = atomic_load(&unexpected);
		size_t size = 1 << 16;
		char *buf = malloc(size);

		close(pfd[0]);
		if (!buf || setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		for (unsigned long i = 0; i < n; i++) {
			fuzz_fsinfo(&seed, buf, size);
			if (fuzz_watch(&seed, q) == 0)
				count++;
		}
		if (write(pfd[1], &count, sizeof(count)) != sizeof(count))
			_exit(1);
		_exit(atomic_load(&unexpected) != before ? 2 : 0);
	}
	close(pfd[1]);
	if (pid > 0) {
		int status = 0;

		if (read(pfd[0], &added, sizeof(added)) != sizeof(added))
			added = -1;
		(void)waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) == 1)
			added = -1;
		else if (WEXITSTATUS(status) == 2)
			atomic_fetch_add(&unexpected, 1); /* the child printed which */
	}
	close(pfd[0]);
	return added;
}

/* A chain of tmpfs mounts DEPTH deep below dir, then one lazy umount of it all. */
static void deep_chain(const char *dir, unsigned depth)
{
	char path[4096];
	size_t len = (size_t)snprintf(path, sizeof(path), "%s", dir);

	for (unsigned i = 0; i < depth && len + 4 < sizeof(path); i++) {
		if (mount("chain", path, "tmpfs", 0, "size=16k") < 0)
			break;
		len += (size_t)snprintf(path + len, sizeof(path) - len, "/c");
		if (mkdir(path, 0755) < 0)
			break;
	}
	(void)umount2(dir, MNT_DETACH);
}

/* One random change to the mount table below BASE. */
static void churn_once(unsigned *seed)
{
	char a[64], b[64];
	int fd;

	dir_path(seed, a, sizeof(a));
	dir_path(seed, b, sizeof(b));
	(void)mkdir(a, 0755);
	(void)mkdir(b, 0755);
	switch (rnd(seed, 12)) {
	case 0:
	case 1:
		if (mount("fz", a, "tmpfs", 0, "size=16k") == 0) {
			char sub[80];

			for (unsigned i = 0; i < DIRS; i++) {
				snprintf(sub, sizeof(sub), "%s/d%u", a, i);
				(void)mkdir(sub, 0755);
			}
			remember_id(a);
		}
		break;
	case 2:
		if (mount(a, b, NULL, MS_BIND | (rnd(seed, 2) ? MS_REC : 0), NULL) == 0)
			remember_id(b);
		break;
	case 3:
		(void)mount(a, b, NULL, MS_MOVE, NULL);
		break;
	case 4:
		(void)umount2(a, rnd(seed, 3) ? MNT_DETACH : 0);
		break;
	case 5:
		(void)mount(NULL, a, NULL, MS_REMOUNT | MS_BIND | (rnd(seed, 2) ? MS_RDONLY : 0), NULL);
		break;
	case 6:
		(void)mount(NULL, a, NULL, MS_REMOUNT | (rnd(seed, 2) ? MS_RDONLY : 0), "size=16k");
		break;
	case 7: {
		static const unsigned long prop[] = { MS_SHARED, MS_SLAVE, MS_PRIVATE, MS_UNBINDABLE };

		(void)mount(NULL, a, NULL, prop[rnd(seed, 4)] | (rnd(seed, 2) ? MS_REC : 0), NULL);
		break;
	}
	case 8: {
		static const uint64_t prop[] = { 0, MS_SHARED, MS_SLAVE, MS_PRIVATE };
		struct mount_attr_arg ma = {
			.attr_set = rnd(seed, 2) ? MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC : MOUNT_ATTR_NOSUID,
			.attr_clr = rnd(seed, 2) ? MOUNT_ATTR_RDONLY : MOUNT_ATTR_NODEV,
			.propagation = prop[rnd(seed, 4)],
		};

		(void)syscall(SYS_mount_setattr, AT_FDCWD, a, rnd(seed, 2) ? AT_RECURSIVE : 0, &ma, sizeof(ma));
		break;
	}
	case 9:
		/* A detached copy, changed, then attached or dropped. */
		fd = (int)syscall(SYS_open_tree, AT_FDCWD, a, OPEN_TREE_CLONE | (rnd(seed, 2) ? AT_RECURSIVE : 0));
		if (fd >= 0) {
			struct mount_attr_arg ma = { .attr_set = MOUNT_ATTR_RDONLY };

			(void)syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma, sizeof(ma));
			if (rnd(seed, 2))
				(void)syscall(SYS_move_mount, fd, "", AT_FDCWD, b, MOVE_MOUNT_F_EMPTY_PATH);
			close(fd);
		}
		break;
	case 10:
		if (!rnd(seed, 8))
			deep_chain(a, 20 + rnd(seed, 200));
		break;
	default:
		remember_id(a);
	}
	atomic_fetch_add(&churn_ops, 1);
}

static void *churn_thread(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load(&stop))
		churn_once(&seed);
	return NULL;
}

/*
 * A child in a mount namespace of its own: mounts, watches them, maybe
 * pivots its root onto a new tmpfs, makes changes, and exits with the
 * watches live, so that the namespace goes down under them.
 */
static void namespace_child(unsigned seed)
{
	pid_t pid = fork();

	if (pid < 0)
		return;
	if (pid == 0) {
		char buf[4096];
		int q;

		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(0);
		(void)mkdir(BASE "/ns", 0755);
		if (mount("ns", BASE "/ns", "tmpfs", 0, "size=64k") < 0)
			_exit(0);
		q = new_queue(&seed);
		(void)watch_mount(AT_FDCWD, BASE "/ns", 0, q, 1);
		(void)watch_mount(AT_FDCWD, "/", 0, q, 2);
		if (rnd(&seed, 2)) {
			(void)mkdir(BASE "/ns/old", 0755);
			if (chdir(BASE "/ns") == 0 && syscall(SYS_pivot_root, ".", "old") == 0) {
				(void)chdir("/");
				(void)watch_mount(AT_FDCWD, "/", 0, q, 3);
				(void)umount2("/old", rnd(&seed, 2) ? MNT_DETACH : 0);
			}
		}
		for (unsigned i = 0; i < 20; i++) {
			churn_once(&seed);
			if (q >= 0)
				(void)read(q, buf, sizeof(buf));
		}
		_exit(0); /* the namespace and its watches go with us */
	}
	(void)waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	unsigned seed = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1;
	unsigned long rounds;
	pthread_t fs[FSINFO_THREADS], ch[CHURN_THREADS], wt;
	struct timespec t0, t1;
	unsigned long children = 0;
	char *pages;
	int n = 0;

	if (argc > 1)
		max_calls = strtoul(argv[1], NULL, 0);
	rounds = argc > 3 ? strtoul(argv[3], NULL, 0) : max_calls / 2000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n# seed %u, %lu calls, %lu propagation rounds (fuzz-syscalls CALLS SEED ROUNDS "
	       "repeats this run)\n", seed, max_calls, rounds);
	if (fsinfo(AT_FDCWD, "/", NULL, 0, NULL, 0) < 0 && errno == ENOSYS) {
		printf("1..0 # SKIP this kernel has no fsinfo(2)\n");
		return 0;
	}
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		printf("1..0 # SKIP no private mount namespace (needs root): %m\n");
		return 0;
	}
	(void)mkdir(BASE, 0755);
	if (mount("fuzz", BASE, "tmpfs", 0, "size=4m") < 0) {
		printf("not ok 1 - a tmpfs at " BASE ": %m\n1..1\n");
		return 1;
	}
	/* Where the propagation part mounts, made now: the churn may leave BASE read-only */
	(void)mkdir(BASE "/prop", 0755);
	pages = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		return 1;
	page_rw = pages;
	page_none = pages + 4096;
	page_ro = pages + 2 * 4096;
	(void)mprotect(page_ro, 4096, PROT_READ);
	(void)mprotect(page_none, 4096, PROT_NONE);
	fd_path = open(BASE, O_PATH | O_CLOEXEC);
	fd_file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	remember_id(BASE);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; i < CHURN_THREADS; i++)
		pthread_create(&ch[i], NULL, churn_thread, (void *)(uintptr_t)(seed + 100 + i));
	for (unsigned i = 0; i < FSINFO_THREADS; i++)
		pthread_create(&fs[i], NULL, fsinfo_thread, (void *)(uintptr_t)(seed + 200 + i));
	pthread_create(&wt, NULL, watch_thread, (void *)(uintptr_t)(seed + 300));
	/* Meanwhile: namespaces that go down with watches on them. */
	while (atomic_load(&calls) < max_calls) {
		namespace_child(seed + (unsigned)children);
		children++;
		usleep(20000);
	}
	for (unsigned i = 0; i < FSINFO_THREADS; i++)
		pthread_join(fs[i], NULL);
	pthread_join(wt, NULL);
	atomic_store(&stop, true);
	for (unsigned i = 0; i < CHURN_THREADS; i++)
		pthread_join(ch[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("# %lu calls in %.1f s: fsinfo succeeded %lu times, watch_mount %lu; %lu records read; "
	       "%lu changes to the mount table; %lu namespaces torn down under watches\n",
	       atomic_load(&calls), (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       atomic_load(&fsinfo_ok), atomic_load(&watch_ok), atomic_load(&records),
	       atomic_load(&churn_ops), children);
	for (unsigned k = 0; k < 2; k++) {
		atomic_ulong *h = k ? watch_errno : fsinfo_errno;

		printf("# %s errors:", k ? "watch_mount" : "fsinfo");
		for (int e = 1; e < ERRNO_MAX; e++)
			if (atomic_load(&h[e]))
				printf(" %s %lu", strerrorname_np(e) ?: "?", atomic_load(&h[e]));
		printf("\n");
	}
	printf("%s %d - every fsinfo and watch_mount call succeeded or failed with a documented errno "
	       "(%lu did not)\n", atomic_load(&unexpected) ? "not ok" : "ok", ++n, atomic_load(&unexpected));
	printf("%s %d - the random calls reached the kernel's work: some succeeded, records arrived\n",
	       atomic_load(&fsinfo_ok) > 0 && atomic_load(&watch_ok) > 0 && atomic_load(&records) > 0 ?
	       "ok" : "not ok", ++n);
	{
		unsigned long before = atomic_load(&unexpected);
		int added = unprivileged(seed + 400, max_calls / 10);

		printf("%s %d - as nobody, %lu calls of each: no watch added (%d), every errno documented\n",
		       added == 0 && atomic_load(&unexpected) == before ? "ok" : "not ok", ++n, max_calls / 10,
		       added);
	}
	if (rounds)
		n = propagation_fuzz(seed + 600, (unsigned)rounds, BASE "/prop", n);
	(void)umount2(BASE, MNT_DETACH);
	{
		/* Afterwards, the machinery still works: a watch, a mount, its record. */
		char buf[256];
		int fds[2] = { -1, -1 };
		ssize_t len = -1;

		if (mount("after", BASE, "tmpfs", 0, "size=64k") == 0 && mkdir(BASE "/x", 0755) == 0 &&
		    pipe2(fds, O_NOTIFICATION_PIPE | O_CLOEXEC) == 0 &&
		    ioctl(fds[0], IOC_WATCH_QUEUE_SET_SIZE, 16UL) == 0 &&
		    watch_mount(AT_FDCWD, BASE, 0, fds[0], 7) == 0 &&
		    mount("x", BASE "/x", "tmpfs", 0, "size=64k") == 0 &&
		    poll(&(struct pollfd){ .fd = fds[0], .events = POLLIN }, 1, 5000) == 1)
			len = read(fds[0], buf, sizeof(buf));
		printf("%s %d - afterwards a new watch reports a new mount (%zd bytes of records)\n",
		       len > 0 ? "ok" : "not ok", ++n, len);
		(void)umount2(BASE, MNT_DETACH);
	}
	printf("1..%d\n", n);
	return atomic_load(&unexpected) ? 1 : 0;
}
