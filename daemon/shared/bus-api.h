/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names of mountwatchd's D-Bus API (SPEC.md, "D-Bus API"): bus name,
 * object paths, interfaces and error names. The one home of these strings:
 * mountwatchd, mountwatchctl and the benchmark include this header.
 */
#ifndef MOUNTWATCH_BUS_API_H
#define MOUNTWATCH_BUS_API_H

#define MW_BUS_NAME "org.mountwatch.MountWatch1"
#define MW_MANAGER_PATH "/org/mountwatch/MountWatch1"
#define MW_MOUNT_PREFIX "/org/mountwatch/MountWatch1/mount"
#define MW_MANAGER_IFACE "org.mountwatch.MountWatch1.Manager"
#define MW_MOUNT_IFACE "org.mountwatch.MountWatch1.Mount"
#define MW_ERROR_NO_SUCH_MOUNT "org.mountwatch.MountWatch1.Error.NoSuchMount"
#define MW_ERROR_TIMEOUT "org.mountwatch.MountWatch1.Error.Timeout"
#define MW_ERROR_NOT_SUBSCRIBED "org.mountwatch.MountWatch1.Error.NotSubscribed"
/* A caller spent its budget of whole-table calls (mountwatchd's table-limits.h). */
#define MW_ERROR_LIMITS_EXCEEDED "org.mountwatch.MountWatch1.Error.LimitsExceeded"
/* The first column of ListMountsByFileDescriptor's table; the others are the Mount properties. */
#define MW_TABLE_OBJECT_PATH "ObjectPath"

#endif
