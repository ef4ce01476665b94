/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The propagation part of fuzz-syscalls (issue 30): builds, on purpose and
 * often, the mount shapes that stress watch_mount's cache of watched
 * ancestors. A propagated umount restores the mounts that sat on the roots
 * of the mounts it takes ("toppers") onto the mount left below them; series
 * v7 then kept, in a restored topper, a cached anchor naming the unmounted,
 * soon freed mount, and the walk up the anchors from a mount made below the
 * topper went to that mount's watches, or round for ever under mount_lock
 * once its memory came back as a mount below the topper (fixed in v7.1,
 * patch 0050; its selftest wm.restored_toppers builds one such shape).
 *
 * As nobody, in a user and mount namespace of its own (so it holds
 * CAP_SYS_ADMIN over its own mounts only), each round, from the seed:
 * - sites that are bind copies of one another: peers, slaves, slaves of
 *   slaves (a slave made shared again), private, unbindable;
 * - layers of tmpfs mounted in one site (mostly the first), copied by
 *   propagation into the others; on the copies, stacks of 1-3 mounts
 *   (binds of the original, slave or not, of another copy or of the copy
 *   itself, or a tmpfs), put on before the next layer so that it propagates
 *   into them and gets stacks of its own; watches on the way, also on the
 *   mounts about to be covered, in queues that a reader thread drains;
 * - operations: umounts plain and lazy, of the original, of a peer's copy,
 *   of a topper or of a whole site, moves out of and into watched subtrees,
 *   remounts, propagation changes, new mounts, watches added and removed,
 *   queues closed with their watches;
 * - after each umount at once, and after a pause in which the unmounted
 *   mounts are freed, a mount below whatever is on top at each path (two
 *   deep), whose NEW_MOUNT must reach the watch on the round's root. A
 *   stale anchor sends it elsewhere (reported here), or the walk loops
 *   (the guest hangs and its run times out).
 * Two threads meanwhile query the round's mounts with fsinfo(2). Every
 * mount, umount, watch_mount and fsinfo call must succeed or fail with an
 * errno its man page lists. Nothing else in the test changes mounts while
 * this runs: any departure anywhere refreshes the cache (its generation is
 * global in v7), which hid the bug from the random churn of fuzz-syscalls.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
/* <fcntl.h> has what <linux/fcntl.h> would define again. */
#define _LINUX_FCNTL_H
#include <linux/watch_queue.h>

#include "mountwatch/syscalls.h"
#include "mainline-uapi.h"
#include "fuzz.h"

#define SITES 5
#define LAYERS 3
#define QUEUES 3
#define TOPPERS_MAX 128
/* A round's mounts: from the site's root, the layers are at x, x/y, x/y/w. */
static const char *const layer_path[LAYERS] = { "x", "x/y", "x/y/w" };
/* Directories each new tmpfs gets: the layers' own, and z for the checks. */
static const char *const new_dirs[] = { "x", "y", "w", "z" };
/* Moves go to and come from here, below the round's root (outside every site). */
#define MOVE_DIRS 4
/* At most this long in all, whatever the rounds asked (the guest suite is timed). */
#define MAX_SECONDS 60

/* mount(2)'s and umount(2)'s ERRORS. */
static const int mount_errors[] = { EACCES, EBUSY, EFAULT, EINVAL, ELOOP, EMFILE, ENAMETOOLONG, ENODEV,
				    ENOENT, ENOMEM, ENOSPC, ENOTBLK, ENOTDIR, ENXIO, EPERM, EROFS, 0 };
static const int umount_errors[] = { EAGAIN, EBUSY, EFAULT, EINVAL, ENAMETOOLONG, ENOENT, ENOMEM, EPERM, 0 };

/* What a run did, sent from the child to the parent. */
struct stats {
	unsigned long rounds, mounts, umounts, lazy, watches, unwatches, moves, toppers, restored, nested, shapes;
	unsigned long checks, inconclusive, missed, fsinfo_calls, fsinfo_ok, records, unexpected;
	int per_queue; /* probe_per_queue(): 1, 0, or -1 if not probed */
	double seconds;
	char skip[200], failed[200];
};

static struct stats st;
static atomic_ulong fsinfo_calls, fsinfo_ok, records;
static atomic_bool done;
/* The round's root; the same path every round (the last one is detached from it). */
static char root[256];
/* The queues that random watches go to, drained by the reader thread. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int queues[QUEUES] = { -1, -1, -1 };
/* Mounts made lately, for fsinfo by ID. */
static _Atomic uint64_t recent[32];
static atomic_uint recent_next;

/* The round's toppers: each with the parent it was put on, and that one's parent. */
static struct topper {
	uint64_t id, parent, grandparent;
	bool moved, restored;
} toppers[TOPPERS_MAX];
static unsigned n_toppers;
/* The mounts the round watched (a queue closed since leaves them anchors) */
static uint64_t watched[TOPPERS_MAX];
static unsigned n_watched;
/*
 * How many sites and layers the round has; whether it is guided towards the
 * shape of wm.restored_toppers (copies that get the layers, stacks on them
 * that get the next layer, the original of a layer with one above it
 * lazily unmounted first) or random all through.
 */
static unsigned sites, layers;
static bool guided;

static void path_at(char *buf, size_t size, unsigned site, int layer, const char *tail)
{
	int len = snprintf(buf, size, "%s/s%u", root, site);

	if (layer >= 0)
		len += snprintf(buf + len, size - (size_t)len, "/%s", layer_path[layer]);
	if (tail)
		snprintf(buf + len, size - (size_t)len, "/%s", tail);
}

/* buf = a/b; false if that does not fit */
static bool join(char *buf, size_t size, const char *a, const char *b)
{
	int len = snprintf(buf, size, "%s/%s", a, b);

	return len >= 0 && (size_t)len < size;
}

uint64_t mount_id(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, MW_STATX_MNT_ID_UNIQUE, &stx) < 0 ||
	    !(stx.stx_mask & MW_STATX_MNT_ID_UNIQUE))
		return 0;
	return stx.stx_mnt_id;
}

/* The unique ID of the parent of mount id (statmount(2)), 0 if it is not in the namespace. */
static uint64_t parent_of(uint64_t id)
{
	struct mw_mnt_id_req req = { .size = MW_MNT_ID_REQ_SIZE_VER0, .mnt_id = id,
				     .param = MW_STATMOUNT_MNT_BASIC };
	struct mw_statmount sm;

	if (syscall(__NR_statmount, &req, &sm, sizeof(sm), 0) < 0 || !(sm.mask & MW_STATMOUNT_MNT_BASIC))
		return 0;
	return sm.mnt_parent_id;
}

static void check_errno(const char *call, const int *list, const char *a, const char *b, unsigned long flags)
{
	char args[700];

	if (documented(errno, list))
		return;
	snprintf(args, sizeof(args), "%s, %s, flags %#lx", a ?: "NULL", b ?: "NULL", flags);
	report(call, errno, args);
}

static int do_mount(const char *src, const char *dst, const char *type, unsigned long flags, const char *data)
{
	if (mount(src, dst, type, flags, data) == 0) {
		st.mounts++;
		if (flags & MS_MOVE)
			st.moves++;
		return 0;
	}
	check_errno("mount", mount_errors, src, dst, flags);
	return -1;
}

static int do_umount(const char *path, int flags)
{
	if (umount2(path, flags) == 0) {
		st.umounts++;
		if (flags & MNT_DETACH)
			st.lazy++;
		return 0;
	}
	check_errno("umount2", umount_errors, path, NULL, (unsigned long)flags);
	return -1;
}

static void propagation(unsigned *seed, const char *path)
{
	static const unsigned long types[] = { MS_SHARED, MS_SLAVE, MS_PRIVATE, MS_UNBINDABLE };

	(void)do_mount(NULL, path, NULL, types[rnd(seed, 4)] | (rnd(seed, 3) ? 0 : MS_REC), NULL);
}

/* A tmpfs at path with the directories of new_dirs; its unique ID, or 0. */
static uint64_t new_tmpfs(const char *path)
{
	char sub[300];
	uint64_t id;

	if (do_mount("prop", path, "tmpfs", 0, "size=64k") < 0)
		return 0;
	for (size_t i = 0; i < sizeof(new_dirs) / sizeof(new_dirs[0]); i++) {
		if (join(sub, sizeof(sub), path, new_dirs[i]))
			(void)mkdir(sub, 0755);
	}
	id = mount_id(path);
	recent[atomic_fetch_add(&recent_next, 1) % 32] = id;
	return id;
}

static int new_queue(unsigned size)
{
	int fds[2];

	if (pipe2(fds, O_NOTIFICATION_PIPE | O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	close(fds[1]);
	if (ioctl(fds[0], IOC_WATCH_QUEUE_SET_SIZE, (unsigned long)size) < 0) {
		close(fds[0]);
		return -1;
	}
	return fds[0];
}

static int do_watch(const char *path, int q, int id)
{
	if (q < 0)
		return -1;
	if (watch_mount(AT_FDCWD, path, 0, q, id) == 0) {
		if (id < 0) {
			st.unwatches++;
		} else {
			st.watches++;
			if (n_watched < TOPPERS_MAX)
				watched[n_watched++] = mount_id(path);
		}
		return 0;
	}
	if (!documented(errno, watch_errors)) {
		char args[400];

		snprintf(args, sizeof(args), "path %s, watch_id %d", path, id);
		report("watch_mount", errno, args);
	}
	return -1;
}

/* A watch added to or removed from the mount at path, through one of the reader's queues. */
static void random_watch(unsigned *seed, const char *path)
{
	unsigned i = rnd(seed, QUEUES);

	pthread_mutex_lock(&queue_lock);
	if (queues[i] < 0 || !rnd(seed, 8)) {
		if (queues[i] >= 0)
			close(queues[i]); /* with its watches */
		queues[i] = new_queue(rnd(seed, 4) ? 128 : 1 + rnd(seed, 8));
	}
	(void)do_watch(path, queues[i], rnd(seed, 5) ? (int)rnd(seed, 256) : -1);
	pthread_mutex_unlock(&queue_lock);
}

/* One mount of the round, at random: a site's root, a layer, or a mount below one. */
static void random_path(unsigned *seed, char *buf, size_t size)
{
	path_at(buf, size, rnd(seed, SITES), (int)rnd(seed, LAYERS + 1) - 1, rnd(seed, 4) ? NULL : "z");
}

/*
 * Whether the record of an event reaches a queue once, through its nearest
 * watch at or above the mount (series v8), or once per watched mount above
 * it (v7): the check below takes what this kernel promises, as strictly as
 * it promises it.
 */
static bool per_queue;

/*
 * The records in buf; sets *lost on a loss mark, *found on the NEW_MOUNT of
 * want that the check takes (below), and counts in *any each NEW_MOUNT of
 * want through whichever watch.
 */
static unsigned long count_records(const char *buf, ssize_t len, uint64_t want, bool *found, bool *lost,
				   unsigned long *any)
{
	unsigned long n = 0;

	for (ssize_t off = 0; off + (ssize_t)sizeof(struct watch_notification) <= len;) {
		const struct watch_notification *w = (const void *)(buf + off);
		size_t rlen = (w->info & WATCH_INFO_LENGTH) >> WATCH_INFO_LENGTH__SHIFT;

		if (rlen < sizeof(*w))
			break;
		if (w->type == WATCH_TYPE_META && w->subtype == WATCH_META_LOSS_NOTIFICATION && lost)
			*lost = true;
		/*
		 * One record per watched mount: the root's own watch (ID 0) must
		 * have it, another of the queue's watches below does not count.
		 * One per queue: it comes through whichever of q0's watches is
		 * nearest (ID 0 or 1).
		 */
		if (w->type == WATCH_TYPE_MOUNT_NOTIFY && w->subtype == NOTIFY_MOUNT_NEW_MOUNT &&
		    rlen >= sizeof(struct mount_notification) &&
		    ((const struct mount_notification *)w)->auxiliary_mount == want) {
			if (any)
				(*any)++;
			if (found && (per_queue || !((w->info & WATCH_INFO_ID) >> WATCH_INFO_ID__SHIFT)))
				*found = true;
		}
		off += (ssize_t)rlen;
		n++;
	}
	return n;
}

static void *reader(void *arg)
{
	char buf[4096];
	ssize_t len;

	(void)arg;
	while (!atomic_load(&done)) {
		pthread_mutex_lock(&queue_lock);
		for (unsigned i = 0; i < QUEUES; i++)
			while (queues[i] >= 0 && (len = read(queues[i], buf, sizeof(buf))) > 0)
				atomic_fetch_add(&records, count_records(buf, len, 0, NULL, NULL, NULL));
		pthread_mutex_unlock(&queue_lock);
		usleep(1000);
	}
	return NULL;
}

/* fsinfo(2) of the round's mounts, by path or by ID, while they change. */
static void *querier(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	size_t size = 1 << 16;
	char *buf = malloc(size), path[300];

	while (buf && !atomic_load(&done)) {
		struct fsinfo_params p = { .request = requests[rnd(&seed, (unsigned)n_requests)] };

		if (rnd(&seed, 2)) {
			p.flags = FSINFO_FLAGS_QUERY_MOUNT;
			snprintf(path, sizeof(path), "%" PRIu64, recent[rnd(&seed, 32)]);
		} else {
			p.flags = FSINFO_FLAGS_QUERY_PATH;
			random_path(&seed, path, sizeof(path));
		}
		usleep(100); /* queries, not a busy loop that starves the rounds */
		atomic_fetch_add(&fsinfo_calls, 1);
		if (fsinfo(AT_FDCWD, path, &p, sizeof(p), buf, size) >= 0) {
			atomic_fetch_add(&fsinfo_ok, 1);
		} else if (!documented(errno, fsinfo_errors)) {
			char args[400];

			snprintf(args, sizeof(args), "path %s, flags %#x, request %#x", path, p.flags, p.request);
			report("fsinfo", errno, args);
		}
	}
	free(buf);
	return NULL;
}

/*
 * A new tmpfs at path/z, on whatever is on top there: its NEW_MOUNT must
 * reach the watch on the round's root (q0, watch ID 0; or, if the kernel
 * sends one record per queue, q0's nearest watch), whatever was taken down
 * and restored below. Returns its ID, 0 if nothing was mounted.
 */
static uint64_t check_below(int q0, const char *path, unsigned round, const char *when)
{
	char dst[300], buf[4096];
	bool found = false, lost = false;
	unsigned long n = 0;
	uint64_t id;
	ssize_t len;

	if (q0 < 0)
		return 0;
	while (read(q0, buf, sizeof(buf)) > 0)
		;
	if (!join(dst, sizeof(dst), path, "z"))
		return 0;
	id = new_tmpfs(dst);
	if (!id)
		return 0;
	st.checks++;
	/*
	 * Posted once the locks are dropped, by this task, or by one that took
	 * the batch before (a querier's fsinfo): then the mount can return
	 * before the record is in the queue. A reading of counters waits for
	 * any posting under way (watch_mount(2), "Completeness and order").
	 */
	for (int i = 0; i < 20 && !found; i++) {
		struct fsinfo_params p = { .flags = FSINFO_FLAGS_QUERY_PATH, .request = FSINFO_ATTR_MOUNT_INFO };
		struct fsinfo_mount_info info;

		if (i)
			usleep(100000);
		(void)fsinfo(AT_FDCWD, root, &p, sizeof(p), &info, sizeof(info));
		while (!found && (len = read(q0, buf, sizeof(buf))) > 0)
			n += count_records(buf, len, id, &found, &lost, NULL);
	}
	if (found)
		return id;
	if (lost) {
		st.inconclusive++;
		return id;
	}
	if (++st.missed <= 5)
		printf("# round %u, %s: the NEW_MOUNT of mount %" PRIu64 " at %s did not reach the watch on "
		       "the round's root within 2 s (%lu other records)\n", round, when, id, dst, n);
	return id;
}

/* A check at path, and one more below the mount it made. */
static void check_twice(int q0, const char *path, unsigned round, const char *when)
{
	char below[300];

	if (check_below(q0, path, round, when) && join(below, sizeof(below), path, "z"))
		(void)check_below(q0, below, round, when);
}

static void add_topper(const char *path)
{
	uint64_t id = mount_id(path);

	if (!id || n_toppers == TOPPERS_MAX)
		return;
	toppers[n_toppers] = (struct topper){ .id = id, .parent = parent_of(id) };
	toppers[n_toppers].grandparent = parent_of(toppers[n_toppers].parent);
	n_toppers++;
	st.toppers++;
}

/* The sites, their layers, the stacks on the layers' copies, watches on the way. */
static void build(unsigned *seed, int q0)
{
	char p[300], src[300];

	guided = rnd(seed, 2);
	sites = 2 + rnd(seed, SITES - 1);
	layers = guided ? 2 + rnd(seed, LAYERS - 1) : 1 + rnd(seed, LAYERS);

	path_at(p, sizeof(p), 0, -1, NULL);
	(void)new_tmpfs(p);
	if (guided || rnd(seed, 8))
		(void)do_mount(NULL, p, NULL, MS_SHARED, NULL);
	for (unsigned i = 1; i < sites; i++) {
		path_at(src, sizeof(src), rnd(seed, i), -1, NULL);
		path_at(p, sizeof(p), i, -1, NULL);
		if (do_mount(src, p, NULL, MS_BIND | (rnd(seed, 4) ? 0 : MS_REC), NULL) < 0)
			continue;
		switch (rnd(seed, guided ? 8 : 10)) {
		case 0: case 1: case 2:
			break; /* a peer of its source, if that is shared */
		case 3: case 4: case 5:
			(void)do_mount(NULL, p, NULL, MS_SLAVE, NULL);
			break;
		case 6: case 7:
			/* A slave that propagates on: its copies are slaves of a slave */
			(void)do_mount(NULL, p, NULL, MS_SLAVE, NULL);
			(void)do_mount(NULL, p, NULL, MS_SHARED, NULL);
			break;
		case 8:
			(void)do_mount(NULL, p, NULL, MS_PRIVATE, NULL);
			break;
		default:
			(void)do_mount(NULL, p, NULL, MS_UNBINDABLE, NULL);
		}
	}
	for (unsigned l = 0; l < layers; l++) {
		unsigned origin = guided || rnd(seed, 6) ? 0 : rnd(seed, sites);

		/* Watches on the mounts the layer will go into */
		for (unsigned i = 0; i < sites; i++)
			if (!rnd(seed, 3)) {
				path_at(p, sizeof(p), i, (int)l - 1, NULL);
				random_watch(seed, p);
			}
		path_at(p, sizeof(p), origin, (int)l, NULL);
		if (!new_tmpfs(p))
			continue;
		if (!guided && !rnd(seed, 6))
			propagation(seed, p);
		/*
		 * Stacks on its copies, which the next layer propagates into;
		 * seldom on the original, whose umount is what takes the copies.
		 */
		for (unsigned i = 0; i < sites; i++) {
			if (i == origin ? rnd(seed, 5) : !guided && !rnd(seed, 3))
				continue;
			path_at(p, sizeof(p), i, (int)l, NULL);
			for (unsigned d = 1 + rnd(seed, 3); d > 0; d--) {
				unsigned kind;
				int r;

				/* The mount about to be covered, watched */
				if (rnd(seed, 3)) {
					if (rnd(seed, 4))
						random_watch(seed, p);
					else
						(void)do_watch(p, q0, 1);
				}
				/*
				 * Guided: a slave of the original, as in the selftest (a
				 * peer would send each mount on it to every peer: the
				 * stacks would grow exponentially), or a tmpfs.
				 */
				kind = guided ? (rnd(seed, 4) ? 2 : 5) : rnd(seed, 6);
				switch (kind) {
				case 0: case 1: case 2:
					/* The original, as a peer or (case 2) as a slave */
					path_at(src, sizeof(src), origin, (int)l, NULL);
					r = do_mount(src, p, NULL, MS_BIND, NULL);
					if (r == 0 && kind == 2)
						(void)do_mount(NULL, p, NULL, MS_SLAVE, NULL);
					break;
				case 3:
					path_at(src, sizeof(src), rnd(seed, sites), (int)l, NULL);
					r = do_mount(src, p, NULL, MS_BIND | (rnd(seed, 2) ? MS_REC : 0), NULL);
					break;
				case 4:
					r = do_mount(p, p, NULL, MS_BIND, NULL);
					break;
				default:
					r = new_tmpfs(p) ? 0 : -1;
				}
				if (r < 0)
					continue;
				if (!guided && !rnd(seed, 5))
					propagation(seed, p);
				add_topper(p);
			}
		}
	}
	for (unsigned k = rnd(seed, 4); k > 0; k--) {
		random_path(seed, p, sizeof(p));
		random_watch(seed, p);
	}
}

/* After an umount at layer: a check below what is on top there in every site, at once. */
static void check_sites(int q0, int layer, unsigned round)
{
	char p[300];

	for (unsigned i = 0; i < sites; i++) {
		path_at(p, sizeof(p), i, layer, NULL);
		(void)check_below(q0, p, round, "right after an umount");
	}
}

static void mark_moved(uint64_t id)
{
	for (unsigned i = 0; i < n_toppers; i++)
		if (toppers[i].id == id)
			toppers[i].moved = true;
}

/*
 * One operation on the round's mounts; the first, in every guided round and
 * two thirds of the others, a lazy umount of the original of a layer that
 * has one above it (whose copies' stacks have stacks inside them).
 */
static void operation(unsigned *seed, int q0, unsigned round, bool first)
{
	unsigned site = rnd(seed, 3) ? 0 : rnd(seed, sites);
	int layer = (int)rnd(seed, layers);
	unsigned op = rnd(seed, 16);
	char a[300], b[300];
	uint64_t id;

	if (first && (guided || rnd(seed, 3))) {
		site = 0;
		layer = (int)rnd(seed, layers > 1 ? layers - 1 : 1);
		op = 0;
	}
	path_at(a, sizeof(a), site, layer, NULL);
	snprintf(b, sizeof(b), "%s/m%u", root, rnd(seed, MOVE_DIRS));
	switch (op) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		/* Propagated from the original; or a peer's copy, or a topper */
		if (do_umount(a, MNT_DETACH) == 0)
			check_sites(q0, layer, round);
		break;
	case 6: case 7:
		if (do_umount(a, 0) == 0)
			check_sites(q0, layer, round);
		break;
	case 8:
		path_at(a, sizeof(a), site, -1, NULL);
		(void)do_umount(a, MNT_DETACH);
		break;
	case 9:
		/* Out of a (maybe watched) site */
		id = mount_id(a);
		if (do_mount(a, b, NULL, MS_MOVE, NULL) == 0)
			mark_moved(id);
		break;
	case 10:
		/* Into one */
		path_at(a, sizeof(a), site, layer, "z");
		(void)do_mount(b, a, NULL, MS_MOVE, NULL);
		break;
	case 11:
		(void)do_mount(NULL, a, NULL, MS_REMOUNT | MS_BIND | (rnd(seed, 2) ? MS_RDONLY : 0), NULL);
		break;
	case 12:
		(void)do_mount(NULL, a, NULL, MS_REMOUNT | (rnd(seed, 4) ? 0 : MS_RDONLY), "size=64k");
		break;
	case 13:
		propagation(seed, a);
		break;
	case 14:
		if (rnd(seed, 2)) {
			(void)new_tmpfs(a);
		} else {
			path_at(b, sizeof(b), rnd(seed, sites), layer, NULL);
			(void)do_mount(b, a, NULL, MS_BIND, NULL);
		}
		break;
	default:
		random_watch(seed, a);
	}
}

static bool was_watched(uint64_t id)
{
	for (unsigned i = 0; i < n_watched; i++)
		if (watched[i] == id)
			return true;
	return false;
}

/* The restored topper at or below which the topper id sat in the stack it was put on, or NULL */
static struct topper *restored_below(uint64_t id)
{
	for (unsigned n = 0; n < n_toppers; n++) {
		struct topper *t = NULL;

		for (unsigned i = 0; i < n_toppers && !t; i++)
			if (toppers[i].id == id)
				t = &toppers[i];
		if (!t || t->restored)
			return t;
		id = t->parent;
	}
	return NULL;
}

/*
 * The toppers that an umount put elsewhere; those restored from inside a
 * stack of which another topper was restored too (nested: the first one's
 * MOVE_FROM walks up through the second); and of these, those whose other
 * topper had sat on a watched mount: the shape of wm.restored_toppers.
 */
static void tally_restored(void)
{
	for (unsigned i = 0; i < n_toppers; i++) {
		uint64_t parent = parent_of(toppers[i].id);

		toppers[i].restored = parent && parent != toppers[i].parent && !toppers[i].moved;
		st.restored += toppers[i].restored;
	}
	for (unsigned i = 0; i < n_toppers; i++) {
		struct topper *upper = toppers[i].restored ? restored_below(toppers[i].grandparent) : NULL;

		if (upper) {
			st.nested++;
			st.shapes += was_watched(upper->parent);
		}
	}
}

/*
 * Under the round's root, watched by q0 with ID 0: a mount watched by q0
 * with ID 1, and a new mount below it. Two records of it in q0 mean one
 * per watched mount, one means one per queue.
 */
static int probe_per_queue(int q0)
{
	char dir[300], below[300], buf[4096];
	unsigned long n = 0;
	uint64_t id;
	ssize_t len;

	while (read(q0, buf, sizeof(buf)) > 0)
		;
	if (!join(dir, sizeof(dir), root, "probe") || !join(below, sizeof(below), dir, "z") ||
	    (mkdir(dir, 0755) < 0 && errno != EEXIST) || !new_tmpfs(dir))
		return -1;
	if (watch_mount(AT_FDCWD, dir, 0, q0, 1) < 0 || !(id = new_tmpfs(below))) {
		(void)umount2(dir, MNT_DETACH);
		return -1;
	}
	while ((len = read(q0, buf, sizeof(buf))) > 0)
		(void)count_records(buf, len, id, NULL, NULL, &n);
	(void)umount2(dir, MNT_DETACH);
	return n == 1 ? 1 : n == 2 ? 0 : -1;
}

static void one_round(unsigned *seed, unsigned round)
{
	char p[300];
	int q0;

	(void)mkdir(root, 0755);
	if (!new_tmpfs(root))
		return;
	for (unsigned i = 0; i < SITES; i++) {
		path_at(p, sizeof(p), i, -1, NULL);
		(void)mkdir(p, 0755);
	}
	for (unsigned i = 0; i < MOVE_DIRS; i++) {
		snprintf(p, sizeof(p), "%s/m%u", root, i);
		(void)mkdir(p, 0755);
	}
	q0 = new_queue(256);
	if (do_watch(root, q0, 0) < 0 && q0 >= 0) {
		close(q0);
		q0 = -1;
	}
	if (q0 >= 0 && st.per_queue < 0) {
		st.per_queue = probe_per_queue(q0);
		per_queue = st.per_queue == 1;
	}
	n_toppers = 0;
	n_watched = 0;
	build(seed, q0);
	for (unsigned k = 0, ops = 2 + rnd(seed, 5); k < ops; k++)
		operation(seed, q0, round, k == 0);
	tally_restored();
	/* The unmounted mounts go after an RCU grace period; then new mounts, maybe in their memory */
	usleep(50000);
	for (unsigned i = 0; i < sites; i++)
		for (int l = -1; l < (int)layers; l++) {
			path_at(p, sizeof(p), i, l, NULL);
			check_twice(q0, p, round, "after the pause");
		}
	if (q0 >= 0)
		close(q0);
	if (!rnd(seed, 3)) {
		/* The next round's queues are new; these go with their watches */
		pthread_mutex_lock(&queue_lock);
		for (unsigned i = 0; i < QUEUES; i++)
			if (queues[i] >= 0) {
				close(queues[i]);
				queues[i] = -1;
			}
		pthread_mutex_unlock(&queue_lock);
	}
	(void)do_umount(root, MNT_DETACH);
}

/* As nobody, in a user namespace of its own with its own mount namespace (uid and gid 0 there). */
static int enter_namespaces(void)
{
	static const char *const maps[][2] = {
		{ "/proc/self/setgroups", "deny" },
		{ "/proc/self/uid_map", "0 65534 1" },
		{ "/proc/self/gid_map", "0 65534 1" },
	};

	if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0) {
		snprintf(st.skip, sizeof(st.skip), "cannot become nobody: %m");
		return -1;
	}
	/* So that nobody may write its own /proc/self maps */
	(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
		snprintf(st.skip, sizeof(st.skip), "no user namespace for nobody: %m");
		return -1;
	}
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		int fd = open(maps[i][0], O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, maps[i][1], strlen(maps[i][1])) < 0) {
			snprintf(st.skip, sizeof(st.skip), "cannot write %s: %m", maps[i][0]);
			return -1;
		}
		close(fd);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		snprintf(st.skip, sizeof(st.skip), "cannot make the namespace private: %m");
		return -1;
	}
	return 0;
}

static void child(unsigned seed, unsigned rounds, const char *dir)
{
	pthread_t q[2], r;
	struct timespec t0, t1;
	unsigned long before = atomic_load(&unexpected);

	st.per_queue = -1;
	if (enter_namespaces() < 0)
		return;
	if (mount("prop", dir, "tmpfs", 0, "size=4m") < 0) {
		snprintf(st.failed, sizeof(st.failed), "a tmpfs at %s in the user namespace: %m", dir);
		return;
	}
	snprintf(root, sizeof(root), "%s/r", dir);
	pthread_create(&r, NULL, reader, NULL);
	for (unsigned i = 0; i < 2; i++)
		pthread_create(&q[i], NULL, querier, (void *)(uintptr_t)(seed + 500 + i));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t1 = t0;
	for (unsigned i = 0; i < rounds && t1.tv_sec - t0.tv_sec < MAX_SECONDS; i++) {
		one_round(&seed, i + 1);
		st.rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	}
	st.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	atomic_store(&done, true);
	pthread_join(r, NULL);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(q[i], NULL);
	st.fsinfo_calls = atomic_load(&fsinfo_calls);
	st.fsinfo_ok = atomic_load(&fsinfo_ok);
	st.records = atomic_load(&records);
	st.unexpected = atomic_load(&unexpected) - before;
}

int propagation_fuzz(unsigned seed, unsigned rounds, const char *dir, int n)
{
	struct stats s = {};
	int pfd[2], status = 0;
	bool got = false;
	pid_t pid;

	fflush(stdout);
	if (pipe(pfd) < 0)
		return n;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		child(seed, rounds, dir);
		_exit(write(pfd[1], &st, sizeof(st)) == sizeof(st) ? 0 : 1);
	}
	close(pfd[1]);
	if (pid > 0) {
		got = read(pfd[0], &s, sizeof(s)) == sizeof(s);
		(void)waitpid(pid, &status, 0);
	}
	close(pfd[0]);
	if (!got) {
		printf("not ok %d - the propagation rounds' child ended without its counts (status %#x)\n", ++n,
		       status);
		return n;
	}
	if (s.failed[0]) {
		printf("not ok %d - propagation rounds as nobody: %s\n", ++n, s.failed);
		return n;
	}
	if (s.skip[0]) {
		printf("ok %d - propagation rounds as nobody # SKIP %s\n", ++n, s.skip);
		return n;
	}
	printf("# propagation: %lu rounds in %.1f s (seed %u): %lu mounts (%lu moves), %lu umounts (%lu lazy), "
	       "%lu watches added, %lu removed, %lu toppers, %lu of them restored by an umount (%lu below another "
	       "restored one, %lu of these on a watched mount before); "
	       "%lu fsinfo calls (%lu succeeded), %lu records read\n",
	       s.rounds, s.seconds, seed, s.mounts, s.moves, s.umounts, s.lazy, s.watches, s.unwatches,
	       s.toppers, s.restored, s.nested, s.shapes, s.fsinfo_calls, s.fsinfo_ok, s.records);
	printf("%s %d - as nobody in a user namespace, %lu rounds of propagation trees, stacks and watches: "
	       "every mount, umount, watch_mount and fsinfo call succeeded or failed with a documented errno "
	       "(%lu did not)\n", s.unexpected ? "not ok" : "ok", ++n, s.rounds, s.unexpected);
	if (s.unexpected)
		atomic_fetch_add(&unexpected, s.unexpected);
	printf("%s %d - every mount made below what a propagated umount left reached the watch on the "
	       "round's root (%lu checks, %lu missed, %lu inconclusive after a lost record; %s)\n",
	       s.checks > 0 && !s.missed && s.per_queue >= 0 ? "ok" : "not ok", ++n, s.checks, s.missed,
	       s.inconclusive,
	       s.per_queue == 1   ? "one record per queue, through its nearest watch" :
	       s.per_queue == 0   ? "one record per watched mount, the root's watch's required" :
	                            "the probe of two nested watches of one queue got neither 1 nor 2 records");
	printf("%s %d - the rounds built what they are for: toppers restored below another restored topper "
	       "that had sat on a watched mount, the shape of wm.restored_toppers (%lu), watches (%lu), "
	       "lazy umounts (%lu), fsinfo answers (%lu)\n",
	       s.shapes && s.watches && s.lazy && s.fsinfo_ok ? "ok" : "not ok", ++n, s.shapes, s.watches,
	       s.lazy, s.fsinfo_ok);
	return n;
}
