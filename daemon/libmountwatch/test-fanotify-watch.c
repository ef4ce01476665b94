/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fanotify-watch.c, statmount.c and then the library with its fanotify and
 * mountinfo backends, on the host's own kernel (mainline 6.15 or later),
 * inside a private mount namespace of this process (nothing here touches
 * the host's mount table). A mirror table is kept from the events
 * alone and compared, after each burst of random mount operations, with a
 * fresh listmount + statmount and with /proc/self/mountinfo as util-linux's
 * libmount parses it (the independent baseline). Skips (77) with the reason
 * where the kernel has no fanotify mount events or unshare() is not allowed.
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <libmount/libmount.h>

#include "check.h"
#include "fanotify-watch.h"
#include "mountwatch/mountwatch.h"
#include "statmount.h"
#include "table.h"
#include "util.h"


#define TOP "/tmp/mw"
#define MAX_MOUNTS 250

static unsigned seed;

/* The mirror: what a library on this backend would know. */
typedef struct Mirror {
	FanotifyWatch *w;
	Table *t;
	StatmountBuf b;
	unsigned n_resyncs;
} Mirror;

static void mirror_upsert(Mirror *m, uint64_t id)
{
	Mount *old = table_get(m->t, id);
	MountInfo info;
	int r;

	r = statmount_query(id, &m->b, &info);
	if (r == -ENOENT) {
		/* Gone already; its DETACH is in the queue, or was read. */
		if (old)
			table_remove(m->t, old);
		return;
	}
	assert_se(r >= 0);
	if (old)
		assert_se(table_update(m->t, old, &info) >= 0);
	else
		assert_se(table_add(m->t, &info, NULL) >= 0);
	mount_info_done(&info);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every ID in the table, sorted (so that the table can change meanwhile). */
static uint64_t *table_ids(Table *t, size_t *ret_n)
{
	uint64_t *ids = calloc(table_size(t) + 1, sizeof(*ids));
	size_t i = 0, n = 0;
	Mount *mnt;

	assert_se(ids);
	while (table_iterate(t, &i, &mnt) > 0)
		ids[n++] = mnt->info.unique_id;
	qsort(ids, n, sizeof(*ids), cmp_u64);
	*ret_n = n;
	return ids;
}

static void mirror_resync(Mirror *m)
{
	_cleanup_free_ uint64_t *ids = NULL, *have = NULL;
	size_t n, n_have;

	assert_se(listmount_all(&ids, &n) >= 0);
	have = table_ids(m->t, &n_have);
	for (size_t i = 0; i < n_have; i++)
		if (!bsearch(&have[i], ids, n, sizeof(*ids), cmp_u64))
			table_remove(m->t, table_get(m->t, have[i]));
	for (size_t i = 0; i < n; i++)
		mirror_upsert(m, ids[i]);
	m->n_resyncs++;
}

static void mirror_apply(Mirror *m, const FanotifyEvent *e)
{
	Mount *old;

	switch (e->type) {
	case FANOTIFY_EVENT_ATTACH:
		mirror_upsert(m, e->unique_id);
		break;
	case FANOTIFY_EVENT_MOVE:
		mirror_upsert(m, e->unique_id);
		break;
	case FANOTIFY_EVENT_CHANGED:
		old = table_get_by_mnt_id(m->t, e->mnt_id);
		if (old)
			mirror_upsert(m, old->info.unique_id);
		break;
	case FANOTIFY_EVENT_DETACH:
		old = table_get(m->t, e->unique_id);
		if (old)
			table_remove(m->t, old);
		break;
	case FANOTIFY_EVENT_OVERFLOW:
		mirror_resync(m);
		break;
	}
}

/* Reads and applies until nothing has come for quiet_ms. Returns the events seen. */
static unsigned mirror_settle(Mirror *m, int quiet_ms, unsigned *n_type)
{
	unsigned total = 0;

	for (;;) {
		FanotifyEvent ev[64];
		int k;

		k = fanotify_watch_read(m->w, ev, ELEMENTSOF(ev));
		assert_se(k >= 0);
		for (int i = 0; i < k; i++) {
			mirror_apply(m, &ev[i]);
			if (n_type)
				n_type[ev[i].type]++;
		}
		total += (unsigned)k;
		if (k > 0)
			continue;
		if (poll(&(struct pollfd){ .fd = fanotify_watch_get_fd(m->w), .events = POLLIN }, 1,
			 quiet_ms) == 0)
			return total;
	}
}

static void mirror_open(Mirror *m, uint64_t interval)
{
	*m = (Mirror){};
	assert_se(fanotify_watch_new(&m->w, interval) >= 0);
	assert_se(table_new(&m->t) >= 0);
	/* Watch first, snapshot second: nothing falls between. */
	mirror_resync(m);
	m->n_resyncs = 0;
}

static void mirror_close(Mirror *m)
{
	fanotify_watch_free(m->w);
	table_free(m->t);
	statmount_buf_done(&m->b);
}

static void print_mount(const char *what, const MountInfo *i)
{
	char opts[128];

	(void)mount_info_options(i, opts, sizeof(opts));
	fprintf(stderr, "  %s %" PRIu64 " (%u) parent %" PRIu64 " (%u) %s root %s %s %s %s [%s] %s peer %u master %u dev %u:%u\n",
		what, i->unique_id, i->mnt_id, i->parent_unique_id, i->parent_id, i->mount_point,
		i->root, i->fstype, i->source, opts, i->super_options,
		propagation_to_string(i->propagation), i->peer_group, i->master_group, i->dev_major,
		i->dev_minor);
}

/* statmount(2) of one listed mount: false if it went since the listing. */
static bool kernel_mount(uint64_t id, StatmountBuf *b, MountInfo *ret)
{
	int r = statmount_query(id, b, ret);

	if (r == -ENOENT)
		return false;
	assert_se(r >= 0);
	return true;
}

/* The mirror equals a fresh listmount + statmount, field for field. */
static void compare_with_statmount(Mirror *m)
{
	_cleanup_free_ uint64_t *ids = NULL;
	StatmountBuf b = {};
	size_t n;

	assert_se(listmount_all(&ids, &n) >= 0);
	if (n != table_size(m->t))
		fprintf(stderr, "listmount: %zu mounts, mirror: %zu\n", n, table_size(m->t));
	for (size_t i = 0; i < n; i++) {
		Mount *mnt = table_get(m->t, ids[i]);
		MountInfo info;

		if (!kernel_mount(ids[i], &b, &info))
			continue;
		if (!mnt || mount_info_diff(&mnt->info, &info) != 0) {
			print_mount("kernel", &info);
			if (mnt)
				print_mount("mirror", &mnt->info);
			else
				fprintf(stderr, "  mirror: missing\n");
			assert_se(!"mirror differs from statmount");
		}
		mount_info_done(&info);
	}
	assert_se(n == table_size(m->t));
	statmount_buf_done(&b);
}

/* The mirror agrees with /proc/self/mountinfo, as libmount reads it. */
static void compare_with_mountinfo(Mirror *m)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	size_t n = 0;

	assert_se(tb && it);
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		Mount *mnt = table_get_by_mnt_id(m->t, (uint32_t)mnt_fs_get_id(fs));
		const char *opt = mnt_fs_get_optional_fields(fs);
		char opts[128], *super = NULL, want[64];
		bool ok;

		assert_se(mnt);
		assert_se(mount_info_options(&mnt->info, opts, sizeof(opts)) >= 0);
		/* libmount keeps field 11 as vfs-independent and fs options apart. */
		assert_se(asprintf(&super, "%s", mnt_fs_get_fs_options(fs) ?: "") >= 0);
		ok = mnt->info.parent_id == (uint32_t)mnt_fs_get_parent_id(fs) &&
		     streq_ptr(mnt->info.mount_point, mnt_fs_get_target(fs)) &&
		     streq_ptr(mnt->info.root, mnt_fs_get_root(fs)) &&
		     streq_ptr(mnt->info.fstype, mnt_fs_get_fstype(fs)) &&
		     streq_ptr(mnt->info.source, mnt_fs_get_source(fs) ?: "none") &&
		     streq_ptr(opts, mnt_fs_get_vfs_options(fs)) &&
		     streq_ptr(mnt->info.super_options, super);
		/* The propagation fields, as show_mountinfo() writes them. */
		want[0] = 0;
		if (mnt->info.peer_group)
			snprintf(want, sizeof(want), "shared:%u", mnt->info.peer_group);
		if (mnt->info.master_group)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%smaster:%u",
				 *want ? " " : "", mnt->info.master_group);
		if (mnt->info.propagation == MW_PROPAGATION_UNBINDABLE)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%sunbindable",
				 *want ? " " : "");
		/* propagate_from is not mirrored: cut it off before comparing. */
		if (opt && strstr(opt, " propagate_from:"))
			*strstr(opt, " propagate_from:") = 0;
		ok = ok && streq_ptr(want, opt ?: "");
		if (!ok) {
			print_mount("mirror", &mnt->info);
			fprintf(stderr, "  mountinfo %d parent %d %s root %s %s %s [%s] [%s] {%s}\n",
				mnt_fs_get_id(fs), mnt_fs_get_parent_id(fs), mnt_fs_get_target(fs),
				mnt_fs_get_root(fs), mnt_fs_get_fstype(fs), mnt_fs_get_source(fs),
				mnt_fs_get_vfs_options(fs), super, opt ?: "");
			assert_se(!"mirror differs from mountinfo");
		}
		free(super);
		n++;
	}
	assert_se(n == table_size(m->t));
	mnt_free_iter(it);
	mnt_unref_table(tb);
}

/* The mount points under TOP, from the kernel (for picking targets). */
static char **points(size_t *ret_n)
{
	_cleanup_free_ uint64_t *ids = NULL;
	StatmountBuf b = {};
	char **p;
	size_t n, k = 0;

	assert_se(listmount_all(&ids, &n) >= 0);
	p = calloc(n + 1, sizeof(*p));
	assert_se(p);
	for (size_t i = 0; i < n; i++) {
		const char *s;

		if (statmount_get(ids[i], MW_STATMOUNT_MNT_POINT, &b) < 0)
			continue;
		s = statmount_str(b.sm, MW_STATMOUNT_MNT_POINT, b.sm->mnt_point);
		if (s && strncmp(s, TOP, strlen(TOP)) == 0)
			assert_se((p[k++] = strdup(s)));
	}
	statmount_buf_done(&b);
	*ret_n = k;
	return p;
}

static void free_points(char **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

static int sys_mount_setattr(const char *path, unsigned flags, uint64_t set, uint64_t clr,
			     uint64_t propagation)
{
	struct { uint64_t set, clr, propagation, userns_fd; } a = { set, clr, propagation, 0 };

	return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &a, sizeof(a));
}

/* A directory inside mount point p to mount on (made if needed). */
static void dir_in(const char *p, char *buf, size_t size)
{
	snprintf(buf, size, "%s/d%u", p, (unsigned)(rand_r(&seed) % 3));
	(void)mkdir(buf, 0755);
}

/* One random mount operation; errors (EBUSY, EINVAL, a read-only fs ...) are part of the game. */
static void random_op(size_t n_mounts)
{
	static const uint64_t attrs[] = { MOUNT_ATTR_NOEXEC, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV,
					  MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOATIME };
	static const unsigned long types[] = { MS_SHARED, MS_SLAVE, MS_PRIVATE, MS_UNBINDABLE };
	char dir[4096], opt[32];
	size_t n;
	char **p = points(&n);
	const char *a = p[rand_r(&seed) % n], *b = p[rand_r(&seed) % n];
	unsigned op = rand_r(&seed) % 13;

	if (n_mounts > MAX_MOUNTS && op < 6)
		op = 6 + op % 2; /* too many: unmount instead */
	switch (op) {
	case 0:
	case 1:
		dir_in(a, dir, sizeof(dir));
		(void)mount("mw", dir, "tmpfs", 0, "size=1m");
		break;
	case 2:
		dir_in(b, dir, sizeof(dir));
		(void)mount(a, dir, NULL, MS_BIND, NULL);
		break;
	case 3:
		dir_in(b, dir, sizeof(dir));
		(void)mount(a, dir, NULL, MS_BIND | MS_REC, NULL);
		break;
	case 4:
	case 5:
		dir_in(b, dir, sizeof(dir));
		if (!streq_ptr(a, TOP)) /* the playground stays */
			(void)mount(a, dir, NULL, MS_MOVE, NULL);
		break;
	case 6:
		if (!streq_ptr(a, TOP))
			(void)umount2(a, 0);
		break;
	case 7:
		if (!streq_ptr(a, TOP))
			(void)umount2(a, MNT_DETACH);
		break;
	case 8:
		(void)mount(NULL, a, NULL, MS_REMOUNT | MS_BIND | (rand_r(&seed) % 2 ? MS_RDONLY : 0), NULL);
		break;
	case 9:
		snprintf(opt, sizeof(opt), "size=%uk", 512 + (unsigned)(rand_r(&seed) % 1024) * 4);
		(void)mount(NULL, a, NULL, MS_REMOUNT, opt);
		break;
	case 10:
		(void)sys_mount_setattr(a, rand_r(&seed) % 2 ? AT_RECURSIVE : 0,
					rand_r(&seed) % 2 ? attrs[rand_r(&seed) % ELEMENTSOF(attrs)] : 0,
					rand_r(&seed) % 2 ? attrs[rand_r(&seed) % ELEMENTSOF(attrs)] : 0, 0);
		break;
	case 11:
		(void)sys_mount_setattr(a, rand_r(&seed) % 2 ? AT_RECURSIVE : 0, 0, 0,
					types[rand_r(&seed) % ELEMENTSOF(types)]);
		break;
	case 12:
		/* Seen by nobody on mainline until the next change of any kind. */
		(void)mount(NULL, a, NULL, types[rand_r(&seed) % ELEMENTSOF(types)], NULL);
		break;
	}
	free_points(p, n);
}

/* Any change at all: wakes mountinfo pollers, so a rescan follows. */
static void poke(void)
{
	if (mount("poke", "/tmp/poke", "tmpfs", 0, NULL) < 0) {
		fprintf(stderr, "mount on /tmp/poke: %m\n");
		(void)system("cat /proc/self/mountinfo >&2");
		assert_se(!"poke");
	}
	assert_se(umount("/tmp/poke") >= 0);
}

static void test_random(void)
{
	Mirror m;
	unsigned n_type[FANOTIFY_EVENT_TYPES] = {};

	mirror_open(&m, 0);
	for (unsigned burst = 0; burst < 40; burst++) {
		unsigned n_ops = 1 + (unsigned)rand_r(&seed) % 40;

		for (unsigned i = 0; i < n_ops; i++)
			random_op(table_size(m.t));
		poke();
		mirror_settle(&m, 100, n_type);
		compare_with_statmount(&m);
		compare_with_mountinfo(&m);
	}
	printf("random: %zu mounts at the end; attach %u detach %u move %u changed %u overflow %u; "
	       "%" PRIu64 " rescans\n",
	       table_size(m.t), n_type[0], n_type[1], n_type[2], n_type[3], n_type[4],
	       fanotify_watch_n_rescans(m.w));
	assert_se(n_type[FANOTIFY_EVENT_ATTACH] > 0 && n_type[FANOTIFY_EVENT_DETACH] > 0);
	assert_se(n_type[FANOTIFY_EVENT_MOVE] > 0 && n_type[FANOTIFY_EVENT_CHANGED] > 0);
	assert_se(n_type[FANOTIFY_EVENT_OVERFLOW] == 0);
	mirror_close(&m);
}

/* The property bits that changed on the mount at path since *old. */
static uint32_t changed_since(Mirror *m, const char *path, MountInfo *old)
{
	Mount *mnt = table_topmost_at(m->t, path);
	uint32_t d;

	assert_se(mnt);
	d = mount_info_diff(old, &mnt->info);
	mount_info_done(old);
	assert_se(mount_info_copy(old, &mnt->info) >= 0);
	return d;
}

#define BIT(p) (1U << (p))

static void test_attributes(void)
{
	Mirror m;
	MountInfo old;
	unsigned n_type[FANOTIFY_EVENT_TYPES] = {};
	uint64_t rescans;
	int fs;

	assert_se(mkdir(TOP "/attr", 0755) >= 0 || errno == EEXIST);
	mirror_open(&m, 0);
	assert_se(mount("attr", TOP "/attr", "tmpfs", 0, "size=1m") >= 0);
	mirror_settle(&m, 50, NULL);
	assert_se(mount_info_copy(&old, &table_topmost_at(m.t, TOP "/attr")->info) >= 0);
	rescans = fanotify_watch_n_rescans(m.w);

	/* remount,bind,ro: per-mount flags. */
	assert_se(mount(NULL, TOP "/attr", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) >= 0);
	mirror_settle(&m, 50, n_type);
	assert_se(n_type[FANOTIFY_EVENT_CHANGED] == 1);
	assert_se(changed_since(&m, TOP "/attr", &old) & BIT(MW_FIELD_READ_ONLY));

	/* remount with new filesystem options: the superblock. */
	assert_se(mount(NULL, TOP "/attr", NULL, MS_REMOUNT, "size=2m") >= 0);
	mirror_settle(&m, 50, n_type);
	assert_se(changed_since(&m, TOP "/attr", &old) & BIT(MW_FIELD_SUPER_OPTIONS));
	assert_se(strstr(old.super_options, "size=2048k"));

	/* mount_setattr(): flags, then propagation. */
	assert_se(sys_mount_setattr(TOP "/attr", 0, MOUNT_ATTR_NOEXEC, 0, 0) >= 0);
	mirror_settle(&m, 50, n_type);
	assert_se(changed_since(&m, TOP "/attr", &old) & BIT(MW_FIELD_ATTRIBUTES));
	assert_se(old.attributes & MOUNT_ATTR_NOEXEC);
	assert_se(sys_mount_setattr(TOP "/attr", 0, 0, 0, MS_SHARED) >= 0);
	mirror_settle(&m, 50, n_type);
	assert_se(changed_since(&m, TOP "/attr", &old) & BIT(MW_FIELD_PROPAGATION));
	assert_se(old.propagation == MW_PROPAGATION_SHARED && old.peer_group > 0);
	assert_se(n_type[FANOTIFY_EVENT_CHANGED] == 4 && fanotify_watch_n_rescans(m.w) - rescans == 4);

	/*
	 * Mainline's blind spots: mount(2)'s propagation change and fsconfig()
	 * reconfiguration wake nobody; the next change of any kind repairs them.
	 */
	assert_se(mount(NULL, TOP "/attr", NULL, MS_PRIVATE, NULL) >= 0);
	fs = (int)syscall(SYS_fspick, AT_FDCWD, TOP "/attr", 0);
	assert_se(fs >= 0);
	assert_se(syscall(SYS_fsconfig, fs, 1 /* SET_STRING */, "size", "3m", 0) >= 0);
	assert_se(syscall(SYS_fsconfig, fs, 7 /* CMD_RECONFIGURE */, NULL, NULL, 0) >= 0);
	(void)close(fs);
	assert_se(mirror_settle(&m, 100, n_type) == 0);
	assert_se(changed_since(&m, TOP "/attr", &old) == 0);
	printf("attributes: mount(MS_PRIVATE) and fsconfig(RECONFIGURE) wake nobody on this kernel\n");
	poke();
	mirror_settle(&m, 50, n_type);
	assert_se(changed_since(&m, TOP "/attr", &old) &
	      (BIT(MW_FIELD_PROPAGATION) | BIT(MW_FIELD_SUPER_OPTIONS)));
	assert_se(old.propagation == MW_PROPAGATION_PRIVATE && strstr(old.super_options, "size=3072k"));
	compare_with_statmount(&m);

	assert_se(umount(TOP "/attr") >= 0);
	mount_info_done(&old);
	mirror_close(&m);
}

/*
 * Inside another epoll set (as in sd-event): the outer readiness check
 * polls the mountinfo fd and eats its POLLPRI; the rescan must come anyway.
 */
static void test_nested_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	_cleanup_close_ int ep = epoll_create1(EPOLL_CLOEXEC);
	FanotifyEvent e[8];
	Mirror m;
	int k, changed = 0;

	assert_se(ep >= 0);
	assert_se(mkdir(TOP "/nest", 0755) >= 0 || errno == EEXIST);
	assert_se(mount("nest", TOP "/nest", "tmpfs", 0, NULL) >= 0);
	mirror_open(&m, 0);
	assert_se(epoll_ctl(ep, EPOLL_CTL_ADD, fanotify_watch_get_fd(m.w), &ev) >= 0);
	assert_se(mount(NULL, TOP "/nest", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) >= 0);
	assert_se(epoll_wait(ep, &ev, 1, 1000) == 1);
	while ((k = fanotify_watch_read(m.w, e, ELEMENTSOF(e))) > 0)
		for (int i = 0; i < k; i++)
			changed += e[i].type == FANOTIFY_EVENT_CHANGED;
	assert_se(k == 0 && changed == 1);
	/* And the fd is quiet afterwards (no busy loop). */
	assert_se(epoll_wait(ep, &ev, 1, 100) == 0);
	assert_se(umount(TOP "/nest") >= 0);
	mirror_close(&m);
}

/* A held-back rescan: one for a whole burst, when the interval has passed. */
static void test_coalesced(void)
{
	Mirror m;
	unsigned n_type[FANOTIFY_EVENT_TYPES] = {};

	assert_se(mkdir(TOP "/co", 0755) >= 0 || errno == EEXIST);
	assert_se(mount("co", TOP "/co", "tmpfs", 0, NULL) >= 0);
	mirror_open(&m, 200 * 1000);
	for (unsigned i = 0; i < 50; i++) {
		assert_se(mount(NULL, TOP "/co", NULL, MS_REMOUNT | MS_BIND | (i % 2 ? 0 : MS_RDONLY), NULL) >= 0);
		mirror_settle(&m, 0, n_type);
	}
	assert_se(mount(NULL, TOP "/co", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) >= 0);
	mirror_settle(&m, 400, n_type);
	printf("coalesced: 51 remounts, %" PRIu64 " rescans\n", fanotify_watch_n_rescans(m.w));
	assert_se(fanotify_watch_n_rescans(m.w) >= 1 && fanotify_watch_n_rescans(m.w) <= 3);
	assert_se(mount_info_read_only(&table_topmost_at(m.t, TOP "/co")->info));
	compare_with_statmount(&m);
	assert_se(umount(TOP "/co") >= 0);
	mirror_close(&m);
}

/* One MOVE event for a mount with children: their mount points change too. */
static void test_move_subtree(void)
{
	Mirror m;
	unsigned n_type[FANOTIFY_EVENT_TYPES] = {};

	assert_se(mkdir(TOP "/mv1", 0755) >= 0 && mkdir(TOP "/mv2", 0755) >= 0);
	mirror_open(&m, 0);
	assert_se(mount("mv", TOP "/mv1", "tmpfs", 0, NULL) >= 0);
	assert_se(mkdir(TOP "/mv1/c", 0755) >= 0);
	assert_se(mount("mvc", TOP "/mv1/c", "tmpfs", 0, NULL) >= 0);
	mirror_settle(&m, 50, n_type);
	assert_se(mount(TOP "/mv1", TOP "/mv2", NULL, MS_MOVE, NULL) >= 0);
	mirror_settle(&m, 50, n_type);
	assert_se(n_type[FANOTIFY_EVENT_ATTACH] == 2 && n_type[FANOTIFY_EVENT_MOVE] == 1);
	assert_se(table_topmost_at(m.t, TOP "/mv2/c"));
	compare_with_statmount(&m);
	assert_se(umount2(TOP "/mv2", MNT_DETACH) >= 0);
	mirror_close(&m);
}

/* More events than the queue holds, never read: one overflow, then a resync. */
static void test_overflow(void)
{
	_cleanup_free_ char *s = NULL;
	unsigned max_events = 0, n_type[FANOTIFY_EVENT_TYPES] = {};
	FILE *f;
	Mirror m;

	f = fopen("/proc/sys/fs/fanotify/max_queued_events", "re");
	assert_se(f && fscanf(f, "%u", &max_events) == 1);
	fclose(f);
	if (max_events > 1 << 20) {
		printf("overflow: skipped, max_queued_events is %u\n", max_events);
		return;
	}
	assert_se(mkdir(TOP "/ovf", 0755) >= 0 || errno == EEXIST);
	assert_se(mkdir(TOP "/keep", 0755) >= 0 || errno == EEXIST);
	assert_se(mount("keep0", TOP "/keep", "tmpfs", 0, NULL) >= 0);
	mirror_open(&m, 0);
	/* Each pair is an ATTACH and a DETACH. */
	for (unsigned i = 0; i < max_events / 2 + 64; i++) {
		assert_se(mount("ovf", TOP "/ovf", "tmpfs", 0, NULL) >= 0);
		assert_se(umount(TOP "/ovf") >= 0);
	}
	/* Changes that only the resync after the overflow can find. */
	assert_se(mount("keep1", TOP "/keep", "tmpfs", 0, NULL) >= 0);
	assert_se(umount2(TOP "/keep", MNT_DETACH) >= 0); /* keep1 */
	assert_se(umount2(TOP "/keep", MNT_DETACH) >= 0); /* keep0 */
	assert_se(mount("keep2", TOP "/keep", "tmpfs", MS_RDONLY, NULL) >= 0);
	mirror_settle(&m, 100, n_type);
	printf("overflow: %u pairs into a queue of %u: %u overflow, %u attach, %u detach\n",
	       max_events / 2 + 64, max_events, n_type[FANOTIFY_EVENT_OVERFLOW],
	       n_type[FANOTIFY_EVENT_ATTACH], n_type[FANOTIFY_EVENT_DETACH]);
	assert_se(n_type[FANOTIFY_EVENT_OVERFLOW] == 1 && m.n_resyncs == 1);
	compare_with_statmount(&m);
	compare_with_mountinfo(&m);
	assert_se(streq_ptr(table_topmost_at(m.t, TOP "/keep")->info.source, "keep2"));
	assert_se(umount(TOP "/keep") >= 0);
	mirror_close(&m);
}

/*
 * The library on this kernel: a watcher on TOP with the named backend,
 * processed like any client would (poll its fd, mw_watcher_process()), and
 * after each burst of random operations its copy compared with listmount +
 * statmount of the mounts at and below TOP. The mountinfo backend assigns
 * its own unique IDs: there mounts are matched by their 32-bit IDs.
 */
static void watcher_settle(mw_watcher *w, int quiet_ms)
{
	for (;;) {
		int r = poll(&(struct pollfd){ .fd = mw_watcher_get_fd(w), .events = POLLIN }, 1, quiet_ms);

		assert_se(r >= 0);
		assert_se(mw_watcher_process(w) >= 0);
		if (r == 0)
			return;
	}
}

static void compare_watcher(mw_watcher *w, bool kernel_ids)
{
	_cleanup_free_ uint64_t *ids = NULL;
	StatmountBuf b = {};
	size_t n, n_scope = 0;

	assert_se(listmount_all(&ids, &n) >= 0);
	for (size_t i = 0; i < n; i++) {
		const mw_mount *m = NULL;
		const MountInfo *mm = NULL;
		MountInfo info;

		if (!kernel_mount(ids[i], &b, &info))
			continue;
		/* At or below TOP (the only mount points starting with it). */
		if (strncmp(info.mount_point, TOP, strlen(TOP)) != 0 ||
		    (info.mount_point[strlen(TOP)] && info.mount_point[strlen(TOP)] != '/')) {
			mount_info_done(&info);
			continue;
		}
		n_scope++;
		if (kernel_ids) {
			m = mw_watcher_get_mount(w, info.unique_id);
		} else {
			const mw_mount *x;

			for (size_t j = 0; mw_watcher_iterate(w, &j, &x) > 0;)
				if (mw_mount_get_mount_id(x) == info.mnt_id)
					m = x;
		}
		mm = m ? &m->info : NULL;
		if (!mm || !streq_ptr(mm->mount_point, info.mount_point) ||
		    !streq_ptr(mm->root, info.root) || !streq_ptr(mm->source, info.source) ||
		    !streq_ptr(mm->fstype, info.fstype) ||
		    !streq_ptr(mm->super_options, info.super_options) ||
		    mm->attributes != info.attributes || mm->propagation != info.propagation ||
		    mm->peer_group != info.peer_group || mm->master_group != info.master_group ||
		    mm->parent_id != info.parent_id || mm->dev_major != info.dev_major ||
		    mm->dev_minor != info.dev_minor) {
			print_mount("kernel", &info);
			if (mm)
				print_mount("watcher", mm);
			else
				fprintf(stderr, "  watcher: missing\n");
			assert_se(!"watcher differs from statmount");
		}
		mount_info_done(&info);
	}
	if (n_scope != mw_watcher_count(w))
		fprintf(stderr, "kernel: %zu mounts at and below " TOP ", watcher: %zu\n", n_scope,
			mw_watcher_count(w));
	assert_se(n_scope == mw_watcher_count(w));
	statmount_buf_done(&b);
}

static void test_library(const char *backend)
{
	mw_watcher *w;
	int r;

	r = mw_watcher_new(&w, TOP, backend, 0);
	assert_se(r >= 0);
	assert_se(streq_ptr(mw_watcher_get_backend(w), backend));
	compare_watcher(w, streq_ptr(backend, "fanotify"));
	for (unsigned burst = 0; burst < 25; burst++) {
		unsigned n_ops = 1 + (unsigned)rand_r(&seed) % 30;

		for (unsigned i = 0; i < n_ops; i++)
			random_op(mw_watcher_count(w));
		poke();
		/* More than the fanotify backend's 100 ms between rescans. */
		watcher_settle(w, 250);
		compare_watcher(w, streq_ptr(backend, "fanotify"));
	}
	printf("library, %s: %zu mounts below " TOP " at the end\n", backend, mw_watcher_count(w));
	mw_watcher_free(w);
}

int main(int argc, char **argv)
{
	uint64_t supported;
	FanotifyWatch *w;
	int r;

	seed = argc > 1 ? (unsigned)atoi(argv[1]) : (unsigned)time(NULL);
	printf("seed %u\n", seed);
	if (unshare(CLONE_NEWNS) < 0) {
		printf("SKIP: unshare(CLONE_NEWNS): %m\n");
		return 77;
	}
	/* From here on, nothing reaches the host's mount namespace. */
	assert_se(mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) >= 0);
	r = statmount_supported(&supported);
	if (r < 0) {
		printf("SKIP: statmount(2): %s\n", strerror(-r));
		return 77;
	}
	r = fanotify_watch_new(&w, 0);
	if (r == -EOPNOTSUPP || r == -ENOSYS || r == -EPERM) {
		printf("SKIP: no fanotify mount events (Linux 6.15): %s\n", strerror(-r));
		return 77;
	}
	assert_se(r >= 0);
	fanotify_watch_free(w);

	assert_se(mount("mwtmp", "/tmp", "tmpfs", 0, NULL) >= 0);
	assert_se(mkdir(TOP, 0755) >= 0);
	assert_se(mount("mwtop", TOP, "tmpfs", 0, NULL) >= 0);
	/* Outside TOP, which the random operations may cover or make read-only. */
	assert_se(mkdir("/tmp/poke", 0755) >= 0);

	test_attributes();
	test_nested_epoll();
	test_coalesced();
	test_move_subtree();
	test_overflow();
	test_random();
	test_library("fanotify");
	test_library("mountinfo");
	return 0;
}
