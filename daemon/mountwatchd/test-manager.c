/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for manager.c's event loop: burst pacing on the fake kernel. A
 * read that finds one record leaves the queue's fd in the loop; one that
 * finds several takes it out and reads again from a timer, no later than
 * MANAGER_PACE_USEC, and sooner when the records came fast enough to fill a
 * quarter of the queue meanwhile; the timer's reads go on until one finds
 * nothing, which puts the fd back. Nothing is lost on the way: every mount
 * made while the fd is out is in the table after the timer's read.
 */
#include "check.h"
#include <time.h>

#include "fake-kernel.h"
#include "manager.h"
#include "watcher.h"

static uint64_t now_usec(void)
{
	struct timespec ts;

	assert_se(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static int enabled(sd_event_source *s)
{
	int e = SD_EVENT_OFF;

	if (s)
		assert_se(sd_event_source_get_enabled(s, &e) >= 0);
	return e;
}

static void test_pace_delay(void)
{
	/* Unpaced: one record, or a first read (no rate yet): at once. */
	assert_se(manager_pace_delay(false, 0, 1000, 512) == 0);
	assert_se(manager_pace_delay(false, 1, 1000, 512) == 0);
	assert_se(manager_pace_delay(false, 100, 0, 512) == 0);
	/* Two records in 1 ms into 512 slots: the whole wait. */
	assert_se(manager_pace_delay(false, 2, 1000, 512) == MANAGER_PACE_USEC);
	/* 128 records in 1 ms fill a quarter of 512 in 1 ms. */
	assert_se(manager_pace_delay(false, 128, 1000, 512) == 1000);
	assert_se(manager_pace_delay(true, 256, 1000, 512) == 500);
	/* A queue too small to wait for: at once. */
	assert_se(manager_pace_delay(false, 5, 1000, 2) == 0);
	/* Paced: one record keeps pacing, none ends it. */
	assert_se(manager_pace_delay(true, 1, MANAGER_PACE_USEC, 512) == MANAGER_PACE_USEC);
	assert_se(manager_pace_delay(true, 0, MANAGER_PACE_USEC, 512) == 0);
}

static void test_burst_is_paced(void)
{
	FakeKernel *k = fake_kernel_new(512);
	Manager *m = NULL;
	mw_watcher *w;
	uint64_t lone, t0, due, ids[8];

	assert_se(manager_new(&m) == 0);
	m->config.queue_size = 512;
	assert_se(watcher_new_with_backend(&w, fake_kernel_backend(k), "/") == 0);
	assert_se(watcher_snapshot(w) == 0);
	manager_set_watcher(m, w);
	assert_se(manager_attach_event(m) == 0);

	/* A first read of several has no rate to go by: the fd stays. */
	for (unsigned i = 0; i < 3; i++)
		(void)fake_mount(k, fake_root(k), "first", "tmpfs");
	assert_se(sd_event_run(m->event, 0) > 0);
	assert_se(mw_watcher_count(m->watcher) == 4);
	assert_se(enabled(m->io_source) == SD_EVENT_ON);
	assert_se(enabled(m->pace_source) == SD_EVENT_OFF);

	/* Several more: read, then the fd leaves the loop for the timer. */
	for (unsigned i = 0; i < 8; i++)
		ids[i] = fake_mount(k, fake_root(k), "burst", "tmpfs");
	assert_se(sd_event_run(m->event, 0) > 0);
	for (unsigned i = 0; i < 8; i++)
		assert_se(mw_watcher_get_mount(m->watcher, ids[i]));
	assert_se(enabled(m->io_source) == SD_EVENT_OFF);
	assert_se(enabled(m->pace_source) == SD_EVENT_ONESHOT);

	/* A mount now waits for the timer, not for the fd (readable at once). */
	assert_se(sd_event_source_get_time(m->pace_source, &due) >= 0);
	assert_se(sd_event_now(m->event, CLOCK_MONOTONIC, &t0) >= 0);
	assert_se(due > t0 && due <= t0 + MANAGER_PACE_USEC);
	lone = fake_mount(k, fake_root(k), "lone", "tmpfs");
	while (!mw_watcher_get_mount(m->watcher, lone))
		assert_se(sd_event_run(m->event, UINT64_MAX) >= 0);
	assert_se(now_usec() >= due);
	/* That read found one: the burst may go on, the timer reads next. */
	assert_se(enabled(m->io_source) == SD_EVENT_OFF);
	assert_se(enabled(m->pace_source) == SD_EVENT_ONESHOT);
	/* The next finds none: the fd is back and the timer off. */
	assert_se(sd_event_run(m->event, UINT64_MAX) > 0);
	assert_se(enabled(m->io_source) == SD_EVENT_ON);
	assert_se(enabled(m->pace_source) == SD_EVENT_OFF);

	/* One record at a time never paces. */
	for (unsigned i = 0; i < 5; i++) {
		uint64_t id = fake_mount(k, fake_root(k), "paced", "tmpfs");

		assert_se(sd_event_run(m->event, 0) > 0);
		assert_se(mw_watcher_get_mount(m->watcher, id));
		assert_se(enabled(m->io_source) == SD_EVENT_ON);
	}
	assert_se(mw_watcher_count(m->watcher) == 18);

	manager_free(m);
	fake_kernel_free(k);
}

int main(void)
{
	test_pace_delay();
	test_burst_is_paced();
	return 0;
}
