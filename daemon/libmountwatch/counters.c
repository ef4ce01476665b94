/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The counter mirror; see counters.h.
 *
 * The rule mirrored here is the kernel's (Documentation/filesystems/
 * mount_notify.rst in the series, "Counting"): a record names mounts, each
 * named mount counts +1, and so does each of its ancestors once per named
 * mount below it, as the tree was when the change was made:
 *   EXPIRY / READONLY / SETATTR on M: M +1, each ancestor of M +1
 *   NEW_MOUNT / UNMOUNT / MOVE_FROM / MOVE_TO (trigger P, aux C): C +1,
 *       P +2 and each ancestor of P +2 (C is below P: before it leaves for
 *       UNMOUNT and MOVE_FROM, after it arrived for NEW_MOUNT and MOVE_TO)
 *   SB_CHANGED: every mount of the superblock +1, and each of its ancestors
 *       +1 per such mount below it
 * A mount that leaves keeps in its old ancestors what it gave them; one that
 * arrives brings nothing of its past to its new ones (the walks follow the
 * parents the records gave, so both hold by themselves). After UNMOUNT of M,
 * M and everything below it are gone: the UNMOUNT records of the mounts
 * below M that follow change no sum above M (the walk stops at M).
 *
 * The stored ChangeCount is that sum, as MOUNT_ALL reports it. The kernel
 * counts when it queues the record; a query answers from the present,
 * which may already include records still in the queue. So the mirror takes
 * nothing from queries that the records give it: a new mount starts at the
 * sum its NEW_MOUNT record gives it (apply.c), and ancestors are walked
 * along the parents the records named (Mount.event_parent), also through
 * mounts that left the table earlier in the batch but not the namespace
 * (gone). The kernel selftest watch_mount_counters_test mirrors the same
 * rule.
 */
#include "counters.h"
#include "util.h"

/* Guards ancestor walks against a cycle in a (transiently) inconsistent table. */
#define MAX_DEPTH 4096

static void gone_clear(GoneSet *g)
{
	hashmap_free(g->index);
	free(g->parents);
	*g = (GoneSet){};
}

void counter_mirror_done(CounterMirror *c)
{
	for (size_t i = 0; i < ELEMENTSOF(c->gone); i++)
		gone_clear(&c->gone[i]);
}

int counter_mirror_forget(CounterMirror *c, uint64_t unique_id, uint64_t parent)
{
	GoneSet *g = &c->gone[0];
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
static uint64_t gone_parent(CounterMirror *c, uint64_t unique_id)
{
	for (size_t i = 0; i < ELEMENTSOF(c->gone); i++) {
		void *v = c->gone[i].index ? hashmap_get(c->gone[i].index, unique_id) : NULL;

		if (v)
			return c->gone[i].parents[(uintptr_t)v - 1];
	}
	return 0;
}

/*
 * The kernel posts one operation's records in a tight loop; a reader that
 * caught up in the middle of them ends its batch there and reads the rest
 * next time: keep what left the table in this batch for one more.
 */
void counter_mirror_end_batch(CounterMirror *c)
{
	gone_clear(&c->gone[1]);
	c->gone[1] = c->gone[0];
	c->gone[0] = (GoneSet){};
}

/*
 * The ancestors of id as the records named them, through mounts that left
 * the table but not the namespace, each + n. A mount that was unmounted is
 * remembered with parent 0: nothing above it counts.
 */
static void bump_ancestors(CounterMirror *c, Table *t, uint64_t id, uint64_t n)
{
	Mount *e = table_get(t, id);
	uint64_t start = id;

	id = e ? e->event_parent : gone_parent(c, id);
	for (unsigned depth = 0; id && id != start && depth < MAX_DEPTH; depth++) {
		e = table_get(t, id);
		if (e) {
			e->info.notify_sum += n;
			id = e->event_parent;
		} else {
			id = gone_parent(c, id);
		}
	}
}

void counter_mirror_event(CounterMirror *c, Table *t, const MountEvent *ev)
{
	Mount *m = table_get(t, ev->triggered_on), *a;

	switch (ev->type) {
	case MOUNT_EVENT_EXPIRY:
	case MOUNT_EVENT_READONLY:
	case MOUNT_EVENT_SETATTR:
		if (m)
			m->info.notify_sum++;
		bump_ancestors(c, t, ev->triggered_on, 1);
		return;
	case MOUNT_EVENT_NEW_MOUNT:
	case MOUNT_EVENT_UNMOUNT:
	case MOUNT_EVENT_MOVE_FROM:
	case MOUNT_EVENT_MOVE_TO:
		/*
		 * Below a mount already unmounted (a lazy unmount's records of
		 * the mounts under its top) nothing counts that we keep.
		 */
		if (!m && !gone_parent(c, ev->triggered_on))
			return;
		/* The child +1; the parent and its ancestors +1 for it ... */
		a = table_get(t, ev->auxiliary);
		if (a && a != m)
			a->info.notify_sum++;
		/* ... and +1 each for the parent, named too. */
		if (m)
			m->info.notify_sum += 2;
		bump_ancestors(c, t, ev->triggered_on, 2);
		return;
	case MOUNT_EVENT_SB_CHANGED:
		for (Mount *o = table_first_of_superblock(t, ev->auxiliary); o; o = o->sb_next) {
			o->info.notify_sum++;
			bump_ancestors(c, t, o->info.unique_id, 1);
		}
		/*
		 * The named mount is one of the superblock's too: if it is not in
		 * the table (gone before its NEW_MOUNT was read: automount's
		 * probe mounts, makes catatonic and unmounts at once), its
		 * ancestors count it all the same, along the parent its record gave.
		 */
		if (!m)
			bump_ancestors(c, t, ev->triggered_on, 1);
		return;
	default:
		return;
	}
}
