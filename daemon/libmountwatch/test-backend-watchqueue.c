/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for the kernel backend's record parsing: mount notification
 * records, the queue's loss and removal meta records, several records per
 * read, more records than one call takes, and a malformed record. The
 * records are written into an ordinary pipe, laid out as the kernel lays
 * them out in a notification pipe; the syscalls themselves need the guest.
 */
#include "check.h"

#include "backend-watchqueue.c"

static void put(int fd, const void *p, size_t n)
{
	assert_se(write(fd, p, n) == (ssize_t)n);
}

static void put_mount(int fd, unsigned subtype, uint64_t trigger, uint64_t aux, uint32_t flags)
{
	struct mount_notification n = {
		.watch.type = WATCH_TYPE_MOUNT_NOTIFY,
		.watch.subtype = subtype,
		.watch.info = sizeof(n) | (WATCH_ID << WATCH_INFO_ID__SHIFT) | flags,
		.triggered_on = trigger,
		.auxiliary_mount = aux,
	};

	put(fd, &n, sizeof(n));
}

static void put_meta(int fd, unsigned subtype)
{
	struct watch_notification n = {
		.type = WATCH_TYPE_META,
		.subtype = subtype,
		.info = sizeof(n),
	};

	put(fd, &n, sizeof(n));
}

int main(void)
{
	WatchQueueBackend *b = calloc(1, sizeof(*b));
	MountEvent ev[8];
	int fds[2], n;

	assert_se(b);
	assert_se(pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0);
	b->base.ops = &backend_watchqueue_ops;
	b->fd = fds[0];
	b->write_fd = -1;
	assert_se(wq_get_fd(&b->base) == fds[0]);

	/* Empty queue. */
	assert_se(wq_read_events(&b->base, ev, 8) == 0);

	/* Every subtype, the info flags, and the loss record. */
	put_mount(fds[1], NOTIFY_MOUNT_NEW_MOUNT, 100, 101, 0);
	put_mount(fds[1], NOTIFY_MOUNT_SETATTR, 101, 0, NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_NOW_RO);
	put_meta(fds[1], WATCH_META_LOSS_NOTIFICATION);
	put_mount(fds[1], NOTIFY_MOUNT_MOVE_FROM, 100, 101, 0);
	put_mount(fds[1], NOTIFY_MOUNT_MOVE_TO, 102, 101, 0);
	put_mount(fds[1], NOTIFY_MOUNT_UNMOUNT, 102, 101, 0);
	n = wq_read_events(&b->base, ev, 4); /* fewer than queued: the rest stays */
	assert_se(n == 4);
	assert_se(ev[0].type == MOUNT_EVENT_NEW_MOUNT && ev[0].triggered_on == 100 && ev[0].auxiliary == 101);
	assert_se(ev[1].type == MOUNT_EVENT_SETATTR && ev[1].triggered_on == 101 && ev[1].auxiliary == 0);
	assert_se(ev[1].flags == (NOTIFY_MOUNT_IN_SUBTREE | NOTIFY_MOUNT_IS_NOW_RO));
	assert_se(ev[2].type == MOUNT_EVENT_LOSS);
	assert_se(ev[3].type == MOUNT_EVENT_MOVE_FROM);
	n = wq_read_events(&b->base, ev, 8);
	assert_se(n == 2);
	assert_se(ev[0].type == MOUNT_EVENT_MOVE_TO && ev[0].triggered_on == 102);
	assert_se(ev[1].type == MOUNT_EVENT_UNMOUNT);
	assert_se(wq_read_events(&b->base, ev, 8) == 0);
	printf("ok - mount records, meta loss, partial reads\n");

	/* The watched mount went away. */
	put_meta(fds[1], WATCH_META_REMOVAL_NOTIFICATION);
	assert_se(wq_read_events(&b->base, ev, 8) == 1 && ev[0].type == MOUNT_EVENT_WATCH_REMOVED);
	printf("ok - removal meta record\n");

	/* Other types are skipped; a record with a bad length ends the read with a loss. */
	{
		struct watch_notification other = { .type = 1, .subtype = 0, .info = sizeof(other) };
		struct watch_notification bad = { .type = WATCH_TYPE_MOUNT_NOTIFY, .info = 4 };

		put(fds[1], &other, sizeof(other));
		put_mount(fds[1], NOTIFY_MOUNT_EXPIRY, 7, 0, 0);
		put(fds[1], &bad, sizeof(bad));
		put_mount(fds[1], NOTIFY_MOUNT_READONLY, 8, 0, 0);
		n = wq_read_events(&b->base, ev, 8);
		assert_se(n == 2);
		assert_se(ev[0].type == MOUNT_EVENT_EXPIRY && ev[0].triggered_on == 7);
		assert_se(ev[1].type == MOUNT_EVENT_LOSS); /* resync instead of guessing */
		assert_se(wq_read_events(&b->base, ev, 8) == 0);
	}
	printf("ok - foreign and malformed records\n");

	close(fds[1]);
	wq_close(&b->base);
	return 0;
}
