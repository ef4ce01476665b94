/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Linear-probing hash map with backward-shift deletion (no tombstones), so
 * that a long-running daemon's map never degrades with churn.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "hashmap.h"

struct entry {
	uint64_t key;
	void *value; /* NULL: empty slot */
};

struct Hashmap {
	struct entry *entries;
	size_t n_buckets; /* power of two */
	size_t n_entries;
};

static uint64_t hash_u64(uint64_t k)
{
	/* splitmix64 finaliser */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 31;
	return k;
}

int hashmap_new(Hashmap **ret)
{
	Hashmap *h;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->n_buckets = 16;
	h->entries = calloc(h->n_buckets, sizeof(*h->entries));
	if (!h->entries) {
		free(h);
		return -ENOMEM;
	}
	*ret = h;
	return 0;
}

Hashmap *hashmap_free(Hashmap *h)
{
	if (!h)
		return NULL;
	free(h->entries);
	free(h);
	return NULL;
}

void hashmap_freep(Hashmap **h)
{
	hashmap_free(*h);
}

size_t hashmap_size(const Hashmap *h)
{
	return h ? h->n_entries : 0;
}

static size_t find_slot(const Hashmap *h, uint64_t key, bool *found)
{
	size_t mask = h->n_buckets - 1;
	size_t i = hash_u64(key) & mask;

	while (h->entries[i].value) {
		if (h->entries[i].key == key) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
	*found = false;
	return i;
}

void *hashmap_get(const Hashmap *h, uint64_t key)
{
	bool found;
	size_t i;

	if (!h)
		return NULL;
	i = find_slot(h, key, &found);
	return found ? h->entries[i].value : NULL;
}

static int resize(Hashmap *h, size_t n_buckets)
{
	struct entry *old = h->entries;
	size_t old_n = h->n_buckets;

	h->entries = calloc(n_buckets, sizeof(*h->entries));
	if (!h->entries) {
		h->entries = old;
		return -ENOMEM;
	}
	h->n_buckets = n_buckets;
	for (size_t i = 0; i < old_n; i++) {
		bool found;
		size_t j;

		if (!old[i].value)
			continue;
		j = find_slot(h, old[i].key, &found);
		h->entries[j] = old[i];
	}
	free(old);
	return 0;
}

int hashmap_put(Hashmap *h, uint64_t key, void *value)
{
	bool found;
	size_t i;
	int r;

	if (!value)
		return -EINVAL;
	i = find_slot(h, key, &found);
	if (found) {
		/* Replacing never allocates: callers rely on that. */
		h->entries[i].value = value;
		return 0;
	}
	if ((h->n_entries + 1) * 4 > h->n_buckets * 3) {
		r = resize(h, h->n_buckets * 2);
		if (r < 0)
			return r;
		i = find_slot(h, key, &found);
	}
	h->entries[i].key = key;
	h->entries[i].value = value;
	h->n_entries++;
	return 0;
}

void *hashmap_remove(Hashmap *h, uint64_t key)
{
	size_t mask, i, j;
	void *value;
	bool found;

	if (!h)
		return NULL;
	i = find_slot(h, key, &found);
	if (!found)
		return NULL;
	value = h->entries[i].value;
	mask = h->n_buckets - 1;

	/* Backward-shift: pull later members of the run into the hole. */
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!h->entries[j].value)
			break;
		home = hash_u64(h->entries[j].key) & mask;
		/* Move j into i unless home lies cyclically in (i, j]. */
		if ((i <= j) ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		h->entries[i] = h->entries[j];
		i = j;
	}
	h->entries[i].value = NULL;
	h->entries[i].key = 0;
	h->n_entries--;
	/* No shrinking: removing and re-adding a key must never allocate. */
	return value;
}

int hashmap_iterate(const Hashmap *h, size_t *i, uint64_t *key, void **value)
{
	if (!h)
		return 0;
	for (; *i < h->n_buckets; (*i)++) {
		if (h->entries[*i].value) {
			if (key)
				*key = h->entries[*i].key;
			if (value)
				*value = h->entries[*i].value;
			(*i)++;
			return 1;
		}
	}
	return 0;
}
