/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rule that splits a batch into MountsChanged messages (change-batch.h): by count, by size, any storm. */
#include <stdio.h>

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

int main(void)
{
	size_t largest;

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
