/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for manager.c against the fake kernel: snapshot, event
 * application with counter mirroring, moves with descendants, overruns and
 * resync (re-querying only what lost records touched), signal order and
 * generations.
 */
#include <assert.h>
#include <stdio.h>

#include "manager.h"
#include "test-backend.h"
#include "util.h"

static unsigned checks;

#define CHECK(cond)                                                                     \
	do {                                                                            \
		checks++;                                                               \
		if (!(cond)) {                                                          \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                        \
		}                                                                       \
	} while (0)

typedef struct Recorder {
	unsigned added, removed, changed, resynced;
	uint64_t last_generation;
	bool generation_monotonic;
} Recorder;

static void record(Manager *m, ChangeType type, const Mount *mount, const char *point,
		   uint32_t mask, void *userdata)
{
	Recorder *r = userdata;

	switch (type) {
	case CHANGE_ADDED:
		r->added++;
		break;
	case CHANGE_REMOVED:
		r->removed++;
		break;
	case CHANGE_CHANGED:
		r->changed++;
		CHECK(mask != 0);
		break;
	case CHANGE_RESYNCED:
		r->resynced++;
		break;
	}
	if (type != CHANGE_RESYNCED) {
		if (m->generation != r->last_generation + 1)
			r->generation_monotonic = false;
		r->last_generation = m->generation;
	}
}

typedef void (*TestFn)(FakeKernel *k, Manager *m, Recorder *rec);

/* Runs one test on a new fake kernel (a queue of queue_size records) and manager. */
static void run(TestFn test, unsigned queue_size)
{
	FakeKernel *k = fake_kernel_new(queue_size);
	Recorder rec = { .generation_monotonic = true };
	Manager *m;

	CHECK(manager_new(&m) == 0);
	manager_set_backend(m, fake_kernel_backend(k));
	m->change_fn = record;
	m->change_userdata = &rec;
	test(k, m, &rec);
	manager_free(m);
	fake_kernel_free(k);
}

/* Compares the table with the fake kernel; returns the number of sum mismatches. */
static unsigned compare_verbose;
static unsigned compare(Manager *m, FakeKernel *k)
{
	unsigned i = 0, mismatched = 0;
	uint64_t id;

	CHECK(table_size(m->table) == fake_count(k));
	while (fake_iterate(k, &i, &id)) {
		MountInfo want;
		Mount *e = table_get(m->table, id);

		CHECK(e);
		CHECK(fake_query(k, id, &want) == 0);
		if (!streq_ptr(e->info.mount_point, want.mount_point))
			fprintf(stderr, "mount %" PRIu64 ": table %s, kernel %s\n", id,
				e->info.mount_point, want.mount_point);
		CHECK(streq_ptr(e->info.mount_point, want.mount_point));
		CHECK(e->info.parent_unique_id == want.parent_unique_id);
		CHECK(e->info.parent_id == want.parent_id);
		CHECK(e->info.mnt_id == want.mnt_id);
		CHECK(e->info.attributes == want.attributes);
		CHECK(streq_ptr(e->info.fstype, want.fstype));
		CHECK(streq_ptr(e->info.super_options, want.super_options));
		CHECK(e->info.superblock_id == want.superblock_id);
		CHECK(!e->detached);
		if (compare_verbose && e->info.notify_sum != want.notify_sum)
			fprintf(stderr, "sum %" PRIu64 " %s: table %" PRIu64 " kernel %" PRIu64 "\n", id, want.mount_point, e->info.notify_sum, want.notify_sum);
		mismatched += e->info.notify_sum != want.notify_sum;
		mount_info_done(&want);
	}
	return mismatched;
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

static void snapshot(Manager *m, Recorder *rec)
{
	CHECK(manager_snapshot(m) == 0);
	CHECK(m->generation == 0);
	*rec = (Recorder){ .generation_monotonic = true };
}

static void drain_fake(Manager *m)
{
	CHECK(manager_process_events(m) == 0);
}

static void test_snapshot(FakeKernel *k, Manager *m, Recorder *rec)
{
	build_tree(k, 200);
	snapshot(m, rec);
	CHECK(compare(m, k) == 0);
	CHECK(m->resyncs == 0);
	/* Events queued before the snapshot are already in it: applying them changes nothing visible. */
	drain_fake(m);
	(void)compare(m, k);
	CHECK(rec->added == 0 && rec->removed == 0);
	printf("ok - snapshot\n");
}

static void random_op(FakeKernel *k, unsigned *serial)
{
	char name[32];
	uint64_t a, b;

	snprintf(name, sizeof(name), "m%u", (*serial)++);
	switch (rand() % 10) {
	case 0: case 1: case 2: case 3:
		fake_mount(k, fake_random_mount(k, true), name, "tmpfs");
		break;
	case 4: case 5:
		a = fake_random_mount(k, false);
		if (a)
			fake_umount(k, a);
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
static void test_events_exact(FakeKernel *k, Manager *m, Recorder *rec)
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
		CHECK(fake_queries(k) - queries_before <= m->events - events_before);
		if (compare(m, k) != 0) {
			fprintf(stderr, "after op %u\n", i);
			(void)compare(m, k);
			CHECK(0);
		}
	}
	CHECK(m->resyncs == 0 && m->overruns == 0);
	CHECK(rec->generation_monotonic);
	CHECK(rec->added > 0 && rec->removed > 0 && rec->changed > 0);
	/* Parents come from the records and the table, not from O(N) ID lookups. */
	CHECK(fake_resolves(k) == 0);
	printf("ok - events applied one by one keep table and counters exact (%u checks so far)\n", checks);
}

/* Batches of events: the table is exact; counters may run ahead (queries see the present). */
static void test_events_batched(FakeKernel *k, Manager *m, Recorder *rec)
{
	unsigned serial = 0, mismatched = 0;

	build_tree(k, 50);
	snapshot(m, rec);
	drain_fake(m);
	for (unsigned round = 0; round < 300; round++) {
		unsigned burst = 1 + (unsigned)rand() % 30;

		for (unsigned i = 0; i < burst; i++)
			random_op(k, &serial);
		drain_fake(m);
		mismatched = compare(m, k);
	}
	CHECK(m->resyncs == 0);
	CHECK(rec->generation_monotonic);
	printf("ok - batched events keep the table exact (%u of %zu counters ahead)\n", mismatched,
	       table_size(m->table));
}

/* Lost records: resync re-queries exactly the mounts that lost records touched. */
static void test_overrun_requery(FakeKernel *k, Manager *m, Recorder *rec)
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
	CHECK(compare(m, k) == 0);

	/* 10 attribute changes into a queue of 4: 6 records lost. */
	for (unsigned i = 0; i < 10; i++)
		fake_setattr(k, leaves[i], 1);
	touched = fake_touched_by_loss(k, true);
	drain_fake(m);
	CHECK(m->overruns >= 1);
	CHECK(compare(m, k) == 0);
	/* 6 leaves, their 6 parents, and the root. */
	CHECK(touched == 13);
	CHECK(m->last_resync.requeried == touched);
	CHECK(m->last_resync.changed == 6 && m->last_resync.added == 0 && m->last_resync.removed == 0);
	CHECK(rec->resynced >= 1);

	/* A mount that vanished without a record is dropped by a resync. */
	fake_unmount_silently(k, leaves[0]);
	CHECK(manager_resync(m, NULL) == 0);
	CHECK(m->last_resync.removed == 1 && m->last_resync.requeried == 0);
	CHECK(compare(m, k) == 0);
	printf("ok - overrun: resync re-queries only the %u mounts touched by lost records\n", touched);
}

/* Random storms into a tiny queue: the table converges, resyncs happen. */
static void test_overrun_random(FakeKernel *k, Manager *m, Recorder *rec)
{
	unsigned serial = 0, requeried = 0, sizes = 0;

	build_tree(k, 100);
	snapshot(m, rec);
	drain_fake(m);
	for (unsigned round = 0; round < 300; round++) {
		unsigned burst = 1 + (unsigned)rand() % 40;
		uint64_t resyncs = m->resyncs;

		for (unsigned i = 0; i < burst; i++)
			random_op(k, &serial);
		drain_fake(m);
		if (m->resyncs > resyncs) {
			requeried += m->last_resync.requeried;
			sizes += (unsigned)table_size(m->table);
		}
		(void)compare(m, k);
	}
	CHECK(m->resyncs > 0 && m->overruns > 0);
	CHECK(rec->generation_monotonic);
	/* Far fewer queries than re-reading the whole table each time. */
	CHECK(requeried < sizes);
	printf("ok - overrun storms: %" PRIu64 " resyncs, %u of %u mounts re-queried, table exact\n",
	       m->resyncs, requeried, sizes);
}

/* A move carries its subtree: descendants' mount points follow. */
static void test_move_subtree(FakeKernel *k, Manager *m, Recorder *rec)
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
	CHECK(e && streq_ptr(e->info.mount_point, "/d/x/b/c"));
	CHECK(rec->removed == 0); /* a move is a change, not a removal */

	/* Stacked mounts: the topmost one answers for the path. */
	uint64_t s1 = fake_mount(k, fake_root(k), "s", "tmpfs");
	uint64_t s2 = fake_mount(k, fake_root(k), "s", "ext4");
	drain_fake(m);
	(void)compare(m, k);
	e = table_topmost_at(m->table, "/s");
	CHECK(e && e->info.unique_id == s2);
	fake_umount(k, s2);
	drain_fake(m);
	e = table_topmost_at(m->table, "/s");
	CHECK(e && e->info.unique_id == s1);
	(void)b;
	printf("ok - moves carry subtrees; stacked mounts resolve to the topmost\n");
}

/* Watching /w: mounts beside it are reported by the kernel but not exported. */
static void test_watched_subtree(FakeKernel *k, Manager *m, Recorder *rec)
{
	uint64_t w, x, y;

	CHECK(free_and_strdup(&m->config.watch_path, "/w") >= 0);
	w = fake_mount(k, fake_root(k), "w", "tmpfs");
	fake_flush_queue(k);
	snapshot(m, rec);
	x = fake_mount(k, w, "x", "tmpfs");
	y = fake_mount(k, fake_root(k), "y", "tmpfs");
	drain_fake(m);
	CHECK(table_get(m->table, x) && !table_get(m->table, y));
	CHECK(!table_get(m->table, fake_root(k)) && table_size(m->table) == 2);
	/* Moving x out of /w takes it out of the table. */
	fake_move(k, x, y, "x");
	drain_fake(m);
	CHECK(!table_get(m->table, x));
	fake_move(k, x, w, "back");
	drain_fake(m);
	CHECK(table_get(m->table, x) && streq_ptr(table_get(m->table, x)->info.mount_point, "/w/back"));
	printf("ok - a watched subtree exports only what is below it\n");
}

/* A superblock remount names one mount; every bind of it changes. */
static void test_superblock_remount(FakeKernel *k, Manager *m, Recorder *rec)
{
	uint64_t a, b, c;

	a = fake_mount(k, fake_root(k), "a", "tmpfs");
	b = fake_bind(k, a, fake_root(k), "b");
	c = fake_bind(k, a, fake_root(k), "c");
	fake_flush_queue(k);
	snapshot(m, rec);
	fake_remount_sb(k, b, "ro,size=1k");
	drain_fake(m);
	CHECK(compare(m, k) == 0);
	CHECK(streq_ptr(table_get(m->table, a)->info.super_options, "ro,size=1k"));
	CHECK(streq_ptr(table_get(m->table, c)->info.super_options, "ro,size=1k"));
	CHECK(rec->changed == 3);
	printf("ok - a superblock remount updates every mount of it\n");
}

/* Records about mounts already gone, twice-seen mounts, unknown IDs: no harm. */
static void test_robustness(FakeKernel *k, Manager *m, Recorder *rec)
{
	MountEvent ev;

	snapshot(m, rec);
	ev = (MountEvent){ .type = MOUNT_EVENT_UNMOUNT, .triggered_on = 1, .auxiliary = 999 };
	CHECK(manager_apply_event(m, &ev) == 0);
	ev = (MountEvent){ .type = MOUNT_EVENT_NEW_MOUNT, .triggered_on = 1, .auxiliary = 999 };
	CHECK(manager_apply_event(m, &ev) == 0);
	ev = (MountEvent){ .type = MOUNT_EVENT_MOVE_FROM, .triggered_on = fake_root(k), .auxiliary = 12345 };
	CHECK(manager_apply_event(m, &ev) == 0);
	ev = (MountEvent){ .type = 77 };
	CHECK(manager_apply_event(m, &ev) == 0);
	ev = (MountEvent){ .type = MOUNT_EVENT_WATCH_REMOVED };
	CHECK(manager_apply_event(m, &ev) == -ENOLINK);
	CHECK(manager_finish_batch(m) == 0);
	(void)compare(m, k);

	/* Mount then unmount before the manager looks: nothing to announce. */
	uint64_t x = fake_mount(k, fake_root(k), "x", "tmpfs");
	fake_umount(k, x);
	drain_fake(m);
	CHECK(rec->added == 0 && rec->removed == 0);
	(void)compare(m, k);
	printf("ok - stale, duplicate and unknown records are harmless\n");
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
	run(test_overrun_random, 8);
	run(test_move_subtree, 64);
	run(test_superblock_remount, 64);
	run(test_watched_subtree, 64);
	run(test_robustness, 64);
	printf("%u checks passed\n", checks);
	return 0;
}
