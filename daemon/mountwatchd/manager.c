/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager: applies mount events to the table at O(1) cost per event,
 * mirrors the kernel's per-mount event counters, and resynchronises from
 * the full listing after a queue overrun, re-querying only the mounts whose
 * counters differ from the mirrored ones.
 *
 * Counting rules mirrored here (SPEC.md, "Mount notifications"):
 *   EXPIRY / READONLY / SETATTR on M: M.attr_changes += 1
 *   NEW_MOUNT / UNMOUNT / MOVE_FROM / MOVE_TO (trigger P, aux C):
 *       P.topology_changes += 1, C.topology_changes += 1
 *   every event: each ancestor of the trigger (parent, grandparent, ... up to
 *       the root) gets subtree_notifications += 1
 * and the stored ChangeCount is their sum, as MOUNT_ALL reports it. The
 * kernel counts when it posts the record; a query answers from the present,
 * which may already include records still in the queue. So the mirror takes
 * nothing from queries that the records give it: a new mount starts at the
 * sum its NEW_MOUNT record gives it, and ancestors are walked along the
 * parents the records named (Mount.event_parent), also through mounts that
 * left the table earlier in the batch (Manager.gone). The same mirror is
 * the kernel selftest watch_mount_counters_test's.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <systemd/sd-daemon.h>

#include "hashmap.h"
#include "manager-bus.h"
#include "manager.h"
#include "util.h"

/* Guards ancestor walks against a cycle in a (transiently) inconsistent table. */
#define MAX_DEPTH 4096

int manager_new(Manager **ret)
{
	Manager *m;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	r = config_init(&m->config);
	if (r < 0)
		goto fail;
	r = table_new(&m->table);
	if (r < 0)
		goto fail;
	*ret = m;
	return 0;
fail:
	manager_free(m);
	return r;
}

static void gone_clear(GoneSet *g)
{
	hashmap_free(g->index);
	free(g->parents);
	*g = (GoneSet){};
}

Manager *manager_free(Manager *m)
{
	if (!m)
		return NULL;
	manager_bus_done(m);
	sd_event_source_disable_unref(m->io_source);
	sd_event_source_disable_unref(m->sighup_source);
	sd_event_source_disable_unref(m->sigterm_source);
	sd_event_source_disable_unref(m->sigint_source);
	if (m->backend)
		m->backend->ops->close(m->backend);
	table_free(m->table);
	free(m->detached);
	for (size_t i = 0; i < ELEMENTSOF(m->gone); i++)
		gone_clear(&m->gone[i]);
	config_done(&m->config);
	free(m->config_path);
	sd_event_unref(m->event);
	free(m);
	return NULL;
}

void manager_freep(Manager **m)
{
	manager_free(*m);
}

void manager_set_backend(Manager *m, Backend *b)
{
	if (m->backend)
		m->backend->ops->close(m->backend);
	m->backend = b;
}

/* ---- announcing changes (after the state is updated) ---- */

static void announce(Manager *m, ChangeType type, const Mount *mount, uint64_t unique_id,
		     const char *mount_point, uint32_t mask)
{
	if (type != CHANGE_RESYNCED)
		m->generation++;
	if (m->change_fn)
		m->change_fn(m, type, mount, mount_point, mask, m->change_userdata);
	switch (type) {
	case CHANGE_ADDED:
		manager_bus_emit_mount_added(m, mount);
		break;
	case CHANGE_REMOVED:
		manager_bus_emit_mount_removed(m, unique_id, mount_point);
		break;
	case CHANGE_CHANGED:
		manager_bus_emit_mount_changed(m, mount, mask);
		break;
	case CHANGE_RESYNCED:
		break;
	}
}

/* ---- counter mirroring ---- */

/*
 * Remembers that a mount the records named is not (or no longer) in the
 * table, and its parent then, for ancestor walks of the records that follow.
 * O(1); dropped two batches later (gone_rotate()).
 */
static int gone_put(Manager *m, uint64_t unique_id, uint64_t parent)
{
	GoneSet *g = &m->gone[0];
	void *v;
	int r;

	if (!g->index) {
		r = hashmap_new(&g->index);
		if (r < 0)
			return r;
	}
	v = hashmap_get(g->index, unique_id);
	if (v) {
		g->parents[(uintptr_t)v - 1] = parent;
		return 0;
	}
	if (g->n == g->n_alloc) {
		size_t n = g->n_alloc ? g->n_alloc * 2 : 16;
		uint64_t *t = realloc(g->parents, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		g->parents = t;
		g->n_alloc = n;
	}
	r = hashmap_put(g->index, unique_id, (void *)(uintptr_t)(g->n + 1));
	if (r < 0)
		return r;
	g->parents[g->n++] = parent;
	return 0;
}

/* The parent the records last gave a mount that is not in the table; 0 if none. */
static uint64_t gone_parent(Manager *m, uint64_t unique_id)
{
	for (size_t i = 0; i < ELEMENTSOF(m->gone); i++) {
		void *v = m->gone[i].index ? hashmap_get(m->gone[i].index, unique_id) : NULL;

		if (v)
			return m->gone[i].parents[(uintptr_t)v - 1];
	}
	return 0;
}

/*
 * A batch ended. The kernel posts one operation's records in a tight loop;
 * a reader that caught up in the middle of them ends its batch there and
 * reads the rest next time: keep what left the table in this batch for one
 * more.
 */
static void gone_rotate(Manager *m)
{
	gone_clear(&m->gone[1]);
	m->gone[1] = m->gone[0];
	m->gone[0] = (GoneSet){};
}

/* The trigger's ancestors as the records named them, through mounts gone meanwhile. */
static void bump_ancestors(Manager *m, uint64_t trigger)
{
	Mount *e = table_get(m->table, trigger);
	uint64_t id = e ? e->event_parent : gone_parent(m, trigger);

	for (unsigned depth = 0; id && id != trigger && depth < MAX_DEPTH; depth++) {
		e = table_get(m->table, id);
		if (e) {
			e->info.notify_sum++;
			id = e->event_parent;
		} else {
			id = gone_parent(m, id);
		}
	}
}

static void mirror_counters(Manager *m, const MountEvent *ev)
{
	Mount *t = table_get(m->table, ev->triggered_on), *a;

	switch (ev->type) {
	case MOUNT_EVENT_EXPIRY:
	case MOUNT_EVENT_READONLY:
	case MOUNT_EVENT_SETATTR:
		if (t)
			t->info.notify_sum++;
		break;
	case MOUNT_EVENT_NEW_MOUNT:
	case MOUNT_EVENT_UNMOUNT:
	case MOUNT_EVENT_MOVE_FROM:
	case MOUNT_EVENT_MOVE_TO:
		if (t)
			t->info.notify_sum++;
		a = table_get(m->table, ev->auxiliary);
		if (a && a != t)
			a->info.notify_sum++;
		break;
	default:
		return;
	}
	bump_ancestors(m, ev->triggered_on);
}

/* ---- table changes ---- */

static int remove_mount(Manager *m, Mount *e)
{
	_cleanup_free_ char *point = e->info.mount_point ? strdup(e->info.mount_point) : NULL;
	uint64_t id = e->info.unique_id;
	int r;

	if (e->info.mount_point && !point)
		return -ENOMEM;
	/* Records of this batch may still name it as a trigger or an ancestor. */
	r = gone_put(m, id, e->event_parent);
	if (r < 0)
		return r;
	table_remove(m->table, e);
	announce(m, CHANGE_REMOVED, NULL, id, point, 0);
	return 0;
}

static int remove_subtree(Manager *m, Mount *e, unsigned depth)
{
	Mount *c;

	/* Children first; each removal unlinks the list head, so restart. */
	while (depth < MAX_DEPTH && (c = table_first_child(m->table, e->info.unique_id)) && c != e) {
		int r = remove_subtree(m, c, depth + 1);

		if (r < 0)
			return r;
	}
	return remove_mount(m, e);
}

static bool path_has_prefix(const char *path, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0) {
		*rest = path;
		return path[0] == '/';
	}
	if (strncmp(path, prefix, n) != 0 || (path[n] != '/' && path[n] != 0))
		return false;
	*rest = path + n;
	return true;
}

static int update_mount(Manager *m, Mount *e, MountInfo *info, bool keep_sum, unsigned depth);

static bool in_scope(Manager *m, const MountInfo *info)
{
	const char *rest;

	return info->mount_point && path_has_prefix(info->mount_point, m->config.watch_path, &rest);
}

/*
 * The kernel reports a move only for the mount that moved: the mount points
 * of its descendants changed with it, so rewrite them (O(subtree), moves only).
 */
static int fix_descendants(Manager *m, Mount *e, const char *old_point, unsigned depth)
{
	_cleanup_free_ Mount **children = NULL;
	size_t n = 0, allocated = 0;
	int r = 0;

	if (depth >= MAX_DEPTH)
		return 0;
	for (Mount *c = table_first_child(m->table, e->info.unique_id); c; c = c->sibling_next) {
		if (c == e)
			continue;
		if (n == allocated) {
			Mount **t;

			allocated = allocated ? allocated * 2 : 8;
			t = realloc(children, allocated * sizeof(*t));
			if (!t)
				return -ENOMEM;
			children = t;
		}
		children[n++] = c;
	}

	for (size_t i = 0; i < n; i++) {
		Mount *c = children[i];
		MountInfo info;
		const char *rest;
		int k;

		if (!c->info.mount_point || !path_has_prefix(c->info.mount_point, old_point, &rest))
			continue;
		k = mount_info_copy(&info, &c->info);
		if (k < 0)
			return k;
		free(info.mount_point);
		if (strcmp(e->info.mount_point, "/") == 0)
			info.mount_point = strdup(rest[0] ? rest : "/");
		else if (asprintf(&info.mount_point, "%s%s", e->info.mount_point, rest) < 0)
			info.mount_point = NULL;
		if (!info.mount_point) {
			mount_info_done(&info);
			return -ENOMEM;
		}
		k = update_mount(m, c, &info, true, depth + 1);
		mount_info_done(&info);
		if (k < 0 && r == 0)
			r = k;
	}
	return r;
}

static int update_mount(Manager *m, Mount *e, MountInfo *info, bool keep_sum, unsigned depth)
{
	_cleanup_free_ char *old_point = NULL;
	uint32_t mask;
	int r;

	if (keep_sum)
		info->notify_sum = e->info.notify_sum;
	e->detached = false;
	if (!streq_ptr(e->info.mount_point, info->mount_point) && e->info.mount_point) {
		old_point = strdup(e->info.mount_point);
		if (!old_point)
			return -ENOMEM;
	}
	r = table_update(m->table, e, info);
	if (r < 0)
		return r;
	mask = (uint32_t)r & ~(1U << MOUNT_PROP_CHANGE_COUNT);
	if (mask)
		announce(m, CHANGE_CHANGED, e, e->info.unique_id, e->info.mount_point, mask);
	if (old_point && e->info.mount_point)
		return fix_descendants(m, e, old_point, depth);
	return mask != 0;
}

static int add_mount(Manager *m, MountInfo *info, Mount **ret)
{
	Mount *e;
	int r;

	r = table_add(m->table, info, &e);
	if (r < 0)
		return r;
	announce(m, CHANGE_ADDED, e, e->info.unique_id, e->info.mount_point, 0);
	if (ret)
		*ret = e;
	return 0;
}

static int query(Manager *m, uint64_t unique_id, MountInfo *info)
{
	int r;

	r = m->backend->ops->query_mount(m->backend, unique_id, info);
	if (r == -ENOENT || r == -ESTALE)
		return -ENOENT;
	if (r < 0)
		return log_warning_errno(r, "Failed to query mount %" PRIu64 ": %m", unique_id);
	r = mount_info_sanitize(info);
	if (r < 0) {
		mount_info_done(info);
		return r;
	}
	return 0;
}

/*
 * Fills info->parent_unique_id from its 32-bit parent_id: from the hint (the
 * parent an event or listing named), the old record, or the table's mount-ID
 * index, all O(1); only when none knows it, from the backend.
 */
static void resolve_parent(Manager *m, MountInfo *info, uint64_t hint, const Mount *old)
{
	Mount *p;
	uint64_t id;

	info->parent_unique_id = 0;
	if (info->parent_id == info->mnt_id)
		return; /* a namespace root */
	if (hint) {
		p = table_get(m->table, hint);
		if (p && p->info.mnt_id == info->parent_id) {
			info->parent_unique_id = hint;
			return;
		}
	}
	if (old && old->info.parent_id == info->parent_id && old->info.parent_unique_id) {
		p = table_get(m->table, old->info.parent_unique_id);
		if (!p || p->info.mnt_id == info->parent_id) {
			info->parent_unique_id = old->info.parent_unique_id;
			return;
		}
	}
	p = table_get_by_mnt_id(m->table, info->parent_id);
	if (p && p->info.unique_id != info->unique_id) {
		info->parent_unique_id = p->info.unique_id;
		return;
	}
	if (m->backend->ops->resolve_mnt_id &&
	    m->backend->ops->resolve_mnt_id(m->backend, info->parent_id, &id) >= 0)
		info->parent_unique_id = id;
}

static int add_children(Manager *m, uint64_t unique_id, unsigned depth);

static int refresh_superblock(Manager *m, Mount *e)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n = 0, allocated = 0;
	int r = 0;

	for (Mount *o = table_first_of_superblock(m->table, e->info.superblock_id); o; o = o->sb_next) {
		if (o == e)
			continue;
		if (n == allocated) {
			uint64_t *t;

			allocated = allocated ? allocated * 2 : 8;
			t = realloc(ids, allocated * sizeof(*t));
			if (!t)
				return -ENOMEM;
			ids = t;
		}
		ids[n++] = o->info.unique_id;
	}
	for (size_t i = 0; i < n; i++) {
		MountInfo info = {};
		Mount *o = table_get(m->table, ids[i]);
		int k;

		if (!o)
			continue;
		k = query(m, ids[i], &info);
		if (k == -ENOENT)
			continue;
		if (k >= 0) {
			resolve_parent(m, &info, 0, o);
			k = update_mount(m, o, &info, true, 0);
			mount_info_done(&info);
		}
		if (k < 0 && r == 0)
			r = k;
	}
	return r;
}

/*
 * A mount appeared (NEW_MOUNT, MOVE_TO: parent is the record's trigger) or
 * changed (SETATTR, ...: parent 0): one query by unique ID, then add or
 * update. A mount that is already gone is left to the UNMOUNT record that
 * follows it in the queue; until then it is remembered as gone, so that
 * the counter mirror can walk through it.
 */
static int refresh_mount(Manager *m, uint64_t unique_id, uint64_t parent, MountEventType type)
{
	MountInfo info = {};
	Mount *e;
	int r;

	if (!unique_id)
		return 0;
	e = table_get(m->table, unique_id);
	if (e && parent)
		e->event_parent = parent;
	r = query(m, unique_id, &info);
	if (r == -ENOENT)
		return e || !parent ? 0 : gone_put(m, unique_id, parent);
	if (r < 0) {
		m->resync_pending = true; /* unsure what we missed */
		return r;
	}
	if (!in_scope(m, &info)) {
		/*
		 * The watch sits on the mount that holds the watched path, so it
		 * also reports mounts beside that path: not ours to export. (It
		 * may have been ours when the record was posted and moved away
		 * since: records about its subtree may follow.)
		 */
		mount_info_done(&info);
		if (e)
			return remove_subtree(m, e, 0);
		return parent ? gone_put(m, unique_id, parent) : 0;
	}
	resolve_parent(m, &info, parent, e);
	if (e) {
		bool sb_changed = !streq_ptr(e->info.super_options, info.super_options) ||
				  !streq_ptr(e->info.source, info.source);

		r = update_mount(m, e, &info, true, 0);
		mount_info_done(&info);
		if (r < 0)
			return r;
		/*
		 * A remount changes the superblock under every mount of it, but
		 * the record names one mount: re-read the others (O(mounts of
		 * this superblock), only when its options changed).
		 */
		if (sb_changed)
			return refresh_superblock(m, e);
		return 0;
	}
	/*
	 * New to the namespace: its counters were 0 until this record, which
	 * counted it once as the auxiliary mount. The query's sum may already
	 * include records still in the queue (an rbind's NEW_MOUNT(C, D) after
	 * NEW_MOUNT(P, C)), and those are mirrored when read. Anything else
	 * unknown (moved in from outside the watch) has nothing better than the
	 * query's sum.
	 */
	if (type == MOUNT_EVENT_NEW_MOUNT)
		info.notify_sum = 1;
	r = add_mount(m, &info, &e);
	mount_info_done(&info);
	if (r < 0)
		return r;
	e->event_parent = parent ?: e->info.parent_unique_id;
	/* A subtree moved in from outside the watch: nobody reports its children. */
	if (type == MOUNT_EVENT_MOVE_TO)
		return add_children(m, unique_id, 0);
	return 0;
}

static int add_children(Manager *m, uint64_t unique_id, unsigned depth)
{
	_cleanup_free_ MountSummary *list = NULL;
	size_t n = 0;
	int r;

	if (depth >= MAX_DEPTH || !m->backend->ops->list_children)
		return 0;
	r = m->backend->ops->list_children(m->backend, unique_id, &list, &n);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return log_warning_errno(r, "Failed to list children of mount %" PRIu64 ": %m", unique_id);
	for (size_t i = 0; i < n; i++) {
		MountInfo info = {};
		Mount *e;

		if (list[i].unique_id == unique_id || table_get(m->table, list[i].unique_id))
			continue;
		r = query(m, list[i].unique_id, &info);
		if (r < 0)
			continue;
		if (!in_scope(m, &info)) {
			mount_info_done(&info);
			continue;
		}
		resolve_parent(m, &info, unique_id, NULL);
		info.notify_sum = list[i].notify_sum;
		r = add_mount(m, &info, &e);
		mount_info_done(&info);
		if (r < 0)
			return r;
		e->event_parent = unique_id;
		r = add_children(m, list[i].unique_id, depth + 1);
		if (r < 0)
			return r;
	}
	return 0;
}

static int mark_detached(Manager *m, Mount *e)
{
	if (e->detached)
		return 0;
	if (m->n_detached == m->n_detached_alloc) {
		size_t n = m->n_detached_alloc ? m->n_detached_alloc * 2 : 8;
		uint64_t *t = realloc(m->detached, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		m->detached = t;
		m->n_detached_alloc = n;
	}
	m->detached[m->n_detached++] = e->info.unique_id;
	e->detached = true;
	return 0;
}

int manager_apply_event(Manager *m, const MountEvent *ev)
{
	Mount *e;

	m->events++;
	mirror_counters(m, ev);

	switch (ev->type) {
	case MOUNT_EVENT_NEW_MOUNT:
	case MOUNT_EVENT_MOVE_TO:
		return refresh_mount(m, ev->auxiliary, ev->triggered_on, ev->type);
	case MOUNT_EVENT_UNMOUNT:
		/*
		 * A lazy unmount posts the whole tree parents first, with the
		 * kernel's parent chain intact: UNMOUNT(A, B) after UNMOUNT(R,
		 * A) still counts for R. remove_mount() remembers A for that.
		 */
		e = table_get(m->table, ev->auxiliary);
		if (!e)
			return 0;
		e->event_parent = ev->triggered_on;
		return remove_mount(m, e);
	case MOUNT_EVENT_MOVE_FROM:
		/* Usually MOVE_TO follows; if not by the end of the batch, it left. */
		e = table_get(m->table, ev->auxiliary);
		if (!e)
			return 0;
		e->event_parent = 0;
		return mark_detached(m, e);
	case MOUNT_EVENT_EXPIRY:
	case MOUNT_EVENT_READONLY:
	case MOUNT_EVENT_SETATTR:
		return refresh_mount(m, ev->triggered_on, 0, ev->type);
	case MOUNT_EVENT_LOSS:
		m->overruns++;
		m->resync_pending = true;
		log_notice("Notification queue overran, resynchronising.");
		return 0;
	case MOUNT_EVENT_WATCH_REMOVED:
		return log_error_errno(ENOLINK, "Failed to keep watching %s: the watched mount went away.",
				       m->config.watch_path);
	}
	log_debug("Ignoring unknown mount event type %d.", (int)ev->type);
	return 0;
}

int manager_finish_batch(Manager *m)
{
	int r = 0;

	for (size_t i = 0; i < m->n_detached; i++) {
		Mount *e = table_get(m->table, m->detached[i]);

		if (e && e->detached)
			(void)remove_subtree(m, e, 0);
	}
	m->n_detached = 0;
	gone_rotate(m);

	if (m->resync_pending)
		r = manager_resync(m, NULL);
	return r;
}

/*
 * The kernel posts a move's MOVE_FROM and MOVE_TO back to back, but a read
 * can fall between them. Ending the batch there would drop the moved tree
 * and read it back when MOVE_TO comes: waits a little for MOVE_TO instead,
 * once per batch. (A mount moved out of a watched subdirectory gets no
 * MOVE_TO and costs the whole wait.) Returns whether to read again.
 */
#define MOVE_TO_WAIT_MSEC 20

static bool wait_for_move_to(Manager *m)
{
	struct pollfd p = { .fd = m->backend->ops->get_fd(m->backend), .events = POLLIN };

	return poll(&p, 1, MOVE_TO_WAIT_MSEC) > 0;
}

int manager_process_events(Manager *m)
{
	MountEvent events[64];
	MountEventType last = MOUNT_EVENT_NEW_MOUNT;
	bool waited = false;
	int n, r, ret = 0;

	for (;;) {
		n = m->backend->ops->read_events(m->backend, events, ELEMENTSOF(events));
		if (n < 0)
			return log_error_errno(n, "Failed to read mount notifications: %m");
		if (n == 0) {
			if (last != MOUNT_EVENT_MOVE_FROM || !m->n_detached || waited)
				break;
			waited = true;
			if (!wait_for_move_to(m))
				break;
			continue;
		}
		for (int i = 0; i < n; i++) {
			r = manager_apply_event(m, &events[i]);
			if (r == -ENOLINK || r == -ENOMEM)
				return r;
		}
		last = events[n - 1].type;
	}
	r = manager_finish_batch(m);
	if (r < 0 && ret == 0)
		ret = r;
	return ret;
}

static int compare_summary(const void *a, const void *b)
{
	const MountSummary *x = a, *y = b;

	return x->unique_id < y->unique_id ? -1 : x->unique_id > y->unique_id;
}

static int resync(Manager *m, ResyncStats *stats, bool announce_it)
{
	_cleanup_free_ MountSummary *list = NULL;
	_cleanup_free_ Mount **gone = NULL;
	_cleanup_(hashmap_freep) Hashmap *by_mnt_id = NULL;
	ResyncStats s = {};
	size_t n = 0, n_gone = 0, i;
	Mount *e;
	int r;

	r = m->backend->ops->list_all(m->backend, &list, &n);
	if (r < 0)
		return log_error_errno(r, "Failed to list mounts below %s: %m", m->config.watch_path);
	m->resync_pending = false;
	qsort(list, n, sizeof(*list), compare_summary);
	/* The listing names parents by 32-bit ID: map those to unique IDs. */
	r = hashmap_new(&by_mnt_id);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		r = hashmap_put(by_mnt_id, list[i].mnt_id, &list[i]);
		if (r < 0)
			return r;
	}

	for (i = 0; i < n; i++) {
		MountSummary *lp = hashmap_get(by_mnt_id, list[i].parent_id);
		/* The parent the listing's sums were counted with. */
		uint64_t parent = lp && lp != &list[i] ? lp->unique_id : 0;
		MountInfo info = {};

		e = table_get(m->table, list[i].unique_id);
		if (e)
			e->event_parent = parent;
		if (e && !e->detached && e->info.notify_sum == list[i].notify_sum)
			continue;
		s.requeried++;
		r = query(m, list[i].unique_id, &info);
		if (r < 0 && r != -ENOENT) {
			m->resync_pending = true;
			continue;
		}
		if (r == -ENOENT || !in_scope(m, &info)) {
			/* Gone since the listing, or not below the watched path. */
			mount_info_done(&info);
			if (e) {
				r = remove_mount(m, e);
				if (r < 0)
					return r;
				s.removed++;
			}
			continue;
		}
		/* The listing's sum: the queue holds every event after it. */
		info.notify_sum = list[i].notify_sum;
		if (info.parent_id != info.mnt_id) {
			MountSummary *p = hashmap_get(by_mnt_id, info.parent_id);

			/* Not in the listing: not connected to the watched path. */
			info.parent_unique_id = p ? p->unique_id : 0;
		}
		if (e) {
			r = update_mount(m, e, &info, false, 0);
			if (r > 0)
				s.changed++;
		} else {
			r = add_mount(m, &info, &e);
			if (r >= 0) {
				e->event_parent = parent;
				s.added++;
			}
		}
		mount_info_done(&info);
		if (r < 0)
			return log_error_errno(r, "Failed to update the mount table: %m");
	}

	/* Drop what the listing no longer has (or what vanished before its query). */
	gone = calloc(table_size(m->table) + 1, sizeof(*gone));
	if (!gone)
		return -ENOMEM;
	i = 0;
	while (table_iterate(m->table, &i, &e)) {
		MountSummary key = { .unique_id = e->info.unique_id };

		if (!bsearch(&key, list, n, sizeof(*list), compare_summary))
			gone[n_gone++] = e;
	}
	for (i = 0; i < n_gone; i++) {
		r = remove_mount(m, gone[i]);
		if (r < 0)
			return r;
		s.removed++;
	}

	if (announce_it) {
		m->resyncs++;
		announce(m, CHANGE_RESYNCED, NULL, 0, NULL, 0);
		manager_bus_emit_resynced(m, &s);
		log_info("Resynchronised with the kernel: %u added, %u removed, %u changed, %u of %zu mounts re-queried.",
			 s.added, s.removed, s.changed, s.requeried, n);
	}
	m->last_resync = s;
	if (stats)
		*stats = s;
	return 0;
}

int manager_resync(Manager *m, ResyncStats *ret)
{
	return resync(m, ret, true);
}

int manager_snapshot(Manager *m)
{
	int r;

	r = resync(m, NULL, false);
	if (r < 0)
		return r;
	m->generation = 0;
	return 0;
}

/* ---- the event loop ---- */

static int on_queue(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Manager *m = userdata;
	int r;

	r = manager_process_events(m);
	if (r == -ENOLINK || r == -ENOMEM || r == -EBADF)
		return sd_event_exit(m->event, EXIT_FAILURE);
	return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)manager_reload(userdata);
	return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	Manager *m = userdata;

	(void)sd_notify(false, "STOPPING=1");
	return sd_event_exit(m->event, EXIT_SUCCESS);
}

static int attach_backend_fd(Manager *m)
{
	sd_event_source *s = NULL;
	int r;

	r = sd_event_add_io(m->event, &s, m->backend->ops->get_fd(m->backend), EPOLLIN, on_queue, m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the notification queue: %m");
	(void)sd_event_source_set_description(s, "mount-notifications");
	sd_event_source_disable_unref(m->io_source);
	m->io_source = s;
	return 0;
}

int manager_attach_event(Manager *m)
{
	sigset_t mask;
	int r;

	if (!m->event) {
		r = sd_event_default(&m->event);
		if (r < 0)
			return log_error_errno(r, "Failed to allocate the event loop: %m");
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_error_errno(errno, "Failed to block signals: %m");
	r = sd_event_add_signal(m->event, &m->sighup_source, SIGHUP, on_sighup, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, &m->sigterm_source, SIGTERM, on_sigterm, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, &m->sigint_source, SIGINT, on_sigterm, m);
	if (r < 0)
		return log_error_errno(r, "Failed to handle signals: %m");
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		return log_error_errno(r, "Failed to enable the watchdog: %m");
	if (m->backend)
		return attach_backend_fd(m);
	return 0;
}

int manager_open_backend(Manager *m, Backend **ret)
{
	const BackendOps *ops = backend_find(m->config.backend);
	int r;

	if (!ops)
		return log_error_errno(EINVAL, "Failed to find backend %s.", m->config.backend);
	r = ops->open(ret, m->config.watch_path, m->config.queue_size);
	if (r == -ENOSYS)
		return log_error_errno(r, "This kernel lacks mount notification support (watch_mount(2) and fsinfo(2)); mountwatchd cannot run.");
	if (r < 0)
		return log_error_errno(r, "Failed to watch mounts below %s with the %s backend: %m",
				       m->config.watch_path, ops->name);
	return 0;
}

static int reload(Manager *m);

int manager_reload(Manager *m)
{
	int r;

	log_info("Reloading configuration from %s.", m->config_path ?: CONFIG_DEFAULT_PATH);
	(void)sd_notify(false, "RELOADING=1");
	r = reload(m);
	(void)sd_notify(false, "READY=1");
	return r;
}

static int reload(Manager *m)
{
	_cleanup_free_ char *error = NULL;
	Config c;
	Backend *b = NULL;
	bool rewatch;
	int r;

	r = config_init(&c);
	if (r < 0)
		return log_error_errno(r, "Failed to reload configuration: %m");
	r = config_load(&c, m->config_path ?: CONFIG_DEFAULT_PATH, true, &error);
	if (r >= 0 && m->overrides)
		r = config_override(&c, m->overrides);
	if (r < 0) {
		if (error)
			log_error("Failed to reload configuration, keeping the running one: %s", error);
		else
			log_error_errno(r, "Failed to reload configuration, keeping the running one: %m");
		config_done(&c);
		return r;
	}

	rewatch = !streq_ptr(c.watch_path, m->config.watch_path) ||
		  c.queue_size != m->config.queue_size || !streq_ptr(c.backend, m->config.backend);
	if (rewatch) {
		Config old = m->config;

		m->config = c;
		r = manager_open_backend(m, &b);
		if (r < 0) {
			m->config = old;
			config_done(&c);
			log_error("Keeping the running configuration.");
			return r;
		}
		config_done(&old);
		manager_set_backend(m, b);
		if (m->event) {
			r = attach_backend_fd(m);
			if (r < 0)
				return r;
		}
		manager_bus_emit_manager_changed(m);
		(void)manager_resync(m, NULL);
	} else {
		config_done(&m->config);
		m->config = c;
	}
	log_max_level = m->config.log_level;
	log_info("Configuration reloaded: Path=%s QueueSize=%u Level=%s.", m->config.watch_path,
		 m->config.queue_size, log_level_to_string(m->config.log_level));
	return 0;
}
