/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager: mountwatchd's lifecycle. It owns the configuration, the
 * libmountwatch watcher (which keeps the table) and the event loop: the
 * watcher's fd and timeout, the signals, reloads. Changes leave it one way,
 * through the one callback the bus layer (manager-bus.c) installs.
 */
#ifndef MOUNTWATCH_MANAGER_H
#define MOUNTWATCH_MANAGER_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "mountwatch/mountwatch.h"

#include "change-batch.h"
#include "config.h"
#include "subscribers.h"
#include "table-limits.h"
#include "wait.h"

typedef struct Manager Manager;

#define MANAGER_REPLY_SIZE_MAX (24U << 20)

/*
 * Called after each change is applied; c == NULL: the manager's own
 * properties (Backend, WatchedPath, ResyncPending) changed.
 */
typedef void (*ManagerChangeFn)(Manager *m, const mw_change *c, void *userdata);
/*
 * Called at the end of each batch of changes: after each
 * mw_watcher_process(), resync and reopen (manager_check_sync()), whether
 * it had changes or not. The bus layer sends MountsChanged from it.
 */
typedef void (*ManagerBatchEndFn)(Manager *m, void *userdata);

struct Manager {
	sd_event *event;
	sd_bus *bus;
	sd_event_source *sighup_source;
	sd_event_source *sigterm_source;
	sd_event_source *sigint_source;
	sd_bus_slot *manager_slot, *mount_slot, *enumerator_slot, *object_manager_slot;
	sd_bus_slot *disconnected_slot, *filter_slot;

	Config config;
	char *config_path;
	const Config *overrides; /* command-line values that win over the file */

	mw_watcher *watcher;
	WaitList waits;
	Subscribers subscribers; /* who listens to the per-mount signals */
	ChangeBatch batch;       /* the MountsChanged being built (SubscribeBatched()'s callers) */
	/*
	 * This run of the daemon, 32 hex digits: $INVOCATION_ID when systemd
	 * started it (the journal's _SYSTEMD_INVOCATION_ID), else random. The
	 * generation counts from 0 again in every instance.
	 */
	char instance_id[33];
	/*
	 * CAP_SYS_ADMIN was given up once a fanotify watch was armed: a reload
	 * that would arm it anew is refused (say: restart).
	 */
	bool privileges_dropped;
	bool resync_pending; /* a failed resync waits for its retry: the table may miss changes */
	/*
	 * Replies with the whole table (ListMounts, GetManagedObjects) larger
	 * than this, by a generous estimate, are refused with LimitsExceeded:
	 * a reply above the bus's message limit (dbus-daemon: 32 MiB) would get
	 * the daemon disconnected. MANAGER_REPLY_SIZE_MAX unless a test lowers it.
	 */
	size_t reply_size_max;
	TableLimits table_limits; /* the whole-table calls' budget per caller and user */
	/*
	 * The last table ListMountsByFileDescriptor wrote (a sealed memfd) and
	 * the generation it shows: while the table stays at that generation,
	 * every caller gets a new open file of this one, not a copy of its own.
	 */
	int table_memfd;
	uint64_t table_memfd_generation;

	ManagerChangeFn change_fn;
	ManagerBatchEndFn batch_end_fn;
	void *change_userdata;
};

int manager_new(Manager **ret);
Manager *manager_free(Manager *m);
void manager_freep(Manager **m);

/* Installs the one change callback (the bus layer's, or a test's). */
void manager_set_change_fn(Manager *m, ManagerChangeFn fn, void *userdata);
/* Installs the end-of-batch callback (shares the change callback's userdata). */
void manager_set_batch_end_fn(Manager *m, ManagerBatchEndFn fn);

/*
 * Opens the watcher for the configured path, backend and queue size (the
 * watch first, then the snapshot) and logs which backend and why.
 */
int manager_open_watcher(Manager *m);
/* Takes over w (tests: a watcher on the fake kernel). */
void manager_set_watcher(Manager *m, mw_watcher *w);

/*
 * Once the watch is armed: on the backends that need CAP_SYS_ADMIN only to
 * arm the watch (fanotify: the mount namespace mark; mountinfo: none at
 * all), drops it from the effective, permitted, inheritable and ambient
 * sets for good. A watch_queue watch keeps it (a new watch_mount(2) per
 * subtree needs it). Returns 0 or -errno.
 */
int manager_drop_privileges(Manager *m);

/* Processes what the watcher has, then re-arms its timeout. */
int manager_process_events(Manager *m);

/*
 * After the watcher processed, resynchronised (or failed to) or reopened:
 * ends the batch of changes (the batch-end callback), re-arms the
 * watcher's timeout (a failed resync is retried from it) and, when the
 * table went stale or became current again, says so in the log, in STATUS=
 * and in ResyncPending.
 */
void manager_check_sync(Manager *m);

/* Sends extra (e.g. "READY=1\n", or "") and a STATUS= line that says what the daemon does. */
void manager_notify_status(Manager *m, const char *extra);

/* Attaches the watcher's fd and the signals to m->event. */
int manager_attach_event(Manager *m);
/*
 * The watcher's fd and deadline alone on m->event, by the library's helper
 * (mountwatch-sd-event.h); again after a reopen, whose fd may differ.
 */
int manager_attach_watcher(Manager *m);
/*
 * SIGHUP and the Reload() method: re-reads the config file (the one given
 * with --config must exist; the default one may be missing) and re-arms the
 * watch if Path=, QueueSize= or Backend= changed. On error keeps the running
 * config and returns a negative errno, with the reason (one line, to free)
 * in *ret_error if ret_error is not NULL. RELOADING=1 before, READY=1 after.
 */
int manager_reload(Manager *m, char **ret_error);

uint64_t manager_generation(const Manager *m);
/* Closes the kept ListMountsByFileDescriptor table (see table_memfd). */
void manager_drop_table_memfd(Manager *m);

#endif
