/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The org.mountwatch.MountWatch1.Mount properties: see mount-properties.h.
 */
#include <stdio.h>
#include <sys/sysmacros.h>

#include "mount-properties.h"
#include "util.h"

#define P(id, sig, k) [MW_FIELD_##id] = { .signature = sig, .kind = MOUNT_PROPERTY_##k }
const MountProperty mount_properties[_MW_FIELD_MAX] = {
	P(UNIQUE_ID, "t", CONST),
	P(MOUNT_ID, "u", CONST),
	P(PARENT_UNIQUE_ID, "t", EMITS),
	P(PARENT_ID, "u", EMITS),
	P(MOUNT_POINT, "s", EMITS),
	P(ROOT, "s", EMITS),
	P(SOURCE, "s", EMITS),
	P(FS_TYPE, "s", EMITS),
	P(OPTIONS, "s", EMITS),
	P(SUPER_OPTIONS, "s", EMITS),
	P(ATTRIBUTES, "t", EMITS),
	P(READ_ONLY, "b", EMITS),
	P(PROPAGATION, "s", EMITS),
	P(PEER_GROUP, "u", EMITS),
	P(MASTER_GROUP, "u", EMITS),
	P(SUPERBLOCK_ID, "t", EMITS),
	P(DEVICE, "s", EMITS),
	/* Bumped on every event below the mount. */
	P(CHANGE_COUNT, "t", COUNTER),
	P(USER_OPTIONS, "s", EMITS),
};
#undef P

const char *mount_property_name(unsigned prop)
{
	return mw_field_name(prop);
}

uint32_t mount_properties_announced(void)
{
	uint32_t mask = 0;

	for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
		if (mount_properties[i].kind == MOUNT_PROPERTY_EMITS)
			mask |= 1U << i;
	return mask;
}

const MountBytesProperty mount_bytes_properties[N_MOUNT_BYTES_PROPERTIES] = {
	{ "MountPointBytes", MW_FIELD_MOUNT_POINT },
	{ "RootBytes", MW_FIELD_ROOT },
	{ "SourceBytes", MW_FIELD_SOURCE },
};

const char *mount_field_bytes(const mw_mount *m, unsigned field)
{
	switch (field) {
	case MW_FIELD_MOUNT_POINT:
		return mw_mount_get_mount_point(m);
	case MW_FIELD_ROOT:
		return mw_mount_get_root(m);
	case MW_FIELD_SOURCE:
		return mw_mount_get_source(m);
	}
	return NULL;
}

int mount_string_display(const char *raw, const char **ret, char **owned)
{
	char *t = NULL;
	int r;

	r = escape_for_display(raw, &t);
	if (r < 0)
		return r;
	*owned = t;
	*ret = t ?: raw;
	return 0;
}

void mount_value_done(MountValue *v)
{
	free(v->owned);
	*v = (MountValue){};
}

int mount_property_value_raw(const mw_mount *m, unsigned prop, char buf[static 128], MountValue *ret)
{
	MountValue v = {};
	dev_t d;

	switch (prop) {
	case MW_FIELD_UNIQUE_ID:
		v.u = mw_mount_get_unique_id(m);
		break;
	case MW_FIELD_MOUNT_ID:
		v.u = mw_mount_get_mount_id(m);
		break;
	case MW_FIELD_PARENT_UNIQUE_ID:
		v.u = mw_mount_get_parent_unique_id(m);
		break;
	case MW_FIELD_PARENT_ID:
		v.u = mw_mount_get_parent_id(m);
		break;
	case MW_FIELD_MOUNT_POINT:
		v.s = mw_mount_get_mount_point(m);
		break;
	case MW_FIELD_ROOT:
		v.s = mw_mount_get_root(m);
		break;
	case MW_FIELD_SOURCE:
		v.s = mw_mount_get_source(m);
		break;
	case MW_FIELD_FS_TYPE:
		v.s = mw_mount_get_fstype(m);
		break;
	case MW_FIELD_OPTIONS:
		v.s = mw_mount_get_options(m);
		break;
	case MW_FIELD_SUPER_OPTIONS:
		v.s = mw_mount_get_super_options(m);
		break;
	case MW_FIELD_ATTRIBUTES:
		v.u = mw_mount_get_attributes(m);
		break;
	case MW_FIELD_READ_ONLY:
		v.b = mw_mount_is_read_only(m);
		break;
	case MW_FIELD_PROPAGATION:
		v.s = mw_propagation_name(mw_mount_get_propagation(m));
		break;
	case MW_FIELD_PEER_GROUP:
		v.u = mw_mount_get_peer_group(m);
		break;
	case MW_FIELD_MASTER_GROUP:
		v.u = mw_mount_get_master_group(m);
		break;
	case MW_FIELD_SUPERBLOCK_ID:
		v.u = mw_mount_get_superblock_id(m);
		break;
	case MW_FIELD_DEVICE:
		d = mw_mount_get_device(m);
		snprintf(buf, 128, "%u:%u", major(d), minor(d));
		v.s = buf;
		break;
	case MW_FIELD_CHANGE_COUNT:
		v.u = mw_mount_get_change_count(m);
		break;
	case MW_FIELD_USER_OPTIONS:
		v.s = mw_mount_get_user_options(m);
		break;
	default:
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int mount_property_value(const mw_mount *m, unsigned prop, char buf[static 128], MountValue *ret)
{
	MountValue v;
	int r;

	r = mount_property_value_raw(m, prop, buf, &v);
	if (r < 0)
		return r;
	if (mount_properties[prop].signature[0] == 's') {
		r = mount_string_display(v.s, &v.s, &v.owned);
		if (r < 0)
			return r;
	}
	*ret = v;
	return 0;
}
