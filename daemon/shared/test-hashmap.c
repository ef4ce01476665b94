/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for hashmap.c: random inserts and removals against a plain
 * array, including the backward-shift deletion.
 */
#include "check.h"
#include <stdio.h>

#include "hashmap.h"
#include "util.h"

#define N 20000

int main(void)
{
	static void *ref[N];
	Hashmap *h;
	size_t i = 0, seen = 0, size = 0;
	uint64_t key;
	void *value;

	srand(1);
	assert_se(hashmap_new(&h) == 0);
	assert_se(hashmap_get(h, 5) == NULL && hashmap_remove(h, 5) == NULL);
	assert_se(hashmap_put(h, 1, NULL) == -EINVAL);
	for (unsigned round = 0; round < 200000; round++) {
		unsigned k = (unsigned)rand() % N;
		uint64_t hk = (uint64_t)k * 0x100000000ULL; /* keys that share low bits */

		if (rand() % 3) {
			void *v = (void *)(uintptr_t)(round + 1);

			assert_se(hashmap_put(h, hk, v) == 0);
			size += !ref[k];
			ref[k] = v;
		} else {
			assert_se(hashmap_remove(h, hk) == ref[k]);
			size -= !!ref[k];
			ref[k] = NULL;
		}
		if (round % 1000 == 0)
			for (unsigned j = 0; j < N; j++)
				assert_se(hashmap_get(h, (uint64_t)j * 0x100000000ULL) == ref[j]);
	}
	assert_se(hashmap_size(h) == size);
	while (hashmap_iterate(h, &i, &key, &value)) {
		assert_se(ref[key / 0x100000000ULL] == value);
		seen++;
	}
	assert_se(seen == size);
	hashmap_free(h);
	printf("ok - hashmap matches a reference array over 200000 operations (%zu keys)\n", size);
	return 0;
}
