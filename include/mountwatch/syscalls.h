/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Raw wrappers for the system calls that the mountwatch kernel series adds,
 * for userspace built before libc knows them. The numbers are the series'
 * (SPEC.md: a gap above 6.12's table, the same on every architecture).
 * A kernel without the series answers -1/ENOSYS.
 */
#ifndef MOUNTWATCH_SYSCALLS_H
#define MOUNTWATCH_SYSCALLS_H

#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_watch_mount
#define __NR_watch_mount 490
#endif
#ifndef __NR_fsinfo
#define __NR_fsinfo 491
#endif

struct fsinfo_params;

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

#endif /* MOUNTWATCH_SYSCALLS_H */
