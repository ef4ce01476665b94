/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Running in the mount namespace a watcher follows (mw_watcher_new_ns()):
 * entering it and coming back as the caller was, and the namespace the
 * kernel queries of one public call run in.
 */
#ifndef MOUNTWATCH_NS_H
#define MOUNTWATCH_NS_H

/*
 * What ns_enter() left: the caller's mount namespace, working directory and
 * root (-1 each: nothing to restore).
 */
typedef struct NsSaved {
	int ns, cwd, root;
} NsSaved;

/*
 * The calling thread enters the mount namespace of ns_fd (-1: stays where
 * it is); ns_leave() brings it back. setns(2) into a mount namespace needs
 * a thread that shares no filesystem attributes: the thread's are unshared
 * first if needed (for good: libmountwatch(3) says so). Returns 0 or
 * -errno, the thread where it was.
 */
int ns_enter(int ns_fd, NsSaved *saved);
void ns_leave(NsSaved *saved);

/*
 * The namespace the kernel queries of the current public call run in (-1:
 * the caller's), set by the watcher around each call on a watcher of
 * another namespace: for the backend whose queries name none (fsinfo(2)
 * looks a mount ID up in the caller's namespace; statmount(2) takes
 * statmount_mnt_ns_id instead).
 */
extern __thread int query_mntns_fd;

/* The int that call returns, called in query_mntns_fd's namespace (if one is set). */
#define IN_QUERY_NS(call)                                        \
	({                                                       \
		NsSaved _saved;                                  \
		int _r = ns_enter(query_mntns_fd, &_saved);      \
		if (_r >= 0) {                                   \
			_r = (call);                             \
			ns_leave(&_saved);                       \
		}                                                \
		_r;                                              \
	})

#endif
