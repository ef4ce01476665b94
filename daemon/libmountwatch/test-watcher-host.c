/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library on the host's own kernel, through the public API only: in a
 * private mount namespace (the host's is never touched), random mounts,
 * unmounts, binds, moves and remounts below a tmpfs, and after each burst
 * the watcher's table must equal the one libmount parses from
 * /proc/self/mountinfo (the strongest baseline: what systemd reads), and
 * the typed changes it announced, replayed onto a copy, must give the same
 * table. Mounts at odd bytes (0xff, a literal "\\377", a newline, a tab)
 * are found by their real paths. The watched mount's unmount ends the
 * watch with -ENOLINK, and bad arguments give the same errors (a table of
 * cases), on every backend. Each backend the kernel has is run; the others
 * are a SKIP (but for the argument errors, which come before any backend).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libmount.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#include <unistd.h>

#include "mountwatch/mountwatch.h"

#include "check.h"


#define MAX 512

static char base[64];
/* CHANGED with MW_FIELD_USER_OPTIONS: how many, and the last mount named. */
static unsigned user_options_changes;
static uint64_t user_options_changed;

/* The replayed copy: what the announced changes say. */
typedef struct Replay {
	uint64_t id[MAX];
	char *point[MAX];
	unsigned n, added, removed, moved, changed, lost;
} Replay;

static int replay_find(Replay *r, uint64_t id)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->id[i] == id)
			return (int)i;
	return -1;
}

static void on_change(mw_watcher *w, const mw_change *c, void *userdata)
{
	Replay *r = userdata;
	int i = replay_find(r, mw_change_get_unique_id(c));

	switch (mw_change_get_type(c)) {
	case MW_CHANGE_ADDED:
		assert_se(i < 0 && r->n < MAX && mw_change_get_mount(c) && mw_mount_get_unique_id(mw_change_get_mount(c)) == mw_change_get_unique_id(c));
		r->id[r->n] = mw_change_get_unique_id(c);
		r->point[r->n++] = strdup(mw_change_get_mount_point(c));
		r->added++;
		break;
	case MW_CHANGE_REMOVED:
		assert_se(i >= 0 && !mw_watcher_get_mount(w, mw_change_get_unique_id(c)));
		free(r->point[i]);
		r->id[i] = r->id[--r->n];
		r->point[i] = r->point[r->n];
		r->removed++;
		break;
	case MW_CHANGE_MOVED:
	case MW_CHANGE_CHANGED:
		assert_se(i >= 0 && mw_change_get_fields(c) && mw_change_get_mount(c));
		assert_se((mw_change_get_type(c) == MW_CHANGE_MOVED) ==
		      !!(mw_change_get_fields(c) & ((1U << MW_FIELD_MOUNT_POINT) | (1U << MW_FIELD_PARENT_UNIQUE_ID))));
		free(r->point[i]);
		r->point[i] = strdup(mw_change_get_mount_point(c));
		*(mw_change_get_type(c) == MW_CHANGE_MOVED ? &r->moved : &r->changed) += 1;
		if (mw_change_get_fields(c) & (1U << MW_FIELD_USER_OPTIONS)) {
			user_options_changes++;
			user_options_changed = mw_change_get_unique_id(c);
		}
		break;
	case MW_CHANGE_LOST:
		r->lost++;
		break;
	case MW_CHANGE_SUPERBLOCK:
	case MW_CHANGE_RESYNCED:
		break;
	}
}

/* Processes until the fd stays quiet for 100 ms and no deadline is pending. */
static void drain(mw_watcher *w)
{
	for (;;) {
		struct pollfd p = { .fd = mw_watcher_get_fd(w), .events = POLLIN };
		int k = poll(&p, 1, 100);

		assert_se(k >= 0);
		assert_se(mw_watcher_process(w) >= 0);
		if (k == 0 && mw_watcher_get_timeout(w) == UINT64_MAX)
			return;
	}
}

/*
 * The watched mount was unmounted: processing gives -ENOLINK within 10 s
 * (mountinfo and fanotify say it at once), the replayed copy and the table
 * are empty, and every later call says -ENOLINK again.
 */
static void check_watch_gone(mw_watcher *w, Replay *r, const char *backend, const char *what)
{
	time_t t0 = time(NULL);
	int k;

	for (;;) {
		struct pollfd p = { .fd = mw_watcher_get_fd(w), .events = POLLIN };

		assert_se(poll(&p, 1, 100) >= 0);
		k = mw_watcher_process(w);
		if (k < 0 || time(NULL) > t0 + 10)
			break;
	}
	if (k != -ENOLINK)
		fprintf(stderr, "%s: %s unmounted: %d (%s)\n", backend, what, k, strerror(-k));
	assert_se(k == -ENOLINK);
	assert_se(r->n == 0 && mw_watcher_count(w) == 0);
	assert_se(mw_watcher_process(w) == -ENOLINK && mw_watcher_resync(w, NULL) == -ENOLINK);
	assert_se(mw_watcher_get_timeout(w) == UINT64_MAX && r->n == 0);
	printf("# %s: %s unmounted: -ENOLINK after %d s\n", backend, what, (int)(time(NULL) - t0));
}

static bool in_subtree(const char *path, const char *top);

static bool below(const char *path)
{
	return in_subtree(path, base);
}

/* Per-mount options start with "ro" or "rw". */
static bool is_ro(const char *opts)
{
	return opts && strncmp(opts, "ro", 2) == 0 && (opts[2] == ',' || opts[2] == 0);
}

static bool in_subtree(const char *path, const char *top)
{
	size_t n = strlen(top);

	return strncmp(path, top, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* The watcher's table equals libmount's parse, and the replayed copy equals the table. */
static void compare(mw_watcher *w, Replay *r, const char *what)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	unsigned n = 0;

	assert_se(tb && it && mnt_table_parse_file(tb, "/proc/self/mountinfo") == 0);
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const mw_mount *m = NULL, *x;
		size_t i = 0;

		if (!below(mnt_fs_get_target(fs)))
			continue;
		n++;
		while (mw_watcher_iterate(w, &i, &x))
			if (mw_mount_get_mount_id(x) == (uint32_t)mnt_fs_get_id(fs))
				m = x;
		if (!m || strcmp(mw_mount_get_mount_point(m), mnt_fs_get_target(fs)) != 0) {
			fprintf(stderr, "after %s: %s (mount %d) is %s in the watcher\n", what,
				mnt_fs_get_target(fs), mnt_fs_get_id(fs), m ? mw_mount_get_mount_point(m) : "missing");
			assert_se(0);
		}
		assert_se(strcmp(mw_mount_get_fstype(m), mnt_fs_get_fstype(fs)) == 0);
		assert_se(strcmp(mw_mount_get_source(m), mnt_fs_get_source(fs) ?: "none") == 0);
		assert_se(!!(mw_mount_get_attributes(m) & MOUNT_ATTR_RDONLY) == is_ro(mnt_fs_get_vfs_options(fs)));
		if (strcmp(mnt_fs_get_target(fs), base) != 0)
			assert_se(mw_mount_get_parent_id(m) == (uint32_t)mnt_fs_get_parent_id(fs));
		int k = replay_find(r, mw_mount_get_unique_id(m));
		assert_se(k >= 0 && strcmp(r->point[k], mw_mount_get_mount_point(m)) == 0);
	}
	if (mw_watcher_count(w) != n)
		fprintf(stderr, "after %s: the watcher has %zu mounts, mountinfo %u\n", what,
			mw_watcher_count(w), n);
	assert_se(mw_watcher_count(w) == n && r->n == n);
	mnt_free_iter(it);
	mnt_unref_table(tb);
}

/*
 * The user options of the n mounts at target equal what libmount merges from
 * /run/mount/utab into the same mounts (mnt_table_parse_mtab()).
 */
static void compare_utab(mw_watcher *w, const char *target, unsigned n)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	unsigned seen = 0;

	assert_se(tb && it && mnt_table_parse_mtab(tb, NULL) == 0);
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const mw_mount *m = NULL, *x;
		size_t i = 0;

		if (strcmp(mnt_fs_get_target(fs), target) != 0)
			continue;
		while (mw_watcher_iterate(w, &i, &x) > 0)
			if (mw_mount_get_mount_id(x) == (uint32_t)mnt_fs_get_id(fs))
				m = x;
		assert_se(m);
		assert_se(strcmp(mw_mount_get_user_options(m), mnt_fs_get_user_options(fs) ?: "") == 0);
		seen++;
	}
	assert_se(seen == n);
	mnt_free_iter(it);
	mnt_unref_table(tb);
}

/* A random directory of ours that is a mount point, or base. */
static const mw_mount *random_mount(mw_watcher *w, bool allow_base)
{
	size_t n = mw_watcher_count(w), i = 0, pick = (size_t)rand() % n;
	const mw_mount *m = NULL;

	for (size_t k = 0; k <= pick && mw_watcher_iterate(w, &i, &m); k++)
		;
	if (!allow_base && strcmp(mw_mount_get_mount_point(m), base) == 0)
		return NULL;
	return m;
}

static void random_op(mw_watcher *w, unsigned serial)
{
	const mw_mount *a = random_mount(w, true), *b = random_mount(w, false);
	char dir[256], target[512];

	snprintf(dir, sizeof(dir), "%s/d%u", mw_mount_get_mount_point(a), serial);
	switch (rand() % 6) {
	case 0:
	case 1:
		if (mkdir(dir, 0755) == 0)
			(void)mount("t", dir, "tmpfs", 0, "size=64k");
		break;
	case 2:
		if (b)
			(void)umount2(mw_mount_get_mount_point(b), MNT_DETACH);
		break;
	case 3:
		if (b && mkdir(dir, 0755) == 0)
			(void)mount(mw_mount_get_mount_point(b), dir, NULL, MS_BIND, NULL);
		break;
	case 4:
		/* Moves need a private parent; not into the mount's own subtree. */
		if (b && !in_subtree(dir, mw_mount_get_mount_point(b)) && mkdir(dir, 0755) == 0) {
			snprintf(target, sizeof(target), "%s", mw_mount_get_mount_point(b));
			(void)mount(target, dir, NULL, MS_MOVE, NULL);
		}
		break;
	case 5:
		if (b)
			(void)mount(NULL, mw_mount_get_mount_point(b), NULL,
				    MS_REMOUNT | MS_BIND | (rand() % 2 ? MS_RDONLY : 0), NULL);
		break;
	}
}

static int run(const char *backend, unsigned n_ops)
{
	Replay r = {};
	mw_watcher *w;
	struct mw_resync_stats s;
	const mw_mount *m;
	size_t i = 0;
	int k;

	k = mw_watcher_new(&w, base, backend, 0);
	if (k == -EOPNOTSUPP || k == -EINVAL)
		return k;
	assert_se(k == 0);
	while (mw_watcher_iterate(w, &i, &m)) { /* the snapshot is the replay's start */
		r.id[r.n] = mw_mount_get_unique_id(m);
		r.point[r.n++] = strdup(mw_mount_get_mount_point(m));
	}
	mw_watcher_set_change_fn(w, on_change, &r);
	compare(w, &r, "the snapshot");
	{
		/* Where the kernel has unique mount IDs (6.8), every backend gives them. */
		struct statx stx;
		const mw_mount *top = mw_watcher_get_mount_by_path(w, base);

		assert_se(top);
		if (statx(AT_FDCWD, base, 0, STATX_MNT_ID_UNIQUE, &stx) == 0 &&
		    (stx.stx_mask & STATX_MNT_ID_UNIQUE)) {
			if (mw_mount_get_unique_id(top) != stx.stx_mnt_id)
				fprintf(stderr, "%s: unique ID %" PRIu64 ", statx says %" PRIu64 "\n", backend,
					mw_mount_get_unique_id(top), (uint64_t)stx.stx_mnt_id);
			assert_se(mw_mount_get_unique_id(top) == stx.stx_mnt_id);
		}
	}
	for (unsigned op = 0; op < n_ops; op++) {
		random_op(w, op);
		if (op % 5 == 4) {
			drain(w);
			compare(w, &r, "a burst");
		}
	}
	drain(w);
	compare(w, &r, "the last burst");
	{
		/* One of each kind whatever the dice said: added, changed, removed. */
		char dir[128];

		snprintf(dir, sizeof(dir), "%s/fixed", base);
		assert_se(mkdir(dir, 0755) == 0 && mount("t", dir, "tmpfs", 0, "size=64k") == 0);
		drain(w);
		assert_se(mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0);
		drain(w);
		assert_se(umount2(dir, MNT_DETACH) == 0);
		drain(w);
		compare(w, &r, "one fixed mount, remount and unmount");
	}
	{
		/*
		 * Exact paths: mount points that mountinfo escapes (or that an
		 * escape could confuse) are found by their bytes, and no two
		 * share a name: 0xff, the literal text "\\377", a newline, a tab.
		 */
		static const char *const names[] = { "c\xff", "c\\377", "n\nl", "t\tab" };
		char dir[4][128];
		uint64_t ids[4];

		for (size_t j = 0; j < 4; j++) {
			snprintf(dir[j], sizeof(dir[j]), "%s/%s", base, names[j]);
			assert_se(mkdir(dir[j], 0755) == 0 && mount(names[j], dir[j], "tmpfs", 0, "size=64k") == 0);
		}
		drain(w);
		compare(w, &r, "mounts at odd bytes");
		for (size_t j = 0; j < 4; j++) {
			const mw_mount *odd = mw_watcher_get_mount_by_path(w, dir[j]);

			assert_se(odd && strcmp(mw_mount_get_mount_point(odd), dir[j]) == 0);
			assert_se(strcmp(mw_mount_get_source(odd), names[j]) == 0);
			ids[j] = mw_mount_get_unique_id(odd);
			for (size_t l = 0; l < j; l++)
				assert_se(ids[l] != ids[j]);
		}
		for (size_t j = 0; j < 4; j++)
			assert_se(umount2(dir[j], 0) == 0);
		drain(w);
		for (size_t j = 0; j < 4; j++)
			assert_se(!mw_watcher_get_mount_by_path(w, dir[j]));
		compare(w, &r, "mounts at odd bytes gone");
	}
	{
		/*
		 * /run/mount/utab (on a tmpfs of this namespace at /run, main()):
		 * mount(8)'s options, merged by mount ID or by target and root as
		 * libmount does; a change of utab alone is a CHANGED
		 * (USER_OPTIONS). /run/mount is made only now, after the watcher
		 * opened, as at PID 1's start: it is followed from /run until then.
		 */
		char dir[128], line[512];
		const mw_mount *um;
		uint64_t id;
		FILE *f;

		assert_se(mkdir("/run/mount", 0755) == 0);
		snprintf(dir, sizeof(dir), "%s/u t", base);
		assert_se(mkdir(dir, 0755) == 0 && mount("u", dir, "tmpfs", 0, "size=64k") == 0);
		drain(w);
		um = mw_watcher_get_mount_by_path(w, dir);
		assert_se(um && strcmp(mw_mount_get_user_options(um), "") == 0);
		id = mw_mount_get_unique_id(um);
		user_options_changes = 0;
		/* As mount(8): a new file renamed over utab; the space escaped as mountinfo does. */
		snprintf(line, sizeof(line), "ID=%u SRC=u TARGET=%s/u\\040t ROOT=/ OPTS=x-mw.test,_netdev\n",
			 mw_mount_get_mount_id(um), base);
		assert_se((f = fopen("/run/mount/utab.new", "we")) && fputs(line, f) >= 0 && fclose(f) == 0);
		assert_se(rename("/run/mount/utab.new", "/run/mount/utab") == 0);
		drain(w);
		um = mw_watcher_get_mount(w, id);
		assert_se(um && strcmp(mw_mount_get_user_options(um), "x-mw.test,_netdev") == 0);
		assert_se(user_options_changes == 1 && user_options_changed == id);
		/* Without an ID: matched by its target (and root). */
		snprintf(line, sizeof(line), "SRC=u TARGET=%s/u\\040t ROOT=/ OPTS=x-mw.other\n", base);
		assert_se((f = fopen("/run/mount/utab.new", "we")) && fputs(line, f) >= 0 && fclose(f) == 0);
		assert_se(rename("/run/mount/utab.new", "/run/mount/utab") == 0);
		drain(w);
		assert_se(strcmp(mw_mount_get_user_options(mw_watcher_get_mount(w, id)), "x-mw.other") == 0);
		assert_se(user_options_changes == 2);
		assert_se(unlink("/run/mount/utab") == 0);
		drain(w);
		assert_se(strcmp(mw_mount_get_user_options(mw_watcher_get_mount(w, id)), "") == 0);
		assert_se(user_options_changes == 3);
		assert_se(umount2(dir, 0) == 0);
		drain(w);
		compare(w, &r, "a mount with utab options gone");
	}
	{
		/*
		 * utab lines without an ID, as libmount merges them
		 * (mnt_table_parse_mtab()): by source, target and root, from the
		 * last line, each into the last mount in mountinfo's order that no
		 * later line took. A stale line for the same target but another
		 * source (mount(8)'s line stays when umount(2) and mount(2) replace
		 * its mount) takes nothing; two mounts of one source stacked on one
		 * point take the last line and the one before it, and the lower one
		 * takes the last again when the top one goes. Each step against
		 * libmount's own merge of the same files. /run/mount is the one
		 * made above (the library follows it from its creation on).
		 */
		char dir[128], line[1024];
		const mw_mount *top;
		uint64_t lower;
		FILE *f;

		snprintf(dir, sizeof(dir), "%s/stack", base);
		assert_se(mkdir(dir, 0755) == 0 && mount("s", dir, "tmpfs", 0, "size=64k") == 0);
		snprintf(line, sizeof(line),
			 "SRC=s TARGET=%s ROOT=/ OPTS=x-mw.first\n"
			 "SRC=gone TARGET=%s ROOT=/ OPTS=x-mw.stale\n"
			 "SRC=s TARGET=%s ROOT=/ OPTS=x-mw.second\n"
			 "SRC=gone TARGET=%s ROOT=/ OPTS=x-mw.stale2\n", dir, dir, dir, dir);
		assert_se((f = fopen("/run/mount/utab.new", "we")) && fputs(line, f) >= 0 && fclose(f) == 0);
		assert_se(rename("/run/mount/utab.new", "/run/mount/utab") == 0);
		drain(w);
		top = mw_watcher_get_mount_by_path(w, dir);
		assert_se(top && strcmp(mw_mount_get_user_options(top), "x-mw.second") == 0);
		lower = mw_mount_get_unique_id(top);
		compare_utab(w, dir, 1);
		assert_se(mount(dir, dir, NULL, MS_BIND, NULL) == 0);
		drain(w);
		top = mw_watcher_get_mount_by_path(w, dir);
		assert_se(top && mw_mount_get_unique_id(top) != lower);
		assert_se(strcmp(mw_mount_get_user_options(top), "x-mw.second") == 0);
		assert_se(strcmp(mw_mount_get_user_options(mw_watcher_get_mount(w, lower)), "x-mw.first") == 0);
		compare_utab(w, dir, 2);
		assert_se(umount2(dir, 0) == 0);
		drain(w);
		assert_se(strcmp(mw_mount_get_user_options(mw_watcher_get_mount(w, lower)), "x-mw.second") == 0);
		compare_utab(w, dir, 1);
		assert_se(umount2(dir, 0) == 0 && unlink("/run/mount/utab") == 0 && rmdir("/run/mount") == 0);
		drain(w);
		compare(w, &r, "stacked mounts with utab options gone");
	}
	{
		/*
		 * A propagation change posts no event and no mountinfo change:
		 * every backend reports it anyway, the fanotify and mountinfo
		 * ones by their verification every few seconds.
		 */
		char dir[128];
		const mw_mount *pm;
		uint64_t id, t0 = (uint64_t)time(NULL);

		snprintf(dir, sizeof(dir), "%s/prop", base);
		assert_se(mkdir(dir, 0755) == 0 && mount("p", dir, "tmpfs", 0, "size=64k") == 0);
		drain(w);
		assert_se((pm = mw_watcher_get_mount_by_path(w, dir)));
		id = mw_mount_get_unique_id(pm);
		assert_se(mw_mount_get_propagation(pm) == MW_PROPAGATION_PRIVATE);
		assert_se(mount(NULL, dir, NULL, MS_SHARED, NULL) == 0);
		while ((uint64_t)time(NULL) < t0 + 15 &&
		       mw_mount_get_propagation(mw_watcher_get_mount(w, id)) != MW_PROPAGATION_SHARED) {
			struct pollfd p = { .fd = mw_watcher_get_fd(w), .events = POLLIN };

			assert_se(poll(&p, 1, 500) >= 0 && mw_watcher_process(w) >= 0);
		}
		assert_se(mw_mount_get_propagation(mw_watcher_get_mount(w, id)) == MW_PROPAGATION_SHARED);
		assert_se(mw_mount_get_peer_group(mw_watcher_get_mount(w, id)) > 0);
		printf("# %s: mount --make-shared reported after %" PRIu64 " s\n", backend,
		       (uint64_t)time(NULL) - t0);
		assert_se(umount2(dir, 0) == 0);
		drain(w);
	}
	/* Every backend refuses a path that is not there, with the same error. */
	{
		mw_watcher *x = NULL;
		char missing[128];

		snprintf(missing, sizeof(missing), "%s/not-there", base);
		assert_se(mw_watcher_new(&x, missing, backend, 0) == -ENOENT && !x);
		assert_se(mw_watcher_new(&x, "relative", backend, 0) == -EINVAL && !x);
	}
	assert_se(mw_watcher_resync(w, &s) == 0);
	assert_se(s.added == 0 && s.removed == 0 && s.changed == 0);
	printf("# %s: %u added, %u removed, %u moved, %u changed, %u losses\n", backend, r.added,
	       r.removed, r.moved, r.changed, r.lost);
	assert_se(r.added > 0 && r.removed > 0 && r.changed > 0);
	{
		/*
		 * The watched mount goes away (a lazy unmount of base, with
		 * what is below it): on every backend -ENOLINK, each mount of
		 * the table announced gone once before it, and -ENOLINK from
		 * then on. The same for a watcher on a plain directory of it.
		 */
		char plain[128], sub[160];
		Replay r2 = {};
		mw_watcher *w2;

		snprintf(plain, sizeof(plain), "%s/plain", base);
		snprintf(sub, sizeof(sub), "%s/sub", plain);
		assert_se(mkdir(plain, 0755) == 0 && mkdir(sub, 0755) == 0);
		assert_se(mount("sub", sub, "tmpfs", 0, "size=64k") == 0);
		drain(w);
		assert_se(mw_watcher_new(&w2, plain, backend, 0) == 0 && mw_watcher_count(w2) == 1);
		r2.id[0] = mw_mount_get_unique_id(mw_watcher_get_mount_by_path(w2, sub));
		r2.point[0] = strdup(sub);
		r2.n = 1;
		mw_watcher_set_change_fn(w2, on_change, &r2);
		assert_se(r.n > 1 && umount2(base, MNT_DETACH) == 0);
		check_watch_gone(w, &r, backend, "the watched mount");
		check_watch_gone(w2, &r2, backend, "a directory of the watched mount");
		mw_watcher_free(w2);
	}
	mw_watcher_free(w);
	return 0;
}

/*
 * The same bad arguments give the same error on every backend, from
 * mw_watcher_new(), mw_watcher_new_ns() and mw_watcher_reopen() (which then
 * leaves the watcher as it was). One row per case; a row that should work
 * is a SKIP on a backend this kernel lacks (the others give their error
 * before any backend is opened, so they are checked there too).
 */
typedef struct BadArg {
	const char *what;
	const char *path; /* "%s": base; NULL: NULL */
	const char *backend; /* NULL: the backend under test */
	unsigned queue_size;
	int ns;           /* 0: mw_watcher_new(); else the fd kind for mw_watcher_new_ns() */
	bool null_ret;
	int want;
} BadArg;

enum { NS_NONE, NS_OURS, NS_NET, NS_FILE, NS_CLOSED, NS_BELOW };

static int ns_fd_of(int kind)
{
	int fd;

	switch (kind) {
	case NS_OURS:
		return open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	case NS_NET:
		return open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	case NS_FILE:
		return open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	case NS_CLOSED:
		fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
		assert_se(fd >= 0 && close(fd) == 0);
		return fd;
	case NS_BELOW:
		return -2;
	}
	return -1;
}

static void run_bad_args(const char *backend, unsigned *n)
{
	static char longpath[5000];
	const BadArg rows[] = {
		{ "a relative path", "relative", .want = -EINVAL },
		{ "an empty path", "", .want = -EINVAL },
		{ "a NULL path", NULL, .want = -EINVAL },
		{ "a NULL ret", "%s", .null_ret = true, .want = -EINVAL },
		{ "a path that does not exist", "%s/not-there", .want = -ENOENT },
		{ "a path below a regular file", "%s/file/x", .want = -ENOTDIR },
		{ "a regular file (watch_mount(2) takes a directory)", "%s/file", .want = -ENOTDIR },
		{ "a path longer than PATH_MAX", longpath, .want = -ENAMETOOLONG },
		{ "an unknown backend", "%s", "nfs", .want = -EINVAL },
		{ "an empty backend name", "%s", "", .want = -EINVAL },
		{ "queue_size above MW_QUEUE_SIZE_MAX", "%s", .queue_size = MW_QUEUE_SIZE_MAX + 1, .want = -EINVAL },
		{ "queue_size UINT_MAX", "%s", .queue_size = UINT32_MAX, .want = -EINVAL },
		{ "a network namespace fd", "%s", .ns = NS_NET, .want = -EINVAL },
		{ "a plain file as the namespace fd", "%s", .ns = NS_FILE, .want = -EINVAL },
		{ "a closed namespace fd", "%s", .ns = NS_CLOSED, .want = -EBADF },
		{ "a namespace fd below -1", "%s", .ns = NS_BELOW, .want = -EBADF },
		{ "the namespace fd's ENOENT", "%s/not-there", .ns = NS_OURS, .want = -ENOENT },
		/* What works, works everywhere. */
		{ "queue_size MW_QUEUE_SIZE_MAX", "%s", .queue_size = MW_QUEUE_SIZE_MAX, .want = 0 },
		{ "a directory that is no mount point", "%s/plain-dir", .want = 0 },
		{ "a path with a trailing slash and a dot", "%s/plain-dir/./", .want = 0 },
		{ "our own namespace by fd", "%s", .ns = NS_OURS, .want = 0 },
	};
	char dir[128], file[128];
	mw_watcher *w = NULL;
	int k;

	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	snprintf(dir, sizeof(dir), "%s/plain-dir", base);
	snprintf(file, sizeof(file), "%s/file", base);
	assert_se(mkdir(dir, 0755) == 0 && close(open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) == 0);
	/* A watcher to reopen with each row (none if this backend does not run here). */
	k = mw_watcher_new(&w, base, backend, 0);
	assert_se(k == 0 || k == -EOPNOTSUPP);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const BadArg *a = &rows[i];
		const char *be = a->backend ?: backend;
		char path[sizeof(longpath) + 128];
		mw_watcher *x = NULL;
		int fd = -1;

		if (a->path)
			snprintf(path, sizeof(path), a->path, base);
		if (a->ns)
			fd = ns_fd_of(a->ns);
		if (a->ns)
			k = mw_watcher_new_ns(a->null_ret ? NULL : &x, fd, a->path ? path : NULL, be, a->queue_size);
		else
			k = mw_watcher_new(a->null_ret ? NULL : &x, a->path ? path : NULL, be, a->queue_size);
		if (fd >= 0 && a->ns != NS_CLOSED)
			close(fd);
		(*n)++;
		if (a->want == 0 && k == -EOPNOTSUPP) {
			printf("ok %u - %s: %s # SKIP this kernel (or build) lacks it\n", *n, backend, a->what);
			continue;
		}
		if (k != a->want)
			fprintf(stderr, "%s: %s: %d, want %d\n", backend, a->what, k, a->want);
		assert_se(k == a->want && !x == (k < 0));
		if (x) {
			/* No callback at all is allowed: changes are applied, announced to nobody. */
			assert_se(mw_watcher_get_fd(x) >= 0);
			assert_se(mw_watcher_process(x) >= 0);
			mw_watcher_free(x);
		}
		/* The same from mw_watcher_reopen(), which leaves the watch as it was on failure. */
		if (w && !a->ns && !a->null_ret) {
			k = mw_watcher_reopen(w, a->path ? path : NULL, be, a->queue_size);
			if (k != a->want)
				fprintf(stderr, "%s: reopen, %s: %d, want %d\n", backend, a->what, k, a->want);
			assert_se(k == a->want);
			assert_se(strcmp(mw_watcher_get_path(w), k < 0 ? base : mw_watcher_get_path(w)) == 0);
			assert_se(strcmp(mw_watcher_get_backend(w), backend) == 0);
			if (k == 0)
				assert_se(mw_watcher_reopen(w, base, backend, 0) == 0);
		}
		printf("ok %u - %s: %s: %s\n", *n, backend, a->what, a->want ? strerror(-a->want) : "accepted");
	}
	if (w) {
		/* A NULL callback: changes applied, announced to nobody. */
		snprintf(dir, sizeof(dir), "%s/plain-dir", base);
		mw_watcher_set_change_fn(w, NULL, NULL);
		assert_se(mount("nocb", dir, "tmpfs", 0, "size=64k") == 0);
		drain(w);
		assert_se(mw_watcher_get_mount_by_path(w, dir));
		assert_se(umount2(dir, 0) == 0);
		drain(w);
		assert_se(!mw_watcher_get_mount_by_path(w, dir));
		mw_watcher_free(w);
	}
	assert_se(unlink(file) == 0 && rmdir(dir) == 0);
}

/* A mount of path in the namespace of ns_fd (then back in self's); umount if fstype is NULL. */
static void mount_in(int ns_fd, int self, const char *path, const char *fstype)
{
	assert_se(setns(ns_fd, CLONE_NEWNS) == 0);
	if (fstype)
		assert_se(mount("other", path, fstype, 0, "size=64k") == 0);
	else
		assert_se(umount2(path, 0) == 0);
	assert_se(setns(self, CLONE_NEWNS) == 0);
}

/*
 * mw_watcher_new_ns(): a second namespace with a mount of its own (and
 * without ours) is watched from this one; its changes are followed, ours
 * are not, and the caller is back in its namespace. Returns -EOPNOTSUPP if
 * the backend or the kernel cannot.
 */
static int run_ns(const char *backend)
{
	char a_only[128], b_only[128], later[128], self_ns[64], now_ns[64], cwd[256];
	int self, other, k;
	mw_watcher *w;

	snprintf(a_only, sizeof(a_only), "%s/ns-a", base);
	snprintf(b_only, sizeof(b_only), "%s/ns-b", base);
	snprintf(later, sizeof(later), "%s/ns-later", base);
	assert_se(mkdir(a_only, 0755) == 0 && mkdir(b_only, 0755) == 0 && mkdir(later, 0755) == 0);
	self = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	memset(self_ns, 0, sizeof(self_ns)); /* readlink() does not terminate it */
	assert_se(self >= 0 && readlink("/proc/self/ns/mnt", self_ns, sizeof(self_ns) - 1) > 0);
	/* B: a copy of ours, then a mount of its own. */
	assert_se(unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	other = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	assert_se(other >= 0 && setns(self, CLONE_NEWNS) == 0);
	mount_in(other, self, b_only, "tmpfs");
	assert_se(mount("ours", a_only, "tmpfs", 0, "size=64k") == 0);

	/* The caller's working directory stays where it was (setns(2) moves it). */
	assert_se(chdir(b_only) == 0);
	k = mw_watcher_new_ns(&w, other, base, backend, 0);
	assert_se(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, b_only) == 0);
	if (k == 0) {
		/* Not a mount namespace: a network one, and a plain file. */
		int net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		int file = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		mw_watcher *x = NULL;

		assert_se(net >= 0 && file >= 0);
		assert_se(mw_watcher_new_ns(&x, net, base, backend, 0) == -EINVAL && !x);
		assert_se(mw_watcher_new_ns(&x, file, base, backend, 0) == -EINVAL && !x);
		close(net);
		close(file);
	}
	if (k == -EOPNOTSUPP || k == -EINVAL)
		goto out;
	assert_se(k == 0);
	memset(now_ns, 0, sizeof(now_ns));
	assert_se(readlink("/proc/self/ns/mnt", now_ns, sizeof(now_ns) - 1) > 0 && strcmp(now_ns, self_ns) == 0);
	assert_se(mw_watcher_get_mount_by_path(w, b_only));
	assert_se(!mw_watcher_get_mount_by_path(w, a_only));
	mount_in(other, self, later, "tmpfs");
	assert_se(chdir(b_only) == 0); /* mount_in()'s setns(2) moved it */
	drain(w);
	assert_se(mw_watcher_get_mount_by_path(w, later));
	assert_se(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, b_only) == 0);
	assert_se(umount2(a_only, 0) == 0); /* ours: nothing to see there */
	mount_in(other, self, later, NULL);
	drain(w);
	assert_se(!mw_watcher_get_mount_by_path(w, later) && mw_watcher_get_mount_by_path(w, b_only));
	mw_watcher_free(w);
	k = 0;
out:
	assert_se(chdir("/") == 0);
	(void)umount2(a_only, 0);
	close(other);
	close(self);
	return k;
}

int main(int argc, char **argv)
{
	static const char *const backends[] = { "watch_queue", "fanotify", "mountinfo" };
	unsigned n = 0, seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : (unsigned)time(NULL);

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("# seed %u (give it as the argument to repeat this run)\n", seed);
	srand(seed);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		printf("1..0 # SKIP no private mount namespace here (needs root): %s\n", strerror(errno));
		return 0;
	}
	/* A /run of this namespace's own, without mount/ (the host's /run/mount is never written). */
	if (mount("run", "/run", "tmpfs", 0, "size=64k") < 0) {
		printf("1..0 # SKIP cannot mount a tmpfs on /run: %s\n", strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		int k;

		snprintf(base, sizeof(base), "/tmp/mw-host-XXXXXX");
		assert_se(mkdtemp(base));
		assert_se(mount("base", base, "tmpfs", 0, "size=1m") == 0);
		k = run(backends[i], 150);
		{
			/* The probe (which opens only what it must) agrees with opening. */
			char *why = NULL;

			assert_se(mw_watcher_probe(backends[i], &why) == 0 && why);
			assert_se(!!strstr(why, ": ok") == (k != -EOPNOTSUPP));
			free(why);
		}
		n++;
		if (k == -EOPNOTSUPP || k == -EINVAL)
			printf("ok %u - %s # SKIP this kernel (or build) lacks it\n", n, backends[i]);
		else
			printf("ok %u - %s: table equal to libmount's after every burst, changes replay to it\n",
			       n, backends[i]);
		assert_se(mount("base", base, "tmpfs", 0, "size=1m") == 0);
		run_bad_args(backends[i], &n);
		k = run_ns(backends[i]);
		n++;
		if (k == -EOPNOTSUPP || k == -EINVAL)
			printf("ok %u - %s in another namespace # SKIP this kernel (or build) lacks it\n", n,
			       backends[i]);
		else
			printf("ok %u - %s in another namespace (mw_watcher_new_ns): its mounts, not ours\n", n,
			       backends[i]);
		(void)umount2(base, MNT_DETACH);
		(void)umount2(base, MNT_DETACH);
		(void)rmdir(base);
	}
	printf("1..%u\n# %u checks passed\n", n, check_count);
	return 0;
}
