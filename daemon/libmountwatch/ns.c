/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Entering a watched mount namespace and coming back; see ns.h. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "ns.h"

__thread int query_mntns_fd = -1;

static void close_saved(NsSaved *saved)
{
	if (saved->ns >= 0)
		close(saved->ns);
	if (saved->cwd >= 0)
		close(saved->cwd);
	if (saved->root >= 0)
		close(saved->root);
	*saved = (NsSaved){ -1, -1, -1 };
}

int ns_enter(int ns_fd, NsSaved *saved)
{
	int r;

	*saved = (NsSaved){ -1, -1, -1 };
	if (ns_fd < 0)
		return 0;
	saved->ns = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (saved->ns < 0)
		return -errno;
	/* setns(2) moves both to the namespace's root; a deleted cwd cannot come back. */
	saved->cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	saved->root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = setns(ns_fd, CLONE_NEWNS);
	if (r < 0 && errno == EINVAL && unshare(CLONE_FS) == 0)
		r = setns(ns_fd, CLONE_NEWNS);
	if (r < 0) {
		r = -errno;
		close_saved(saved);
		return r;
	}
	return 0;
}

void ns_leave(NsSaved *saved)
{
	struct stat a, b;

	if (saved->ns < 0)
		return;
	/* Going back where we were allowed to be cannot fail but for a lack of memory. */
	if (setns(saved->ns, CLONE_NEWNS) < 0)
		lib_debug_errno(errno, "Failed to return to the caller's mount namespace: %m");
	/* A chrooted caller: setns(2) gave it the namespace's root, not its own. */
	if (saved->root >= 0 && fstat(saved->root, &a) == 0 && stat("/", &b) == 0 &&
	    (a.st_dev != b.st_dev || a.st_ino != b.st_ino) &&
	    (fchdir(saved->root) < 0 || chroot(".") < 0))
		lib_debug_errno(errno, "Failed to return to the caller's root directory: %m");
	if (saved->cwd >= 0 && fchdir(saved->cwd) < 0)
		lib_debug_errno(errno, "Failed to return to the caller's working directory: %m");
	close_saved(saved);
}
