/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WaitForMount's waiting calls; see wait.h.
 */
#include <stdio.h>

#include "bus-api.h"
#include "manager-bus.h"
#include "util.h"
#include "wait.h"

#define MAX_WAITS 1024

struct MountWait {
	MountWait *prev, *next;
	WaitList *list;
	char *mount_point;
	sd_bus_message *message;
	sd_event_source *timer;
};

static MountWait *wait_free(MountWait *w)
{
	WaitList *l;

	if (!w)
		return NULL;
	l = w->list;
	if (w->prev)
		w->prev->next = w->next;
	else if (l->first == w)
		l->first = w->next;
	if (w->next)
		w->next->prev = w->prev;
	l->n--;
	sd_event_source_disable_unref(w->timer);
	sd_bus_message_unref(w->message);
	free(w->mount_point);
	free(w);
	return NULL;
}

static int reply_path(sd_bus_message *message, uint64_t unique_id, const char *what)
{
	char path[64];
	int r;

	mount_object_path(unique_id, path);
	r = sd_bus_reply_method_return(message, "o", path);
	if (r < 0)
		log_debug_errno(r, "Failed to answer WaitForMount(%s): %m", what);
	return r;
}

void wait_list_check(WaitList *l, const mw_watcher *w, const struct mw_mount *mount)
{
	MountWait *x, *next;

	if (!mount->mount_point)
		return;
	for (x = l->first; x; x = next) {
		next = x->next;
		if (streq_ptr(x->mount_point, mount->mount_point)) {
			const struct mw_mount *top = mw_watcher_get_mount_by_path(w, x->mount_point);

			(void)reply_path(x->message, (top ?: mount)->unique_id, x->mount_point);
			wait_free(x);
		}
	}
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	MountWait *x = userdata;
	int r;

	r = sd_bus_reply_method_errorf(x->message, MW_ERROR_TIMEOUT,
				       "No mount appeared at %s in time.", x->mount_point);
	if (r < 0)
		log_debug_errno(r, "Failed to answer WaitForMount(%s): %m", x->mount_point);
	wait_free(x);
	return 0;
}

int wait_list_add(WaitList *l, const mw_watcher *w, sd_bus_message *message, char *mount_point,
		  uint64_t timeout_usec)
{
	_cleanup_free_ char *point = mount_point;
	const struct mw_mount *e;
	MountWait *x;
	int r;

	e = mw_watcher_get_mount_by_path(w, point);
	if (e) {
		r = reply_path(message, e->unique_id, point);
		return r < 0 ? r : 1;
	}
	if (l->n >= MAX_WAITS)
		return -EUSERS;

	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->list = l;
	x->mount_point = TAKE_PTR(point);
	x->message = sd_bus_message_ref(message);
	x->next = l->first;
	if (l->first)
		l->first->prev = x;
	l->first = x;
	l->n++;
	if (timeout_usec > 0 && timeout_usec != UINT64_MAX) {
		r = sd_event_add_time_relative(sd_bus_get_event(sd_bus_message_get_bus(message)), &x->timer,
					       CLOCK_MONOTONIC, timeout_usec, 0, on_timeout, x);
		if (r < 0) {
			wait_free(x);
			return r;
		}
	}
	return 1; /* answered later */
}

void wait_list_done(WaitList *l)
{
	while (l->first)
		wait_free(l->first);
}
