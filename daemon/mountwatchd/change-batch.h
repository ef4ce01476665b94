/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MountsChanged, the batched form of the per-mount signals: the changes of
 * one batch (one mw_watcher_process(), resync or reopen of the manager), in
 * order, in one message, for the callers of SubscribeBatched(). A batch of
 * more than CHANGE_BATCH_MAX changes, or whose message would pass
 * CHANGE_BATCH_SIZE_MAX bytes by a generous estimate, goes out as several
 * messages, each in order and naming its first and last generation, so no
 * storm makes a message the bus refuses (dbus-daemon: 32 MiB on the system
 * bus, sd-bus: 128 MiB).
 *
 *   MountsChanged(a(tstsa{sv}) changes, t first_generation, t last_generation)
 *
 * The caller builds each entry between change_batch_begin() and
 * change_batch_end(); change_batch_end() sends the message once it is full,
 * change_batch_flush() at the end of the batch.
 *
 * A run of removals (a lazy umount of a tree: one change per mount) is one
 * entry, change_batch_removed(): the first removal's, whose a{sv} holds
 * "AlsoRemoved" (at), the unique IDs of those that came right after it in
 * order, each at the next generation. An entry per mount cost the daemon
 * and the bus more than the umount itself (sd-bus's two containers and
 * dbus-daemon's check of every byte, ~1.7 us a mount against 1.5 us for
 * the daemon's whole work with nobody subscribed); an array of IDs is one
 * copy for both.
 */
#ifndef MOUNTWATCH_CHANGE_BATCH_H
#define MOUNTWATCH_CHANGE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#define CHANGE_BATCH_MAX 1024U
#define CHANGE_BATCH_SIZE_MAX (8U << 20)
/* The signature of one entry: generation, "added"/"removed"/"changed", unique ID, mount point, properties. */
#define CHANGE_BATCH_ENTRY "tstsa{sv}"
/* Removals in one entry at most (8 bytes each: 512 KiB). */
#define CHANGE_BATCH_RUN_MAX 65536U

typedef struct ChangeBatch {
	sd_bus_message *message; /* the open message, NULL between messages */
	unsigned n;              /* entries in it */
	size_t size;             /* their estimated size in bytes */
	uint64_t first, last;    /* their generations */
	unsigned max;            /* entries per message: CHANGE_BATCH_MAX unless a test lowers it */
	uint64_t sent;           /* messages sent (for tests and the log) */
	/*
	 * A removal's entry left open (its a{sv} not yet written) while the
	 * removals that follow it add their IDs to run.
	 */
	bool run_open;
	uint64_t *run;
	size_t n_run, run_allocated;
} ChangeBatch;

/*
 * Does a message of n entries of size bytes in all take no more? The one
 * rule for splitting, pure: max entries (0: CHANGE_BATCH_MAX), and
 * CHANGE_BATCH_SIZE_MAX bytes.
 */
bool change_batch_full(unsigned n, size_t size, unsigned max);

/*
 * Opens an entry for a change of kind at generation (a message first if
 * none is open): the caller appends the entry's unique ID, mount point and
 * a{sv}, then calls change_batch_end(). Returns 0 or -errno.
 */
int change_batch_begin(ChangeBatch *b, sd_bus *bus, const char *path, const char *interface,
		       uint64_t generation, const char *kind);
/*
 * Closes the entry (size: what it adds to the message, estimated) and
 * sends the message once it is full. Returns 0 or -errno (the message is
 * dropped then).
 */
int change_batch_end(ChangeBatch *b, size_t size);
/*
 * Does a removal at generation join the open run of removals: is the last
 * entry one, generation the next after it, and the run not full? Then
 * change_batch_removed() sends its unique ID alone, not its mount point,
 * and the caller need not make one.
 */
bool change_batch_joins_run(const ChangeBatch *b, uint64_t generation);
/*
 * A removal at generation: added to the open run of removals if it joins it
 * (change_batch_joins_run(); mount_point unused, may be NULL), else a new
 * entry (unique ID, mount point) that the next removals may join. Returns
 * 0 or -errno (the message is dropped then; -EINVAL: no mount point for a
 * removal that does not join).
 */
int change_batch_removed(ChangeBatch *b, sd_bus *bus, const char *path, const char *interface,
			 uint64_t generation, uint64_t unique_id, const char *mount_point);
/* Sends the open message, if any: the end of a batch. Returns 0 or -errno. */
int change_batch_flush(ChangeBatch *b);
/* Drops an open message unsent (a failed entry). */
void change_batch_done(ChangeBatch *b);
/* That, and the run's memory: at exit. */
void change_batch_free(ChangeBatch *b);

#endif
