/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /run/mount/utab, read, matched and followed: see utab.h. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>

#include "utab.h"
#include "util.h"

static void entries_free(UtabEntry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].source);
		free(e[i].target);
		free(e[i].root);
		free(e[i].opts);
	}
	free(e);
}

#define UTAB_DIR_EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_ONLYDIR)

void utab_done(Utab *u)
{
	if (u->inotify_fd >= 0)
		close(u->inotify_fd);
	if (u->dir_fd >= 0)
		close(u->dir_fd);
	if (u->parent_fd >= 0)
		close(u->parent_fd);
	free(u->base);
	entries_free(u->entries, u->n);
	*u = (Utab){ .inotify_fd = -1, .dir_fd = -1, .parent_fd = -1, .parent_wd = -1 };
}

/* A value up to the next space, unescaped (mountinfo's \ooo). */
static char *value_dup(const char *p)
{
	char *v = strndup(p, strcspn(p, " \n"));

	return v ? unescape_octal(v) : NULL;
}

/* One line into *e (zeroed); -ENOMEM, or -EINVAL for a line without TARGET. */
static int parse_line(const char *line, UtabEntry *e)
{
	for (const char *p = line; *p;) {
		char **field = NULL;
		const char *v = NULL;

		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		if (strncmp(p, "ID=", 3) == 0) {
			char *end;
			unsigned long long id = strtoull(p + 3, &end, 10);

			if ((*end == ' ' || *end == '\n' || !*end) && id <= UINT32_MAX)
				e->id = (uint32_t)id;
		} else if (strncmp(p, "SRC=", 4) == 0) {
			field = &e->source, v = p + 4;
		} else if (strncmp(p, "ATTRS=", 6) == 0) {
			e->attrs = true;
		} else if (strncmp(p, "TARGET=", 7) == 0) {
			field = &e->target, v = p + 7;
		} else if (strncmp(p, "ROOT=", 5) == 0) {
			field = &e->root, v = p + 5;
		} else if (strncmp(p, "OPTS=", 5) == 0) {
			field = &e->opts, v = p + 5;
		}
		if (field && !*field) {
			*field = value_dup(v);
			if (!*field)
				return -ENOMEM;
		}
		p += strcspn(p, " \n");
	}
	return e->target ? 0 : -EINVAL;
}

int utab_read(Utab *u)
{
	_cleanup_free_ char *line = NULL;
	UtabEntry *l = NULL;
	size_t n = 0, size = 0;
	FILE *f;
	int r = 0;

	/* By the directory opened at utab_open(): the namespace's, not the caller's now. */
	if (u->dir_fd >= 0) {
		int fd = openat(u->dir_fd, UTAB_NAME, O_RDONLY | O_CLOEXEC);

		f = fd >= 0 ? fdopen(fd, "re") : NULL;
		if (fd >= 0 && !f)
			close(fd);
	} else {
		f = NULL;
		errno = ENOENT;
	}
	if (!f && errno != ENOENT)
		return -errno;
	while (f && r >= 0 && getline(&line, &size, f) >= 0) {
		UtabEntry e = {}, *t;

		if (line[0] == '#')
			continue;
		r = parse_line(line, &e);
		if (r >= 0) {
			t = realloc(l, (n + 1) * sizeof(*l));
			if (t) {
				l = t;
				l[n++] = e;
				continue;
			}
			r = -ENOMEM;
		}
		free(e.source);
		free(e.target);
		free(e.root);
		free(e.opts);
		if (r == -EINVAL)
			r = 0; /* as libmount: a line it cannot use is skipped */
	}
	if (r >= 0 && f && ferror(f))
		r = -EIO;
	if (f)
		fclose(f);
	if (r < 0) {
		entries_free(l, n);
		return r;
	}
	entries_free(u->entries, u->n);
	u->entries = l;
	u->n = n;
	return 0;
}

/*
 * The directory, come after the watcher: opened by the parent's fd (the
 * watcher's namespace) and followed by that fd's path. Returns 1 if it is
 * followed now, 0 if not there (yet), or -errno.
 */
static int utab_follow_dir(Utab *u)
{
	char path[64];

	u->dir_fd = openat(u->parent_fd, u->base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (u->dir_fd < 0)
		return errno == ENOENT ? 0 : -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", u->dir_fd);
	if (inotify_add_watch(u->inotify_fd, path, UTAB_DIR_EVENTS) < 0)
		return -errno;
	(void)inotify_rm_watch(u->inotify_fd, u->parent_wd);
	close(u->parent_fd);
	u->parent_fd = u->parent_wd = -1;
	return 1;
}

int utab_open(Utab *u, const char *dir)
{
	_cleanup_free_ char *parent = NULL;
	const char *slash = strrchr(dir, '/');
	int r;

	*u = (Utab){ .inotify_fd = -1, .dir_fd = -1, .parent_fd = -1, .parent_wd = -1 };
	u->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	u->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (u->inotify_fd < 0) {
		r = -errno;
		utab_done(u);
		return r;
	}
	/* mount(8) writes utab to a temporary file and renames it; it is never written in place. */
	r = inotify_add_watch(u->inotify_fd, dir, UTAB_DIR_EVENTS) < 0 ? -errno : 0;
	if (r == -ENOENT && slash && slash[1]) {
		/* Not there yet: its parent says when it comes (mkdir, or a rename onto it). */
		parent = slash == dir ? strdup("/") : strndup(dir, (size_t)(slash - dir));
		u->base = strdup(slash + 1);
		if (!parent || !u->base) {
			utab_done(u);
			return -ENOMEM;
		}
		u->parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
		u->parent_wd = inotify_add_watch(u->inotify_fd, parent, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
		r = u->parent_fd < 0 || u->parent_wd < 0 ? -errno : 0;
		/* Came meanwhile: follow it now. */
		if (r >= 0) {
			int k = utab_follow_dir(u);

			r = k < 0 ? k : 0;
		}
	}
	if (r < 0) {
		close(u->inotify_fd);
		u->inotify_fd = -1;
		if (r != -ENOENT && r != -ENOTDIR) {
			utab_done(u);
			return r;
		}
	}
	r = utab_read(u);
	if (r < 0)
		utab_done(u);
	return r;
}

int utab_check(Utab *u)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int changed = 0;

	if (u->inotify_fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(u->inotify_fd, buf, sizeof(buf));

		if (n < 0)
			return errno == EAGAIN ? changed : -errno;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->wd == u->parent_wd && u->parent_wd >= 0) {
				/* The directory came: follow it, and read what it may hold already. */
				if (ev->len > 0 && strcmp(ev->name, u->base) == 0) {
					int r = utab_follow_dir(u);

					if (r < 0)
						return r;
					changed = changed || r > 0;
				}
			} else if (ev->len > 0 && strcmp(ev->name, UTAB_NAME) == 0)
				changed = 1;
			if (ev->mask & IN_Q_OVERFLOW)
				changed = 1;
			p += sizeof(*ev) + ev->len;
		}
	}
}

/* libmount's streq_paths(): equal but for trailing slashes (a network source may have one). */
static bool streq_source(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && strncmp(a, b, la) == 0;
}

/* A line without an ID that libmount merges into a mount like info (mnt_table_merge_user_fs()). */
static bool entry_matches(const UtabEntry *e, const MountInfo *info)
{
	return !e->id && e->source && e->root && (e->opts || e->attrs) && info->source && info->root &&
	       streq_ptr(e->target, info->mount_point) && streq_ptr(e->root, info->root) &&
	       streq_source(e->source, info->source);
}

const char *utab_options(const Utab *u, const MountInfo *info, size_t later)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->entries[i].id && u->entries[i].id == info->mnt_id)
			return u->entries[i].opts;
	/* From the last line: the first match goes to the last such mount, the next to the one before. */
	for (size_t i = u->n; i > 0; i--)
		if (entry_matches(&u->entries[i - 1], info) && later-- == 0)
			return u->entries[i - 1].opts;
	return NULL;
}

bool utab_names_target(const Utab *u, const char *target)
{
	for (size_t i = 0; i < u->n; i++)
		if (!u->entries[i].id && streq_ptr(u->entries[i].target, target))
			return true;
	return false;
}
