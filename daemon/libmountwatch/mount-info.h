/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the daemon knows about one mount: the values of the
 * org.mountwatch.MountWatch1.Mount properties, as a backend reports them,
 * and how two such records differ (for MountChanged / PropertiesChanged).
 */
#ifndef MOUNTWATCH_MOUNT_INFO_H
#define MOUNTWATCH_MOUNT_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include "mountwatch/mountwatch.h"

/* The record is the public struct mw_mount; MW_FIELD_* number its properties. */
typedef struct mw_mount MountInfo;

/* How a property's value behaves, for the bus vtable. */
typedef enum MountPropertyKind {
	MOUNT_PROPERTY_CONST,   /* never changes for a mount */
	MOUNT_PROPERTY_EMITS,   /* changes are announced (PropertiesChanged, MountChanged) */
	MOUNT_PROPERTY_COUNTER, /* a fast counter: changes are never announced */
} MountPropertyKind;

typedef struct MountProperty {
	const char *name;      /* the D-Bus property name */
	const char *signature; /* its D-Bus type: "t", "u", "s" or "b" */
	MountPropertyKind kind;
} MountProperty;

/*
 * The one table of the org.mountwatch.MountWatch1.Mount properties, indexed
 * by MOUNT_PROP_*: the bus vtable, mountwatchctl and the library's change
 * masks all read it.
 */
extern const MountProperty mount_properties[_MW_FIELD_MAX];
/* Bitmask of the properties whose changes are announced. */
uint32_t mount_properties_announced(void);

/* One property's value, typed by mount_properties[].signature. */
typedef struct MountValue {
	uint64_t u;    /* "t", "u" */
	const char *s; /* "s": never NULL; points into the record or into the caller's buffer */
	bool b;        /* "b" */
} MountValue;

/*
 * The value of property prop (MW_FIELD_*) of info, as the bus shows it: the
 * one place that maps the record to its properties (the bus getter and
 * ListMountsByFileDescriptor both read it). buf holds a derived string
 * (Options, Device) and must outlive *ret. Returns 0, or -EINVAL for an
 * unknown prop.
 */
int mount_info_value(const MountInfo *info, unsigned prop, char buf[static 128], MountValue *ret);

void mount_info_done(MountInfo *info);
/* Makes every string valid UTF-8 (see utf8_escape_invalid()), and "" of a NULL one. */
int mount_info_sanitize(MountInfo *info);
int mount_info_copy(MountInfo *dst, const MountInfo *src);

/* Bitmask (1 << MOUNT_PROP_*) of the properties whose values differ. */
uint32_t mount_info_diff(const MountInfo *a, const MountInfo *b);

/* The per-mount options as mountinfo's field 6 shows them ("rw,nosuid,relatime"). */
int mount_info_options(const MountInfo *info, char *buf, size_t size);
bool mount_info_read_only(const MountInfo *info);
/*
 * Whether a and b are mounts of one superblock by what statmount(2) tells:
 * the same device and type. Only while both superblocks live: a device is
 * reused once its superblock is gone (see BackendOps.query_mount).
 */
bool mount_info_same_device(const MountInfo *a, const MountInfo *b);
/* The Propagation property's names: "shared", "private", "slave", "unbindable" ("unknown"). */
const char *propagation_to_string(uint32_t p);
/* The PROPAGATION_* number of a name; -EINVAL for anything else. */
int propagation_from_string(const char *s);

#endif
