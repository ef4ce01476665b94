/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Raw wrappers for the system calls that the mountwatch kernel series adds,
 * for userspace built before libc knows them. The numbers are the series'
 * (SPEC.md: a gap above 6.12's table, the same on every architecture).
 * A kernel without the series answers -1/ENOSYS.
 *
 * AT_FDCWD comes from <fcntl.h> or <linux/fcntl.h>, whichever the includer
 * uses (the two cannot be mixed in that order).
 */
#ifndef MOUNTWATCH_SYSCALLS_H
#define MOUNTWATCH_SYSCALLS_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/fsinfo.h>

#ifndef __NR_watch_mount
#define __NR_watch_mount 490
#endif
#ifndef __NR_fsinfo
#define __NR_fsinfo 491
#endif

static inline int watch_mount(int dfd, const char *path, unsigned int at_flags,
			      int watch_fd, int watch_id)
{
	return syscall(__NR_watch_mount, dfd, path, at_flags, watch_fd, watch_id);
}

static inline long fsinfo(int dfd, const char *pathname,
			  const struct fsinfo_params *params, size_t params_size,
			  void *result_buffer, size_t result_buf_size)
{
	return syscall(__NR_fsinfo, dfd, pathname, params, params_size,
		       result_buffer, result_buf_size);
}

/*
 * One attribute of the mount whose unique ID is unique_id, in this mount
 * namespace (FSINFO_FLAGS_QUERY_MOUNT: the ID is passed as a decimal string).
 * Returns the attribute's full size or -errno.
 */
static inline long fsinfo_mount(uint64_t unique_id, uint32_t request, void *buf, size_t size)
{
	struct fsinfo_params params = {
		.flags = FSINFO_FLAGS_QUERY_MOUNT,
		.request = request,
	};
	char id[24];
	long r;

	snprintf(id, sizeof(id), "%" PRIu64, unique_id);
	r = fsinfo(AT_FDCWD, id, &params, sizeof(params), buf, size);
	return r < 0 ? -errno : r;
}

#endif /* MOUNTWATCH_SYSCALLS_H */
