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
 *                        PropertiesChanged.
 *
 * Either way a mount that comes or goes is one message to each set.
 *
 * A caller stays in a set until it leaves the bus (sd_bus_track on its
 * unique name). On a direct (peer-to-peer) connection the one peer is
 * remembered by a flag. Past SUBSCRIBERS_MAX names in a set the set counts
 * as listened to for good (logged once): every such signal is sent, as
 * before gating, rather than following more names (each one a match rule
 * on the bus, which limits them per connection).
 */
#ifndef MOUNTWATCH_SUBSCRIBERS_H
#define MOUNTWATCH_SUBSCRIBERS_H

#include <stdbool.h>
#include <systemd/sd-bus.h>

#define SUBSCRIBERS_MAX 64

typedef enum SubscriberSet {
	SUBSCRIBERS_MANAGER,
	SUBSCRIBERS_OBJECTS,
	_SUBSCRIBERS_SET_MAX,
} SubscriberSet;

typedef struct Subscribers {
	sd_bus_track *track[_SUBSCRIBERS_SET_MAX];
	bool direct[_SUBSCRIBERS_SET_MAX];   /* the peer of a direct connection */
	bool overflowed[_SUBSCRIBERS_SET_MAX];
} Subscribers;

/* Adds message's sender to set (again: no change). Returns 0 or a negative errno. */
int subscribers_add(Subscribers *s, SubscriberSet set, sd_bus_message *message);
/* Removes message's sender from set: 1 if it was there, 0 if it was not. */
int subscribers_remove(Subscribers *s, SubscriberSet set, sd_bus_message *message);
/* Does anyone listen to set's signals? */
bool subscribers_any(const Subscribers *s, SubscriberSet set);
/* Number of callers followed in set (for tests and the log). */
unsigned subscribers_count(const Subscribers *s, SubscriberSet set);
void subscribers_done(Subscribers *s);

#endif
