/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests only: a model of the kernel's mount tree behind the backend ops
 * table. It applies the kernel's counting rules (SPEC.md) and posts the same
 * records into a bounded queue that overruns like the real one, so the
 * manager's event application and resync run without the new syscalls.
 */
#ifndef MOUNTWATCH_TEST_BACKEND_H
#define MOUNTWATCH_TEST_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

typedef struct FakeKernel FakeKernel;

FakeKernel *fake_kernel_new(unsigned queue_size);
FakeKernel *fake_kernel_free(FakeKernel *k);
/* A Backend view of k (k must outlive it). */
Backend *fake_kernel_backend(FakeKernel *k);

uint64_t fake_root(FakeKernel *k);
/* Mounts a new mount on (parent, name); name "" stacks on the parent's point. */
uint64_t fake_mount(FakeKernel *k, uint64_t parent, const char *name, const char *fstype);
/* Unmounts one mount and, first, everything below it, one record after the other. */
void fake_umount(FakeKernel *k, uint64_t id);
/*
 * A lazy unmount of the tree at id (umount2(MNT_DETACH)): UNMOUNT records
 * parents first, all posted while the parent chains are intact.
 */
void fake_umount_tree(FakeKernel *k, uint64_t id);
unsigned fake_subtree_size(FakeKernel *k, uint64_t id);
/* Moves a mount (with its subtree) under new_parent at name. */
void fake_move(FakeKernel *k, uint64_t id, uint64_t new_parent, const char *name);
/* A bind mount of src's superblock on (parent, name). */
uint64_t fake_bind(FakeKernel *k, uint64_t src, uint64_t parent, const char *name);
/*
 * A recursive bind (MS_BIND | MS_REC) of src's tree on (parent, name): the
 * copy is attached whole, then one NEW_MOUNT per mount, parents first.
 */
uint64_t fake_rbind(FakeKernel *k, uint64_t src, uint64_t parent, const char *name);
/* Remounts id's superblock: every mount of it changes, one record names id. */
void fake_remount_sb(FakeKernel *k, uint64_t id, const char *options);
void fake_setattr(FakeKernel *k, uint64_t id, uint64_t attr);
/* Makes a mount vanish without any record (as if the records were lost). */
void fake_unmount_silently(FakeKernel *k, uint64_t id);

/* Drops every queued record (a quiet system before the daemon starts). */
void fake_flush_queue(FakeKernel *k);
/*
 * The next read_events returns at most n records and the one after it none,
 * so the manager's batch ends there: a reader that caught up with the
 * kernel in the middle of one operation's records.
 */
void fake_split_next_read(FakeKernel *k, size_t n);

/* A random mount ID among the live ones (root excluded unless allow_root). */
uint64_t fake_random_mount(FakeKernel *k, bool allow_root);
bool fake_is_ancestor(FakeKernel *k, uint64_t ancestor, uint64_t id);
unsigned fake_count(FakeKernel *k);
unsigned fake_queries(FakeKernel *k);
/* How often the manager had to resolve a 32-bit mount ID (an O(N) kernel walk). */
unsigned fake_resolves(FakeKernel *k);
unsigned fake_lost(FakeKernel *k);
/* Whether a lost record touched this live mount since fake_touched_by_loss(k, true). */
bool fake_touched(FakeKernel *k, uint64_t id);
/* Number of live mounts that some lost record touched since the last call. */
unsigned fake_touched_by_loss(FakeKernel *k, bool reset);

/* The kernel's current truth about one mount; -ENOENT if absent. */
int fake_query(FakeKernel *k, uint64_t id, MountInfo *ret);
/* Iterates live mounts: start with *i = 0. */
bool fake_iterate(FakeKernel *k, unsigned *i, uint64_t *id);

#endif
