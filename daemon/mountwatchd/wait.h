/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WaitForMount: calls that wait until a mount appears at a path, answered
 * when one does (or at once), or with Error.Timeout when their time is up.
 * Each caller (unique bus name) may have WAIT_MAX_PER_CALLER calls waiting,
 * the callers of one user (effective UID) WAIT_MAX_PER_USER, all callers
 * together WAIT_MAX; a caller's calls are dropped when it leaves the bus, so
 * an abandoned call holds nothing.
 */
#ifndef MOUNTWATCH_WAIT_H
#define MOUNTWATCH_WAIT_H

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "mountwatch/mountwatch.h"

#define WAIT_MAX 4096
#define WAIT_MAX_PER_USER 128
#define WAIT_MAX_PER_CALLER 32

typedef struct MountWait MountWait;
typedef struct WaitCaller WaitCaller;

typedef struct WaitList {
	MountWait *first;
	size_t n;
	WaitCaller *callers; /* those with calls waiting */
} WaitList;

/*
 * Answers message at once if something is mounted at mount_point (taken
 * over), else keeps it until a mount appears there, timeout_usec passes
 * (0, UINT64_MAX or anything past the monotonic clock's range: no timeout) or its sender leaves the bus. Returns 1
 * (answered now or later); 0 if the call expects no reply (it is not kept:
 * nobody would read the answer); a negative errno: -EUSERS when WAIT_MAX
 * calls wait, -EDQUOT when this caller has WAIT_MAX_PER_CALLER waiting,
 * -EMLINK when this caller's user has WAIT_MAX_PER_USER waiting.
 */
int wait_list_add(WaitList *l, const mw_watcher *w, sd_bus_message *message, char *mount_point,
		  uint64_t timeout_usec);
/* A mount appeared at (or moved to) mount's point: answers the calls waiting for it. */
void wait_list_check(WaitList *l, const mw_watcher *w, const mw_mount *mount);
/* Drops every waiting call unanswered. */
void wait_list_done(WaitList *l);

#endif
