/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WaitForMount: calls that wait until a mount appears at a path, answered
 * when one does (or at once), or with Error.Timeout when their time is up.
 */
#ifndef MOUNTWATCH_WAIT_H
#define MOUNTWATCH_WAIT_H

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "mountwatch/mountwatch.h"

typedef struct MountWait MountWait;

typedef struct WaitList {
	MountWait *first;
	size_t n;
} WaitList;

/*
 * Answers message at once if something is mounted at mount_point (taken
 * over), else keeps it until a mount appears there or timeout_usec passes
 * (0 or UINT64_MAX: no timeout). Returns 1 (answered now or later), or a
 * negative errno; -EUSERS when too many calls wait.
 */
int wait_list_add(WaitList *l, const mw_watcher *w, sd_bus_message *message, char *mount_point,
		  uint64_t timeout_usec);
/* A mount appeared at (or moved to) mount's point: answers the calls waiting for it. */
void wait_list_check(WaitList *l, const mw_watcher *w, const struct mw_mount *mount);
/* Drops every waiting call unanswered. */
void wait_list_done(WaitList *l);

#endif
