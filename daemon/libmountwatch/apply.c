/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Applying changes to the table: each event costs O(1) work (one query of
 * the mount it names), moves rewrite the moved subtree's mount points, a
 * remount re-reads the mounts of that superblock, and a resync (list, apply,
 * drop) repairs the table after a loss, re-reading only the mounts whose
 * counters differ where the backend has counters. Every change is announced
 * after the table reflects it.
 */
#include <stdio.h>

#include "log.h"
#include "util.h"
#include "watcher.h"

/* Guards recursions against a cycle in a (transiently) inconsistent table. */
#define MAX_DEPTH 4096

bool watcher_has_counters(const mw_watcher *w)
{
	return w->backend->ops->flags & BACKEND_COUNTERS;
}

void watcher_announce(mw_watcher *w, enum mw_change_type type, const Mount *e, uint64_t unique_id,
		      const char *mount_point, uint32_t fields, const struct mw_resync_stats *rs)
{
	struct mw_change c = {
		.type = type,
		.unique_id = unique_id,
		.mount = e,
		.mount_point = mount_point,
		.fields = fields,
		.resync = rs,
	};

	if (w->quiet)
		return;
	if (type == MW_CHANGE_ADDED || type == MW_CHANGE_REMOVED || type == MW_CHANGE_MOVED ||
	    type == MW_CHANGE_CHANGED)
		w->generation++;
	w->announced++;
	if (w->change_fn && !w->free_pending) {
		w->in_callback++;
		w->change_fn(w, &c, w->userdata);
		w->in_callback--;
	}
}

static int remove_mount(mw_watcher *w, Mount *e)
{
	_cleanup_free_ char *point = e->info.mount_point ? strdup(e->info.mount_point) : NULL;
	uint64_t id = e->info.unique_id;
	int r;

	if (e->info.mount_point && !point)
		return -ENOMEM;
	/* Records of this batch may still name it as a trigger or an ancestor. */
	r = counter_mirror_forget(&w->mirror, id, e->event_parent);
	if (r < 0)
		return r;
	table_remove(w->table, e);
	watcher_announce(w, MW_CHANGE_REMOVED, NULL, id, point ?: "", 0, NULL);
	return watcher_utab_refresh(w, point, NULL);
}

/* Removes e and what the table has below it, children first. Returns the number removed. */
static int remove_subtree(mw_watcher *w, Mount *e, unsigned depth)
{
	Mount *c;
	int n = 0, r;

	/* Each removal unlinks the list head, so restart. */
	while (depth < MAX_DEPTH && (c = table_first_child(w->table, e->info.unique_id)) && c != e) {
		r = remove_subtree(w, c, depth + 1);
		if (r < 0)
			return r;
		n += r;
	}
	r = remove_mount(w, e);
	return r < 0 ? r : n + 1;
}

static bool in_scope(mw_watcher *w, const MountInfo *info)
{
	const char *rest;

	return info->mount_point && path_has_prefix(info->mount_point, w->path, &rest);
}

static int update_mount(mw_watcher *w, Mount *e, MountInfo *info, bool keep_sum, unsigned depth);

/*
 * Some kernels report a move only for the mount that moved: the mount points
 * of its descendants changed with it, so rewrite them (O(subtree), moves only).
 */
static int fix_descendants(mw_watcher *w, Mount *e, const char *old_point, unsigned depth)
{
	_cleanup_free_ Mount **children = NULL;
	size_t n = 0, allocated = 0;
	int r = 0;

	if (depth >= MAX_DEPTH)
		return 0;
	for (Mount *c = table_first_child(w->table, e->info.unique_id); c; c = c->sibling_next) {
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
		k = update_mount(w, c, &info, true, depth + 1);
		mount_info_done(&info);
		if (k < 0 && r == 0)
			r = k;
	}
	return r;
}

#define MOVE_FIELDS ((1U << MW_FIELD_MOUNT_POINT) | (1U << MW_FIELD_PARENT_UNIQUE_ID))

/*
 * Replaces e's record by *info. keep_sum: the stored ChangeCount stays (the
 * mirror keeps it); without counters the watcher's own count goes up by one
 * per change. Returns 1 if anything changed (a move included), 0 if not.
 */
static int update_mount(mw_watcher *w, Mount *e, MountInfo *info, bool keep_sum, unsigned depth)
{
	_cleanup_free_ char *old_point = NULL;
	uint32_t mask;
	int r;

	if (!watcher_has_counters(w))
		info->notify_sum = e->info.notify_sum + (mount_info_diff(&e->info, info) &
							 ~(1U << MW_FIELD_CHANGE_COUNT) ? 1 : 0);
	else if (keep_sum)
		info->notify_sum = e->info.notify_sum;
	e->detached = false;
	if (!streq_ptr(e->info.mount_point, info->mount_point) && e->info.mount_point) {
		old_point = strdup(e->info.mount_point);
		if (!old_point)
			return -ENOMEM;
	}
	r = table_update(w->table, e, info);
	if (r < 0)
		return r;
	mask = (uint32_t)r & ~(1U << MW_FIELD_CHANGE_COUNT);
	if (mask)
		watcher_announce(w, mask & MOVE_FIELDS ? MW_CHANGE_MOVED : MW_CHANGE_CHANGED, e,
				 e->info.unique_id, e->info.mount_point, mask, NULL);
	if (mask & ((1U << MW_FIELD_MOUNT_POINT) | (1U << MW_FIELD_SOURCE) | (1U << MW_FIELD_ROOT))) {
		r = watcher_utab_refresh(w, old_point, NULL);
		if (r >= 0)
			r = watcher_utab_refresh(w, e->info.mount_point, e);
		if (r < 0)
			return r;
	}
	if (old_point && e->info.mount_point && !(w->backend->ops->flags & BACKEND_MOVES_EACH)) {
		r = fix_descendants(w, e, old_point, depth);
		if (r < 0)
			return r;
	}
	return mask != 0;
}

static int add_mount(mw_watcher *w, MountInfo *info, Mount **ret)
{
	Mount *e;
	int r;

	if (!watcher_has_counters(w))
		info->notify_sum = 0;
	r = table_add(w->table, info, &e);
	if (r < 0)
		return r;
	watcher_announce(w, MW_CHANGE_ADDED, e, e->info.unique_id, e->info.mount_point, 0, NULL);
	if (ret)
		*ret = e;
	return watcher_utab_refresh(w, e->info.mount_point, NULL);
}

/* The record of one mount from the backend; same_sb: see BackendOps.query_mount. */
static int query_new(mw_watcher *w, uint64_t unique_id, const MountInfo *same_sb, MountInfo *info)
{
	int r;

	r = w->backend->ops->query_mount(w->backend, unique_id, same_sb, info);
	if (r == -ENOENT || r == -ESTALE)
		return -ENOENT;
	if (r < 0)
		return lib_debug_errno(r, "Failed to query mount %" PRIu64 ": %m", unique_id);
	r = mount_info_fill_strings(info);
	if (r >= 0 && w->utab_on) {
		const char *o = watcher_utab_options(w, info);

		if (o && !(info->user_options = strdup(o)))
			r = -ENOMEM;
	}
	if (r < 0) {
		mount_info_done(info);
		return r;
	}
	return 0;
}

static int query(mw_watcher *w, uint64_t unique_id, MountInfo *info)
{
	return query_new(w, unique_id, NULL, info);
}

/*
 * Fills info->parent_unique_id when the backend left it 0, from its 32-bit
 * parent_id: from the hint (the parent an event or listing named), the old
 * record, or the table's mount-ID index, all O(1); only when none knows it,
 * from the backend.
 */
static void resolve_parent(mw_watcher *w, MountInfo *info, uint64_t hint, const Mount *old)
{
	Mount *p;
	uint64_t id;

	if (info->parent_unique_id) {
		if (info->parent_unique_id == info->unique_id)
			info->parent_unique_id = 0; /* a namespace root */
		return;
	}
	if (info->parent_id == info->mnt_id)
		return; /* a namespace root */
	if (hint) {
		p = table_get(w->table, hint);
		if (p && p->info.mnt_id == info->parent_id) {
			info->parent_unique_id = hint;
			return;
		}
	}
	if (old && old->info.parent_id == info->parent_id && old->info.parent_unique_id) {
		p = table_get(w->table, old->info.parent_unique_id);
		if (!p || p->info.mnt_id == info->parent_id) {
			info->parent_unique_id = old->info.parent_unique_id;
			return;
		}
	}
	p = table_get_by_mnt_id(w->table, info->parent_id);
	if (p && p->info.unique_id != info->unique_id) {
		info->parent_unique_id = p->info.unique_id;
		return;
	}
	if (w->backend->ops->resolve_mnt_id &&
	    w->backend->ops->resolve_mnt_id(w->backend, info->parent_id, &id) >= 0)
		info->parent_unique_id = id;
}

/* The unique IDs of the mounts of superblock sb (or of all, for sb 0), but not skip. */
static int collect(mw_watcher *w, uint64_t sb, bool all, const Mount *skip, uint64_t **ret, size_t *ret_n)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n = 0, i = 0, max = 0;
	Mount *o;

	/* O(mounts of sb), not O(table), for one superblock */
	if (all)
		max = table_size(w->table);
	else
		for (o = table_first_of_superblock(w->table, sb); o; o = o->sb_next)
			max++;
	ids = malloc((max + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	if (all) {
		while (table_iterate(w->table, &i, &o))
			ids[n++] = o->info.unique_id;
	} else {
		for (o = table_first_of_superblock(w->table, sb); o; o = o->sb_next)
			if (o != skip)
				ids[n++] = o->info.unique_id;
	}
	*ret = TAKE_PTR(ids);
	*ret_n = n;
	return 0;
}

/* Re-reads each of ids that is still in the table; returns how many changed. */
static int requery(mw_watcher *w, const uint64_t *ids, size_t n)
{
	int r = 0, changed = 0;

	for (size_t i = 0; i < n; i++) {
		MountInfo info = {};
		Mount *o = table_get(w->table, ids[i]);
		int k;

		if (!o)
			continue;
		k = query(w, ids[i], &info);
		if (k == -ENOENT)
			continue;
		if (k >= 0) {
			resolve_parent(w, &info, 0, o);
			k = update_mount(w, o, &info, true, 0);
			mount_info_done(&info);
			if (k > 0)
				changed++;
		}
		if (k < 0 && r == 0)
			r = k;
	}
	return r < 0 ? r : changed;
}

/* A remount changed the superblock under every mount of it: re-read the others. */
static int refresh_superblock(mw_watcher *w, uint64_t sb, const Mount *skip)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n;
	int r;

	r = collect(w, sb, false, skip, &ids, &n);
	if (r < 0)
		return r;
	watcher_announce(w, MW_CHANGE_SUPERBLOCK, NULL, sb, NULL, 0, NULL);
	r = requery(w, ids, n);
	return r < 0 ? r : 0;
}

/*
 * The kernel's SB_CHANGED: the superblock sb under every mount of it was
 * reconfigured. One query (of the named mount, or if it is gone meanwhile,
 * of another mount of sb) gives the superblock's state; every other mount of
 * sb in the table takes it over without a query of its own. Each mount whose
 * record changed is announced once (update_mount()). The mounts' own
 * attributes are not the superblock's: a remount that also changed those of
 * the mount it went through posts a SETATTR or READONLY for that mount.
 */
static int apply_superblock(mw_watcher *w, uint64_t sb, uint64_t named)
{
	_cleanup_free_ uint64_t *ids = NULL;
	MountInfo info = {};
	Mount *q = NULL;
	size_t n;
	int r, k;

	r = collect(w, sb, false, NULL, &ids, &n);
	if (r < 0)
		return r;
	watcher_announce(w, MW_CHANGE_SUPERBLOCK, NULL, sb, NULL, 0, NULL);
	/* The named mount first; the others only if it is gone. */
	for (size_t i = 0; i <= n && !q; i++) {
		uint64_t id = i == 0 ? named : ids[i - 1];

		if ((i > 0 && id == named) || !table_get(w->table, id))
			continue;
		r = query(w, id, &info);
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			w->resync_pending = true; /* unsure what we missed */
			return r;
		}
		if (info.superblock_id != sb) {
			/* The ID was reused for another superblock: impossible, but not ours. */
			mount_info_done(&info);
			continue;
		}
		q = table_get(w->table, id);
	}
	if (!q)
		return 0; /* every mount of sb is gone: their records follow */

	r = 0;
	for (size_t i = 0; i < n; i++) {
		Mount *o = table_get(w->table, ids[i]);
		MountInfo copy;

		if (!o || o == q)
			continue;
		k = mount_info_copy(&copy, &o->info);
		if (k >= 0) {
			free(copy.super_options);
			copy.super_options = strdup(info.super_options ?: "");
			k = copy.super_options ? update_mount(w, o, &copy, true, 0) : -ENOMEM;
			mount_info_done(&copy);
		}
		if (k < 0 && r == 0)
			r = k;
	}
	resolve_parent(w, &info, 0, q);
	k = update_mount(w, q, &info, true, 0);
	mount_info_done(&info);
	if (k < 0 && r == 0)
		r = k;
	return r < 0 ? r : 0;
}

/* Something changed and the backend cannot say what: re-read every mount (O(N)). */
static int rescan(mw_watcher *w)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n;
	int r;

	r = collect(w, 0, true, NULL, &ids, &n);
	if (r < 0)
		return r;
	r = requery(w, ids, n);
	return r < 0 ? r : 0;
}

static int add_children(mw_watcher *w, uint64_t unique_id, unsigned depth);

/*
 * A mount appeared (NEW_MOUNT, MOVE_TO: parent is the record's trigger;
 * ATTACH, MOVED: parent unknown, 0) or changed (SETATTR, ...: parent 0): one
 * query by unique ID, then add or update. A mount that is already gone is
 * left to the record that follows it in the queue; until then it is
 * remembered as gone, so that the counter mirror can walk through it.
 */
static int refresh_mount(mw_watcher *w, uint64_t unique_id, uint64_t parent, MountEventType type)
{
	bool arrival = type == MOUNT_EVENT_NEW_MOUNT || type == MOUNT_EVENT_MOVE_TO ||
		       type == MOUNT_EVENT_ATTACH || type == MOUNT_EVENT_MOVED;
	MountInfo info = {};
	Mount *e;
	int r;

	if (!unique_id)
		return 0;
	e = table_get(w->table, unique_id);
	if (e && parent)
		e->event_parent = parent;
	if (!e && type == MOUNT_EVENT_NEW_MOUNT) {
		/*
		 * New: its counters are known (below), and binds come in runs,
		 * so the last new mount's superblock is likely its own.
		 */
		const Mount *last = w->last_new ? table_get(w->table, w->last_new) : NULL;

		r = query_new(w, unique_id, last ? &last->info : NULL, &info);
	} else
		r = query(w, unique_id, &info);
	if (r == -ENOENT)
		return e || !parent ? 0 : counter_mirror_forget(&w->mirror, unique_id, parent);
	if (r < 0) {
		w->resync_pending = true; /* unsure what we missed */
		return r;
	}
	if (!in_scope(w, &info)) {
		/*
		 * The watch sits on the mount that holds the watched path, so it
		 * also reports mounts beside that path: not ours to export. (It
		 * may have been ours when the record was posted and moved away
		 * since: records about its subtree may follow.)
		 */
		mount_info_done(&info);
		if (e) {
			r = remove_subtree(w, e, 0);
			return r < 0 ? r : 0;
		}
		return parent ? counter_mirror_forget(&w->mirror, unique_id, parent) : 0;
	}
	resolve_parent(w, &info, parent, e);
	if (e) {
		bool sb_changed = !streq_ptr(e->info.super_options, info.super_options) ||
				  !streq_ptr(e->info.source, info.source);
		uint64_t sb = info.superblock_id;

		r = update_mount(w, e, &info, true, 0);
		mount_info_done(&info);
		if (r < 0)
			return r;
		if (arrival && !parent)
			e->event_parent = e->info.parent_unique_id;
		/*
		 * A backend without SB_CHANGED names one mount for a remount:
		 * re-read the others (O(mounts of this superblock), only when
		 * its options changed). With SB_CHANGED, that record follows.
		 */
		if (sb_changed && !(w->backend->ops->flags & BACKEND_SB_EVENTS))
			return refresh_superblock(w, sb, e);
		return 0;
	}
	if (!arrival && type != MOUNT_EVENT_SETATTR && type != MOUNT_EVENT_READONLY &&
	    type != MOUNT_EVENT_EXPIRY) {
		mount_info_done(&info);
		return 0;
	}
	/*
	 * New to the namespace: its counters were 0 until this record, which
	 * counted it once as the auxiliary mount. The query's sum may already
	 * include records still in the queue (an rbind's NEW_MOUNT(C, D) after
	 * NEW_MOUNT(P, C)), and those are mirrored when read. Anything else
	 * unknown (moved in from outside the watch) has nothing better than the
	 * query's sum, which may already count the MOVE_TO records of its
	 * subtree still in the queue: such a mount may be re-queried once by
	 * the next resync, never missed.
	 */
	if (type == MOUNT_EVENT_NEW_MOUNT)
		info.notify_sum = 1;
	r = add_mount(w, &info, &e);
	mount_info_done(&info);
	if (r < 0)
		return r;
	if (type == MOUNT_EVENT_NEW_MOUNT)
		w->last_new = unique_id;
	e->event_parent = parent ?: e->info.parent_unique_id;
	/*
	 * A subtree moved in from outside the watch: a backend that reports
	 * each mount of a moved tree (the kernel's MOVE_TO for every mount
	 * below a moved one) names the children in the records that follow;
	 * otherwise nobody does.
	 */
	if ((type == MOUNT_EVENT_MOVE_TO || type == MOUNT_EVENT_MOVED) &&
	    !(w->backend->ops->flags & BACKEND_MOVES_SUBTREE))
		return add_children(w, unique_id, 0);
	return 0;
}

static int add_children(mw_watcher *w, uint64_t unique_id, unsigned depth)
{
	_cleanup_free_ MountSummary *list = NULL;
	size_t n = 0;
	int r;

	if (depth >= MAX_DEPTH || !w->backend->ops->list_children)
		return 0;
	r = w->backend->ops->list_children(w->backend, unique_id, &list, &n);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		w->resync_pending = true; /* the children are not known: a resync finds them */
		return lib_debug_errno(r, "Failed to list children of mount %" PRIu64 ": %m", unique_id);
	}
	for (size_t i = 0; i < n; i++) {
		MountInfo info = {};
		Mount *e;

		if (list[i].unique_id == unique_id || table_get(w->table, list[i].unique_id))
			continue;
		r = query(w, list[i].unique_id, &info);
		if (r == -ENOENT)
			continue; /* gone since the listing */
		if (r < 0) {
			w->resync_pending = true; /* this child and its subtree: a resync finds them */
			continue;
		}
		if (!in_scope(w, &info)) {
			mount_info_done(&info);
			continue;
		}
		resolve_parent(w, &info, unique_id, NULL);
		info.notify_sum = list[i].notify_sum;
		r = add_mount(w, &info, &e);
		mount_info_done(&info);
		if (r < 0)
			return r;
		e->event_parent = unique_id;
		r = add_children(w, list[i].unique_id, depth + 1);
		if (r < 0)
			return r;
	}
	return 0;
}

static int mark_detached(mw_watcher *w, Mount *e)
{
	if (e->detached)
		return 0;
	if (w->n_detached == w->n_detached_alloc) {
		size_t n = w->n_detached_alloc ? w->n_detached_alloc * 2 : 8;
		uint64_t *t = realloc(w->detached, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		w->detached = t;
		w->n_detached_alloc = n;
	}
	w->detached[w->n_detached++] = e->info.unique_id;
	e->detached = true;
	return 0;
}

int watcher_watch_gone(mw_watcher *w)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n = 0, i = 0;
	Mount *e;
	int r;

	w->watch_gone = true;
	w->resync_pending = false;
	w->sums_unsure = false;
	w->n_detached = 0;
	w->deadline = UINT64_MAX;
	/*
	 * Everything the table holds was below the watched path, so inside
	 * the mount that went: gone with it, whatever the order of the
	 * records that said so (or whether they came at all).
	 */
	ids = calloc(table_size(w->table) + 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	while (table_iterate(w->table, &i, &e))
		ids[n++] = e->info.unique_id;
	for (i = 0; i < n; i++)
		while ((e = table_get(w->table, ids[i]))) {
			Mount *c;

			/* A leaf of its subtree first. */
			for (unsigned depth = 0; depth < MAX_DEPTH &&
			     (c = table_first_child(w->table, e->info.unique_id)) && c != e; depth++)
				e = c;
			r = remove_mount(w, e);
			if (r < 0)
				return r;
		}
	return lib_debug_errno(ENOLINK, "Failed to keep watching %s: the watched mount went away.", w->path);
}

bool watcher_event_is_watch_gone(const mw_watcher *w, const MountEvent *ev)
{
	if (ev->type == MOUNT_EVENT_WATCH_REMOVED)
		return true;
	return w->watched_id && ev->auxiliary == w->watched_id &&
	       (ev->type == MOUNT_EVENT_DETACH || ev->type == MOUNT_EVENT_UNMOUNT);
}

int watcher_apply_event(mw_watcher *w, const MountEvent *ev)
{
	Mount *e;
	int r;

	w->events++;
	if (watcher_event_is_watch_gone(w, ev))
		return watcher_watch_gone(w);
	if (watcher_has_counters(w))
		counter_mirror_event(&w->mirror, w->table, ev);

	switch (ev->type) {
	case MOUNT_EVENT_NEW_MOUNT:
	case MOUNT_EVENT_MOVE_TO:
		return refresh_mount(w, ev->auxiliary, ev->triggered_on, ev->type);
	case MOUNT_EVENT_ATTACH:
	case MOUNT_EVENT_MOVED:
		return refresh_mount(w, ev->auxiliary, 0, ev->type);
	case MOUNT_EVENT_UNMOUNT:
		/*
		 * A lazy unmount posts the whole tree parents first:
		 * UNMOUNT(A, B) after UNMOUNT(R, A) counts nowhere we keep;
		 * remove_mount() remembers A as unmounted for that.
		 */
		/* Gone from the namespace: no later record counts above it. */
		e = table_get(w->table, ev->auxiliary);
		if (!e)
			return counter_mirror_forget(&w->mirror, ev->auxiliary, 0);
		e->event_parent = 0;
		return remove_mount(w, e);
	case MOUNT_EVENT_DETACH:
		e = table_get(w->table, ev->auxiliary);
		if (!e)
			return 0;
		r = remove_subtree(w, e, 0);
		return r < 0 ? r : 0;
	case MOUNT_EVENT_MOVE_FROM:
		/* Usually MOVE_TO follows; if not by the end of the batch, it left. */
		e = table_get(w->table, ev->auxiliary);
		if (!e)
			return 0;
		e->event_parent = 0;
		return mark_detached(w, e);
	case MOUNT_EVENT_EXPIRY:
	case MOUNT_EVENT_READONLY:
	case MOUNT_EVENT_SETATTR:
		return refresh_mount(w, ev->triggered_on, 0, ev->type);
	case MOUNT_EVENT_SB_CHANGED:
		/* Every mount of the superblock, from one query. */
		return apply_superblock(w, ev->auxiliary, ev->triggered_on);
	case MOUNT_EVENT_RESCAN:
		return rescan(w);
	case MOUNT_EVENT_LOSS:
		w->overruns++;
		w->resync_pending = true;
		watcher_announce(w, MW_CHANGE_LOST, NULL, 0, NULL, 0, NULL);
		lib_debug("Notification queue overran, resynchronising.");
		return 0;
	case MOUNT_EVENT_WATCH_REMOVED:
		break; /* above */
	}
	lib_debug("Ignoring unknown mount event type %d.", (int)ev->type);
	return 0;
}

int watcher_finish_batch(mw_watcher *w)
{
	for (size_t i = 0; i < w->n_detached; i++) {
		Mount *e = table_get(w->table, w->detached[i]);

		if (e && e->detached)
			(void)remove_subtree(w, e, 0);
	}
	w->n_detached = 0;
	counter_mirror_end_batch(&w->mirror);

	/* After a failure, not before the retry is due. */
	if (w->resync_pending && (w->resync_error == 0 || now_usec() >= w->resync_due))
		return watcher_resync(w, NULL, true);
	return 0;
}

/* ---- resync: list, apply, drop ---- */

static int compare_summary(const void *a, const void *b)
{
	const MountSummary *x = a, *y = b;

	return x->unique_id < y->unique_id ? -1 : x->unique_id > y->unique_id;
}

typedef struct Listing {
	MountSummary *list;
	size_t n;
	Hashmap *by_mnt_id; /* 32-bit mount ID -> MountSummary (with counters) */
} Listing;

static void listing_done(Listing *l)
{
	free(l->list);
	hashmap_free(l->by_mnt_id);
}

static bool listing_has(const Listing *l, uint64_t unique_id)
{
	MountSummary key = { .unique_id = unique_id };

	return bsearch(&key, l->list, l->n, sizeof(*l->list), compare_summary);
}

/* List: every mount the kernel has now, sorted by unique ID. */
static int resync_list(mw_watcher *w, Listing *l)
{
	int r;

	/* Only the watched subtree where the backend can (backend.h: list_subtree). */
	if (w->list_top && w->backend->ops->list_subtree)
		r = w->backend->ops->list_subtree(w->backend, w->list_top, w->path, &l->list, &l->n);
	else
		r = w->backend->ops->list_all(w->backend, &l->list, &l->n);
	if (r < 0)
		return lib_debug_errno(r, "Failed to list mounts below %s: %m", w->path);
	qsort(l->list, l->n, sizeof(*l->list), compare_summary);
	/* The listing names parents by 32-bit ID: map those to unique IDs. */
	r = hashmap_new(&l->by_mnt_id);
	if (r < 0)
		return r;
	for (size_t i = 0; watcher_has_counters(w) && i < l->n; i++) {
		r = hashmap_put(l->by_mnt_id, l->list[i].mnt_id, &l->list[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Apply: add what is new, re-read what differs (by counters, or everything without them). */
static int resync_apply(mw_watcher *w, const Listing *l, struct mw_resync_stats *s)
{
	bool counters = watcher_has_counters(w);
	int r;

	for (size_t i = 0; i < l->n; i++) {
		const MountSummary *ls = &l->list[i];
		MountSummary *lp = counters ? hashmap_get(l->by_mnt_id, ls->parent_id) : NULL;
		/* The parent the listing's sums were counted with. */
		uint64_t parent = lp && lp != ls ? lp->unique_id : 0;
		MountInfo info = {};
		Mount *e = table_get(w->table, ls->unique_id);

		if (e && counters)
			e->event_parent = parent;
		if (e && counters && !e->detached && e->info.notify_sum == ls->notify_sum)
			continue;
		s->requeried++;
		r = query(w, ls->unique_id, &info);
		if (r < 0 && r != -ENOENT) {
			/* The rest goes on; the resync counts as failed and is retried. */
			w->resync_pending = true;
			w->resync_error = r;
			continue;
		}
		if (r == -ENOENT || !in_scope(w, &info)) {
			/* Gone since the listing, or not below the watched path. */
			mount_info_done(&info);
			if (e) {
				r = remove_mount(w, e);
				if (r < 0)
					return r;
				s->removed++;
			}
			continue;
		}
		if (counters) {
			/* The listing's sum: the queue holds every event after it. */
			info.notify_sum = ls->notify_sum;
			if (!info.parent_unique_id && info.parent_id != info.mnt_id) {
				MountSummary *p = hashmap_get(l->by_mnt_id, info.parent_id);

				/* Not in the listing: not connected to the watched path. */
				info.parent_unique_id = p ? p->unique_id : 0;
			}
		} else {
			resolve_parent(w, &info, 0, e);
		}
		if (info.parent_unique_id == info.unique_id || !listing_has(l, info.parent_unique_id))
			info.parent_unique_id = 0;
		if (e) {
			r = update_mount(w, e, &info, false, 0);
			if (r > 0)
				s->changed++;
		} else {
			r = add_mount(w, &info, &e);
			if (r >= 0) {
				e->event_parent = counters ? parent : e->info.parent_unique_id;
				s->added++;
			}
		}
		mount_info_done(&info);
		if (r < 0)
			return lib_debug_errno(r, "Failed to update the mount table: %m");
	}
	return 0;
}

/* Drop: what the listing no longer has (or what vanished before its query). */
static int resync_drop(mw_watcher *w, const Listing *l, struct mw_resync_stats *s)
{
	_cleanup_free_ uint64_t *gone = NULL;
	size_t n_gone = 0, i = 0;
	Mount *e;
	int r;

	gone = calloc(table_size(w->table) + 1, sizeof(*gone));
	if (!gone)
		return -ENOMEM;
	while (table_iterate(w->table, &i, &e))
		if (!listing_has(l, e->info.unique_id))
			gone[n_gone++] = e->info.unique_id;
	for (i = 0; i < n_gone; i++) {
		e = table_get(w->table, gone[i]);
		if (!e)
			continue;
		r = remove_mount(w, e);
		if (r < 0)
			return r;
		s->removed++;
	}
	return 0;
}

/* The first retry of a failed resync comes after this long, each next one after twice as long, up to the most. */
#define RESYNC_RETRY_FIRST_USEC 100000ULL
#define RESYNC_RETRY_MAX_USEC 10000000ULL
/* The same for confirming the counters after a resync (watcher_verify()). */
#define VERIFY_FIRST_USEC 100000ULL
#define VERIFY_MAX_USEC 10000000ULL

static void verify_later(mw_watcher *w, bool first)
{
	w->sums_unsure = true;
	w->verify_backoff = first || !w->verify_backoff ? VERIFY_FIRST_USEC : w->verify_backoff * 2;
	if (w->verify_backoff > VERIFY_MAX_USEC)
		w->verify_backoff = VERIFY_MAX_USEC;
	w->verify_due = now_usec() + w->verify_backoff;
}

/* Keeps the resync pending and schedules its retry. Returns error. */
static int resync_failed(mw_watcher *w, int error)
{
	w->resync_pending = true;
	w->resync_error = error;
	w->resync_backoff = w->resync_backoff ? w->resync_backoff * 2 : RESYNC_RETRY_FIRST_USEC;
	if (w->resync_backoff > RESYNC_RETRY_MAX_USEC)
		w->resync_backoff = RESYNC_RETRY_MAX_USEC;
	w->resync_due = now_usec() + w->resync_backoff;
	return lib_debug_errno(error, "Failed to resynchronise, retrying in %" PRIu64 " ms: %m",
			       w->resync_backoff / 1000);
}

int watcher_resync(mw_watcher *w, struct mw_resync_stats *ret, bool announce)
{
	_cleanup_(listing_done) Listing l = {};
	struct mw_resync_stats s = {};
	int r;

	r = resync_list(w, &l);
	if (r == -ENOENT && w->list_top)
		return watcher_watch_gone(w); /* list_subtree: the stack the watched mount is on is gone */
	if (r < 0)
		return resync_failed(w, r);
	if (w->watched_id && !listing_has(&l, w->watched_id))
		return watcher_watch_gone(w);
	w->resync_pending = false;
	w->resync_error = 0;
	r = resync_apply(w, &l, &s);
	if (r >= 0)
		r = resync_drop(w, &l, &s);
	if (r < 0)
		return resync_failed(w, r);
	if (announce) {
		w->resyncs++;
		watcher_announce(w, MW_CHANGE_RESYNCED, NULL, 0, NULL, 0, &s);
	}
	w->last_resync = s;
	if (ret)
		*ret = s;
	if (watcher_has_counters(w))
		verify_later(w, true);
	if (w->resync_pending)
		/* Some mount could not be queried: what was repaired is announced, the rest is retried. */
		(void)resync_failed(w, w->resync_error);
	else
		w->resync_backoff = 0;
	return 0;
}

int watcher_verify(mw_watcher *w)
{
	_cleanup_(listing_done) Listing l = {};
	struct mw_resync_stats s = {};
	bool lost;
	int n, r;

	r = resync_list(w, &l);
	if (r < 0) {
		verify_later(w, false);
		return 0; /* the table is as good as before: try again later */
	}
	if (w->watched_id && !listing_has(&l, w->watched_id))
		return watcher_watch_gone(w);
	n = watcher_read_apply(w, &lost);
	if (n < 0)
		return n;
	if (n > 0) {
		/* Maybe counted in the listing, maybe not: applied; list later (a loss: resync first). */
		verify_later(w, false);
		w->deadline = now_usec(); /* a batch is open: end it, read the rest */
		return 0;
	}
	r = resync_apply(w, &l, &s);
	if (r >= 0)
		r = resync_drop(w, &l, &s);
	if (r < 0)
		return resync_failed(w, r);
	if (w->resync_pending) {
		/* Some mount could not be queried: a resync it is. */
		(void)resync_failed(w, w->resync_error);
		return 0;
	}
	w->sums_unsure = false;
	w->verify_backoff = 0;
	lib_debug("Counters confirmed after the resync: %u of %zu mounts' sums were off.", s.requeried, l.n);
	return 0;
}
