/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public objects a caller holds: a mount (the table's node, opaque,
 * read through getters, kept alive by references) and a change.
 */
#include <sys/sysmacros.h>

#include "util.h"
#include "watcher.h"

_public_ uint64_t mw_mount_get_unique_id(const mw_mount *m)
{
	return m->info.unique_id;
}

_public_ uint32_t mw_mount_get_mount_id(const mw_mount *m)
{
	return m->info.mnt_id;
}

_public_ uint64_t mw_mount_get_parent_unique_id(const mw_mount *m)
{
	return m->info.parent_unique_id;
}

_public_ uint32_t mw_mount_get_parent_id(const mw_mount *m)
{
	return m->info.parent_id;
}

_public_ const char *mw_mount_get_mount_point(const mw_mount *m)
{
	return m->info.mount_point ?: "";
}

_public_ const char *mw_mount_get_root(const mw_mount *m)
{
	return m->info.root ?: "";
}

_public_ const char *mw_mount_get_source(const mw_mount *m)
{
	return m->info.source ?: "";
}

_public_ const char *mw_mount_get_fstype(const mw_mount *m)
{
	return m->info.fstype ?: "";
}

_public_ const char *mw_mount_get_options(const mw_mount *m)
{
	return m->options;
}

_public_ const char *mw_mount_get_super_options(const mw_mount *m)
{
	return m->info.super_options ?: "";
}

_public_ const char *mw_mount_get_user_options(const mw_mount *m)
{
	return m->info.user_options ?: "";
}

_public_ uint64_t mw_mount_get_attributes(const mw_mount *m)
{
	return m->info.attributes;
}

_public_ bool mw_mount_is_read_only(const mw_mount *m)
{
	return mount_info_read_only(&m->info);
}

_public_ uint32_t mw_mount_get_propagation(const mw_mount *m)
{
	return m->info.propagation;
}

_public_ uint32_t mw_mount_get_peer_group(const mw_mount *m)
{
	return m->info.peer_group;
}

_public_ uint32_t mw_mount_get_master_group(const mw_mount *m)
{
	return m->info.master_group;
}

_public_ uint64_t mw_mount_get_superblock_id(const mw_mount *m)
{
	return m->info.superblock_id;
}

_public_ dev_t mw_mount_get_device(const mw_mount *m)
{
	return makedev(m->info.dev_major, m->info.dev_minor);
}

_public_ uint64_t mw_mount_get_change_count(const mw_mount *m)
{
	return m->info.notify_sum;
}

_public_ mw_mount *mw_mount_ref(mw_mount *m)
{
	if (m)
		m->n_ref++;
	return m;
}

_public_ mw_mount *mw_mount_unref(mw_mount *m)
{
	mount_unref(m);
	return NULL;
}

_public_ enum mw_change_type mw_change_get_type(const mw_change *c)
{
	return c->type;
}

_public_ uint64_t mw_change_get_unique_id(const mw_change *c)
{
	return c->unique_id;
}

_public_ const mw_mount *mw_change_get_mount(const mw_change *c)
{
	return c->mount;
}

_public_ const char *mw_change_get_mount_point(const mw_change *c)
{
	return c->mount_point ?: "";
}

_public_ uint32_t mw_change_get_fields(const mw_change *c)
{
	return c->fields;
}

_public_ const struct mw_resync_stats *mw_change_get_resync(const mw_change *c)
{
	return c->resync;
}
