/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mainline backend (Linux 6.15 and later): fanotify's mount events for
 * the topology, statmount(2) for the records, listmount(2) for a resync,
 * and the /proc/self/mountinfo wake-up for what fanotify does not report
 * (fanotify-watch.h says what that is and what it costs).
 *
 * Events: ATTACH, DETACH and MOVED as fanotify names them (auxiliary: the
 * unique ID); LOSS when its queue overflowed (the kernel's default of 16384
 * events; FAN_UNLIMITED_QUEUE is not asked for, so memory stays bounded and
 * the library resyncs instead: queue_size has no meaning here). A mount
 * whose mountinfo line changed without a fanotify event (a remount,
 * mount_setattr(), a reparenting) becomes ATTACH too: the library's
 * "query it; add it, or update it if known" is exactly what such a mount
 * needs, whether or not the library's table still has it.
 *
 * The 32-bit IDs that the rescan finds are turned into unique IDs with a map
 * that query_mount() fills as the library queries: every mount the library
 * knows it has queried, so the map knows it too, at no extra cost.
 */
#include <stdio.h>

#include "backend.h"
#include "fanotify-watch.h"
#include "hashmap.h"
#include "statmount.h"
#include "util.h"

/* Rescans at most this often under a storm of changes; at once when idle. */
#define RESCAN_INTERVAL_USEC (100 * 1000)

typedef struct IdPair {
	uint64_t unique_id;
	uint32_t mnt_id;
} IdPair;

typedef struct FanotifyBackend {
	Backend base;
	FanotifyWatch *watch;
	StatmountBuf buf;
	Hashmap *by_mnt_id; /* 32-bit ID -> IdPair (the latest holder) */
	Hashmap *by_unique; /* unique ID -> the same IdPair */
	/* Events read from the watch and not yet handed out. */
	FanotifyEvent pending[64];
	size_t pos, len;
	/*
	 * The last read of the watch returned fewer events than it had room
	 * for: it found the queue empty (or the rescan not yet due). Once its
	 * events are handed out, the next call returns 0 without reading again
	 * (an epoll_wait, a timerfd read, a poll and a read that would find
	 * nothing); the next wake-up reads.
	 */
	bool drained;
} FanotifyBackend;

static void forget(FanotifyBackend *b, uint64_t unique_id)
{
	IdPair *p = hashmap_remove(b->by_unique, unique_id);

	if (!p)
		return;
	if (hashmap_get(b->by_mnt_id, p->mnt_id) == p)
		(void)hashmap_remove(b->by_mnt_id, p->mnt_id);
	free(p);
}

static int remember(FanotifyBackend *b, uint64_t unique_id, uint32_t mnt_id)
{
	IdPair *p = hashmap_get(b->by_unique, unique_id), *q;
	int r;

	if (p && p->mnt_id == mnt_id)
		return 0;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->unique_id = unique_id;
		r = hashmap_put(b->by_unique, unique_id, p);
		if (r < 0) {
			free(p);
			return r;
		}
	} else if (hashmap_get(b->by_mnt_id, p->mnt_id) == p) {
		(void)hashmap_remove(b->by_mnt_id, p->mnt_id);
	}
	p->mnt_id = mnt_id;
	/* A reused 32-bit ID: the older holder is gone (or about to be). */
	q = hashmap_get(b->by_mnt_id, mnt_id);
	if (q && q != p)
		forget(b, q->unique_id);
	return hashmap_put(b->by_mnt_id, mnt_id, p);
}

static Backend *fan_close(Backend *base)
{
	FanotifyBackend *b = (FanotifyBackend *)base;
	size_t i = 0;
	uint64_t key;
	void *v;

	if (!b)
		return NULL;
	fanotify_watch_free(b->watch);
	statmount_buf_done(&b->buf);
	if (b->by_unique)
		while (hashmap_iterate(b->by_unique, &i, &key, &v))
			free(v);
	hashmap_free(b->by_unique);
	hashmap_free(b->by_mnt_id);
	free(b);
	return NULL;
}

/* fanotify_watch_new()'s errors as open()'s: -EOPNOTSUPP with the reason. */
static int fan_why(int r, const char **why)
{
	if (r == -EOPNOTSUPP)
		*why = "fanotify mount events and statmount's sb_source need Linux 6.15";
	if (r == -ENOSYS) {
		*why = "the kernel has no fanotify or no statmount(2)";
		r = -EOPNOTSUPP;
	}
	return r;
}

static int fan_probe(const char **why)
{
	return fan_why(fanotify_watch_probe(), why);
}

static int fan_open(Backend **ret, const char *path, unsigned queue_size, const char **why)
{
	FanotifyBackend *b;
	int r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->base.ops = &backend_fanotify_ops;
	r = hashmap_new(&b->by_unique);
	if (r >= 0)
		r = hashmap_new(&b->by_mnt_id);
	if (r < 0)
		goto fail;
	r = fanotify_watch_new(&b->watch, RESCAN_INTERVAL_USEC);
	if (r >= 0)
		fanotify_watch_set_verify(b->watch, PROPAGATION_VERIFY_USEC, PROPAGATION_VERIFY_MAX_USEC);
	r = fan_why(r, why);
	if (r < 0)
		goto fail;
	*ret = &b->base;
	return 0;
fail:
	fan_close(&b->base);
	return r;
}

static int fan_get_fd(Backend *base)
{
	return fanotify_watch_get_fd(((FanotifyBackend *)base)->watch);
}

static int fan_read_events(Backend *base, MountEvent *events, size_t n_max)
{
	FanotifyBackend *b = (FanotifyBackend *)base;
	size_t n = 0;

	if (b->pos >= b->len && b->drained) {
		b->drained = false; /* the next wake-up reads */
		return 0;
	}
	while (n < n_max) {
		const FanotifyEvent *e;
		IdPair *p;

		if (b->pos >= b->len) {
			int k;

			if (b->drained)
				break;
			k = fanotify_watch_read(b->watch, b->pending, ELEMENTSOF(b->pending));
			if (k < 0)
				return k;
			if (k == 0)
				break;
			b->pos = 0;
			b->len = (size_t)k;
			b->drained = (size_t)k < ELEMENTSOF(b->pending);
		}
		e = &b->pending[b->pos++];
		switch (e->type) {
		case FANOTIFY_EVENT_ATTACH:
			events[n++] = (MountEvent){ .type = MOUNT_EVENT_ATTACH, .auxiliary = e->unique_id };
			break;
		case FANOTIFY_EVENT_DETACH:
			forget(b, e->unique_id); /* unique IDs are never reused */
			events[n++] = (MountEvent){ .type = MOUNT_EVENT_DETACH, .auxiliary = e->unique_id };
			break;
		case FANOTIFY_EVENT_MOVE:
			events[n++] = (MountEvent){ .type = MOUNT_EVENT_MOVED, .auxiliary = e->unique_id };
			break;
		case FANOTIFY_EVENT_CHANGED:
			/* Unknown: a mount the library never queried, none of its business. */
			p = hashmap_get(b->by_mnt_id, e->mnt_id);
			if (p)
				events[n++] = (MountEvent){ .type = MOUNT_EVENT_ATTACH,
							    .auxiliary = p->unique_id };
			break;
		case FANOTIFY_EVENT_OVERFLOW:
			events[n++] = (MountEvent){ .type = MOUNT_EVENT_LOSS };
			break;
		}
	}
	return (int)n;
}

static int summaries(const uint64_t *ids, size_t n, MountSummary **ret, size_t *ret_n)
{
	MountSummary *l = calloc(n + 1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		l[i].unique_id = ids[i];
	*ret = l;
	*ret_n = n;
	return 0;
}

static int fan_list_all(Backend *base, MountSummary **ret, size_t *ret_n)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n;
	int r;

	r = listmount_all(&ids, &n);
	if (r < 0)
		return r;
	return summaries(ids, n, ret, ret_n);
}

/*
 * The watched subtree: top, its parent and every mount below top (one
 * statmount and a listmount from top: the kernel walks its namespace, but
 * the library queries only what it lists).
 */
static int fan_list_subtree(Backend *base, uint64_t top, const char *path, MountSummary **ret, size_t *ret_n)
{
	FanotifyBackend *b = (FanotifyBackend *)base;
	_cleanup_free_ uint64_t *ids = NULL;
	uint64_t parent, *t;
	size_t n;
	int r;

	r = statmount_get(top, MW_STATMOUNT_MNT_BASIC, &b->buf);
	if (r < 0)
		return r;
	parent = b->buf.sm->mnt_parent_id;
	r = listmount_below(top, &ids, &n);
	if (r < 0)
		return r;
	t = realloc(ids, (n + 2) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	ids = t;
	ids[n++] = top;
	if (parent && parent != top)
		ids[n++] = parent;
	return summaries(ids, n, ret, ret_n);
}

static int fan_list_children(Backend *base, uint64_t unique_id, MountSummary **ret, size_t *ret_n)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n;
	int r;

	/* Every mount below it (the library finds each one's parent by query). */
	r = listmount_below(unique_id, &ids, &n);
	if (r < 0)
		return r;
	return summaries(ids, n, ret, ret_n);
}

static int fan_query_mount(Backend *base, uint64_t unique_id, const MountInfo *same_sb, MountInfo *ret)
{
	FanotifyBackend *b = (FanotifyBackend *)base;
	char **strings[5];
	MountInfo m;
	int r;

	r = statmount_query(unique_id, &b->buf, &m);
	if (r < 0)
		return r;
	/* The library's records never hold NULL strings. */
	strings[0] = &m.mount_point;
	strings[1] = &m.root;
	strings[2] = &m.source;
	strings[3] = &m.fstype;
	strings[4] = &m.super_options;
	for (size_t i = 0; i < ELEMENTSOF(strings); i++)
		if (!*strings[i] && !(*strings[i] = strdup(""))) {
			mount_info_done(&m);
			return -ENOMEM;
		}
	r = remember(b, m.unique_id, m.mnt_id);
	if (r < 0) {
		mount_info_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

static int fan_resolve_mnt_id(Backend *base, uint32_t mnt_id, uint64_t *ret)
{
	FanotifyBackend *b = (FanotifyBackend *)base;
	_cleanup_free_ uint64_t *ids = NULL;
	IdPair *p = hashmap_get(b->by_mnt_id, mnt_id);
	size_t n;
	int r;

	if (p) {
		*ret = p->unique_id;
		return 0;
	}
	/* Not queried yet: ask every mount (O(mounts), the last resort). */
	r = listmount_all(&ids, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (statmount_get(ids[i], MW_STATMOUNT_MNT_BASIC, &b->buf) >= 0 &&
		    b->buf.sm->mnt_id_old == mnt_id) {
			*ret = ids[i];
			return 0;
		}
	return -ENOENT;
}

const BackendOps backend_fanotify_ops = {
	.name = "fanotify",
	.flags = 0,
	.open = fan_open,
	.close = fan_close,
	.get_fd = fan_get_fd,
	.read_events = fan_read_events,
	.list_all = fan_list_all,
	.list_subtree = fan_list_subtree,
	.list_children = fan_list_children,
	.query_mount = fan_query_mount,
	.probe = fan_probe,
	.resolve_mnt_id = fan_resolve_mnt_id,
};
