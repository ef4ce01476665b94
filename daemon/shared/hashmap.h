/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An open-addressing hash map from uint64_t keys to non-NULL pointers: the
 * index behind the mount table (by unique ID, by mount ID, by parent, by
 * mount point hash). O(1) expected for get, put and remove.
 */
#ifndef MOUNTWATCH_HASHMAP_H
#define MOUNTWATCH_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct Hashmap Hashmap;

int hashmap_new(Hashmap **ret);
Hashmap *hashmap_free(Hashmap *h);
void hashmap_freep(Hashmap **h);

size_t hashmap_size(const Hashmap *h);
void *hashmap_get(const Hashmap *h, uint64_t key);
/* Inserts or replaces; value must not be NULL. */
int hashmap_put(Hashmap *h, uint64_t key, void *value);
/*
 * Returns the removed value, or NULL if key was absent. A map never
 * shrinks: putting back a key just removed never allocates (table.c's
 * re-indexing relies on it).
 */
void *hashmap_remove(Hashmap *h, uint64_t key);

/*
 * Iteration: start with *i = 0; returns false at the end. The map must not
 * change during an iteration.
 */
int hashmap_iterate(const Hashmap *h, size_t *i, uint64_t *key, void **value);

#endif
