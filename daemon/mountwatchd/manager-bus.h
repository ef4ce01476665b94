/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The D-Bus face of the manager: the org.mountwatch.MountWatch1.Manager and
 * .Mount vtables and the ObjectManager. manager_bus_setup() installs the
 * manager's one change callback, which emits the signals after the table is
 * updated and answers WaitForMount calls (wait.c).
 */
#ifndef MOUNTWATCH_MANAGER_BUS_H
#define MOUNTWATCH_MANAGER_BUS_H

#include "bus-api.h"
#include "manager.h"

/* Registers the objects on bus, installs the change callback, then requests the bus name. */
int manager_bus_setup(Manager *m, sd_bus *bus);

/* "/org/mountwatch/MountWatch1/mount/<unique id>" into buf. */
void mount_object_path(uint64_t unique_id, char buf[static 64]);

#endif
