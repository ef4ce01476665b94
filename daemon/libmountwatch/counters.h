/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The counter mirror: keeps each stored ChangeCount equal to the kernel's
 * mnt_notify_sum by applying the kernel's counting rule to every record read,
 * so that after an overrun only the mounts that lost records touched differ
 * from the listing (watch_queue backend only, BACKEND_COUNTERS). The rule is
 * all in counters.c, so that a change of the kernel's rule is a change there.
 */
#ifndef MOUNTWATCH_COUNTERS_H
#define MOUNTWATCH_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "hashmap.h"
#include "table.h"

/* unique ID -> parent unique ID, for mounts no longer in the table. */
typedef struct GoneSet {
	Hashmap *index; /* unique ID -> position + 1 in parents */
	uint64_t *parents;
	size_t n, n_alloc;
} GoneSet;

typedef struct CounterMirror {
	/*
	 * Mounts that left the table in this batch and the one before:
	 * unique ID -> event parent when they left, so that the ancestor
	 * walks of later records (a lazy unmount posts UNMOUNT(A, B) after
	 * UNMOUNT(R, A)) still reach R and above.
	 */
	GoneSet gone[2];
} CounterMirror;

void counter_mirror_done(CounterMirror *c);

/* Applies one record's counting rule to the sums in t. O(depth). */
void counter_mirror_event(CounterMirror *c, Table *t, const MountEvent *ev);

/*
 * A mount the records named is not (or no longer) in the table; parent is
 * the parent the records gave it. Kept for this batch and the next.
 */
int counter_mirror_forget(CounterMirror *c, uint64_t unique_id, uint64_t parent);

/* A batch of records ended. */
void counter_mirror_end_batch(CounterMirror *c);

#endif
