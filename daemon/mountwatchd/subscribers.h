/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who listens to mountwatchd's per-mount signals, so that nothing is built
 * or routed for nobody (as systemd's Manager.Subscribe()). Two sets, one per
 * protocol a client can follow the table by:
 *
 *   SUBSCRIBERS_MANAGER  callers of Manager.Subscribe() (until Unsubscribe()):
 *                        the Manager's MountAdded, MountRemoved, MountChanged
 *                        and the mounts' PropertiesChanged;
 *   SUBSCRIBERS_OBJECTS  callers of ObjectManager.GetManagedObjects() (what
 *                        GLib's GDBusObjectManagerClient calls first):
 *                        InterfacesAdded, InterfacesRemoved and the mounts'
 *                        PropertiesChanged;
 *   SUBSCRIBERS_BATCHED  callers of Manager.SubscribeBatched() (until
 *                        Unsubscribe()): the Manager's MountsChanged, one
 *                        message per batch of changes (change-batch.h).
 *
 * In the first two sets a mount that comes or goes is one message to each
 * set; in the third, a storm is one message per batch.
 *
 * A caller stays in its sets until it leaves the bus. One match rule, on
 * the bus driver's NameOwnerChanged for a name that lost its owner, follows
 * every caller, however many there are (a match rule per name, as
 * sd_bus_track makes, would run into the bus's limit of match rules per
 * connection): subscribers_start() adds it before the daemon takes its
 * name, so a caller that leaves after its call is always seen leaving. The
 * callers are bounded by the bus's connections. On a direct (peer-to-peer)
 * connection the one peer is remembered by a flag.
 */
#ifndef MOUNTWATCH_SUBSCRIBERS_H
#define MOUNTWATCH_SUBSCRIBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

typedef enum SubscriberSet {
	SUBSCRIBERS_MANAGER,
	SUBSCRIBERS_OBJECTS,
	SUBSCRIBERS_BATCHED,
	_SUBSCRIBERS_SET_MAX,
} SubscriberSet;

typedef struct Subscriber Subscriber;

typedef struct Subscribers {
	Subscriber *names; /* by unique name, in no order */
	size_t n_names, n_allocated;
	unsigned count[_SUBSCRIBERS_SET_MAX];
	bool direct[_SUBSCRIBERS_SET_MAX]; /* the peer of a direct connection */
	sd_bus_slot *gone_slot;            /* the NameOwnerChanged match */
} Subscribers;

/* Follows the callers of bus that leave it (on a direct connection: nothing to do). Returns 0 or -errno. */
int subscribers_start(Subscribers *s, sd_bus *bus);
/* Adds message's sender to set (again: no change). Returns 0 or a negative errno. */
int subscribers_add(Subscribers *s, SubscriberSet set, sd_bus_message *message);
/* Removes message's sender from set: 1 if it was there, 0 if it was not. */
int subscribers_remove(Subscribers *s, SubscriberSet set, sd_bus_message *message);
/* Unique name left the bus: removes it from every set. */
void subscribers_gone(Subscribers *s, const char *name);
/* Does anyone listen to set's signals? */
bool subscribers_any(const Subscribers *s, SubscriberSet set);
/* Number of callers followed in set (for tests and the log). */
unsigned subscribers_count(const Subscribers *s, SubscriberSet set);
void subscribers_done(Subscribers *s);

#endif
