/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel backend: mount notifications from watch_mount(2) on a
 * notification pipe (watch_queue), mount records from fsinfo(2).
 *
 * Set-up order, so that nothing is missed: the pipe (queue), its size, its
 * filter, then the watch; the caller takes its snapshot after that.
 * Mounts are queried by 64-bit unique ID (FSINFO_FLAGS_QUERY_MOUNT with the
 * ID as a decimal string), which notifications carry and which is never
 * reused, so the several fsinfo calls of one query cannot mix two mounts.
 */
#include <stdio.h>
#include <sys/ioctl.h>
#include <linux/fsinfo.h>
#include <linux/mount.h>
#include <linux/watch_queue.h>

#include "mountwatch/syscalls.h"

#include "backend.h"
#include "log.h"
#include "ns.h"
#include "statmount.h"
#include "util.h"

#define WATCH_ID 0x4d /* 'M'; goes into WATCH_INFO_ID */

typedef struct WatchQueueBackend {
	Backend base;
	int fd;
	int write_fd; /* kept open: without a writer an empty pipe reads as EOF */
	char *path;
	/* Records read from the pipe and not yet handed out. */
	size_t pos, len;
	StatmountBuf sm; /* reused by every query */
	union {
		struct watch_notification align;
		unsigned char bytes[4096];
	} buf;
} WatchQueueBackend;

static Backend *wq_close(Backend *base)
{
	WatchQueueBackend *b = (WatchQueueBackend *)base;

	if (!b)
		return NULL;
	if (b->fd >= 0)
		(void)close(b->fd);
	if (b->write_fd >= 0)
		(void)close(b->write_fd);
	statmount_buf_done(&b->sm);
	free(b->path);
	free(b);
	return NULL;
}

static int set_filter(int fd)
{
	_cleanup_free_ struct watch_notification_filter *f = NULL;
	size_t size = sizeof(*f) + sizeof(struct watch_notification_type_filter);

	f = calloc(1, size);
	if (!f)
		return -ENOMEM;
	f->nr_filters = 1;
	f->filters[0].type = WATCH_TYPE_MOUNT_NOTIFY;
	/* Every subtype, NEW_MOUNT (0) ... MOVE_TO (6) and SB_CHANGED (7). */
	f->filters[0].subtype_filter[0] = (1U << (MOUNT_EVENT_SB_CHANGED + 1)) - 1;
	if (ioctl(fd, IOC_WATCH_QUEUE_SET_FILTER, f) < 0)
		return -errno;
	return 0;
}

static int wq_open(Backend **ret, const char *path, unsigned queue_size, const char **why)
{
	WatchQueueBackend *b;
	struct fsinfo_mount_info info;
	struct fsinfo_params params = {
		.at_flags = AT_NO_AUTOMOUNT,
		.flags = FSINFO_FLAGS_QUERY_PATH,
		.request = FSINFO_ATTR_MOUNT_INFO,
	};
	int fds[2], r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->base.ops = &backend_watchqueue_ops;
	b->fd = b->write_fd = -1;
	b->path = strdup(path);
	if (!b->path) {
		r = -ENOMEM;
		goto fail;
	}

	/* The queue (the kernel's largest by default: 512 records) ... */
	if (!queue_size)
		queue_size = 512;
	if (pipe2(fds, O_NOTIFICATION_PIPE | O_NONBLOCK | O_CLOEXEC) < 0) {
		/* ENOPKG: a kernel built without CONFIG_WATCH_QUEUE. */
		if (errno == ENOPKG || errno == EINVAL) {
			*why = "notification pipes missing (CONFIG_WATCH_QUEUE)";
			r = -EOPNOTSUPP;
		} else {
			r = -errno;
		}
		goto fail;
	}
	b->fd = fds[0];
	b->write_fd = fds[1];
	if (ioctl(b->fd, IOC_WATCH_QUEUE_SET_SIZE, queue_size) < 0) {
		r = -errno;
		goto fail;
	}
	/* ... its filter ... */
	r = set_filter(b->fd);
	if (r < 0)
		goto fail;
	/* ... and the watch. */
	if (watch_mount(AT_FDCWD, path, AT_NO_AUTOMOUNT, b->fd, WATCH_ID) < 0) {
		r = -errno;
		if (r == -ENOSYS) {
			*why = "watch_mount(2) missing (ENOSYS): not the mountwatch kernel series";
			r = -EOPNOTSUPP;
		}
		goto fail;
	}
	/* fsinfo(2) is needed as much as watch_mount(2). */
	if (fsinfo(AT_FDCWD, path, &params, sizeof(params), &info, sizeof(info)) < 0) {
		r = -errno;
		if (r == -ENOSYS) {
			*why = "fsinfo(2) missing (ENOSYS)";
			r = -EOPNOTSUPP;
		}
		goto fail;
	}
	*ret = &b->base;
	return 0;
fail:
	wq_close(&b->base);
	return r;
}

static int wq_get_fd(Backend *base)
{
	return ((WatchQueueBackend *)base)->fd;
}

static int wq_read_events(Backend *base, MountEvent *events, size_t n_max)
{
	WatchQueueBackend *b = (WatchQueueBackend *)base;
	bool drained = false;
	size_t n = 0;

	while (n < n_max) {
		const struct watch_notification *w;
		size_t len;

		if (b->pos >= b->len) {
			ssize_t k;

			/*
			 * A read that left room for the largest record took all
			 * there was: the caller's next call reads again, no need
			 * to find EAGAIN now. But that next read must happen,
			 * EAGAIN or not: when the records that overran the queue
			 * were the last ones, the kernel (pipe_read()) hands out
			 * the loss note only at the start of the read after the
			 * one that emptied the pipe, and poll() does not report
			 * it - skip that read and the loss, and a resync, wait
			 * for the next mount change, maybe for ever.
			 */
			if (drained)
				break;
			k = read(b->fd, b->buf.bytes, sizeof(b->buf.bytes));
			if (k < 0) {
				if (errno == EAGAIN || errno == EINTR)
					break;
				return -errno;
			}
			if (k == 0)
				break;
			b->pos = 0;
			b->len = (size_t)k;
			drained = sizeof(b->buf.bytes) - b->len >= WATCH_INFO_LENGTH;
		}

		w = (const struct watch_notification *)(b->buf.bytes + b->pos);
		if (b->len - b->pos < sizeof(*w))
			goto bad;
		len = (w->info & WATCH_INFO_LENGTH) >> WATCH_INFO_LENGTH__SHIFT;
		if (len < sizeof(*w) || len > b->len - b->pos)
			goto bad;
		b->pos += len;

		if (w->type == WATCH_TYPE_META) {
			if (w->subtype == WATCH_META_LOSS_NOTIFICATION)
				events[n++] = (MountEvent){ .type = MOUNT_EVENT_LOSS };
			else if (w->subtype == WATCH_META_REMOVAL_NOTIFICATION)
				events[n++] = (MountEvent){ .type = MOUNT_EVENT_WATCH_REMOVED };
			continue;
		}
		if (w->type == WATCH_TYPE_MOUNT_NOTIFY && len >= sizeof(struct mount_notification)) {
			const struct mount_notification *mn = (const struct mount_notification *)w;

			events[n++] = (MountEvent){
				.type = (MountEventType)w->subtype,
				.triggered_on = mn->triggered_on,
				.auxiliary = mn->auxiliary_mount,
				.flags = w->info & WATCH_INFO_TYPE_INFO,
			};
		}
	}
	return (int)n;

bad:
	/* A record we cannot parse: drop the rest of the read and resync. */
	lib_warning("Dropping a malformed notification record (%zu bytes left).", b->len - b->pos);
	b->pos = b->len = 0;
	if (n < n_max)
		events[n++] = (MountEvent){ .type = MOUNT_EVENT_LOSS };
	return (int)n;
}

/* Runs an fsinfo list query with a growing buffer. */
static int fsinfo_list(const char *path, uint64_t unique_id, uint32_t request, MountSummary **ret,
		       size_t *ret_n)
{
	struct fsinfo_params params = {
		.at_flags = AT_NO_AUTOMOUNT,
		.flags = path ? FSINFO_FLAGS_QUERY_PATH : FSINFO_FLAGS_QUERY_MOUNT,
		.request = request,
	};
	_cleanup_free_ struct fsinfo_mount_child *buf = NULL;
	MountSummary *out;
	size_t size = 64 * sizeof(*buf), n;
	char id[24];
	long r;

	if (!path) {
		snprintf(id, sizeof(id), "%" PRIu64, unique_id);
		params.at_flags = 0;
	}
	for (;;) {
		free(buf);
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		r = fsinfo(AT_FDCWD, path ?: id, &params, sizeof(params), buf, size);
		if (r < 0)
			return -errno;
		if ((size_t)r <= size)
			break;
		size = (size_t)r + 64 * sizeof(*buf); /* room for mounts added meanwhile */
	}
	n = (size_t)r / sizeof(*buf);
	out = calloc(n + 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		out[i] = (MountSummary){
			.unique_id = buf[i].mnt_unique_id,
			.mnt_id = buf[i].mnt_id,
			.parent_id = buf[i].parent_id,
			.notify_sum = buf[i].mnt_notify_sum,
		};
	*ret = out;
	*ret_n = n;
	return 0;
}

static int wq_list_all_here(Backend *base, MountSummary **ret, size_t *ret_n)
{
	WatchQueueBackend *b = (WatchQueueBackend *)base;

	return fsinfo_list(b->path, 0, FSINFO_ATTR_MOUNT_ALL, ret, ret_n);
}

static int wq_list_children_here(Backend *base, uint64_t unique_id, MountSummary **ret, size_t *ret_n)
{
	MountSummary *l;
	size_t n;
	int r;

	r = fsinfo_list(NULL, unique_id, FSINFO_ATTR_MOUNT_CHILDREN, &l, &n);
	if (r < 0)
		return r == -EPERM || r == -ESTALE ? -ENOENT : r;
	/* The last record is the queried mount itself. */
	if (n > 0 && l[n - 1].unique_id == unique_id)
		n--;
	*ret = l;
	*ret_n = n;
	return 0;
}

static int query_string(uint64_t unique_id, uint32_t request, char **ret)
{
	size_t size = 256;
	char *s = NULL;

	for (;;) {
		char *t;
		long r;

		t = realloc(s, size);
		if (!t) {
			free(s);
			return -ENOMEM;
		}
		s = t;
		r = fsinfo_mount(unique_id, request, s, size);
		if (r == -ENODATA || r == -EOPNOTSUPP) {
			s[0] = 0; /* the mount has no such string: "" */
			break;
		}
		if (r < 0) {
			free(s);
			return (int)r;
		}
		if ((size_t)r < size) {
			s[r] = 0;
			break;
		}
		size = (size_t)r + 1;
	}
	*ret = s;
	return 0;
}

/*
 * One query round for a mount: statmount(2), which 6.12 has, gives in one
 * call what took five fsinfo(2) queries (topology, IDS, the mount point,
 * the root, the superblock options); fsinfo(2) adds what only this series
 * has - the superblock's unique ID (SB_CHANGED names it) and the counters -
 * and the source, which statmount gives only from 6.13 on. Three system
 * calls per new mount instead of seven; two for a new mount of a superblock
 * the table has (same_sb, see backend.h), whose ID needs no asking.
 */
static int wq_query_mount_here(Backend *base, uint64_t unique_id, const MountInfo *same_sb, MountInfo *ret)
{
	WatchQueueBackend *b = (WatchQueueBackend *)base;
	struct fsinfo_mount_info info = {};
	MountInfo m = {};
	bool known_sb;
	long r;

	r = statmount_query(unique_id, &b->sm, &m);
	known_sb = r >= 0 && same_sb && mount_info_same_device(same_sb, &m);
	if (known_sb)
		info.sb_unique_id = same_sb->superblock_id;
	else if (r >= 0)
		r = fsinfo_mount(unique_id, FSINFO_ATTR_MOUNT_INFO, &info, sizeof(info));
	if (r >= 0 && !m.source)
		r = query_string(unique_id, FSINFO_ATTR_SOURCE, &m.source);
	if (r < 0) {
		mount_info_done(&m);
		/* Unmounted meanwhile, or no longer connected to our root. */
		if (r == -ENOENT || r == -ESTALE || r == -EPERM)
			return -ENOENT;
		return (int)r;
	}
	m.superblock_id = info.sb_unique_id;
	m.notify_sum = info.mnt_attr_changes + info.mnt_topology_changes + info.mnt_subtree_notifications;
	*ret = m;
	return 0;
}

static int wq_resolve_mnt_id_here(Backend *base, uint32_t mnt_id, uint64_t *ret)
{
	struct fsinfo_mount_info info = {};
	long r;

	/* A 32-bit ID costs the kernel a walk of the namespace: the last resort. */
	r = fsinfo_mount(mnt_id, FSINFO_ATTR_MOUNT_INFO, &info, sizeof(info));
	if (r < 0)
		return r == -EPERM ? -ENOENT : (int)r;
	*ret = info.mnt_unique_id;
	return 0;
}

/*
 * fsinfo(2) looks a mount up in the caller's namespace (statmount(2) is
 * told which): on a watcher of another one, each query enters it.
 */
static int wq_list_all(Backend *base, MountSummary **ret, size_t *ret_n)
{
	return IN_QUERY_NS(wq_list_all_here(base, ret, ret_n));
}

static int wq_list_children(Backend *base, uint64_t unique_id, MountSummary **ret, size_t *ret_n)
{
	return IN_QUERY_NS(wq_list_children_here(base, unique_id, ret, ret_n));
}

static int wq_query_mount(Backend *base, uint64_t unique_id, const MountInfo *same_sb, MountInfo *ret)
{
	return IN_QUERY_NS(wq_query_mount_here(base, unique_id, same_sb, ret));
}

static int wq_resolve_mnt_id(Backend *base, uint32_t mnt_id, uint64_t *ret)
{
	return IN_QUERY_NS(wq_resolve_mnt_id_here(base, mnt_id, ret));
}

const BackendOps backend_watchqueue_ops = {
	.name = "watch_queue",
	.flags = BACKEND_COUNTERS | BACKEND_MOVES_EACH | BACKEND_SB_EVENTS | BACKEND_WATCH_REMOVAL |
		 BACKEND_MOVES_SUBTREE,
	.open = wq_open,
	.close = wq_close,
	.get_fd = wq_get_fd,
	.read_events = wq_read_events,
	.list_all = wq_list_all,
	.list_children = wq_list_children,
	.query_mount = wq_query_mount,
	.resolve_mnt_id = wq_resolve_mnt_id,
};
