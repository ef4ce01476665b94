/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every allocation failure is -ENOMEM and leaves the watcher usable or
 * cleanly failed: a whole run (open, snapshot, mounts, unmounts, moves,
 * remounts, binds, a queue overrun, a resync, lookups) on the fake kernel,
 * once for each k with the k-th allocation of the library failing
 * (fault-alloc.h). Each call must return success or -ENOMEM; once the
 * allocator works again, mw_watcher_process() alone must bring the table
 * back to the kernel's. Under ASan (the asan configuration) nothing leaks.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "fake-kernel.h"
#include "fault-alloc.h"
#include "util.h"
#include "watcher.h"

static unsigned changes, enomem;

static void count_change(mw_watcher *w, const mw_change *c, void *userdata)
{
	changes++;
}

/* A library call's result: what it must be when an allocation may fail. */
static bool ok_or_enomem(int r)
{
	enomem += r == -ENOMEM;
	return r >= 0 || r == -ENOMEM;
}

/* The table equals the fake kernel's. */
static void check_table(mw_watcher *w, FakeKernel *k, unsigned long fail_at)
{
	unsigned i = 0;
	uint64_t id;

	if (table_size(w->table) != fake_count(k))
		fprintf(stderr, "failing allocation %lu: %zu mounts in the table, %u in the kernel\n", fail_at,
			table_size(w->table), fake_count(k));
	assert_se(table_size(w->table) == fake_count(k));
	while (fake_iterate(k, &i, &id)) {
		const mw_mount *m = mw_watcher_get_mount(w, id);
		MountInfo want;

		assert_se(m);
		assert_se(fake_query(k, id, &want) == 0);
		if (!streq_ptr(mw_mount_get_mount_point(m), want.mount_point))
			fprintf(stderr, "failing allocation %lu: mount %" PRIu64 " at %s, kernel says %s\n", fail_at,
				id, mw_mount_get_mount_point(m), want.mount_point);
		assert_se(streq_ptr(mw_mount_get_mount_point(m), want.mount_point));
		assert_se(mw_mount_get_attributes(m) == want.attributes);
		assert_se(streq_ptr(mw_mount_get_super_options(m), want.super_options));
		mount_info_done(&want);
	}
}

/* What an event loop does, with the retry delays cut short: until nothing is due. */
static void drain(mw_watcher *w)
{
	for (unsigned n = 0; n < 1000; n++) {
		int r;

		w->resync_due = 0;
		if (watcher_verify_waiting(w))
			w->verify_due = 0;
		r = mw_watcher_process(w);
		assert_se(ok_or_enomem(r));
		if (r >= 0 && mw_watcher_get_timeout(w) == UINT64_MAX && !w->resync_pending)
			return;
		if (mw_watcher_get_timeout(w) > now_usec())
			usleep(1000);
	}
	assert_se(!"the watcher never settled");
}

/* One run with allocation fail_at failing (0: none). Returns the allocations counted. */
static unsigned long run(unsigned long fail_at)
{
	FakeKernel *k = fake_kernel_new(16);
	uint64_t a, b, c, d, e;
	struct mw_resync_stats s;
	Backend *backend;
	mw_watcher *w;
	char name[32];
	int r;

	a = fake_mount(k, fake_root(k), "a", "tmpfs");
	b = fake_mount(k, a, "b", "ext4");
	(void)fake_mount(k, b, "c", "tmpfs");
	fake_flush_queue(k);

	fault_alloc_count = 0;
	fault_alloc_fail_at = fail_at;
	backend = fake_kernel_backend(k);
	r = watcher_new_with_backend(&w, backend, "/");
	assert_se(ok_or_enomem(r));
	if (r < 0)
		goto failed_open; /* the backend stays the caller's */
	r = watcher_snapshot(w);
	assert_se(ok_or_enomem(r));
	if (r < 0) {
		/* What mw_watcher_new() does: a failed open is freed, nothing remains. */
		mw_watcher_free(w);
		backend = NULL;
		goto failed_open;
	}
	mw_watcher_set_change_fn(w, count_change, NULL);

	c = fake_mount(k, fake_root(k), "x", "tmpfs");
	assert_se(ok_or_enomem(mw_watcher_process(w)));
	d = fake_bind(k, b, c, "bound");
	fake_setattr(k, a, 1);
	assert_se(ok_or_enomem(mw_watcher_process(w)));
	fake_move(k, c, a, "moved");
	assert_se(ok_or_enomem(mw_watcher_process(w)));
	fake_remount_sb(k, b, "rw,errors=remount-ro");
	assert_se(ok_or_enomem(mw_watcher_process(w)));
	fake_umount(k, d);
	assert_se(ok_or_enomem(mw_watcher_process(w)));
	/* More than the queue holds: a loss, and the resync after it. */
	for (unsigned i = 0; i < 24; i++) {
		snprintf(name, sizeof(name), "m%u", i);
		e = fake_mount(k, i % 2 ? a : fake_root(k), name, "tmpfs");
		if (i % 3 == 0)
			fake_umount(k, e);
	}
	assert_se(ok_or_enomem(mw_watcher_process(w)));
	assert_se(ok_or_enomem(mw_watcher_resync(w, &s)));
	(void)mw_watcher_get_mount_by_path(w, "/a/b"); /* NULL is its answer to ENOMEM */
	fake_umount_tree(k, b);
	assert_se(ok_or_enomem(mw_watcher_process(w)));

	/* The allocator works again: processing alone must repair what was missed. */
	fault_alloc_fail_at = 0;
	drain(w);
	check_table(w, k, fail_at);
	assert_se(mw_watcher_get_resync_error(w) == 0);
	mw_watcher_free(w);
	fake_kernel_free(k);
	return fault_alloc_count;

failed_open:
	if (backend)
		backend->ops->close(backend);
	fake_kernel_free(k);
	return fault_alloc_count;
}

int main(void)
{
	unsigned long n = run(0), reported = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	log_max_level = LOG_WARNING;
	assert_se(n > 20 && changes > 20);
	printf("# a clean run makes %lu allocations\n", n);
	assert_se(enomem == 0);
	for (unsigned long k = 1; k <= n; k++) {
		enomem = 0;
		assert_se(run(k) >= k); /* the k-th was reached, and failed */
		reported += enomem > 0;
	}
	/* The others were absorbed: a lookup's NULL, a resync retried within the same call. */
	printf("ok 1 - each of the %lu allocations failing: -ENOMEM (%lu runs) or absorbed, "
	       "then the table repaired by processing alone\n", n, reported);
	printf("1..1\n# %u checks passed\n", check_count);
	return 0;
}
