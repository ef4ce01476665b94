/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fake kernel for the unit tests; see test-backend.h. Not part of the
 * product: only the test executables link it.
 */
#include <assert.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "test-backend.h"
#include "util.h"

#define MAX_MOUNTS 4096

typedef struct FakeMount {
	bool alive;
	uint64_t unique_id;
	uint32_t mnt_id;
	uint64_t parent; /* unique ID, 0 for the root */
	char name[64];
	char fstype[16];
	uint64_t attr;
	unsigned sb; /* index into FakeKernel.sb_options */
	uint64_t attr_changes, topology_changes, subtree_notifications;
	bool touched_by_loss;
} FakeMount;

struct FakeKernel {
	Backend base; /* first: the Backend view */
	FakeMount mounts[MAX_MOUNTS];
	unsigned n;
	uint64_t next_unique;
	MountEvent *queue;
	unsigned queue_size, head, count;
	bool loss;
	unsigned queries, lost, resolves;
	size_t read_limit; /* the next read returns at most this many (0: no limit) */
	bool read_pause;   /* and the one after it nothing: the queue looks empty */
	int fd;            /* always readable: a poll() for more records returns at once */
	char sb_options[MAX_MOUNTS][32];
};

static const BackendOps fake_ops;

static FakeMount *get(FakeKernel *k, uint64_t id)
{
	for (unsigned i = 0; i < k->n; i++)
		if (k->mounts[i].alive && k->mounts[i].unique_id == id)
			return &k->mounts[i];
	return NULL;
}

static FakeMount *new_mount(FakeKernel *k, uint64_t parent, const char *name, const char *fstype)
{
	FakeMount *m;

	assert(k->n < MAX_MOUNTS);
	m = &k->mounts[k->n++];
	*m = (FakeMount){ .alive = true, .unique_id = k->next_unique++, .parent = parent, .sb = k->n - 1 };
	snprintf(k->sb_options[m->sb], sizeof(k->sb_options[m->sb]), "rw");
	m->mnt_id = (uint32_t)(m->unique_id - (1ULL << 31) + 20);
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
	return m;
}

FakeKernel *fake_kernel_new(unsigned queue_size)
{
	FakeKernel *k = calloc(1, sizeof(*k));

	assert(k);
	k->base.ops = &fake_ops;
	k->next_unique = (1ULL << 31) + 1;
	k->queue_size = queue_size;
	k->queue = calloc(queue_size, sizeof(*k->queue));
	assert(k->queue);
	k->fd = eventfd(1, EFD_CLOEXEC);
	assert(k->fd >= 0);
	new_mount(k, 0, "", "ext4");
	return k;
}

FakeKernel *fake_kernel_free(FakeKernel *k)
{
	if (k) {
		close(k->fd);
		free(k->queue);
		free(k);
	}
	return NULL;
}

Backend *fake_kernel_backend(FakeKernel *k)
{
	return &k->base;
}

uint64_t fake_root(FakeKernel *k)
{
	return k->mounts[0].unique_id;
}

static void full_path(FakeKernel *k, const FakeMount *m, char *buf, size_t size)
{
	const FakeMount *chain[256];
	size_t n = 0, len = 0;

	for (const FakeMount *p = m; p && p->parent; p = get(k, p->parent))
		chain[n++] = p;
	buf[0] = 0;
	while (n > 0) {
		const FakeMount *p = chain[--n];

		if (p->name[0])
			len += (size_t)snprintf(buf + len, size - len, "/%s", p->name);
	}
	if (len == 0)
		snprintf(buf, size, "/");
}

/* The kernel's rules: bump counters, then post the record (or note a loss). */
static void post(FakeKernel *k, MountEventType type, uint64_t trigger, uint64_t aux)
{
	FakeMount *t = get(k, trigger), *a = aux ? get(k, aux) : NULL;
	bool lose = k->count == k->queue_size;

	if (type == MOUNT_EVENT_SETATTR || type == MOUNT_EVENT_READONLY || type == MOUNT_EVENT_EXPIRY) {
		t->attr_changes++;
		t->touched_by_loss |= lose;
	} else {
		t->topology_changes++;
		t->touched_by_loss |= lose;
		if (a) {
			a->topology_changes++;
			a->touched_by_loss |= lose;
		}
	}
	for (FakeMount *p = get(k, t->parent); p; p = get(k, p->parent)) {
		p->subtree_notifications++;
		p->touched_by_loss |= lose;
	}
	if (lose) {
		k->loss = true;
		k->lost++;
		return;
	}
	k->queue[(k->head + k->count) % k->queue_size] =
		(MountEvent){ .type = type, .triggered_on = trigger, .auxiliary = aux };
	k->count++;
}

static FakeMount *topmost_at(FakeKernel *k, const char *path)
{
	char buf[1024];

	for (unsigned i = k->n; i-- > 0;) {
		FakeMount *m = &k->mounts[i];
		bool covered = false;

		if (!m->alive)
			continue;
		full_path(k, m, buf, sizeof(buf));
		if (strcmp(buf, path) != 0)
			continue;
		for (unsigned j = 0; j < k->n; j++)
			if (k->mounts[j].alive && k->mounts[j].parent == m->unique_id && !k->mounts[j].name[0])
				covered = true;
		if (!covered)
			return m;
	}
	return NULL;
}

/* A new mount on (parent, name), not yet announced. */
static FakeMount *attach(FakeKernel *k, uint64_t parent, const char *name, const char *fstype)
{
	FakeMount *p = get(k, parent), *top;
	char path[1024];

	assert(p);
	/* Mounting on a covered point mounts on top of the topmost mount there. */
	full_path(k, p, path, sizeof(path));
	if (name[0]) {
		size_t len = strlen(path);

		snprintf(path + len, sizeof(path) - len, "%s%s", len > 1 ? "/" : "", name);
	}
	top = topmost_at(k, path);
	if (top && (top != p || !name[0])) {
		parent = top->unique_id;
		name = "";
	}
	return new_mount(k, parent, name, fstype);
}

uint64_t fake_mount(FakeKernel *k, uint64_t parent, const char *name, const char *fstype)
{
	FakeMount *m = attach(k, parent, name, fstype);

	post(k, MOUNT_EVENT_NEW_MOUNT, m->parent, m->unique_id);
	return m->unique_id;
}

/* The live subtree of id, parents before children (the kernel's next_mnt() order). */
static unsigned subtree(FakeKernel *k, uint64_t id, FakeMount **out, unsigned max)
{
	unsigned n = 0;

	assert(max > 0);
	out[n++] = get(k, id);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < k->n; j++)
			if (k->mounts[j].alive && k->mounts[j].parent == out[i]->unique_id) {
				assert(n < max);
				out[n++] = &k->mounts[j];
			}
	return n;
}

uint64_t fake_rbind(FakeKernel *k, uint64_t src, uint64_t parent, const char *name)
{
	FakeMount *tree[MAX_MOUNTS], *copy[MAX_MOUNTS];
	unsigned n = subtree(k, src, tree, MAX_MOUNTS);

	/* As commit_tree(): the whole copy is attached, then announced. */
	copy[0] = attach(k, parent, name, tree[0]->fstype);
	for (unsigned i = 1; i < n; i++) {
		unsigned p = 0;

		while (tree[p]->unique_id != tree[i]->parent)
			p++;
		copy[i] = new_mount(k, copy[p]->unique_id, tree[i]->name, tree[i]->fstype);
	}
	for (unsigned i = 0; i < n; i++) {
		copy[i]->sb = tree[i]->sb;
		post(k, MOUNT_EVENT_NEW_MOUNT, copy[i]->parent, copy[i]->unique_id);
	}
	return copy[0]->unique_id;
}

uint64_t fake_bind(FakeKernel *k, uint64_t src, uint64_t parent, const char *name)
{
	FakeMount *s = get(k, src), *m;
	uint64_t id;

	assert(s);
	id = fake_mount(k, parent, name, s->fstype);
	m = get(k, id);
	m->sb = s->sb;
	return id;
}

void fake_remount_sb(FakeKernel *k, uint64_t id, const char *options)
{
	FakeMount *m = get(k, id);

	snprintf(k->sb_options[m->sb], sizeof(k->sb_options[m->sb]), "%s", options);
	post(k, MOUNT_EVENT_SETATTR, id, 0);
}

void fake_umount(FakeKernel *k, uint64_t id)
{
	FakeMount *m = get(k, id);

	assert(m && m->parent);
	for (unsigned i = 0; i < k->n; i++)
		if (k->mounts[i].alive && k->mounts[i].parent == id)
			fake_umount(k, k->mounts[i].unique_id);
	post(k, MOUNT_EVENT_UNMOUNT, m->parent, id);
	m->alive = false;
}

void fake_umount_tree(FakeKernel *k, uint64_t id)
{
	FakeMount *tree[MAX_MOUNTS];
	unsigned n = subtree(k, id, tree, MAX_MOUNTS);

	assert(tree[0]->parent);
	/* As umount_tree(): every record while the parent chains are intact. */
	for (unsigned i = 0; i < n; i++)
		post(k, MOUNT_EVENT_UNMOUNT, tree[i]->parent, tree[i]->unique_id);
	for (unsigned i = 0; i < n; i++)
		tree[i]->alive = false;
}

unsigned fake_subtree_size(FakeKernel *k, uint64_t id)
{
	FakeMount *tree[MAX_MOUNTS];

	return subtree(k, id, tree, MAX_MOUNTS);
}

void fake_unmount_silently(FakeKernel *k, uint64_t id)
{
	FakeMount *m = get(k, id);

	for (unsigned i = 0; i < k->n; i++)
		if (k->mounts[i].alive && k->mounts[i].parent == id)
			fake_unmount_silently(k, k->mounts[i].unique_id);
	m->alive = false;
}

bool fake_is_ancestor(FakeKernel *k, uint64_t ancestor, uint64_t id)
{
	for (FakeMount *p = get(k, id); p; p = get(k, p->parent))
		if (p->unique_id == ancestor)
			return true;
	return false;
}

void fake_move(FakeKernel *k, uint64_t id, uint64_t new_parent, const char *name)
{
	FakeMount *m = get(k, id);

	assert(m && m->parent && !fake_is_ancestor(k, id, new_parent));
	post(k, MOUNT_EVENT_MOVE_FROM, m->parent, id);
	m->parent = new_parent;
	snprintf(m->name, sizeof(m->name), "%s", name);
	post(k, MOUNT_EVENT_MOVE_TO, new_parent, id);
}

void fake_setattr(FakeKernel *k, uint64_t id, uint64_t attr)
{
	FakeMount *m = get(k, id);

	m->attr = attr;
	post(k, MOUNT_EVENT_SETATTR, id, 0);
}

void fake_split_next_read(FakeKernel *k, size_t n)
{
	k->read_limit = n;
}

void fake_flush_queue(FakeKernel *k)
{
	k->count = 0;
	k->loss = false;
}

uint64_t fake_random_mount(FakeKernel *k, bool allow_root)
{
	unsigned alive = 0, pick;

	for (unsigned i = allow_root ? 0 : 1; i < k->n; i++)
		alive += k->mounts[i].alive;
	if (alive == 0)
		return 0;
	pick = (unsigned)rand() % alive;
	for (unsigned i = allow_root ? 0 : 1; i < k->n; i++)
		if (k->mounts[i].alive && pick-- == 0)
			return k->mounts[i].unique_id;
	return 0;
}

unsigned fake_count(FakeKernel *k)
{
	unsigned n = 0;

	for (unsigned i = 0; i < k->n; i++)
		n += k->mounts[i].alive;
	return n;
}

unsigned fake_queries(FakeKernel *k)
{
	return k->queries;
}

unsigned fake_lost(FakeKernel *k)
{
	return k->lost;
}

bool fake_touched(FakeKernel *k, uint64_t id)
{
	FakeMount *m = get(k, id);

	return m && m->touched_by_loss;
}

unsigned fake_touched_by_loss(FakeKernel *k, bool reset)
{
	unsigned n = 0;

	for (unsigned i = 0; i < k->n; i++) {
		n += k->mounts[i].alive && k->mounts[i].touched_by_loss;
		if (reset)
			k->mounts[i].touched_by_loss = false;
	}
	return n;
}

bool fake_iterate(FakeKernel *k, unsigned *i, uint64_t *id)
{
	for (; *i < k->n; (*i)++)
		if (k->mounts[*i].alive) {
			*id = k->mounts[(*i)++].unique_id;
			return true;
		}
	return false;
}

int fake_query(FakeKernel *k, uint64_t id, MountInfo *ret)
{
	FakeMount *m = get(k, id), *p;
	char path[1024];

	if (!m)
		return -ENOENT;
	p = get(k, m->parent);
	full_path(k, m, path, sizeof(path));
	*ret = (MountInfo){
		.unique_id = m->unique_id,
		.mnt_id = m->mnt_id,
		.parent_unique_id = p ? p->unique_id : 0,
		.parent_id = p ? p->mnt_id : m->mnt_id,
		.mount_point = strdup(path),
		.root = strdup("/"),
		.source = strdup(m->fstype),
		.fstype = strdup(m->fstype),
		.super_options = strdup(k->sb_options[m->sb]),
		.attributes = m->attr,
		.propagation = PROPAGATION_PRIVATE,
		.superblock_id = 1000 + m->sb,
		.dev_major = 0,
		.dev_minor = m->mnt_id,
		.notify_sum = m->attr_changes + m->topology_changes + m->subtree_notifications,
	};
	assert(ret->mount_point && ret->root && ret->source && ret->fstype && ret->super_options);
	return 0;
}

/* ---- the ops ---- */

static int f_open(Backend **ret, const char *path, unsigned queue_size)
{
	return -EOPNOTSUPP; /* tests create the fake directly */
}

static Backend *f_close(Backend *b)
{
	return NULL; /* owned by the test */
}

static int f_get_fd(Backend *b)
{
	return ((FakeKernel *)b)->fd;
}

static int f_read_events(Backend *b, MountEvent *events, size_t n_max)
{
	FakeKernel *k = (FakeKernel *)b;
	size_t n = 0;

	if (k->read_pause) {
		k->read_pause = false;
		return 0;
	}
	if (k->read_limit) {
		n_max = n_max < k->read_limit ? n_max : k->read_limit;
		k->read_limit = 0;
		k->read_pause = true;
	}

	if (k->loss && n < n_max) {
		events[n++] = (MountEvent){ .type = MOUNT_EVENT_LOSS };
		k->loss = false;
	}
	while (n < n_max && k->count > 0) {
		events[n++] = k->queue[k->head];
		k->head = (k->head + 1) % k->queue_size;
		k->count--;
	}
	return (int)n;
}

static int list(FakeKernel *k, uint64_t parent, bool all, MountSummary **ret, size_t *ret_n)
{
	MountSummary *l = calloc(k->n + 1, sizeof(*l));
	size_t n = 0;

	assert(l);
	for (unsigned i = 0; i < k->n; i++) {
		FakeMount *m = &k->mounts[i], *p;

		if (!m->alive || (!all && m->parent != parent))
			continue;
		p = get(k, m->parent);
		l[n++] = (MountSummary){
			.unique_id = m->unique_id,
			.mnt_id = m->mnt_id,
			.parent_id = p ? p->mnt_id : m->mnt_id,
			.notify_sum = m->attr_changes + m->topology_changes + m->subtree_notifications,
		};
	}
	*ret = l;
	*ret_n = n;
	return 0;
}

static int f_list_all(Backend *b, MountSummary **ret, size_t *ret_n)
{
	return list((FakeKernel *)b, 0, true, ret, ret_n);
}

static int f_list_children(Backend *b, uint64_t id, MountSummary **ret, size_t *ret_n)
{
	if (!get((FakeKernel *)b, id))
		return -ENOENT;
	return list((FakeKernel *)b, id, false, ret, ret_n);
}

static int f_query_mount(Backend *b, uint64_t id, MountInfo *ret)
{
	FakeKernel *k = (FakeKernel *)b;
	int r;

	k->queries++;
	r = fake_query(k, id, ret);
	if (r >= 0)
		ret->parent_unique_id = 0; /* as the kernel: only the 32-bit parent ID */
	return r;
}

static int f_resolve_mnt_id(Backend *b, uint32_t mnt_id, uint64_t *ret)
{
	FakeKernel *k = (FakeKernel *)b;

	k->resolves++;
	for (unsigned i = 0; i < k->n; i++)
		if (k->mounts[i].alive && k->mounts[i].mnt_id == mnt_id) {
			*ret = k->mounts[i].unique_id;
			return 0;
		}
	return -ENOENT;
}

unsigned fake_resolves(FakeKernel *k)
{
	return k->resolves;
}

static const BackendOps fake_ops = {
	.name = "fake",
	.open = f_open,
	.close = f_close,
	.get_fd = f_get_fd,
	.read_events = f_read_events,
	.list_all = f_list_all,
	.list_children = f_list_children,
	.query_mount = f_query_mount,
	.resolve_mnt_id = f_resolve_mnt_id,
};
