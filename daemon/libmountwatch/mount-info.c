/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MountInfo: the per-mount record and its comparison, and the fields' names.
 */
#include <stdio.h>
#include <linux/mount.h>

#include "mount-info.h"
#include "util.h"

#ifndef MOUNT_ATTR_NOSYMFOLLOW
#define MOUNT_ATTR_NOSYMFOLLOW 0x00200000
#endif
#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP 0x00100000
#endif

/* The fields' names (mw_field_name()); the bus names its Mount properties by them. */
static const char *const field_names[_MW_FIELD_MAX] = {
	[MW_FIELD_UNIQUE_ID] = "UniqueId",
	[MW_FIELD_MOUNT_ID] = "MountId",
	[MW_FIELD_PARENT_UNIQUE_ID] = "ParentUniqueId",
	[MW_FIELD_PARENT_ID] = "ParentId",
	[MW_FIELD_MOUNT_POINT] = "MountPoint",
	[MW_FIELD_ROOT] = "Root",
	[MW_FIELD_SOURCE] = "Source",
	[MW_FIELD_FS_TYPE] = "FsType",
	[MW_FIELD_OPTIONS] = "Options",
	[MW_FIELD_SUPER_OPTIONS] = "SuperOptions",
	[MW_FIELD_ATTRIBUTES] = "Attributes",
	[MW_FIELD_READ_ONLY] = "ReadOnly",
	[MW_FIELD_PROPAGATION] = "Propagation",
	[MW_FIELD_PEER_GROUP] = "PeerGroup",
	[MW_FIELD_MASTER_GROUP] = "MasterGroup",
	[MW_FIELD_SUPERBLOCK_ID] = "SuperblockId",
	[MW_FIELD_DEVICE] = "Device",
	[MW_FIELD_CHANGE_COUNT] = "ChangeCount",
	[MW_FIELD_USER_OPTIONS] = "UserOptions",
};

_public_ const char *mw_field_name(unsigned field)
{
	return field < _MW_FIELD_MAX ? field_names[field] : NULL;
}

void mount_info_done(MountInfo *info)
{
	free(info->mount_point);
	free(info->root);
	free(info->source);
	free(info->fstype);
	free(info->super_options);
	free(info->user_options);
	*info = (MountInfo){};
}

int mount_info_fill_strings(MountInfo *info)
{
	char **fields[] = { &info->mount_point, &info->root, &info->source, &info->fstype,
			    &info->super_options };

	for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
		/* "" of a NULL; the bytes themselves stay as the kernel gave them. */
		if (!*fields[i]) {
			*fields[i] = strdup("");
			if (!*fields[i])
				return -ENOMEM;
		}
	}
	return 0;
}

static int dup_field(char **dst, const char *src)
{
	if (!src) {
		*dst = NULL;
		return 0;
	}
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int mount_info_copy(MountInfo *dst, const MountInfo *src)
{
	MountInfo t = *src;

	t.mount_point = t.root = t.source = t.fstype = t.super_options = t.user_options = NULL;
	if (dup_field(&t.mount_point, src->mount_point) < 0 ||
	    dup_field(&t.root, src->root) < 0 ||
	    dup_field(&t.source, src->source) < 0 ||
	    dup_field(&t.fstype, src->fstype) < 0 ||
	    dup_field(&t.super_options, src->super_options) < 0 ||
	    dup_field(&t.user_options, src->user_options) < 0) {
		mount_info_done(&t);
		return -ENOMEM;
	}
	*dst = t;
	return 0;
}

uint32_t mount_info_diff(const MountInfo *a, const MountInfo *b)
{
	uint32_t d = 0;

#define DIFF(prop, cond) \
	if (cond)        \
		d |= 1U << (prop)
	DIFF(MW_FIELD_UNIQUE_ID, a->unique_id != b->unique_id);
	DIFF(MW_FIELD_MOUNT_ID, a->mnt_id != b->mnt_id);
	DIFF(MW_FIELD_PARENT_UNIQUE_ID, a->parent_unique_id != b->parent_unique_id);
	DIFF(MW_FIELD_PARENT_ID, a->parent_id != b->parent_id);
	DIFF(MW_FIELD_MOUNT_POINT, !streq_ptr(a->mount_point, b->mount_point));
	DIFF(MW_FIELD_ROOT, !streq_ptr(a->root, b->root));
	DIFF(MW_FIELD_SOURCE, !streq_ptr(a->source, b->source));
	DIFF(MW_FIELD_FS_TYPE, !streq_ptr(a->fstype, b->fstype));
	DIFF(MW_FIELD_SUPER_OPTIONS, !streq_ptr(a->super_options, b->super_options));
	DIFF(MW_FIELD_ATTRIBUTES, a->attributes != b->attributes);
	DIFF(MW_FIELD_READ_ONLY, mount_info_read_only(a) != mount_info_read_only(b));
	DIFF(MW_FIELD_PROPAGATION, a->propagation != b->propagation);
	DIFF(MW_FIELD_PEER_GROUP, a->peer_group != b->peer_group);
	DIFF(MW_FIELD_MASTER_GROUP, a->master_group != b->master_group);
	DIFF(MW_FIELD_SUPERBLOCK_ID, a->superblock_id != b->superblock_id);
	DIFF(MW_FIELD_DEVICE, a->dev_major != b->dev_major || a->dev_minor != b->dev_minor);
	DIFF(MW_FIELD_CHANGE_COUNT, a->notify_sum != b->notify_sum);
	DIFF(MW_FIELD_USER_OPTIONS, !streq_ptr(a->user_options ?: "", b->user_options ?: ""));
#undef DIFF
	if (d & (1U << MW_FIELD_ATTRIBUTES)) {
		char x[128], y[128];

		(void)mount_info_options(a, x, sizeof(x));
		(void)mount_info_options(b, y, sizeof(y));
		if (strcmp(x, y) != 0)
			d |= 1U << MW_FIELD_OPTIONS;
	}
	return d;
}

bool mount_info_same_device(const MountInfo *a, const MountInfo *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor && streq_ptr(a->fstype, b->fstype);
}

bool mount_info_read_only(const MountInfo *info)
{
	return info->attributes & MOUNT_ATTR_RDONLY;
}

int mount_info_options(const MountInfo *info, char *buf, size_t size)
{
	uint64_t a = info->attributes;
	int n;

	/* The order of show_mnt_opts() in fs/proc_namespace.c. */
	n = snprintf(buf, size, "%s%s%s%s%s%s%s%s%s",
		     a & MOUNT_ATTR_RDONLY ? "ro" : "rw",
		     a & MOUNT_ATTR_NOSUID ? ",nosuid" : "",
		     a & MOUNT_ATTR_NODEV ? ",nodev" : "",
		     a & MOUNT_ATTR_NOEXEC ? ",noexec" : "",
		     (a & MOUNT_ATTR__ATIME) == MOUNT_ATTR_NOATIME ? ",noatime" : "",
		     a & MOUNT_ATTR_NODIRATIME ? ",nodiratime" : "",
		     (a & MOUNT_ATTR__ATIME) == MOUNT_ATTR_RELATIME ? ",relatime" : "",
		     a & MOUNT_ATTR_NOSYMFOLLOW ? ",nosymfollow" : "",
		     a & MOUNT_ATTR_IDMAP ? ",idmapped" : "");
	if (n < 0 || (size_t)n >= size)
		return -ENOBUFS;
	return 0;
}

static const char *const propagation_names[] = {
	[MW_PROPAGATION_UNKNOWN] = "unknown",
	[MW_PROPAGATION_UNBINDABLE] = "unbindable",
	[MW_PROPAGATION_PRIVATE] = "private",
	[MW_PROPAGATION_SLAVE] = "slave",
	[MW_PROPAGATION_SHARED] = "shared",
};

const char *propagation_to_string(uint32_t p)
{
	if (p >= ELEMENTSOF(propagation_names))
		return "unknown";
	return propagation_names[p];
}

int propagation_from_string(const char *s)
{
	for (size_t i = 0; i < ELEMENTSOF(propagation_names); i++)
		if (streq_ptr(s, propagation_names[i]))
			return (int)i;
	return -EINVAL;
}

_public_ const char *mw_propagation_name(uint32_t propagation)
{
	return propagation_to_string(propagation);
}
