/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /run/mount/utab: what mount(8) keeps about a mount that the kernel does
 * not (libmount's userspace mount table: _netdev, x-*, user=...), one line
 * per mount, "ID=<mount ID> SRC=... TARGET=... ROOT=... OPTS=..." with
 * mountinfo's octal escapes. Read as libmount's mnt_parse_utab_line() does,
 * matched to a mount as mnt_table_parse_mtab() does (the mount ID; else the
 * source, target and root, the last such line to the last such mount in
 * mountinfo's order, the one before it to the one before, ...), and
 * followed by inotify on its directory, as libmount's userspace monitor
 * follows it.
 */
#ifndef MOUNTWATCH_UTAB_H
#define MOUNTWATCH_UTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mount-info.h"

#define UTAB_DIR "/run/mount"
#define UTAB_NAME "utab"

typedef struct UtabEntry {
	uint32_t id; /* 0: none given */
	char *source, *target, *root, *opts;
	bool attrs; /* ATTRS= given: the line claims a mount even without OPTS= */
} UtabEntry;

typedef struct Utab {
	int inotify_fd; /* -1: not followed (neither the directory nor its parent is there) */
	int dir_fd;     /* the directory, opened in the watcher's namespace; -1: none */
	/*
	 * Until the directory is there (PID 1 starts before anything made
	 * /run/mount): its parent, followed for its creation; -1 after.
	 */
	int parent_fd, parent_wd;
	char *base;
	UtabEntry *entries;
	size_t n;
} Utab;

/*
 * Follows dir/utab and reads it; a directory not there yet is followed from
 * its parent until it is. Returns 0 (a missing directory or file is an
 * empty table) or -errno.
 */
int utab_open(Utab *u, const char *dir);
void utab_done(Utab *u);
/* Reads the file again (missing: empty). On failure the old entries stay. */
int utab_read(Utab *u);
/*
 * Drains the inotify fd: 1 if utab may have changed (its directory came
 * too), 0 if not, or -errno.
 */
int utab_check(Utab *u);
/*
 * The options of the entry for info, or NULL. later: how many other mounts
 * with info's mount point, source and root come after it in mountinfo (a
 * higher unique ID): libmount merges the lines from the last, each into the
 * last mount they match that no later line took.
 */
const char *utab_options(const Utab *u, const MountInfo *info, size_t later);
/* Some line without an ID names this target: mounts there may take its options. */
bool utab_names_target(const Utab *u, const char *target);

#endif
