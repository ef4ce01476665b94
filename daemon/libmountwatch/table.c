/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount table and its indexes; see table.h.
 */
#include "hashmap.h"
#include "table.h"
#include "util.h"

struct Table {
	Hashmap *by_unique_id; /* unique ID -> Mount */
	Hashmap *by_mnt_id;    /* 32-bit mount ID -> Mount (latest holder) */
	Hashmap *children;     /* parent unique ID -> first child */
	Hashmap *by_point;     /* string_hash(mount point) -> first Mount */
	Hashmap *by_sb;        /* superblock ID -> first Mount */
};

int table_new(Table **ret)
{
	Table *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (hashmap_new(&t->by_unique_id) < 0 || hashmap_new(&t->by_mnt_id) < 0 ||
	    hashmap_new(&t->children) < 0 || hashmap_new(&t->by_point) < 0 ||
	    hashmap_new(&t->by_sb) < 0) {
		table_free(t);
		return -ENOMEM;
	}
	*ret = t;
	return 0;
}

Table *table_free(Table *t)
{
	size_t i = 0;
	void *v;

	if (!t)
		return NULL;
	while (hashmap_iterate(t->by_unique_id, &i, NULL, &v)) {
		Mount *m = v;

		mount_unref(m);
	}
	hashmap_free(t->by_unique_id);
	hashmap_free(t->by_mnt_id);
	hashmap_free(t->children);
	hashmap_free(t->by_point);
	hashmap_free(t->by_sb);
	free(t);
	return NULL;
}

void table_freep(Table **t)
{
	table_free(*t);
}

size_t table_size(const Table *t)
{
	return hashmap_size(t->by_unique_id);
}

Mount *table_get(const Table *t, uint64_t unique_id)
{
	return hashmap_get(t->by_unique_id, unique_id);
}

Mount *table_get_by_mnt_id(const Table *t, uint32_t mnt_id)
{
	return hashmap_get(t->by_mnt_id, mnt_id);
}

Mount *table_parent(const Table *t, const Mount *m)
{
	if (!m->info.parent_unique_id || m->info.parent_unique_id == m->info.unique_id)
		return NULL;
	return table_get(t, m->info.parent_unique_id);
}

Mount *table_first_child(const Table *t, uint64_t unique_id)
{
	return hashmap_get(t->children, unique_id);
}

Mount *table_first_of_superblock(const Table *t, uint64_t superblock_id)
{
	return hashmap_get(t->by_sb, superblock_id);
}

Mount *table_first_at(const Table *t, const char *mount_point)
{
	return hashmap_get(t->by_point, string_hash(mount_point ?: ""));
}

/*
 * The stacking rules below count a mount that a MOVE_FROM detached and no
 * MOVE_TO has brought back yet as where its record says: its leaving was not
 * announced, so a consumer that asks for the top of a point at a change must
 * get the answer the announcements so far describe. Its MOVE_TO announces a
 * move if the record changed, or nothing if it did not (its record may have
 * been read in the new place by an earlier record of the batch: a mount slid
 * beneath it that it now sits on); a mount that never arrives is announced
 * as removed when the batch ends.
 */

/* Another mount sits on m at m's own mount point. */
static bool table_covered(const Table *t, const Mount *m)
{
	for (Mount *d = hashmap_get(t->by_point, string_hash(m->info.mount_point)); d; d = d->point_next)
		if (d != m && d->info.parent_unique_id == m->info.unique_id &&
		    streq_ptr(d->info.mount_point, m->info.mount_point))
			return true;
	return false;
}

/*
 * Another mount of p sits on a directory of p's that path goes through
 * (a child of p at a proper prefix of path, below p's own mount point):
 * path is not reached through p. O(depth of path), by the mount point index.
 */
static bool table_shadowed(const Table *t, const Mount *p, const char *path)
{
	_cleanup_free_ char *prefix = strdup(path);
	size_t from = strcmp(p->info.mount_point, "/") == 0 ? 1 : strlen(p->info.mount_point) + 1;

	if (!prefix || strlen(prefix) <= from)
		return false;
	for (char *slash = strchr(prefix + from, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		for (const Mount *c = hashmap_get(t->by_point, string_hash(prefix)); c; c = c->point_next)
			if (c->info.parent_unique_id == p->info.unique_id &&
			    streq_ptr(c->info.mount_point, prefix))
				return true;
		*slash = '/';
	}
	return false;
}

/*
 * m cannot be reached by its path: an ancestor it is mounted below (not on
 * top of) is covered by another mount, or has another mount on a directory
 * between its mount point and m's. Two stacks can share a path string:
 * mounts made on /a/b while one mount was at /a stay, hidden, when another
 * is mounted on /a and gets a /a/b of its own; so do mounts made on /a/b
 * before anything was mounted on /a.
 */
static bool table_hidden(const Table *t, const Mount *m)
{
	for (const Mount *p; (p = table_parent(t, m)); m = p)
		if (!streq_ptr(m->info.mount_point, p->info.mount_point) &&
		    (table_covered(t, p) || table_shadowed(t, p, m->info.mount_point)))
			return true;
	return false;
}

Mount *table_topmost_at(const Table *t, const char *mount_point)
{
	Mount *top = NULL;

	for (Mount *c = hashmap_get(t->by_point, string_hash(mount_point)); c; c = c->point_next) {
		if (!streq_ptr(c->info.mount_point, mount_point) || table_covered(t, c))
			continue;
		if (!table_hidden(t, c))
			return c;
		/* Every stack there hidden (a mount covers an ancestor of all):
		 * the newest top, as mountinfo's last line, not the index's order. */
		if (!top || c->info.unique_id > top->info.unique_id)
			top = c;
	}
	return top;
}

/* Intrusive list helpers: a list is a hashmap slot holding its first element. */
static int list_link(Hashmap *h, uint64_t key, Mount *m, size_t prev_off, size_t next_off)
{
	Mount *first = hashmap_get(h, key);
	int r;

#define PREV(x) (*(Mount **)((char *)(x) + prev_off))
#define NEXT(x) (*(Mount **)((char *)(x) + next_off))
	r = hashmap_put(h, key, m);
	if (r < 0)
		return r;
	PREV(m) = NULL;
	NEXT(m) = first;
	if (first)
		PREV(first) = m;
	return 0;
}

static void list_unlink(Hashmap *h, uint64_t key, Mount *m, size_t prev_off, size_t next_off)
{
	if (PREV(m))
		NEXT(PREV(m)) = NEXT(m);
	else if (NEXT(m))
		(void)hashmap_put(h, key, NEXT(m)); /* replacing never allocates */
	else
		(void)hashmap_remove(h, key);
	if (NEXT(m))
		PREV(NEXT(m)) = PREV(m);
	PREV(m) = NEXT(m) = NULL;
#undef PREV
#undef NEXT
}

#define SIBLING offsetof(Mount, sibling_prev), offsetof(Mount, sibling_next)
#define POINT offsetof(Mount, point_prev), offsetof(Mount, point_next)
#define SB offsetof(Mount, sb_prev), offsetof(Mount, sb_next)

static uint64_t point_key(const Mount *m)
{
	return string_hash(m->info.mount_point ?: "");
}

static int index_add(Table *t, Mount *m)
{
	int r;

	r = list_link(t->children, m->info.parent_unique_id, m, SIBLING);
	if (r < 0)
		return r;
	r = list_link(t->by_point, point_key(m), m, POINT);
	if (r < 0)
		goto fail_children;
	r = list_link(t->by_sb, m->info.superblock_id, m, SB);
	if (r < 0)
		goto fail_point;
	r = hashmap_put(t->by_mnt_id, m->info.mnt_id, m);
	if (r < 0)
		goto fail_sb;
	return 0;

fail_sb:
	list_unlink(t->by_sb, m->info.superblock_id, m, SB);
fail_point:
	list_unlink(t->by_point, point_key(m), m, POINT);
fail_children:
	list_unlink(t->children, m->info.parent_unique_id, m, SIBLING);
	return r;
}

static void index_remove(Table *t, Mount *m)
{
	list_unlink(t->children, m->info.parent_unique_id, m, SIBLING);
	list_unlink(t->by_point, point_key(m), m, POINT);
	list_unlink(t->by_sb, m->info.superblock_id, m, SB);
	if (hashmap_get(t->by_mnt_id, m->info.mnt_id) == m)
		(void)hashmap_remove(t->by_mnt_id, m->info.mnt_id);
}

int table_add(Table *t, MountInfo *info, Mount **ret)
{
	Mount *m;
	int r;

	if (table_get(t, info->unique_id))
		return -EEXIST;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->n_ref = 1;
	m->info = *info;
	(void)mount_info_options(&m->info, m->options, sizeof(m->options));
	r = hashmap_put(t->by_unique_id, m->info.unique_id, m);
	if (r < 0)
		goto fail;
	r = index_add(t, m);
	if (r < 0) {
		(void)hashmap_remove(t->by_unique_id, m->info.unique_id);
		goto fail;
	}
	*info = (MountInfo){};
	if (ret)
		*ret = m;
	return 0;
fail:
	free(m);
	return r;
}

int table_update(Table *t, Mount *m, MountInfo *info)
{
	MountInfo old;
	uint32_t diff;
	int r;

	diff = mount_info_diff(&m->info, info);
	index_remove(t, m);
	old = m->info;
	m->info = *info;
	r = index_add(t, m);
	if (r < 0) {
		m->info = old;
		/*
		 * Re-linking what was linked before cannot fail: each key is
		 * put back into a map it was just removed from, and a map
		 * never shrinks (hashmap.h).
		 */
		(void)index_add(t, m);
		return r;
	}
	mount_info_done(&old);
	(void)mount_info_options(&m->info, m->options, sizeof(m->options));
	*info = (MountInfo){};
	return (int)diff;
}

void table_remove(Table *t, Mount *m)
{
	index_remove(t, m);
	(void)hashmap_remove(t->by_unique_id, m->info.unique_id);
	m->sibling_prev = m->sibling_next = m->point_prev = m->point_next = m->sb_prev = m->sb_next = NULL;
	mount_unref(m);
}

void mount_unref(Mount *m)
{
	if (!m || --m->n_ref > 0)
		return;
	mount_info_done(&m->info);
	free(m);
}

int table_iterate(const Table *t, size_t *i, Mount **m)
{
	void *v;

	if (!hashmap_iterate(t->by_unique_id, i, NULL, &v))
		return 0;
	*m = v;
	return 1;
}
