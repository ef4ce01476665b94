/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The any-kernel backend: /proc/self/mountinfo. The kernel says only *that*
 * the mount table changed (POLLPRI on the open file); on each wake-up the
 * whole file is re-read, parsed and compared with the previous parse (a
 * line equal to the one the mount had is not parsed again), and the
 * differences become events: ATTACH (a mount ID not seen before),
 * DETACH (one gone), MOVED (another mount point or parent), SETATTR (any
 * other field). That is O(mounts) per change, and nothing can be lost: the
 * next parse always has everything.
 *
 * Unique IDs: mountinfo shows only the 32-bit mount ID, which the kernel
 * reuses. Where the kernel has listmount(2) and statmount(2) (6.8), a mount
 * ID that the previous parse did not have is looked up there (one listmount
 * and one statmount per mount not known yet), so the IDs are the kernel's
 * 64-bit unique ones. Elsewhere, or for a mount gone before the look-up,
 * the backend assigns 64-bit IDs itself, a new one whenever a mount ID
 * appears that the previous parse did not have (from 2^63 up, never reused
 * by one backend: the top bit marks them as ours, and they cannot meet the
 * kernel's, which count up from far below). SuperblockId is the device
 * number (major << 32 | minor): mountinfo names no superblock, and a live
 * superblock's device is unique.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include "backend.h"
#include "hashmap.h"
#include "statmount.h"
#include "util.h"

#define MOUNTINFO_PATH "/proc/self/mountinfo"
#define ASSIGNED_ID_BASE (UINT64_C(1) << 63)

/*
 * One parsed line. block holds the line as read, then a copy of it that the
 * parse cut into the fields (NUL-terminated, unescaped in place), which the
 * string pointers point into: one allocation per mount, and a line that did
 * not change since the last read is taken over by copying the block, not
 * parsed again.
 */
typedef struct MiEntry {
	uint64_t unique_id;
	uint32_t mnt_id, parent_id;
	uint32_t major, minor;
	char *block;
	size_t line_len;
	char *root, *point, *fstype, *source, *mnt_opts, *super_opts;
	uint32_t propagation, peer_group, master_group;
} MiEntry;

typedef struct MiTable {
	MiEntry *entries;
	size_t n;
	Hashmap *by_mnt_id; /* mount ID -> entry */
	Hashmap *by_unique; /* unique ID -> entry */
} MiTable;

typedef struct MountinfoBackend {
	Backend base;
	int fd;    /* /proc/self/mountinfo: POLLPRI when the table changed */
	int epfd;  /* readable when fd has POLLPRI */
	/*
	 * A second open file, polled only here: when epfd sits in the caller's
	 * epoll, the caller's readiness check polls fd and takes its change mark.
	 */
	int probe_fd;
	/*
	 * In epfd: the next verification (PROPAGATION_VERIFY_USEC), a re-read
	 * without a change mark, as a propagation change sets none.
	 */
	int timer_fd;
	uint64_t verify_due;
	uint64_t verify_wait; /* PROPAGATION_VERIFY_USEC, doubled after each quiet one */
	uint64_t next_id;
	bool kernel_ids; /* listmount(2) + statmount(2) give the unique IDs */
	MiTable table;
	char *buf; /* the last read */
	size_t buf_size;
	MountEvent *queue; /* events of the last parse, not yet handed out */
	size_t q_pos, q_len, q_alloc;
} MountinfoBackend;

static void mi_table_done(MiTable *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->entries[i].block);
	}
	free(t->entries);
	hashmap_free(t->by_mnt_id);
	hashmap_free(t->by_unique);
	*t = (MiTable){};
}

static Backend *mi_close(Backend *base)
{
	MountinfoBackend *b = (MountinfoBackend *)base;

	if (!b)
		return NULL;
	if (b->fd >= 0)
		(void)close(b->fd);
	if (b->epfd >= 0)
		(void)close(b->epfd);
	if (b->probe_fd >= 0)
		(void)close(b->probe_fd);
	if (b->timer_fd >= 0)
		(void)close(b->timer_fd);
	mi_table_done(&b->table);
	free(b->buf);
	free(b->queue);
	free(b);
	return NULL;
}

static int dup_to(char **dst, const char *s)
{
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/*
 * One line: "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue".
 * If old holds the same line, its parse is copied. Returns 0, -EINVAL for a
 * line that does not parse (skipped by the caller), or -ENOMEM; on failure
 * *e holds nothing to free.
 */
static int parse_line(const char *raw, const MiTable *old, MiEntry *e)
{
	char *f[6], *save = NULL, *tok, *fstype, *source, *super, *line;
	size_t len = strlen(raw);
	uint32_t id;
	MiEntry *o;

	*e = (MiEntry){ .line_len = len };
	e->block = malloc(2 * (len + 1));
	if (!e->block)
		return -ENOMEM;
	memcpy(e->block, raw, len + 1);
	line = e->block + len + 1;
	/* Unchanged since the last read: the old parse, moved into this block. */
	if (old->by_mnt_id && sscanf(raw, "%" SCNu32, &id) == 1 && (o = hashmap_get(old->by_mnt_id, id)) &&
	    o->line_len == len && memcmp(o->block, raw, len) == 0) {
		char *block = e->block;

		memcpy(line, o->block + len + 1, len + 1);
		*e = *o;
		e->block = block;
		e->unique_id = 0;
		for (char **p = &e->root; p <= &e->super_opts; p++)
			*p = block + (*p - o->block);
		return 0;
	}
	memcpy(line, raw, len + 1);
	for (int i = 0; i < 6; i++) {
		f[i] = strtok_r(i == 0 ? line : NULL, " ", &save);
		if (!f[i])
			return -EINVAL;
	}
	if (parse_u32(f[0], &e->mnt_id) < 0 || parse_u32(f[1], &e->parent_id) < 0 ||
	    sscanf(f[2], "%u:%u", &e->major, &e->minor) != 2)
		goto bad;
	e->propagation = MW_PROPAGATION_PRIVATE;
	/* Optional fields up to "-". */
	while ((tok = strtok_r(NULL, " ", &save)) && strcmp(tok, "-") != 0) {
		if (strncmp(tok, "shared:", 7) == 0) {
			(void)parse_u32(tok + 7, &e->peer_group);
			e->propagation = MW_PROPAGATION_SHARED;
		} else if (strncmp(tok, "master:", 7) == 0) {
			(void)parse_u32(tok + 7, &e->master_group);
			if (e->propagation != MW_PROPAGATION_SHARED)
				e->propagation = MW_PROPAGATION_SLAVE;
		} else if (strcmp(tok, "unbindable") == 0) {
			e->propagation = MW_PROPAGATION_UNBINDABLE;
		}
	}
	if (!tok)
		goto bad;
	fstype = strtok_r(NULL, " ", &save);
	source = strtok_r(NULL, " ", &save);
	super = strtok_r(NULL, " ", &save);
	if (!fstype || !source || !super)
		goto bad;
	e->root = unescape_octal(f[3]);
	e->point = unescape_octal(f[4]);
	e->mnt_opts = f[5];
	e->fstype = unescape_octal(fstype);
	e->source = unescape_octal(source);
	e->super_opts = unescape_octal(super);
	return 0;
bad:
	free(e->block);
	*e = (MiEntry){};
	return -EINVAL;
}

/*
 * Fills kernel_ids (mount ID -> unique ID + 1 as a pointer) with the mounts
 * the kernel lists that old does not know. Returns 0, or a negative errno
 * (then the caller assigns IDs itself).
 */
static int lookup_unique_ids(const MiTable *old, Hashmap *kernel_ids)
{
	_cleanup_(statmount_buf_done) StatmountBuf sb = {};
	_cleanup_free_ uint64_t *ids = NULL;
	size_t n;
	int r;

	r = listmount_all(&ids, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (old->by_unique && hashmap_get(old->by_unique, ids[i]))
			continue;
		if (statmount_get(ids[i], MW_STATMOUNT_MNT_BASIC, &sb) < 0)
			continue; /* gone meanwhile */
		r = hashmap_put(kernel_ids, sb.sm->mnt_id_old, (void *)(uintptr_t)(ids[i] + 1));
		if (r < 0)
			return r;
	}
	return 0;
}

/* Parses b->buf into *t, keeping the unique IDs of mount IDs that old has. */
static int parse(MountinfoBackend *b, const MiTable *old, MiTable *t)
{
	_cleanup_(hashmap_freep) Hashmap *kernel_ids = NULL;
	size_t len, n_alloc = 0;
	char *line, *save = NULL;
	int r;

	r = read_full(b->fd, &b->buf, &b->buf_size, &len);
	if (r < 0)
		return r;
	*t = (MiTable){};
	if (hashmap_new(&t->by_mnt_id) < 0 || hashmap_new(&t->by_unique) < 0) {
		mi_table_done(t);
		return -ENOMEM;
	}
	for (line = strtok_r(b->buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		MiEntry e;

		r = parse_line(line, old, &e);
		if (r == -EINVAL)
			continue;
		if (r < 0) {
			mi_table_done(t);
			return r;
		}
		if (t->n == n_alloc) {
			MiEntry *x;

			n_alloc = n_alloc ? n_alloc * 2 : 256;
			x = realloc(t->entries, n_alloc * sizeof(*x));
			if (!x) {
				free(e.block);
				mi_table_done(t);
				return -ENOMEM;
			}
			t->entries = x;
		}
		t->entries[t->n++] = e;
	}
	/* The entries stay put from here on: index them. */
	for (size_t i = 0; i < t->n; i++) {
		MiEntry *e = &t->entries[i];
		MiEntry *o = old->by_mnt_id ? hashmap_get(old->by_mnt_id, e->mnt_id) : NULL;
		uintptr_t k = 0;

		if (!o && b->kernel_ids) {
			if (!kernel_ids && (hashmap_new(&kernel_ids) < 0 ||
					    lookup_unique_ids(old, kernel_ids) < 0))
				kernel_ids = hashmap_free(kernel_ids); /* assign our own */
			k = kernel_ids ? (uintptr_t)hashmap_get(kernel_ids, e->mnt_id) : 0;
		}
		e->unique_id = o ? o->unique_id : k ? (uint64_t)(k - 1) : b->next_id++;
		if (hashmap_put(t->by_mnt_id, e->mnt_id, e) < 0 ||
		    hashmap_put(t->by_unique, e->unique_id, e) < 0) {
			mi_table_done(t);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The file is there to read: all open() needs of the kernel. */
static int mi_probe(const char **why)
{
	if (access(MOUNTINFO_PATH, R_OK) == 0)
		return 0;
	if (errno != ENOENT)
		return -errno;
	*why = MOUNTINFO_PATH " missing (no /proc?)";
	return -EOPNOTSUPP;
}

/* The next verification, PROPAGATION_VERIFY_USEC from now. -1 with errno on failure. */
static int arm_verify(MountinfoBackend *b)
{
	struct itimerspec its = {};
	uint64_t v;

	(void)!read(b->timer_fd, &v, sizeof(v)); /* a past expiry */
	if (!b->verify_wait)
		b->verify_wait = PROPAGATION_VERIFY_USEC;
	b->verify_due = now_usec() + b->verify_wait;
	its.it_value.tv_sec = (time_t)(b->verify_due / 1000000);
	its.it_value.tv_nsec = (long)(b->verify_due % 1000000) * 1000;
	return timerfd_settime(b->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int mi_open(Backend **ret, const char *path, unsigned queue_size, const char **why)
{
	struct epoll_event ev = { .events = EPOLLPRI };
	MountinfoBackend *b;
	struct stat st;
	int r;

	if (stat(path, &st) < 0)
		return -errno;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->base.ops = &backend_mountinfo_ops;
	b->next_id = ASSIGNED_ID_BASE;
	b->epfd = b->timer_fd = -1;
	b->probe_fd = open(MOUNTINFO_PATH, O_RDONLY | O_CLOEXEC);
	b->fd = b->probe_fd < 0 ? -1 : open(MOUNTINFO_PATH, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0) {
		r = -errno;
		if (r == -ENOENT) {
			*why = MOUNTINFO_PATH " missing (no /proc?)";
			r = -EOPNOTSUPP;
		}
		goto fail;
	}
	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (b->epfd < 0 || epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->fd, &ev) < 0) {
		r = -errno;
		goto fail;
	}
	b->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (b->timer_fd < 0 ||
	    epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->timer_fd, &(struct epoll_event){ .events = EPOLLIN }) < 0 ||
	    arm_verify(b) < 0) {
		r = -errno;
		goto fail;
	}
	/* The kernel's unique IDs where it has listmount(2) and statmount(2). */
	{
		_cleanup_free_ uint64_t *ids = NULL;
		size_t n;

		b->kernel_ids = listmount_all(&ids, &n) >= 0;
	}
	/* Armed: now the first parse, which later ones are compared with. */
	r = parse(b, &(MiTable){}, &b->table);
	if (r < 0)
		goto fail;
	*ret = &b->base;
	return 0;
fail:
	mi_close(&b->base);
	return r;
}

static int mi_get_fd(Backend *base)
{
	return ((MountinfoBackend *)base)->epfd;
}

static int queue_event(MountinfoBackend *b, MountEventType type, uint64_t id)
{
	if (b->q_len == b->q_alloc) {
		size_t n = b->q_alloc ? b->q_alloc * 2 : 64;
		MountEvent *t = realloc(b->queue, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		b->queue = t;
		b->q_alloc = n;
	}
	b->queue[b->q_len++] = (MountEvent){
		.type = type,
		.triggered_on = type == MOUNT_EVENT_SETATTR ? id : 0,
		.auxiliary = type == MOUNT_EVENT_SETATTR ? 0 : id,
	};
	return 0;
}

static bool entry_moved(const MiTable *old_t, const MiEntry *o, const MiTable *new_t, const MiEntry *e)
{
	const MiEntry *op = hashmap_get(old_t->by_mnt_id, o->parent_id);
	const MiEntry *np = hashmap_get(new_t->by_mnt_id, e->parent_id);

	return !streq_ptr(o->point, e->point) || o->parent_id != e->parent_id ||
	       (op ? op->unique_id : 0) != (np ? np->unique_id : 0);
}

static bool entry_changed(const MiEntry *o, const MiEntry *e)
{
	return !streq_ptr(o->root, e->root) || !streq_ptr(o->fstype, e->fstype) ||
	       !streq_ptr(o->source, e->source) || !streq_ptr(o->mnt_opts, e->mnt_opts) ||
	       !streq_ptr(o->super_opts, e->super_opts) || o->propagation != e->propagation ||
	       o->peer_group != e->peer_group || o->master_group != e->master_group ||
	       o->major != e->major || o->minor != e->minor;
}

/* Re-reads the file and queues the differences to the previous parse. */
static int rescan(MountinfoBackend *b)
{
	MiTable t;
	int r;

	r = parse(b, &b->table, &t);
	if (r < 0)
		return r;
	b->q_pos = b->q_len = 0;
	/* Gone first, then what is new or different, parents before children (file order). */
	for (size_t i = 0; i < b->table.n; i++) {
		const MiEntry *o = &b->table.entries[i];

		if (!hashmap_get(t.by_unique, o->unique_id) && queue_event(b, MOUNT_EVENT_DETACH, o->unique_id) < 0)
			goto oom;
	}
	for (size_t i = 0; i < t.n; i++) {
		const MiEntry *e = &t.entries[i];
		const MiEntry *o = hashmap_get(b->table.by_unique, e->unique_id);

		if (!o)
			r = queue_event(b, MOUNT_EVENT_ATTACH, e->unique_id);
		else if (entry_moved(&b->table, o, &t, e))
			r = queue_event(b, MOUNT_EVENT_MOVED, e->unique_id);
		else if (entry_changed(o, e))
			r = queue_event(b, MOUNT_EVENT_SETATTR, e->unique_id);
		if (r < 0)
			goto oom;
	}
	mi_table_done(&b->table);
	b->table = t;
	return 0;
oom:
	mi_table_done(&t);
	/* The table is unchanged: a resync after the loss repairs the watcher's. */
	b->q_pos = b->q_len = 0;
	return -ENOMEM;
}

/*
 * The change mark of an open mountinfo file is taken by whoever polls it
 * first, and the caller's poll of epfd polls fd: whether the table changed
 * is asked of probe_fd, which only this function polls.
 */
static int mi_read_events(Backend *base, MountEvent *events, size_t n_max)
{
	MountinfoBackend *b = (MountinfoBackend *)base;
	size_t n = 0;

	if (b->q_pos >= b->q_len) {
		struct pollfd probe = { .fd = b->probe_fd, .events = POLLPRI };
		struct epoll_event ev;
		bool changed;
		int r;

		/* Empties epfd's ready list; its answer may be stale (see probe_fd). */
		(void)epoll_wait(b->epfd, &ev, 1, 0);
		if (poll(&probe, 1, 0) < 0)
			return errno == EINTR ? 0 : -errno;
		changed = probe.revents & POLLPRI;
		if (!changed && now_usec() < b->verify_due)
			return 0;
		/* A change, or the time to look for one that set no mark (propagation). */
		r = rescan(b);
		/* A verification that found nothing: the next one waits longer (backend.h). */
		if (changed || r < 0 || b->q_len > 0)
			b->verify_wait = PROPAGATION_VERIFY_USEC;
		else if ((b->verify_wait *= 2) > PROPAGATION_VERIFY_MAX_USEC)
			b->verify_wait = PROPAGATION_VERIFY_MAX_USEC;
		if (arm_verify(b) < 0)
			return -errno;
		if (r < 0) {
			events[0] = (MountEvent){ .type = MOUNT_EVENT_LOSS };
			return 1;
		}
	}
	while (n < n_max && b->q_pos < b->q_len)
		events[n++] = b->queue[b->q_pos++];
	return (int)n;
}

static int mi_list_all(Backend *base, MountSummary **ret, size_t *ret_n)
{
	MountinfoBackend *b = (MountinfoBackend *)base;
	MountSummary *l;

	l = calloc(b->table.n + 1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < b->table.n; i++)
		l[i].unique_id = b->table.entries[i].unique_id;
	*ret = l;
	*ret_n = b->table.n;
	return 0;
}

/* Which entries a listing of the last parse keeps, and what it asks of them. */
typedef struct ListFilter {
	const MiEntry *top, *top_parent; /* list_subtree: kept whatever their path */
	const char *path;                /* list_subtree: at or below it */
	const MiEntry *parent;           /* list_children: its children */
} ListFilter;

static bool list_keeps(const ListFilter *f, const MiEntry *e)
{
	const char *rest;

	if (f->parent)
		return e->parent_id == f->parent->mnt_id && e != f->parent;
	return e == f->top || e == f->top_parent || path_has_prefix(e->point, f->path, &rest);
}

/* The entries of the last parse that f keeps (O(mounts)). */
static int list_filtered(MountinfoBackend *b, const ListFilter *f, MountSummary **ret, size_t *ret_n)
{
	MountSummary *l;
	size_t n = 0;

	l = calloc(b->table.n + 1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < b->table.n; i++)
		if (list_keeps(f, &b->table.entries[i]))
			l[n++].unique_id = b->table.entries[i].unique_id;
	*ret = l;
	*ret_n = n;
	return 0;
}

/*
 * The watched subtree, from the last parse: the file has every mount of the
 * namespace and is read whole (no kernel interface reads part of it), so
 * this is O(mounts) in comparisons; what it saves is the query, copy and
 * comparison of each mount outside the path, which the watcher would make
 * and drop.
 */
static int mi_list_subtree(Backend *base, uint64_t top, const char *path, MountSummary **ret, size_t *ret_n)
{
	MountinfoBackend *b = (MountinfoBackend *)base;
	ListFilter f = { .top = hashmap_get(b->table.by_unique, top), .path = path };

	if (!f.top)
		return -ENOENT;
	f.top_parent = hashmap_get(b->table.by_mnt_id, f.top->parent_id);
	return list_filtered(b, &f, ret, ret_n);
}

/*
 * The children of one mount, from the last parse (O(mounts); the library asks
 * only when a mount arrives by a move, or comes back after its parent went:
 * the children keep their lines then, so the diff has nothing to say of them).
 */
static int mi_list_children(Backend *base, uint64_t unique_id, MountSummary **ret, size_t *ret_n)
{
	MountinfoBackend *b = (MountinfoBackend *)base;
	ListFilter f = { .parent = hashmap_get(b->table.by_unique, unique_id) };

	if (!f.parent)
		return -ENOENT;
	return list_filtered(b, &f, ret, ret_n);
}

/* Per-mount options (mountinfo's field 6) as MOUNT_ATTR_* bits. */
static uint64_t parse_attributes(const char *opts)
{
	_cleanup_free_ char *copy = strdup(opts);
	char *save = NULL;
	uint64_t a = MOUNT_ATTR_STRICTATIME;

	if (!copy)
		return 0;
	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (strcmp(o, "ro") == 0)
			a |= MOUNT_ATTR_RDONLY;
		else if (strcmp(o, "nosuid") == 0)
			a |= MOUNT_ATTR_NOSUID;
		else if (strcmp(o, "nodev") == 0)
			a |= MOUNT_ATTR_NODEV;
		else if (strcmp(o, "noexec") == 0)
			a |= MOUNT_ATTR_NOEXEC;
		else if (strcmp(o, "noatime") == 0)
			a = (a & ~MOUNT_ATTR__ATIME) | MOUNT_ATTR_NOATIME;
		else if (strcmp(o, "relatime") == 0)
			a = (a & ~MOUNT_ATTR__ATIME) | MOUNT_ATTR_RELATIME;
		else if (strcmp(o, "nodiratime") == 0)
			a |= MOUNT_ATTR_NODIRATIME;
		else if (strcmp(o, "nosymfollow") == 0)
			a |= MOUNT_ATTR_NOSYMFOLLOW;
		else if (strcmp(o, "idmapped") == 0)
			a |= MOUNT_ATTR_IDMAP;
	}
	return a;
}

static int mi_query_mount(Backend *base, uint64_t unique_id, const MountInfo *same_sb, MountInfo *ret)
{
	MountinfoBackend *b = (MountinfoBackend *)base;
	const MiEntry *e = hashmap_get(b->table.by_unique, unique_id), *p;
	MountInfo m = {};

	if (!e)
		return -ENOENT;
	p = hashmap_get(b->table.by_mnt_id, e->parent_id);
	m.unique_id = e->unique_id;
	m.mnt_id = e->mnt_id;
	m.parent_id = e->parent_id;
	/* A parent outside the namespace's table: this is its root. */
	m.parent_unique_id = p && p != e ? p->unique_id : e->unique_id;
	m.attributes = parse_attributes(e->mnt_opts);
	m.propagation = e->propagation;
	m.peer_group = e->peer_group;
	m.master_group = e->master_group;
	m.superblock_id = (uint64_t)e->major << 32 | e->minor;
	m.dev_major = e->major;
	m.dev_minor = e->minor;
	if (dup_to(&m.mount_point, e->point) < 0 || dup_to(&m.root, e->root) < 0 ||
	    dup_to(&m.source, e->source) < 0 || dup_to(&m.fstype, e->fstype) < 0 ||
	    dup_to(&m.super_options, e->super_opts) < 0) {
		mount_info_done(&m);
		return -ENOMEM;
	}
	*ret = m;
	return 0;
}

static int mi_resolve_mnt_id(Backend *base, uint32_t mnt_id, uint64_t *ret)
{
	MountinfoBackend *b = (MountinfoBackend *)base;
	const MiEntry *e = hashmap_get(b->table.by_mnt_id, mnt_id);

	if (!e)
		return -ENOENT;
	*ret = e->unique_id;
	return 0;
}

const BackendOps backend_mountinfo_ops = {
	.name = "mountinfo",
	.flags = BACKEND_MOVES_EACH,
	.open = mi_open,
	.close = mi_close,
	.get_fd = mi_get_fd,
	.read_events = mi_read_events,
	.list_all = mi_list_all,
	.list_subtree = mi_list_subtree,
	.list_children = mi_list_children,
	.query_mount = mi_query_mount,
	.probe = mi_probe,
	.resolve_mnt_id = mi_resolve_mnt_id,
};
