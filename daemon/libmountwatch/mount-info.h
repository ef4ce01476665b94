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

/* Propagation types, numbered as fsinfo's MOUNT_PROPAGATION_*. */
enum {
	PROPAGATION_UNKNOWN = 0,
	PROPAGATION_UNBINDABLE = 1,
	PROPAGATION_PRIVATE = 2,
	PROPAGATION_SLAVE = 3, /* MOUNT_PROPAGATION_DEPENDENT */
	PROPAGATION_SHARED = 4,
};

typedef struct MountInfo {
	uint64_t unique_id;
	uint32_t mnt_id;
	uint64_t parent_unique_id; /* 0: parent not visible */
	uint32_t parent_id;
	char *mount_point;
	char *root;
	char *source;
	char *fstype;
	char *super_options;
	uint64_t attributes; /* MOUNT_ATTR_* */
	uint32_t propagation;
	uint32_t peer_group;
	uint32_t master_group;
	uint64_t superblock_id;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t notify_sum; /* mnt_notify_sum: the ChangeCount property */
} MountInfo;

/* One bit per property, in the order of the D-Bus interface. */
enum {
	MOUNT_PROP_UNIQUE_ID,
	MOUNT_PROP_MOUNT_ID,
	MOUNT_PROP_PARENT_UNIQUE_ID,
	MOUNT_PROP_PARENT_ID,
	MOUNT_PROP_MOUNT_POINT,
	MOUNT_PROP_ROOT,
	MOUNT_PROP_SOURCE,
	MOUNT_PROP_FS_TYPE,
	MOUNT_PROP_OPTIONS,
	MOUNT_PROP_SUPER_OPTIONS,
	MOUNT_PROP_ATTRIBUTES,
	MOUNT_PROP_READ_ONLY,
	MOUNT_PROP_PROPAGATION,
	MOUNT_PROP_PEER_GROUP,
	MOUNT_PROP_MASTER_GROUP,
	MOUNT_PROP_SUPERBLOCK_ID,
	MOUNT_PROP_DEVICE,
	MOUNT_PROP_CHANGE_COUNT,
	_MOUNT_PROP_MAX,
};

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
extern const MountProperty mount_properties[_MOUNT_PROP_MAX];
/* Bitmask of the properties whose changes are announced. */
uint32_t mount_properties_announced(void);

void mount_info_done(MountInfo *info);
/* Makes every string valid UTF-8 (see utf8_escape_invalid()). */
int mount_info_sanitize(MountInfo *info);
int mount_info_copy(MountInfo *dst, const MountInfo *src);

/* Bitmask (1 << MOUNT_PROP_*) of the properties whose values differ. */
uint32_t mount_info_diff(const MountInfo *a, const MountInfo *b);

/* The per-mount options as mountinfo's field 6 shows them ("rw,nosuid,relatime"). */
int mount_info_options(const MountInfo *info, char *buf, size_t size);
bool mount_info_read_only(const MountInfo *info);
/* The Propagation property's names: "shared", "private", "slave", "unbindable" ("unknown"). */
const char *propagation_to_string(uint32_t p);
/* The PROPAGATION_* number of a name; -EINVAL for anything else. */
int propagation_from_string(const char *s);

#endif
