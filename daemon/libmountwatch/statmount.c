/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * statmount(2)/listmount(2) wrappers and the statmount → MountInfo mapping
 * (see statmount.h).
 */
#include <stdio.h>
#include <unistd.h>
#include <linux/mount.h>

#include "statmount.h"
#include "util.h"

void statmount_buf_done(StatmountBuf *b)
{
	free(b->sm);
	*b = (StatmountBuf){};
}

__thread uint64_t statmount_mnt_ns_id;

int statmount_get(uint64_t unique_id, uint64_t mask, StatmountBuf *b)
{
	struct mw_mnt_id_req req = {
		.size = statmount_mnt_ns_id ? MW_MNT_ID_REQ_SIZE_VER1 : MW_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = unique_id,
		.param = mask,
		.mnt_ns_id = statmount_mnt_ns_id,
	};

	if (!b->sm) {
		/* Room for the strings of a typical mount at once. */
		b->sm = malloc(sizeof(*b->sm) + 1024);
		if (!b->sm)
			return -ENOMEM;
		b->size = sizeof(*b->sm) + 1024;
	}
	for (;;) {
		struct mw_statmount *t;

		if (syscall(__NR_statmount, &req, b->sm, b->size, 0) >= 0)
			return 0;
		if (errno != EOVERFLOW)
			return -errno;
		/* The strings did not fit: grow, and ask again. */
		if (b->size >= 64 * 1024 * 1024)
			return -E2BIG;
		t = realloc(b->sm, b->size * 2);
		if (!t)
			return -ENOMEM;
		b->sm = t;
		b->size *= 2;
	}
}

const char *statmount_str(const struct mw_statmount *sm, uint64_t flag, uint32_t off)
{
	if (!(sm->mask & flag))
		return NULL;
	if (sizeof(*sm) + (size_t)off >= sm->size)
		return NULL; /* not within what the kernel wrote: treat as absent */
	return sm->str + off;
}

static int dup_str(char **dst, const char *s)
{
	if (!s) {
		*dst = NULL;
		return 0;
	}
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/* mountinfo's field 11: "ro"/"rw", show_sb_opts()'s flags, then the LSM's and the fs's options. */
static int super_options(const struct mw_statmount *sm, char **ret)
{
	const char *opts = statmount_str(sm, MW_STATMOUNT_MNT_OPTS, sm->mnt_opts);
	char *s;

	if (asprintf(&s, "%s%s%s%s%s%s", sm->sb_flags & MW_SB_RDONLY ? "ro" : "rw",
		     sm->sb_flags & MW_SB_SYNCHRONOUS ? ",sync" : "",
		     sm->sb_flags & MW_SB_DIRSYNC ? ",dirsync" : "",
		     sm->sb_flags & MW_SB_LAZYTIME ? ",lazytime" : "", opts && *opts ? "," : "",
		     opts ?: "") < 0)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static uint32_t propagation(uint64_t p)
{
	/* A mount both shared and slave is "shared" with a master, as fsinfo says. */
	if (p & MS_SHARED)
		return MW_PROPAGATION_SHARED;
	if (p & MS_SLAVE)
		return MW_PROPAGATION_SLAVE;
	if (p & MS_UNBINDABLE)
		return MW_PROPAGATION_UNBINDABLE;
	return MW_PROPAGATION_PRIVATE;
}

int statmount_to_mount_info(const struct mw_statmount *sm, MountInfo *ret)
{
	const char *type = statmount_str(sm, MW_STATMOUNT_FS_TYPE, sm->fs_type);
	const char *subtype = statmount_str(sm, MW_STATMOUNT_FS_SUBTYPE, sm->fs_subtype);
	const char *source = statmount_str(sm, MW_STATMOUNT_SB_SOURCE, sm->sb_source);
	MountInfo m = {
		.unique_id = sm->mnt_id,
		.mnt_id = sm->mnt_id_old,
		.parent_unique_id = sm->mnt_parent_id == sm->mnt_id ? 0 : sm->mnt_parent_id,
		.parent_id = sm->mnt_parent_id_old,
		.attributes = sm->mnt_attr,
		.propagation = propagation(sm->mnt_propagation),
		.peer_group = (uint32_t)sm->mnt_peer_group,
		.master_group = (uint32_t)sm->mnt_master,
		.superblock_id = (uint64_t)sm->sb_dev_major << 32 | sm->sb_dev_minor,
		.dev_major = sm->sb_dev_major,
		.dev_minor = sm->sb_dev_minor,
	};
	int r;

	r = dup_str(&m.mount_point, statmount_str(sm, MW_STATMOUNT_MNT_POINT, sm->mnt_point));
	if (r >= 0)
		r = dup_str(&m.root, statmount_str(sm, MW_STATMOUNT_MNT_ROOT, sm->mnt_root));
	/* A mount made without a device name shows as "none" in mountinfo. */
	if (r >= 0)
		r = dup_str(&m.source, source && !*source ? "none" : source);
	if (r >= 0 && type) {
		if (subtype && *subtype)
			r = asprintf(&m.fstype, "%s.%s", type, subtype) < 0 ? -ENOMEM : 0;
		else
			r = dup_str(&m.fstype, type);
	}
	if (r >= 0 && (sm->mask & MW_STATMOUNT_SB_BASIC))
		r = super_options(sm, &m.super_options);
	if (r < 0) {
		mount_info_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

int statmount_query(uint64_t unique_id, StatmountBuf *b, MountInfo *ret)
{
	int r;

	r = statmount_get(unique_id, STATMOUNT_MOUNT_INFO_MASK, b);
	if (r < 0)
		return r;
	return statmount_to_mount_info(b->sm, ret);
}

static long listmount_chunk(uint64_t below, uint64_t last, uint64_t *ids, size_t n)
{
	struct mw_mnt_id_req req = {
		.size = statmount_mnt_ns_id ? MW_MNT_ID_REQ_SIZE_VER1 : MW_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = below,
		.param = last,
		.mnt_ns_id = statmount_mnt_ns_id,
	};

	return syscall(__NR_listmount, &req, ids, n, 0);
}

int listmount_below(uint64_t unique_id, uint64_t **ret, size_t *ret_n)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n = 0, cap = 0;

	for (;;) {
		size_t room;
		long k;

		if (cap - n < 512) {
			uint64_t *t;

			cap = cap ? cap * 2 : 1024;
			t = realloc(ids, cap * sizeof(*ids));
			if (!t)
				return -ENOMEM;
			ids = t;
		}
		/* Each call goes on after the last ID it was given. */
		room = cap - n;
		k = listmount_chunk(unique_id, n ? ids[n - 1] : 0, ids + n, room);
		if (k < 0)
			return -errno;
		n += (size_t)k;
		if ((size_t)k < room)
			break;
	}
	*ret = TAKE_PTR(ids);
	*ret_n = n;
	return 0;
}

int listmount_all(uint64_t **ret, size_t *ret_n)
{
	return listmount_below(MW_LSMT_ROOT, ret, ret_n);
}

int statmount_supported(uint64_t *ret)
{
	StatmountBuf b = {};
	uint64_t root;
	long k;
	int r;

	/* The first mount listed is one that surely exists: the namespace's root. */
	k = listmount_chunk(MW_LSMT_ROOT, 0, &root, 1);
	if (k < 0)
		return -errno;
	if (k == 0)
		return -ENOENT;
	r = statmount_get(root, MW_STATMOUNT_SB_BASIC | MW_STATMOUNT_SUPPORTED_MASK, &b);
	if (r >= 0 && (b.sm->mask & MW_STATMOUNT_SUPPORTED_MASK)) {
		*ret = b.sm->supported_mask;
		statmount_buf_done(&b);
		return 0;
	}
	/* Before 6.15: what it fills when asked for everything known here. */
	r = statmount_get(root, (MW_STATMOUNT_SUPPORTED_MASK << 1) - 1, &b);
	if (r == -EINVAL)
		r = statmount_get(root, (MW_STATMOUNT_FS_TYPE << 1) - 1, &b); /* 6.8's bits */
	if (r >= 0)
		*ret = b.sm->mask;
	statmount_buf_done(&b);
	return r;
}
