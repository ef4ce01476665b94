/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the two parts of the fuzz-syscalls guest test share: random numbers,
 * the errno lists of the man pages and the report of a call that broke
 * them (fuzz-syscalls.c), a mount's unique ID and the entry of the
 * propagation part (fuzz-propagation.c).
 */
#ifndef MOUNTWATCH_TESTS_FUZZ_H
#define MOUNTWATCH_TESTS_FUZZ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline unsigned rnd(unsigned *seed, unsigned n)
{
	return n ? (unsigned)rand_r(seed) % n : 0;
}

static inline uint64_t rnd64(unsigned *seed)
{
	return (uint64_t)rand_r(seed) << 33 ^ (uint64_t)rand_r(seed) << 11 ^ (uint64_t)rand_r(seed);
}

/* Calls that failed with an errno their man page does not list. */
extern atomic_ulong unexpected;
/* fsinfo(2)'s and watch_mount(2)'s ERRORS, each ending in 0. */
extern const int fsinfo_errors[], watch_errors[];
/* The attributes a well-formed fsinfo(2) call asks for. */
extern const uint32_t requests[];
extern const size_t n_requests;

/* Counts an undocumented errno and prints the first 20, with the call's arguments. */
void report(const char *call, int err, const char *args);
/* Whether err is in list (which ends in 0). */
bool documented(int err, const int *list);
/* The unique ID of the mount at path (statx(2)), 0 if unknown. */
uint64_t mount_id(const char *path);

/*
 * The propagation part: as nobody in a user and mount namespace of its own,
 * ROUNDS rounds of propagation trees, stacked mounts and watches taken down
 * by propagated umounts, then mounts below what survived (issue 30). Prints
 * its TAP lines numbered from n + 1; returns the number of the last.
 */
int propagation_fuzz(unsigned seed, unsigned rounds, const char *dir, int n);

#endif
