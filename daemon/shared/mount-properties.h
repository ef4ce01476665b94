/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The D-Bus half of a mount's fields: the org.mountwatch.MountWatch1.Mount
 * properties, their signatures and how their changes are announced, beside
 * the bus names (bus-api.h). The names are the library's (mw_field_name()).
 * mountwatchd's vtable, mountwatchctl and the benchmark read this table.
 */
#ifndef MOUNTWATCH_MOUNT_PROPERTIES_H
#define MOUNTWATCH_MOUNT_PROPERTIES_H

#include <stdbool.h>
#include <stdint.h>

#include "mountwatch/mountwatch.h"

/* How a property's value behaves, for the bus vtable. */
typedef enum MountPropertyKind {
	MOUNT_PROPERTY_CONST,   /* never changes for a mount */
	MOUNT_PROPERTY_EMITS,   /* changes are announced (PropertiesChanged, MountChanged) */
	MOUNT_PROPERTY_COUNTER, /* a fast counter: changes are never announced */
} MountPropertyKind;

typedef struct MountProperty {
	const char *signature; /* its D-Bus type: "t", "u", "s" or "b" */
	MountPropertyKind kind;
} MountProperty;

/* The properties, indexed by MW_FIELD_*. */
extern const MountProperty mount_properties[_MW_FIELD_MAX];
/* The D-Bus name of property prop (mw_field_name()); NULL out of range. */
const char *mount_property_name(unsigned prop);
/* Bitmask of the properties whose changes are announced. */
uint32_t mount_properties_announced(void);

/* One property's value, typed by mount_properties[].signature. */
typedef struct MountValue {
	uint64_t u;    /* "t", "u" */
	const char *s; /* "s": never NULL, valid UTF-8; into the mount, the buffer or owned */
	bool b;        /* "b" */
	char *owned;   /* an escaped copy s points to: mount_value_done() frees it */
} MountValue;

/*
 * The value of property prop (MW_FIELD_*) of m, as the bus shows it: the
 * one place that maps a mount to its properties (the bus getter and
 * ListMountsByFileDescriptor both read it). Strings are escaped for display
 * (escape_for_display(): valid UTF-8, reversible; the raw bytes are the
 * *Bytes properties). buf holds a derived string (Device) and must outlive
 * *ret; free *ret with mount_value_done(). Returns 0, -ENOMEM, or -EINVAL
 * for an unknown prop.
 */
int mount_property_value(const mw_mount *m, unsigned prop, char buf[static 128], MountValue *ret);
/* As mount_property_value(), strings as the kernel's bytes (not escaped): for a text of its own escaping. */
int mount_property_value_raw(const mw_mount *m, unsigned prop, char buf[static 128], MountValue *ret);
void mount_value_done(MountValue *v);
/* A mount's string as the bus shows it (see mount_property_value()): *owned is freed by the caller. */
int mount_string_display(const char *raw, const char **ret, char **owned);

/*
 * The properties that give a string field's raw bytes, "ay" (UDisks2 does
 * the same): MountPointBytes, RootBytes, SourceBytes. They change with
 * their field.
 */
typedef struct MountBytesProperty {
	const char *name;
	unsigned field; /* MW_FIELD_* */
} MountBytesProperty;

#define N_MOUNT_BYTES_PROPERTIES 3
extern const MountBytesProperty mount_bytes_properties[N_MOUNT_BYTES_PROPERTIES];
/* The raw bytes of string field (MW_FIELD_MOUNT_POINT, _ROOT, _SOURCE) of m; NULL for another field. */
const char *mount_field_bytes(const mw_mount *m, unsigned field);

#endif
