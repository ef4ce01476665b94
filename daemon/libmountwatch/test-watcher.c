/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for the watcher (watcher.c, apply.c, counters.c) against the fake kernel: snapshot, event
 * application with counter mirroring (exact also when a batch holds many
 * operations: rbinds, lazy unmounts of trees, moves), moves with
 * descendants, overruns and resync (re-querying only what lost records
 * touched), signal order and generations; bounded processing under a storm,
 * records behind a loss dropped, a failed resync retried.
 */
#include <stdio.h>

#include "check.h"
#include "fake-kernel.h"
#include "util.h"
#include "watcher.h"


typedef struct Recorder {
	unsigned added, removed, changed, resynced, superblock;
	uint64_t last_generation;
	bool generation_monotonic;
} Recorder;

static void record(mw_watcher *m, const mw_change *c, void *userdata)
{
	Recorder *r = userdata;

	switch (c->type) {
	case MW_CHANGE_ADDED:
		r->added++;
		assert_se(c->mount && c->mount->info.unique_id == c->unique_id);
		break;
	case MW_CHANGE_REMOVED:
		r->removed++;
		assert_se(!table_get(m->table, c->unique_id));
		break;
	case MW_CHANGE_MOVED:
		assert_se(c->fields & ((1U << MW_FIELD_MOUNT_POINT) | (1U << MW_FIELD_PARENT_UNIQUE_ID)));
		__attribute__((fallthrough)); /* a move is a change */
	case MW_CHANGE_CHANGED:
		r->changed++;
		assert_se(c->fields != 0 && c->mount);
		break;
	case MW_CHANGE_RESYNCED:
		r->resynced++;
		assert_se(c->resync);
		return;
	case MW_CHANGE_SUPERBLOCK:
		r->superblock++;
		return;
	case MW_CHANGE_LOST:
		return;
	}
	{
		if (m->generation != r->last_generation + 1)
			r->generation_monotonic = false;
		r->last_generation = m->generation;
	}
}

typedef void (*TestFn)(FakeKernel *k, mw_watcher *m, Recorder *rec);

/*
 * Runs one test on a new fake kernel (a queue of queue_size records) and
 * watcher; frees the watcher unless the test does (frees).
 */
static void run_with(TestFn test, unsigned queue_size, bool frees)
{
	FakeKernel *k = fake_kernel_new(queue_size);
	Recorder rec = { .generation_monotonic = true };
	mw_watcher *m;

	assert_se(watcher_new_with_backend(&m, fake_kernel_backend(k), "/") == 0);
	mw_watcher_set_change_fn(m, record, &rec);
	test(k, m, &rec);
	if (!frees)
		mw_watcher_free(m);
	fake_kernel_free(k);
}

static void run(TestFn test, unsigned queue_size)
{
	run_with(test, queue_size, false);
}

/*
 * Compares the table with the fake kernel; returns the number of sum
 * mismatches, which it prints if verbose.
 */
static unsigned compare_sums(mw_watcher *m, FakeKernel *k, bool verbose)
{
	unsigned i = 0, mismatched = 0;
	uint64_t id;

	assert_se(table_size(m->table) == fake_count(k));
	while (fake_iterate(k, &i, &id)) {
		MountInfo want;
		Mount *e = table_get(m->table, id);

		assert_se(e);
		assert_se(fake_query(k, id, &want) == 0);
		if (!streq_ptr(e->info.mount_point, want.mount_point))
			fprintf(stderr, "mount %" PRIu64 ": table %s, kernel %s\n", id,
				e->info.mount_point, want.mount_point);
		assert_se(streq_ptr(e->info.mount_point, want.mount_point));
		assert_se(e->info.parent_unique_id == want.parent_unique_id);
		assert_se(e->info.parent_id == want.parent_id);
		assert_se(e->info.mnt_id == want.mnt_id);
		assert_se(e->info.attributes == want.attributes);
		assert_se(streq_ptr(e->info.fstype, want.fstype));
		assert_se(streq_ptr(e->info.super_options, want.super_options));
		assert_se(e->info.superblock_id == want.superblock_id);
		assert_se(!e->detached);
		if (verbose && e->info.notify_sum != want.notify_sum)
			fprintf(stderr, "mount %" PRIu64 " %s: ChangeCount %" PRIu64 ", kernel %" PRIu64 "\n",
				id, want.mount_point, e->info.notify_sum, want.notify_sum);
		mismatched += e->info.notify_sum != want.notify_sum;
		mount_info_done(&want);
	}
	return mismatched;
}

static unsigned compare(mw_watcher *m, FakeKernel *k)
{
	return compare_sums(m, k, false);
}

/* The table and every mirrored sum equal the kernel's. */
static void check_exact(mw_watcher *m, FakeKernel *k, const char *what)
{
	if (compare(m, k) != 0) {
		fprintf(stderr, "after %s:\n", what);
		(void)compare_sums(m, k, true);
		assert_se(0);
	}
}

static uint64_t kernel_sum(FakeKernel *k, uint64_t id)
{
	MountInfo info;
	uint64_t sum;

	assert_se(fake_query(k, id, &info) == 0);
	sum = info.notify_sum;
	mount_info_done(&info);
	return sum;
}

static uint64_t table_sum(mw_watcher *m, uint64_t id)
{
	Mount *e = table_get(m->table, id);

	assert_se(e);
	return e->info.notify_sum;
}

static void build_tree(FakeKernel *k, unsigned n)
{
	char name[32];

	for (unsigned i = 0; i < n; i++) {
		uint64_t parent = fake_random_mount(k, true);

		snprintf(name, sizeof(name), "d%u", i);
		fake_mount(k, parent, name, i % 2 ? "tmpfs" : "ext4");
	}
}

static void snapshot(mw_watcher *m, Recorder *rec)
{
	assert_se(watcher_snapshot(m) == 0);
	assert_se(m->generation == 0);
	*rec = (Recorder){ .generation_monotonic = true };
}

/*
 * The counters' confirmation after a resync (watcher_verify()) is due now,
 * not after its delay: the fake kernel is idle, and the tests need not wait.
 */
static void verify_now(mw_watcher *m)
{
	if (watcher_verify_waiting(m))
		m->verify_due = 0;
}

/* What an event loop does: process when readable, and again at the watcher's timeout. */
static void drain_fake(mw_watcher *m)
{
	assert_se(mw_watcher_process(m) >= 0);
	while (mw_watcher_get_timeout(m) != UINT64_MAX) {
		verify_now(m);
		if (mw_watcher_get_timeout(m) > now_usec())
			usleep(5000);
		assert_se(mw_watcher_process(m) >= 0);
	}
}

static void test_snapshot(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	build_tree(k, 200);
	snapshot(m, rec);
	assert_se(compare(m, k) == 0);
	assert_se(m->resyncs == 0);
	/* Events queued before the snapshot are already in it: applying them changes nothing visible. */
	drain_fake(m);
	(void)compare(m, k);
	assert_se(rec->added == 0 && rec->removed == 0);
	printf("ok - snapshot\n");
}

static void random_op(FakeKernel *k, unsigned *serial)
{
	char name[32];
	uint64_t a, b;

	snprintf(name, sizeof(name), "m%u", (*serial)++);
	switch (rand() % 12) {
	case 0: case 1: case 2: case 3:
		fake_mount(k, fake_random_mount(k, true), name, "tmpfs");
		break;
	case 4:
		a = fake_random_mount(k, false);
		if (a)
			fake_umount(k, a);
		break;
	case 5:
		a = fake_random_mount(k, false);
		if (a && fake_subtree_size(k, a) <= 8)
			fake_umount_tree(k, a);
		break;
	case 10:
		/* Small trees only: the fake never reuses its slots. */
		a = fake_random_mount(k, false);
		if (a && fake_subtree_size(k, a) <= 4)
			fake_rbind(k, a, fake_random_mount(k, true), name);
		break;
	case 6: case 7:
		a = fake_random_mount(k, false);
		b = fake_random_mount(k, true);
		if (a && b && !fake_is_ancestor(k, a, b))
			fake_move(k, a, b, name);
		break;
	default:
		a = fake_random_mount(k, true);
		fake_setattr(k, a, (uint64_t)(rand() % 16));
		break;
	}
}

/* Applying every event as it happens: the table and the mirrored sums are exact. */
static void test_events_exact(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	unsigned serial = 0, queries_before;
	uint64_t events_before;

	build_tree(k, 100);
	fake_flush_queue(k);
	snapshot(m, rec);
	for (unsigned i = 0; i < 3000; i++) {
		queries_before = fake_queries(k);
		events_before = m->events;
		random_op(k, &serial);
		drain_fake(m);
		/* O(1) per event: at most one query per record (none for unmounts). */
		assert_se(fake_queries(k) - queries_before <= m->events - events_before);
		if (compare(m, k) != 0) {
			fprintf(stderr, "after op %u\n", i);
			(void)compare(m, k);
			assert_se(0);
		}
	}
	assert_se(m->resyncs == 0 && m->overruns == 0);
	assert_se(rec->generation_monotonic);
	assert_se(rec->added > 0 && rec->removed > 0 && rec->changed > 0);
	/* Parents come from the records and the table, not from O(N) ID lookups. */
	assert_se(fake_resolves(k) == 0);
	printf("ok - events applied one by one keep table and counters exact (%u checks so far)\n", check_count);
}

/*
 * Batches of events, read after the whole burst: queries see the present,
 * which includes records still in the queue; the table and every counter
 * are exact all the same.
 */
static void test_events_batched(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	unsigned serial = 0;
	char what[64];

	build_tree(k, 50);
	fake_flush_queue(k);
	snapshot(m, rec);
	for (unsigned round = 0; round < 300; round++) {
		unsigned burst = 1 + (unsigned)rand() % 30;

		for (unsigned i = 0; i < burst; i++)
			random_op(k, &serial);
		drain_fake(m);
		snprintf(what, sizeof(what), "batch %u (%u operations)", round, burst);
		check_exact(m, k, what);
	}
	assert_se(m->resyncs == 0);
	assert_se(rec->generation_monotonic);
	printf("ok - batched events keep the table and every counter exact (%u operations, %zu mounts)\n",
	       serial, table_size(m->table));
}

/* Lost records: resync re-queries exactly the mounts that lost records touched. */
static void test_overrun_requery(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t leaves[10];
	uint64_t p = fake_root(k);
	unsigned touched;
	char name[32];

	/* A chain of 5 and 300 mounts beside it; snapshot with exact counters. */
	for (unsigned i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		p = fake_mount(k, p, name, "tmpfs");
	}
	for (unsigned i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "w%u", i);
		uint64_t id = fake_mount(k, fake_root(k), name, "tmpfs");

		if (i < 10)
			leaves[i] = fake_mount(k, id, "leaf", "ext4");
	}
	snapshot(m, rec);
	drain_fake(m); /* overflowed during set-up: resync */
	(void)fake_touched_by_loss(k, true);
	assert_se(compare(m, k) == 0);

	/* 10 attribute changes into a queue of 4: 6 records lost. */
	for (unsigned i = 0; i < 10; i++)
		fake_setattr(k, leaves[i], 1);
	touched = fake_touched_by_loss(k, true);
	drain_fake(m);
	assert_se(m->overruns >= 1);
	assert_se(compare(m, k) == 0);
	/* 6 leaves, their 6 parents, and the root. */
	assert_se(touched == 13);
	assert_se(m->last_resync.requeried == touched);
	assert_se(m->last_resync.changed == 6 && m->last_resync.added == 0 && m->last_resync.removed == 0);
	assert_se(rec->resynced >= 1);

	/* A mount that vanished without a record is dropped by a resync. */
	fake_unmount_silently(k, leaves[0]);
	assert_se(watcher_resync(m, NULL, true) == 0);
	assert_se(m->last_resync.removed == 1 && m->last_resync.requeried == 0);
	assert_se(compare(m, k) == 0);
	printf("ok - overrun: resync re-queries only the %u mounts touched by lost records\n", touched);
}

/* A move whose records were lost: the resync finds it and counts it as changed. */
static void test_overrun_move(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t a = fake_mount(k, fake_root(k), "a", "tmpfs");
	uint64_t b = fake_mount(k, fake_root(k), "b", "tmpfs");
	uint64_t x = fake_mount(k, a, "x", "tmpfs");

	fake_flush_queue(k);
	snapshot(m, rec);
	/* Fill the queue of 4 with mounts that come and go, then move x: its records are lost. */
	for (unsigned i = 0; i < 4; i++)
		fake_umount(k, fake_mount(k, b, "tmp", "tmpfs"));
	fake_move(k, x, b, "x");
	drain_fake(m);
	assert_se(m->overruns >= 1);
	assert_se(compare(m, k) == 0);
	assert_se(streq_ptr(table_get(m->table, x)->info.mount_point, "/b/x"));
	/* Only x's record changed (its point and parent); the others only in their sums. */
	assert_se(m->last_resync.changed == 1 && m->last_resync.added == 0 && m->last_resync.removed == 0);
	printf("ok - overrun: a lost move is found by the resync and counted as changed\n");
}

/*
 * Applies what the queue holds, without ending the batch, and checks that
 * the mounts whose sums differ from the kernel's (or that the table lacks)
 * are exactly those some lost record touched: what the resync will re-query.
 */
static unsigned apply_queue_check_loss(mw_watcher *m, FakeKernel *k)
{
	MountEvent events[64];
	unsigned i = 0, differ = 0;
	uint64_t id;
	int n;

	while ((n = m->backend->ops->read_events(m->backend, events, ELEMENTSOF(events))) > 0)
		for (int j = 0; j < n; j++)
			assert_se(watcher_apply_event(m, &events[j]) == 0);
	while (fake_iterate(k, &i, &id)) {
		Mount *e = table_get(m->table, id);
		bool differs = !e || e->info.notify_sum != kernel_sum(k, id);

		if (differs != fake_touched(k, id))
			fprintf(stderr, "mount %" PRIu64 ": %s, %s by a lost record\n", id,
				differs ? "sum differs" : "sum equal", fake_touched(k, id) ? "touched" : "untouched");
		assert_se(differs == fake_touched(k, id));
		differ += differs;
	}
	(void)fake_touched_by_loss(k, true);
	return differ;
}

/* Random storms into a tiny queue: the table converges, resyncs happen. */
static void test_overrun_random(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	unsigned serial = 0, requeried = 0, sizes = 0, differ = 0;

	build_tree(k, 100);
	snapshot(m, rec);
	drain_fake(m);
	(void)fake_touched_by_loss(k, true);
	for (unsigned round = 0; round < 300; round++) {
		unsigned burst = 1 + (unsigned)rand() % 40;
		uint64_t resyncs = m->resyncs;

		for (unsigned i = 0; i < burst; i++)
			random_op(k, &serial);
		differ += apply_queue_check_loss(m, k);
		assert_se(watcher_finish_batch(m) == 0);
		if (m->resyncs > resyncs) {
			requeried += m->last_resync.requeried;
			sizes += (unsigned)table_size(m->table);
		}
		check_exact(m, k, "an overrun storm and its resync");
	}
	assert_se(m->resyncs > 0 && m->overruns > 0);
	assert_se(rec->generation_monotonic);
	/* Far fewer queries than re-reading the whole table each time. */
	assert_se(requeried < sizes);
	printf("ok - overrun storms: %" PRIu64 " resyncs, %u of %u mounts re-queried (%u touched by lost records), table exact\n",
	       m->resyncs, requeried, sizes, differ);
}

/* A move carries its subtree: descendants' mount points follow. */
static void test_move_subtree(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t a, b, c, d;
	Mount *e;

	a = fake_mount(k, fake_root(k), "a", "tmpfs");
	b = fake_mount(k, a, "b", "tmpfs");
	c = fake_mount(k, b, "c", "tmpfs");
	d = fake_mount(k, fake_root(k), "d", "tmpfs");
	snapshot(m, rec);
	drain_fake(m);

	fake_move(k, a, d, "x");
	drain_fake(m);
	(void)compare(m, k);
	e = table_get(m->table, c);
	assert_se(e && streq_ptr(e->info.mount_point, "/d/x/b/c"));
	assert_se(rec->removed == 0); /* a move is a change, not a removal */

	/* Stacked mounts: the topmost one answers for the path. */
	uint64_t s1 = fake_mount(k, fake_root(k), "s", "tmpfs");
	uint64_t s2 = fake_mount(k, fake_root(k), "s", "ext4");
	drain_fake(m);
	(void)compare(m, k);
	e = table_topmost_at(m->table, "/s");
	assert_se(e && e->info.unique_id == s2);
	fake_umount(k, s2);
	drain_fake(m);
	e = table_topmost_at(m->table, "/s");
	assert_se(e && e->info.unique_id == s1);
	(void)b;
	printf("ok - moves carry subtrees; stacked mounts resolve to the topmost\n");
}

/* A consumer that keeps, for one mount point, the mount at the top there, as PID 1 keeps a unit. */
typedef struct Follower {
	Recorder rec;
	const char *point;
	uint64_t top;
} Follower;

static void follow(mw_watcher *m, const mw_change *c, void *userdata)
{
	Follower *f = userdata;
	const mw_mount *top;

	record(m, c, &f->rec);
	if (!streq_ptr(mw_change_get_mount_point(c), f->point))
		return;
	top = mw_watcher_get_mount_by_path(m, f->point);
	f->top = top ? mw_mount_get_unique_id(top) : 0;
}

/*
 * A mount slides beneath the one at /d/s (a propagated copy arriving where a
 * mount sits): MOVE_FROM(u), NEW_MOUNT(n), MOVE_TO(u). A consumer that
 * re-reads the top of a point at each change of it ends with u there - also
 * when u's record was already read in its new place by an earlier record of
 * the same batch (here a SETATTR), so that its MOVE_TO changes nothing: the
 * NEW_MOUNT's change must not have been announced with u missing.
 */
static void test_slid_beneath(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	Follower f = { .point = "/d/s" };
	uint64_t d, u, n;
	const mw_mount *top;

	d = fake_mount(k, fake_root(k), "d", "tmpfs");
	u = fake_mount(k, d, "s", "tmpfs");
	fake_flush_queue(k);
	snapshot(m, rec);
	mw_watcher_set_change_fn(m, follow, &f);

	n = fake_mount_beneath(k, u, "tmpfs");
	drain_fake(m);
	check_exact(m, k, "a mount slid beneath another");
	top = mw_watcher_get_mount_by_path(m, "/d/s");
	assert_se(top && mw_mount_get_unique_id(top) == u);
	assert_se(mw_mount_get_parent_unique_id(top) == n);
	assert_se(f.top == u);

	/* u's record read in its new place before its MOVE_FROM comes. */
	fake_setattr(k, n, 1);
	fake_setattr(k, u, 1);
	n = fake_mount_beneath(k, u, "tmpfs");
	drain_fake(m);
	check_exact(m, k, "a mount slid beneath another, its record read early");
	top = mw_watcher_get_mount_by_path(m, "/d/s");
	assert_se(top && mw_mount_get_unique_id(top) == u);
	if (f.top != u)
		fprintf(stderr, "the consumer's top of /d/s: %" PRIu64 ", not %" PRIu64 "\n", f.top, u);
	assert_se(f.top == u);
	assert_se(f.rec.removed == 0);
	printf("ok - a mount slid beneath another: the one on top stays the top for a consumer too\n");
}

/*
 * A read that falls between a move's MOVE_FROM and MOVE_TO: the watcher
 * waits for MOVE_TO instead of dropping the moved tree and reading it back.
 */
static void test_move_split(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t a, c, d;
	unsigned queries;
	Mount *e;

	a = fake_mount(k, fake_root(k), "a", "tmpfs");
	(void)fake_mount(k, a, "b", "tmpfs");
	c = fake_mount(k, a, "c", "tmpfs");
	d = fake_mount(k, fake_root(k), "d", "tmpfs");
	fake_flush_queue(k);
	snapshot(m, rec);
	queries = fake_queries(k);

	fake_split_next_read(k, 1); /* the batch ends after MOVE_FROM */
	fake_move(k, a, d, "x");
	drain_fake(m);
	assert_se(compare(m, k) == 0);
	assert_se(rec->removed == 0 && rec->added == 0);
	/* One query per MOVE_TO: the kernel names each mount of the moved tree. */
	assert_se(fake_queries(k) == queries + fake_subtree_size(k, a));
	e = table_get(m->table, c);
	assert_se(e && streq_ptr(e->info.mount_point, "/d/x/c"));
	printf("ok - a batch that ends between MOVE_FROM and MOVE_TO: the tree just moves\n");
}

/*
 * The rules by hand for an rbind of the chain a/x/y: NEW_MOUNT(root, b),
 * NEW_MOUNT(b, x'), NEW_MOUNT(x', y'), counted with the whole copy attached.
 * A topology record counts 1 for the child and 2 for the parent and each of
 * its ancestors: b 1 + 2 + 2, x' 1 + 2, y' 1, the root 2 + 2 + 2. Queried
 * when the first record is read, b would already say 5 and then count the
 * two records after it again.
 */
static void test_counters_rbind(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t root = fake_root(k), a, x, b, x2, y2;
	char name[16];

	a = fake_mount(k, root, "a", "tmpfs");
	x = fake_mount(k, a, "x", "tmpfs");
	(void)fake_mount(k, x, "y", "tmpfs");
	fake_flush_queue(k);
	snapshot(m, rec);

	/* Read in one batch, and with the batch ending after each record. */
	for (unsigned split = 0; split < 3; split++) {
		uint64_t root0 = table_sum(m, root);

		snprintf(name, sizeof(name), "b%u", split);
		if (split)
			fake_split_next_read(k, split);
		b = fake_rbind(k, a, root, name);
		drain_fake(m);
		if (split)
			drain_fake(m);
		assert_se(table_first_child(m->table, b));
		x2 = table_first_child(m->table, b)->info.unique_id;
		assert_se(table_first_child(m->table, x2));
		y2 = table_first_child(m->table, x2)->info.unique_id;
		assert_se(table_sum(m, b) == 5 && table_sum(m, x2) == 3 && table_sum(m, y2) == 1);
		assert_se(table_sum(m, root) == root0 + 6);
		check_exact(m, k, "an rbind");
	}
	printf("ok - rbind: each new mount starts at the sum its NEW_MOUNT gives it\n");
}

/*
 * A lazy unmount of a/{b/c,d} below r posts UNMOUNT(r, a), UNMOUNT(a, b),
 * UNMOUNT(a, d), UNMOUNT(b, c), parents first. UNMOUNT(r, a) counts 2 for r
 * and the root; after it a and all below it are gone, so the records of the
 * mounts below a count nowhere that lives on: the walks must stop at a, not
 * go on through it. Also when the batch ends in the middle of the records.
 */
static void test_counters_lazy_unmount(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t root = fake_root(k), r, a, b;
	char name[16];

	snapshot(m, rec);
	for (unsigned split = 0; split < 4; split++) {
		uint64_t r0, root0;
		unsigned removed;

		snprintf(name, sizeof(name), "r%u", split);
		r = fake_mount(k, root, name, "tmpfs");
		a = fake_mount(k, r, "a", "tmpfs");
		b = fake_mount(k, a, "b", "tmpfs");
		(void)fake_mount(k, b, "c", "tmpfs");
		(void)fake_mount(k, a, "d", "tmpfs");
		drain_fake(m);
		check_exact(m, k, "mounting a tree");
		r0 = table_sum(m, r);
		root0 = table_sum(m, root);
		removed = rec->removed;

		if (split)
			fake_split_next_read(k, split);
		fake_umount_tree(k, a);
		drain_fake(m);
		if (split)
			drain_fake(m);
		assert_se(table_sum(m, r) == r0 + 2);
		assert_se(table_sum(m, root) == root0 + 2);
		assert_se(rec->removed == removed + 4); /* one MountRemoved each, as before */
		check_exact(m, k, "a lazy unmount");
	}
	printf("ok - lazy unmount of a tree: only its top's record counts above it\n");
}

/*
 * Moves read in one batch with other records: the query of an early record
 * sees where the mount is now, not where it was; the counters follow the
 * parents the records named.
 */
static void test_counters_moves_batched(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t root = fake_root(k), p, q, s, c, d;

	p = fake_mount(k, root, "p", "tmpfs");
	q = fake_mount(k, root, "q", "tmpfs");
	s = fake_mount(k, root, "s", "tmpfs");
	fake_flush_queue(k);
	snapshot(m, rec);

	/* Mounted, moved twice, with records below it in between. */
	c = fake_mount(k, p, "c", "tmpfs");
	d = fake_mount(k, c, "d", "tmpfs");
	fake_move(k, c, q, "c");
	fake_setattr(k, d, 1);
	fake_move(k, c, s, "c");
	(void)fake_mount(k, d, "e", "tmpfs");
	drain_fake(m);
	check_exact(m, k, "moves in one batch");
	assert_se(streq_ptr(table_get(m->table, d)->info.mount_point, "/s/c/d"));

	/* Gone before its first record is read: the walks pass through it. */
	c = fake_mount(k, p, "c2", "tmpfs");
	d = fake_mount(k, c, "d", "tmpfs");
	fake_move(k, c, q, "c2");
	fake_setattr(k, d, 1);
	fake_umount_tree(k, c);
	drain_fake(m);
	check_exact(m, k, "a tree moved and unmounted in one batch");

	/* Moved in the same batch as a lazy unmount below it. */
	c = fake_mount(k, p, "c3", "tmpfs");
	d = fake_mount(k, c, "d", "tmpfs");
	(void)fake_mount(k, d, "e", "tmpfs");
	drain_fake(m);
	fake_move(k, c, s, "c3");
	fake_umount_tree(k, d);
	fake_move(k, c, q, "c3");
	drain_fake(m);
	check_exact(m, k, "a move, a lazy unmount below it, a move");
	assert_se(rec->generation_monotonic);
	printf("ok - moves in a batch: ancestors follow the records, not the queries\n");
}

/*
 * pivot_root(2) in a root c: MOVE_FROM(a, n), MOVE_FROM(root, c), then
 * MOVE_TO for n and everything below it, the old root c (now on n/x) and
 * its mounts included. The table and every sum stay exact, also when the
 * batch ends after any of the records.
 */
static void test_pivot_root(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t root = fake_root(k);
	char name[16];

	snapshot(m, rec);
	for (unsigned split = 0; split < 6; split++) {
		uint64_t c, a, n, x;

		snprintf(name, sizeof(name), "c%u", split);
		c = fake_mount(k, root, name, "tmpfs");
		a = fake_mount(k, c, "a", "tmpfs");
		(void)fake_mount(k, c, "y", "tmpfs");
		n = fake_mount(k, a, "n", "tmpfs");
		x = fake_mount(k, n, "x", "tmpfs");
		(void)fake_mount(k, x, "z", "tmpfs");
		drain_fake(m);
		check_exact(m, k, "building a root to pivot");

		if (split)
			fake_split_next_read(k, split);
		fake_pivot_root(k, c, n, x);
		drain_fake(m);
		if (split)
			drain_fake(m);
		check_exact(m, k, "pivot_root");
		snprintf(name, sizeof(name), "/c%u/x/old/a", split);
		assert_se(table_get(m->table, a) && streq_ptr(table_get(m->table, a)->info.mount_point, name));
		fake_umount_tree(k, n);
		drain_fake(m);
		check_exact(m, k, "unmounting the pivoted tree");
	}
	assert_se(m->resyncs == 0 && rec->generation_monotonic);
	printf("ok - pivot_root: the records' order keeps the table and every sum exact\n");
}

/* Watching /w: mounts beside it are reported by the kernel but not exported. */
static void test_watched_subtree(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t w, x, y;

	assert_se(free_and_strdup(&m->path, "/w") >= 0);
	w = fake_mount(k, fake_root(k), "w", "tmpfs");
	fake_flush_queue(k);
	snapshot(m, rec);
	x = fake_mount(k, w, "x", "tmpfs");
	y = fake_mount(k, fake_root(k), "y", "tmpfs");
	drain_fake(m);
	assert_se(table_get(m->table, x) && !table_get(m->table, y));
	assert_se(!table_get(m->table, fake_root(k)) && table_size(m->table) == 2);
	/* Moving x out of /w takes it out of the table. */
	fake_move(k, x, y, "x");
	drain_fake(m);
	assert_se(!table_get(m->table, x));
	fake_move(k, x, w, "back");
	drain_fake(m);
	assert_se(table_get(m->table, x) && streq_ptr(table_get(m->table, x)->info.mount_point, "/w/back"));
	assert_se(table_sum(m, w) == kernel_sum(k, w));
	/*
	 * Mounted below /w and moved beside it before the watcher reads the
	 * records: never exported, but the mount below it counted for /w.
	 */
	x = fake_mount(k, w, "x2", "tmpfs");
	(void)fake_mount(k, x, "d", "tmpfs");
	fake_move(k, x, y, "x2");
	drain_fake(m);
	assert_se(!table_get(m->table, x));
	assert_se(table_sum(m, w) == kernel_sum(k, w));
	printf("ok - a watched subtree exports only what is below it\n");
}

/* The mount points of x's tree as the table has them: x on /w/NAME, d on it, e on d. */
static void check_moved_in(mw_watcher *m, uint64_t x, uint64_t d, uint64_t e, const char *name)
{
	char p[64];
	Mount *t;

	snprintf(p, sizeof(p), "/w/%s", name);
	assert_se((t = table_get(m->table, x)) && streq_ptr(t->info.mount_point, p));
	snprintf(p, sizeof(p), "/w/%s/d", name);
	assert_se((t = table_get(m->table, d)) && streq_ptr(t->info.mount_point, p));
	snprintf(p, sizeof(p), "/w/%s/d/e", name);
	assert_se((t = table_get(m->table, e)) && streq_ptr(t->info.mount_point, p));
}

/*
 * A backend that names only the top of a moved tree (fanotify): a tree moved
 * into the watched subtree from beside it has its children listed and
 * queried by the watcher; when listing them or querying one fails, they are
 * not known, and a resync finds them.
 */
static void test_moved_in_children(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t w, y, x[3], d[3], e[3];
	unsigned resyncs;

	assert_se(free_and_strdup(&m->path, "/w") >= 0);
	fake_moves_top_only(k);
	w = fake_mount(k, fake_root(k), "w", "tmpfs");
	y = fake_mount(k, fake_root(k), "y", "tmpfs");
	for (unsigned i = 0; i < 3; i++) {
		char name[8];

		snprintf(name, sizeof(name), "x%u", i);
		x[i] = fake_mount(k, y, name, "tmpfs");
		d[i] = fake_mount(k, x[i], "d", "tmpfs");
		e[i] = fake_mount(k, d[i], "e", "tmpfs");
	}
	fake_flush_queue(k);
	snapshot(m, rec);
	assert_se(table_size(m->table) == 1);

	fake_move(k, x[0], w, "x0");
	drain_fake(m);
	check_moved_in(m, x[0], d[0], e[0], "x0");
	assert_se(table_size(m->table) == 4);
	resyncs = m->resyncs;

	fake_fail_children(k, 1);
	fake_move(k, x[1], w, "x1");
	drain_fake(m);
	assert_se(m->resyncs > resyncs);
	check_moved_in(m, x[1], d[1], e[1], "x1");
	resyncs = m->resyncs;

	fake_fail_query_of(k, d[2]);
	fake_move(k, x[2], w, "x2");
	drain_fake(m);
	assert_se(m->resyncs > resyncs);
	check_moved_in(m, x[2], d[2], e[2], "x2");
	assert_se(table_size(m->table) == 10);
	printf("ok - a tree moved in whole, named by its top: its children listed, a failed listing or query resynced\n");
}

/*
 * A remount is one SB_CHANGED naming one mount of the superblock: every bind
 * of it changes from one query, each announced once, and every mount of the
 * superblock counts one, its ancestors once per such mount below them.
 */
static void test_superblock_remount(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t root = fake_root(k), a, b, c, d, root0, c0;
	unsigned queries;

	a = fake_mount(k, root, "a", "tmpfs");
	b = fake_bind(k, a, root, "b");
	c = fake_bind(k, a, root, "c");
	d = fake_bind(k, a, c, "d"); /* below another mount of the superblock */
	fake_flush_queue(k);
	snapshot(m, rec);
	root0 = table_sum(m, root);
	c0 = table_sum(m, c);
	queries = fake_queries(k);
	fake_remount_sb(k, b, "ro,size=1k");
	drain_fake(m);
	check_exact(m, k, "a superblock remount");
	assert_se(fake_queries(k) == queries + 1);
	for (uint64_t id = a; id <= d; id++)
		assert_se(streq_ptr(table_get(m->table, id)->info.super_options, "ro,size=1k"));
	assert_se(rec->changed == 4 && rec->superblock == 1);
	/* c: itself and d below it; the root: all four. */
	assert_se(table_sum(m, c) == c0 + 2 && table_sum(m, root) == root0 + 4);

	/* A reconfigure that changes nothing still counts, and announces nothing. */
	fake_remount_sb(k, a, "ro,size=1k");
	drain_fake(m);
	check_exact(m, k, "a remount that changes nothing");
	assert_se(rec->changed == 4 && rec->superblock == 2);
	printf("ok - a superblock remount updates every mount of it from one query\n");
}

/*
 * Binds of one filesystem made back to back: the first new mount of the
 * superblock asks for its ID, the others take it from the new mount before
 * them (the same device): one superblock query for the run, every record
 * as the kernel has it. A mount of another filesystem asks again.
 */
static void test_binds_share_superblock(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t root = fake_root(k), a, t;
	unsigned sb_queries, queries;
	char name[16];

	fake_flush_queue(k);
	snapshot(m, rec);
	sb_queries = fake_sb_queries(k);
	queries = fake_queries(k);
	a = fake_mount(k, root, "a", "tmpfs");
	for (unsigned i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "b%u", i);
		(void)fake_bind(k, a, root, name);
	}
	t = fake_mount(k, root, "t", "tmpfs");
	(void)fake_bind(k, t, root, "tb");
	drain_fake(m);
	check_exact(m, k, "binds of one superblock");
	assert_se(rec->added == 53);
	assert_se(fake_queries(k) == queries + 53);
	assert_se(fake_sb_queries(k) == sb_queries + 2);
	assert_se(table_get(m->table, t)->info.superblock_id != table_get(m->table, a)->info.superblock_id);
	printf("ok - binds of one filesystem in a row: one superblock query\n");
}

/*
 * A device is its superblock's only while it lives: the last new mount's
 * filesystem unmounted and a new one given its device, in one batch. The
 * UNMOUNT is read first and drops the old mount, so the new one is asked
 * for its own superblock's ID.
 */
static void test_device_reused(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t root = fake_root(k), a, b, c, a_sb;
	unsigned dev;

	fake_flush_queue(k);
	snapshot(m, rec);
	a = fake_mount(k, root, "a", "tmpfs");
	drain_fake(m);
	assert_se(m->last_new == a);
	a_sb = table_get(m->table, a)->info.superblock_id;
	dev = fake_device(k, a);
	fake_umount(k, a);
	b = fake_mount(k, root, "b", "tmpfs");
	fake_set_device(k, b, dev);
	c = fake_bind(k, b, root, "c");
	drain_fake(m);
	check_exact(m, k, "a device reused by a new superblock");
	assert_se(!table_get(m->table, a));
	assert_se(table_get(m->table, b)->info.superblock_id != a_sb);
	assert_se(table_get(m->table, c)->info.superblock_id == table_get(m->table, b)->info.superblock_id);
	printf("ok - a device reused after its superblock went: the new superblock's ID\n");
}

/* SB_CHANGED read after the mount it names is gone: another mount of it answers. */
static void test_sb_changed_record(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t a, b, c;

	a = fake_mount(k, fake_root(k), "a", "tmpfs");
	b = fake_bind(k, a, fake_root(k), "b");
	c = fake_bind(k, a, fake_root(k), "c");
	fake_flush_queue(k);
	snapshot(m, rec);
	fake_remount_sb(k, b, "ro,size=2k");
	fake_umount(k, b);
	drain_fake(m);
	check_exact(m, k, "SB_CHANGED naming a mount gone since");
	assert_se(!table_get(m->table, b));
	assert_se(streq_ptr(table_get(m->table, a)->info.super_options, "ro,size=2k"));
	assert_se(streq_ptr(table_get(m->table, c)->info.super_options, "ro,size=2k"));
	assert_se(rec->superblock == 1 && rec->removed == 1);
	printf("ok - an SB_CHANGED record naming a mount gone since updates the others\n");
}

/*
 * automount(8)'s start-up probe: a mount of its own superblock, made
 * catatonic (SB_CHANGED) and unmounted before the watcher reads a record. The
 * mount is gone when its NEW_MOUNT is read, so no table mount has the
 * superblock; the kernel still counted the SB_CHANGED in its parent.
 */
static void test_sb_changed_of_gone_mount(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t p, root = fake_root(k), sum;

	snapshot(m, rec);
	/*
	 * The snapshot's sums wait for a confirmation (watcher_verify()),
	 * which re-reads every mount whose sum is off: done before the probe,
	 * as in a daemon that has run a while, or it would repair the
	 * parent's sum and hide the mirror's miss.
	 */
	drain_fake(m);
	assert_se(!watcher_verify_waiting(m) && !m->resync_pending);
	check_exact(m, k, "the snapshot's confirmation");
	sum = table_sum(m, root);
	p = fake_mount(k, root, "probe", "autofs");
	fake_remount_sb(k, p, "fd=-1");
	fake_umount(k, p);
	/* NEW_MOUNT +2, SB_CHANGED +1 (the probe is below /), UNMOUNT +2. */
	assert_se(kernel_sum(k, root) == sum + 5);
	drain_fake(m);
	/* Nothing but the three records made the sums: no resync, no confirmation. */
	assert_se(!watcher_verify_waiting(m) && m->resyncs == 0);
	assert_se(table_sum(m, root) == sum + 5);
	check_exact(m, k, "a mount, its SB_CHANGED and its umount, all read after it went");
	assert_se(!table_get(m->table, p));
	printf("ok - SB_CHANGED of a mount gone before its NEW_MOUNT was read counts in its parent\n");
}

/* Records about mounts already gone, twice-seen mounts, unknown IDs: no harm. */
/* A storm: one mw_watcher_process() reads a bounded number of records and asks to be called again at once. */
static void test_bounded_process(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t events_before;
	char name[32];
	unsigned calls = 0;

	snapshot(m, rec);
	events_before = m->events;
	for (unsigned i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		fake_mount(k, fake_root(k), name, "tmpfs");
	}
	assert_se(mw_watcher_process(m) >= 0);
	assert_se(m->events - events_before <= 320); /* a few hundred, not the 1000 queued */
	assert_se(table_size(m->table) < fake_count(k));
	assert_se(mw_watcher_get_timeout(m) <= now_usec()); /* call again: due now */
	verify_now(m); /* the snapshot's */
	while (mw_watcher_get_timeout(m) != UINT64_MAX) {
		assert_se(mw_watcher_process(m) >= 0);
		calls++;
	}
	assert_se(calls >= 3);
	assert_se(m->events - events_before == 1000 && rec->added == 1000 && m->overruns == 0);
	check_exact(m, k, "a storm in bounded steps");
	printf("ok - a storm of 1000 records is read a few hundred per call, due again at once (%u calls more)\n",
	       calls);
}

/* Waits until the watcher's timeout has passed, as an event loop's timer would. */
static void wait_for_timeout(mw_watcher *m)
{
	while (now_usec() < mw_watcher_get_timeout(m))
		usleep(10000);
}

/*
 * Records queued behind a loss are not applied: the resync that follows
 * reads their mounts anyway. The kernel reports the loss after the records
 * queued before it, and here 3 more come behind it.
 */
static void test_loss_drops_queue(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	char name[32];

	snapshot(m, rec);
	fake_split_next_read(k, 4);
	for (unsigned i = 0; i < 10; i++) { /* a queue of 8: 2 lost */
		snprintf(name, sizeof(name), "a%u", i);
		fake_mount(k, fake_root(k), name, "tmpfs");
	}
	assert_se(mw_watcher_process(m) == 4); /* the reader caught up half way */
	assert_se(m->overruns == 0 && rec->resynced == 0);
	for (unsigned i = 0; i < 3; i++) { /* queued behind the loss */
		snprintf(name, sizeof(name), "b%u", i);
		fake_mount(k, fake_root(k), name, "tmpfs");
	}
	assert_se(mw_watcher_process(m) >= 0);
	assert_se(m->overruns == 1 && rec->resynced == 1);
	/* The 4 before the loss were applied as records; the 2 lost and the 3 behind came from the resync. */
	assert_se(m->last_resync.added == 5);
	assert_se(rec->added == 13);
	/* The counters are confirmed by one more listing, once it is due. */
	assert_se(m->sums_unsure && mw_watcher_get_timeout(m) == m->verify_due);
	wait_for_timeout(m);
	assert_se(mw_watcher_process(m) == 0);
	assert_se(!m->sums_unsure && mw_watcher_get_timeout(m) == UINT64_MAX);
	check_exact(m, k, "a loss with records behind it");
	printf("ok - after a loss the queued records are dropped and the resync reads their mounts\n");
}

/*
 * Records still in the queue when the resync lists the mounts are counted in
 * the listing and mirrored again when read: the sums come out too high (so
 * the next resync would re-query those mounts for nothing) until a listing
 * taken between two empty reads of the queue confirms them.
 */
static void test_verify_after_resync(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t root = fake_root(k);
	char name[32];

	snapshot(m, rec);
	verify_now(m);
	assert_se(mw_watcher_process(m) == 0 && !m->sums_unsure); /* the snapshot's sums */
	fake_split_next_read(k, 4);
	for (unsigned i = 0; i < 10; i++) { /* a queue of 8: 2 lost */
		snprintf(name, sizeof(name), "a%u", i);
		fake_mount(k, root, name, "tmpfs");
	}
	assert_se(mw_watcher_process(m) == 4);
	for (unsigned i = 0; i < 3; i++) { /* queued behind the loss */
		snprintf(name, sizeof(name), "b%u", i);
		fake_mount(k, root, name, "tmpfs");
	}
	/* The 4 left and the loss, then the queue looks empty: the b records stay. */
	fake_split_next_read(k, 5);
	assert_se(mw_watcher_process(m) >= 0);
	assert_se(m->overruns == 1 && rec->resynced == 1 && m->sums_unsure);
	assert_se(mw_watcher_process(m) >= 0); /* reads b0..b2, counted twice */
	assert_se(table_sum(m, root) > kernel_sum(k, root));
	assert_se(compare(m, k) != 0);

	/*
	 * The batch reads c and finds the queue empty (as d is posted): the
	 * listing counts d, which is read after it - no confirmation yet.
	 */
	fake_mount(k, root, "c", "tmpfs");
	fake_mount(k, root, "d", "tmpfs");
	fake_split_next_read(k, 1);
	verify_now(m);
	assert_se(mw_watcher_process(m) >= 0);
	assert_se(m->sums_unsure && m->verify_due > now_usec());
	assert_se(table_sum(m, root) > kernel_sum(k, root));
	/* Later, with the queue empty before and after the listing: confirmed. */
	assert_se(mw_watcher_process(m) >= 0); /* ends the batch d opened */
	assert_se(mw_watcher_get_timeout(m) == m->verify_due && m->sums_unsure);
	wait_for_timeout(m);
	assert_se(mw_watcher_process(m) >= 0);
	assert_se(!m->sums_unsure);
	assert_se(mw_watcher_get_timeout(m) == UINT64_MAX);
	assert_se(m->resyncs == 1 && rec->resynced == 1); /* not a resync of its own */
	check_exact(m, k, "the counters' confirmation after a resync");
	printf("ok - after a resync, sums mirrored twice from records queued before its listing are set right by one more listing\n");
}

/* A resync that fails is retried from the watcher's timeout, without new records, with a growing delay. */
static void test_resync_retry(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t leaves[10], t1, backoff;
	char name[32];

	for (unsigned i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "r%u", i);
		leaves[i] = fake_mount(k, fake_root(k), name, "tmpfs");
	}
	fake_flush_queue(k);
	snapshot(m, rec);
	assert_se(mw_watcher_get_resync_error(m) == 0);

	fake_fail_listings(k, 2);
	for (unsigned i = 0; i < 10; i++) /* a queue of 4: an overrun */
		fake_setattr(k, leaves[i], 1);
	t1 = now_usec();
	assert_se(mw_watcher_process(m) == -EIO);
	assert_se(m->overruns == 1 && m->resyncs == 0);
	assert_se(mw_watcher_get_resync_error(m) == -EIO);
	assert_se(mw_watcher_get_timeout(m) != UINT64_MAX && mw_watcher_get_timeout(m) > t1);
	/* Called early (another fd woke the loop): no retry before it is due. */
	assert_se(mw_watcher_process(m) >= 0);
	assert_se(mw_watcher_get_resync_error(m) == -EIO);
	backoff = m->resync_backoff;

	wait_for_timeout(m);
	assert_se(mw_watcher_process(m) == -EIO); /* the second failure */
	assert_se(mw_watcher_get_timeout(m) != UINT64_MAX);
	assert_se(m->resync_backoff > backoff); /* waits longer this time */
	wait_for_timeout(m);
	assert_se(mw_watcher_process(m) >= 0);
	assert_se(mw_watcher_get_resync_error(m) == 0 && mw_watcher_get_timeout(m) == m->verify_due);
	assert_se(m->resyncs == 1 && rec->resynced == 1);
	check_exact(m, k, "a resync that failed twice");
	printf("ok - a failed resync is retried from the timeout with a growing delay, and reported until it succeeds\n");
}

static void test_robustness(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	MountEvent ev;

	snapshot(m, rec);
	ev = (MountEvent){ .type = MOUNT_EVENT_UNMOUNT, .triggered_on = 1, .auxiliary = 999 };
	assert_se(watcher_apply_event(m, &ev) == 0);
	ev = (MountEvent){ .type = MOUNT_EVENT_NEW_MOUNT, .triggered_on = 1, .auxiliary = 999 };
	assert_se(watcher_apply_event(m, &ev) == 0);
	ev = (MountEvent){ .type = MOUNT_EVENT_MOVE_FROM, .triggered_on = fake_root(k), .auxiliary = 12345 };
	assert_se(watcher_apply_event(m, &ev) == 0);
	ev = (MountEvent){ .type = 77 };
	assert_se(watcher_apply_event(m, &ev) == 0);
	assert_se(watcher_finish_batch(m) == 0);
	(void)compare(m, k);

	/* Mount then unmount before the watcher looks: nothing to announce. */
	uint64_t x = fake_mount(k, fake_root(k), "x", "tmpfs");
	fake_umount(k, x);
	drain_fake(m);
	assert_se(rec->added == 0 && rec->removed == 0);
	(void)compare(m, k);
	printf("ok - stale, duplicate and unknown records are harmless\n");
}

/* After -ENOLINK: the table empty, every mount announced gone once, and -ENOLINK from then on. */
static void check_watch_gone(mw_watcher *m, Recorder *rec, unsigned removed)
{
	unsigned added = rec->added;

	assert_se(m->watch_gone && table_size(m->table) == 0 && rec->removed == removed);
	assert_se(mw_watcher_process(m) == -ENOLINK && mw_watcher_resync(m, NULL) == -ENOLINK);
	assert_se(mw_watcher_get_timeout(m) == UINT64_MAX);
	assert_se(rec->removed == removed && rec->added == added);
}

/*
 * The watched mount goes away, as watch_queue says it: the kernel's removal
 * notification. What came before it is applied, then every mount is
 * announced gone (they were all inside it), then -ENOLINK, now and later.
 */
static void test_watch_removed(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	unsigned n;

	build_tree(k, 30);
	fake_flush_queue(k);
	snapshot(m, rec);
	drain_fake(m);
	(void)fake_mount(k, fake_root(k), "late", "tmpfs");
	n = fake_count(k);
	fake_remove_watch(k);
	assert_se(mw_watcher_process(m) == -ENOLINK);
	assert_se(rec->added == 1);
	check_watch_gone(m, rec, n);
	printf("ok - the watch removed (watch_queue): what came before applied, all gone, -ENOLINK from then on\n");
}

/*
 * The same on a backend whose kernel does not say it (fanotify,
 * mountinfo): the watched mount is the one the path was on, and a record
 * of its unmount (there DETACH, here UNMOUNT), or a resync's listing
 * without it, ends the watch the same way.
 */
static void test_watched_mount_unmounted(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t w, x, z;

	assert_se(free_and_strdup(&m->path, "/w") >= 0);
	w = fake_mount(k, fake_root(k), "w", "tmpfs");
	x = fake_mount(k, w, "x", "tmpfs");
	(void)fake_mount(k, x, "y", "tmpfs");
	(void)fake_mount(k, fake_root(k), "beside", "tmpfs");
	fake_flush_queue(k);
	snapshot(m, rec);
	drain_fake(m);
	m->watched_id = w;
	assert_se(table_size(m->table) == 3);
	/* A mount below it goes: nothing more. */
	z = fake_mount(k, x, "z", "tmpfs");
	drain_fake(m);
	fake_umount(k, z);
	drain_fake(m);
	assert_se(!m->watch_gone && table_size(m->table) == 3 && rec->added == 1 && rec->removed == 1);
	/* The lazy unmount's records come parents first: the first ends it. */
	fake_umount_tree(k, w);
	assert_se(mw_watcher_process(m) == -ENOLINK);
	check_watch_gone(m, rec, 4);
	printf("ok - the watched mount's unmount record: all gone, -ENOLINK from then on\n");
}

static void test_watched_mount_gone_resync(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	uint64_t w;

	assert_se(free_and_strdup(&m->path, "/w") >= 0);
	w = fake_mount(k, fake_root(k), "w", "tmpfs");
	(void)fake_mount(k, w, "x", "tmpfs");
	fake_flush_queue(k);
	snapshot(m, rec);
	drain_fake(m);
	m->watched_id = w;
	/* Gone with its records lost: the resync's listing lacks it. */
	fake_unmount_silently(k, w);
	assert_se(mw_watcher_resync(m, NULL) == -ENOLINK);
	check_watch_gone(m, rec, 2);
	printf("ok - the watched mount missing from a resync's listing: all gone, -ENOLINK from then on\n");
}

/* The library is silent unless asked: nothing on stderr, its messages to mw_set_log_fn()'s function. */
static unsigned log_lines;

static void count_log(int level, const char *message, void *userdata)
{
	assert_se(message && !strchr(message, '\n'));
	log_lines++;
}

static void overrun(FakeKernel *k, mw_watcher *m, const char *prefix)
{
	char name[32];

	for (unsigned i = 0; i < 10; i++) { /* a queue of 4: a loss, logged at debug level */
		snprintf(name, sizeof(name), "%s%u", prefix, i);
		(void)fake_mount(k, fake_root(k), name, "tmpfs");
	}
	drain_fake(m);
	assert_se(compare(m, k) == 0);
}

static void test_quiet(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	FILE *err = tmpfile();
	int saved = dup(STDERR_FILENO);

	snapshot(m, rec);
	assert_se(err && saved >= 0 && dup2(fileno(err), STDERR_FILENO) >= 0);
	log_max_level = LOG_DEBUG; /* the daemon's logger, which the library must not use */
	overrun(k, m, "q");
	fflush(stderr);
	assert_se(dup2(saved, STDERR_FILENO) >= 0);
	log_max_level = LOG_WARNING;
	assert_se(ftell(err) == 0);
	assert_se(m->overruns > 0);
	fclose(err);
	close(saved);

	mw_set_log_fn(count_log, NULL);
	overrun(k, m, "r");
	mw_set_log_fn(NULL, NULL);
	assert_se(log_lines > 0);
	printf("ok - silent by default, %u lines to mw_set_log_fn()'s function\n", log_lines);
}

/* What the callback may do (mw_change_fn): getters yes, process/resync/reopen -EBUSY, free deferred. */
typedef struct CallbackRules {
	unsigned calls;
	bool free_it;
	mw_mount *kept;
} CallbackRules;

static void callback_rules(mw_watcher *m, const mw_change *c, void *userdata)
{
	CallbackRules *cr = userdata;
	struct mw_resync_stats rs;

	cr->calls++;
	assert_se(mw_watcher_process(m) == -EBUSY);
	assert_se(mw_watcher_resync(m, &rs) == -EBUSY);
	assert_se(mw_watcher_reopen(m, "/", "mountinfo", 0) == -EBUSY);
	if (mw_change_get_type(c) == MW_CHANGE_ADDED) {
		const mw_mount *mm = mw_change_get_mount(c);

		assert_se(mm && mw_mount_get_unique_id(mm) == mw_change_get_unique_id(c));
		assert_se(streq_ptr(mw_mount_get_mount_point(mm), mw_change_get_mount_point(c)));
		assert_se(mw_watcher_get_mount(m, mw_change_get_unique_id(c)) == mm);
		if (!cr->kept)
			cr->kept = mw_mount_ref((mw_mount *)mm);
	}
	if (cr->free_it)
		assert_se(mw_watcher_free(m) == NULL); /* deferred: m stays usable until we return */
}

static void test_callback_rules(FakeKernel *k, mw_watcher *m, Recorder *rec)
{
	CallbackRules cr = {};
	uint64_t a, b;

	snapshot(m, rec);
	mw_watcher_set_change_fn(m, callback_rules, &cr);
	a = fake_mount(k, fake_root(k), "a", "tmpfs");
	drain_fake(m);
	assert_se(cr.calls == 1 && cr.kept && mw_mount_get_unique_id(cr.kept) == a);
	assert_se(streq_ptr(mw_mount_get_mount_point(cr.kept), "/a"));
	assert_se(streq_ptr(mw_mount_get_fstype(cr.kept), "tmpfs"));
	assert_se(streq_ptr(mw_mount_get_user_options(cr.kept), ""));
	/* Removed from the table: the reference keeps the last values. */
	fake_umount(k, a);
	drain_fake(m);
	assert_se(!mw_watcher_get_mount(m, a));
	assert_se(streq_ptr(mw_mount_get_mount_point(cr.kept), "/a"));
	assert_se(mw_mount_unref(cr.kept) == NULL);
	assert_se(mw_mount_unref(NULL) == NULL && mw_mount_ref(NULL) == NULL);
	printf("ok - callback rules: getters, -EBUSY, references\n");

	/* Freed from the callback: the next two changes are not announced, process says -ECANCELED. */
	cr = (CallbackRules){ .free_it = true };
	b = fake_mount(k, fake_root(k), "b", "tmpfs");
	(void)fake_mount(k, b, "c", "tmpfs");
	assert_se(mw_watcher_process(m) == -ECANCELED);
	assert_se(cr.calls == 1);
	/* A reference taken before the deferred free outlives the watcher. */
	assert_se(cr.kept && streq_ptr(mw_mount_get_mount_point(cr.kept), "/b"));
	mw_mount_unref(cr.kept);
	printf("ok - mw_watcher_free() from the callback is deferred\n");
}

int main(void)
{
	srand(42);
	setvbuf(stdout, NULL, _IONBF, 0);
	log_max_level = LOG_WARNING;
	run(test_snapshot, 4096);
	run(test_events_exact, 4096);
	run(test_events_batched, 4096);
	run(test_overrun_requery, 4);
	run(test_overrun_move, 4);
	run(test_overrun_random, 8);
	run(test_move_subtree, 64);
	run(test_move_split, 64);
	run(test_slid_beneath, 64);
	run(test_counters_rbind, 64);
	run(test_counters_lazy_unmount, 64);
	run(test_counters_moves_batched, 64);
	run(test_superblock_remount, 64);
	run(test_sb_changed_record, 64);
	run(test_sb_changed_of_gone_mount, 64);
	run(test_binds_share_superblock, 64);
	run(test_device_reused, 64);
	run(test_pivot_root, 64);
	run(test_watched_subtree, 64);
	run(test_moved_in_children, 64);
	run(test_robustness, 64);
	run(test_watch_removed, 4096);
	run(test_watched_mount_unmounted, 64);
	run(test_watched_mount_gone_resync, 64);
	run(test_bounded_process, 4096);
	run(test_loss_drops_queue, 8);
	run(test_verify_after_resync, 8);
	run(test_resync_retry, 4);
	run_with(test_callback_rules, 64, true);
	run(test_quiet, 4);
	printf("%u checks passed\n", check_count);
	return 0;
}
