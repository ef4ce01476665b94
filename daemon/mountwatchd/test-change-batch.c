/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rule that splits a batch into MountsChanged messages (change-batch.h):
 * by count, by size, any storm; and which removals join a run of them.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "change-batch.h"
#include "check.h"
#include "util.h"

/*
 * Messages the rule makes of n changes of entry bytes each, as
 * change_batch_end() applies it; the largest message's bytes in *largest.
 */
static unsigned split(unsigned n, size_t entry, unsigned max, size_t *largest)
{
	unsigned messages = 0, in = 0;
	size_t size = 0;

	*largest = 0;
	for (unsigned i = 0; i < n; i++) {
		in++;
		size += entry;
		if (size > *largest)
			*largest = size;
		if (change_batch_full(in, size, max)) {
			messages++;
			in = 0;
			size = 0;
		}
	}
	return messages + (in > 0);
}

/*
 * Which removals join the open run (their mount point then unused): only
 * the one at the next generation, only while the last entry is a removal
 * and the run has room. Messages are built on a bus of one end of a
 * socketpair, never connected: sd-bus queues what is sent.
 */
static void test_runs(void)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	ChangeBatch b = {};
	int fds[2];
	uint64_t g = 100;

	assert_se(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) == 0);
	assert_se(sd_bus_new(&bus) >= 0);
	assert_se(sd_bus_set_fd(bus, fds[0], fds[0]) >= 0);
	assert_se(sd_bus_start(bus) >= 0);

	assert_se(!change_batch_joins_run(&b, g));
	assert_se(change_batch_removed(&b, bus, "/p", "p.i", g, 1, "/a") == 0);
	assert_se(b.run_open && b.n_run == 0);
	/* The next generation joins, with or without a mount point; no other does. */
	assert_se(change_batch_joins_run(&b, g + 1) && !change_batch_joins_run(&b, g + 2) &&
		  !change_batch_joins_run(&b, g));
	assert_se(change_batch_removed(&b, bus, "/p", "p.i", ++g, 2, NULL) == 0);
	assert_se(change_batch_removed(&b, bus, "/p", "p.i", ++g, 3, "/c") == 0);
	assert_se(b.n_run == 2 && b.run[0] == 2 && b.run[1] == 3 && b.n == 0);
	/* A gap in the generations: a new entry, which needs its mount point. */
	g += 2;
	assert_se(!change_batch_joins_run(&b, g));
	assert_se(change_batch_removed(&b, bus, "/p", "p.i", g, 4, "/d") == 0);
	assert_se(b.n == 1 && b.n_run == 0 && b.first == 100 && b.last == g);
	/* Another kind of entry closes the run. */
	assert_se(change_batch_begin(&b, bus, "/p", "p.i", ++g, "added") == 0);
	assert_se(!change_batch_joins_run(&b, g + 1));
	assert_se(sd_bus_message_append(b.message, "tsa{sv}", (uint64_t)5, "/e", 0) >= 0);
	assert_se(change_batch_end(&b, 64) == 0 && b.n == 3);
	/* Without a mount point a removal that does not join is refused, and the message dropped. */
	assert_se(change_batch_removed(&b, bus, "/p", "p.i", ++g, 6, NULL) == -EINVAL);
	assert_se(!b.message && !b.run_open && b.n == 0);
	/* A full run: the next removal starts a new entry. */
	assert_se(change_batch_removed(&b, bus, "/p", "p.i", ++g, 7, "/g") == 0);
	for (unsigned i = 0; i < CHANGE_BATCH_RUN_MAX; i++) {
		assert_se(change_batch_joins_run(&b, g + 1));
		assert_se(change_batch_removed(&b, bus, "/p", "p.i", ++g, 1000 + i, NULL) == 0);
	}
	assert_se(b.n_run == CHANGE_BATCH_RUN_MAX && !change_batch_joins_run(&b, g + 1));
	assert_se(change_batch_removed(&b, bus, "/p", "p.i", ++g, 8, "/h") == 0);
	assert_se(b.n == 1 && b.n_run == 0 && b.run_open);
	assert_se(change_batch_flush(&b) == 0 && b.sent == 1 && !b.message);
	change_batch_free(&b);
	(void)close(fds[1]);
	printf("ok - a removal joins the open run only at the next generation, up to %u\n", CHANGE_BATCH_RUN_MAX);
}

int main(void)
{
	size_t largest;

	test_runs();

	/* The count: full at CHANGE_BATCH_MAX, or at a test's own limit. */
	assert_se(!change_batch_full(CHANGE_BATCH_MAX - 1, 0, 0));
	assert_se(change_batch_full(CHANGE_BATCH_MAX, 0, 0));
	assert_se(!change_batch_full(6, 0, 7) && change_batch_full(7, 0, 7));
	/* The size: full at CHANGE_BATCH_SIZE_MAX, however few entries. */
	assert_se(!change_batch_full(1, CHANGE_BATCH_SIZE_MAX - 1, 0));
	assert_se(change_batch_full(1, CHANGE_BATCH_SIZE_MAX, 0));
	printf("ok - full at %u changes or %u MiB\n", CHANGE_BATCH_MAX, CHANGE_BATCH_SIZE_MAX >> 20);

	/* 100,000 small changes: ceil(100000 / 1024) messages. */
	assert_se(split(100000, 200, 0, &largest) == (100000 + CHANGE_BATCH_MAX - 1) / CHANGE_BATCH_MAX);
	assert_se(largest == CHANGE_BATCH_MAX * 200);
	/*
	 * 100,000 of the largest entries (a mount point of PATH_MAX, escaped:
	 * 4 bytes a byte, and the rest): no message past the bus's 32 MiB.
	 */
	assert_se(split(100000, 4 * 4096 + 4096, 0, &largest) == (100000 + 409 - 1) / 410);
	assert_se(largest <= CHANGE_BATCH_SIZE_MAX + 4 * 4096 + 4096 && largest < (32U << 20));
	printf("ok - 100,000 changes: %u messages of small entries, none past %zu bytes of the largest\n",
	       split(100000, 200, 0, &largest), (size_t)CHANGE_BATCH_SIZE_MAX + 4 * 4096 + 4096);
	return 0;
}
