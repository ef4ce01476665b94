/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager: owns the mount table and keeps it exact from backend events
 * (O(1) work per event, counter mirroring), resynchronises it after queue
 * overruns, and tells manager-bus.c what changed.
 */
#ifndef MOUNTWATCH_MANAGER_H
#define MOUNTWATCH_MANAGER_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "backend.h"
#include "config.h"
#include "hashmap.h"
#include "table.h"

typedef struct Manager Manager;
typedef struct MountWait MountWait;

typedef enum ChangeType {
	CHANGE_ADDED,
	CHANGE_REMOVED,
	CHANGE_CHANGED,
	CHANGE_RESYNCED,
} ChangeType;

/* unique ID -> parent unique ID, for mounts no longer in the table. */
typedef struct GoneSet {
	Hashmap *index; /* unique ID -> position + 1 in parents */
	uint64_t *parents;
	size_t n, n_alloc;
} GoneSet;

typedef struct ResyncStats {
	unsigned added, removed, changed;
	unsigned requeried; /* per-mount queries the resync needed */
} ResyncStats;

/* Called after each change is applied (tests use it to record signals). */
typedef void (*ManagerChangeFn)(Manager *m, ChangeType type, const Mount *mount,
				const char *mount_point, uint32_t prop_mask, void *userdata);

struct Manager {
	sd_event *event;
	sd_bus *bus;
	sd_event_source *io_source;
	sd_event_source *sighup_source;
	sd_event_source *sigterm_source;
	sd_event_source *sigint_source;
	sd_bus_slot *manager_slot, *mount_slot, *enumerator_slot, *object_manager_slot;

	Config config;
	char *config_path;
	const Config *overrides; /* command-line values that win over the file */

	Backend *backend;
	Table *table;

	uint64_t generation;
	uint64_t overruns;
	uint64_t resyncs;
	uint64_t events;
	ResyncStats last_resync;

	bool resync_pending;
	uint64_t *detached; /* unique IDs moved away during this batch */
	size_t n_detached, n_detached_alloc;
	/*
	 * Mounts that left the table in this batch and the one before:
	 * unique ID -> event parent when they left, so that the ancestor
	 * walks of later records (a lazy unmount posts UNMOUNT(A, B) after
	 * UNMOUNT(R, A)) still reach R and above.
	 */
	GoneSet gone[2];

	MountWait *waits;

	ManagerChangeFn change_fn;
	void *change_userdata;
};

int manager_new(Manager **ret);
Manager *manager_free(Manager *m);
void manager_freep(Manager **m);

/* Takes ownership of b. */
void manager_set_backend(Manager *m, Backend *b);

/* Initial table: the same as a resync, but nothing is announced. */
int manager_snapshot(Manager *m);

/* Applies one event (exposed for tests). */
int manager_apply_event(Manager *m, const MountEvent *ev);
/* Drains the backend's queue, applies everything, then resyncs if records were lost. */
int manager_process_events(Manager *m);
/* Ends a batch of events: drops what moved away and did not come back, resyncs if needed. */
int manager_finish_batch(Manager *m);
int manager_resync(Manager *m, ResyncStats *ret);

/* Attaches the backend's fd and the signals to m->event. */
int manager_attach_event(Manager *m);
/* (Re)opens the backend for the configured path and queue size. */
int manager_open_backend(Manager *m, Backend **ret);
/* SIGHUP: re-reads the config file; on error keeps the running config. */
int manager_reload(Manager *m);

#endif
