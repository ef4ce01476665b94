/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The D-Bus face of the manager: the org.mountwatch.MountWatch1.Manager and
 * .Mount vtables, the ObjectManager, and the helpers that emit signals after
 * the manager has updated its state. All emit helpers are no-ops while no
 * bus is attached (start-up snapshot, unit tests).
 */
#ifndef MOUNTWATCH_MANAGER_BUS_H
#define MOUNTWATCH_MANAGER_BUS_H

#include "bus-api.h"
#include "manager.h"


/* Registers the objects on bus, then requests the bus name. */
int manager_bus_setup(Manager *m, sd_bus *bus);
void manager_bus_done(Manager *m);

/* "/org/mountwatch/MountWatch1/mount/<unique id>" into buf. */
void mount_object_path(uint64_t unique_id, char buf[static 64]);

void manager_bus_emit_mount_added(Manager *m, const Mount *mount);
void manager_bus_emit_mount_removed(Manager *m, uint64_t unique_id, const char *mount_point);
void manager_bus_emit_mount_changed(Manager *m, const Mount *mount, uint32_t prop_mask);
void manager_bus_emit_resynced(Manager *m, const ResyncStats *s);
void manager_bus_emit_manager_changed(Manager *m);

#endif
