/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WaitForMount's waiting calls and their callers; see wait.h. A caller is
 * followed with an sd_bus_track on its unique name while it has calls
 * waiting: when the name goes away, its calls go too. Its user is asked
 * once, when it first waits.
 */
#include <stdio.h>

#include "bus-api.h"
#include "manager-bus.h"
#include "util.h"
#include "wait.h"

struct WaitCaller {
	WaitCaller *prev, *next;
	WaitList *list;
	char *name;          /* the sender's unique name; NULL on a direct connection */
	uid_t uid;           /* its effective UID */
	sd_bus_track *track; /* follows name; NULL on a direct connection */
	unsigned n;          /* its calls waiting */
};

struct MountWait {
	MountWait *prev, *next;
	WaitList *list;
	WaitCaller *caller;
	char *mount_point;
	sd_bus_message *message;
	sd_event_source *timer;
};

static WaitCaller *caller_free(WaitCaller *c)
{
	WaitList *l;

	if (!c)
		return NULL;
	l = c->list;
	LIST_REMOVE(l->callers, c);
	sd_bus_track_unref(c->track);
	free(c->name);
	free(c);
	return NULL;
}

static MountWait *wait_free(MountWait *w)
{
	WaitList *l;

	if (!w)
		return NULL;
	l = w->list;
	LIST_REMOVE(l->first, w);
	l->n--;
	if (w->caller && --w->caller->n == 0)
		caller_free(w->caller);
	sd_event_source_disable_unref(w->timer);
	sd_bus_message_unref(w->message);
	free(w->mount_point);
	free(w);
	return NULL;
}

/* The caller's unique name left the bus: its calls can no longer be answered. */
static int on_caller_gone(sd_bus_track *track, void *userdata)
{
	WaitCaller *c = userdata;
	WaitList *l = c->list;
	unsigned n = c->n;
	MountWait *x, *next;

	log_debug("%s left the bus: dropping its %u WaitForMount calls.", c->name, n);
	for (x = l->first; x && n > 0; x = next) {
		next = x->next;
		if (x->caller == c) {
			n--;
			wait_free(x); /* the last one frees c */
		}
	}
	return 0;
}

/* The caller record of message's sender: found, or made and tracked. */
static int caller_get(WaitList *l, sd_bus_message *message, WaitCaller **ret)
{
	const char *sender = sd_bus_message_get_sender(message);
	WaitCaller *c = NULL;
	int r;

	for (c = l->callers; c; c = c->next)
		if (streq_ptr(c->name, sender)) {
			*ret = c;
			return 0;
		}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->list = l;
	{
		_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;

		r = sd_bus_query_sender_creds(message, SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &creds);
		if (r >= 0)
			r = sd_bus_creds_get_euid(creds, &c->uid);
		if (r < 0) {
			free(c);
			return log_debug_errno(r, "Failed to learn the user of a WaitForMount caller: %m");
		}
	}
	if (sender) {
		c->name = strdup(sender);
		if (!c->name) {
			free(c);
			return -ENOMEM;
		}
		r = sd_bus_track_new(sd_bus_message_get_bus(message), &c->track, on_caller_gone, c);
		if (r >= 0)
			r = sd_bus_track_add_sender(c->track, message);
		if (r < 0) {
			sd_bus_track_unref(c->track);
			free(c->name);
			free(c);
			return r;
		}
	}
	LIST_PREPEND(l->callers, c);
	*ret = c;
	return 0;
}

static unsigned waits_of_user(const WaitList *l, uid_t uid)
{
	unsigned n = 0;

	for (const WaitCaller *c = l->callers; c; c = c->next)
		if (c->uid == uid)
			n += c->n;
	return n;
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

void wait_list_check(WaitList *l, const mw_watcher *w, const mw_mount *mount)
{
	const char *point = mw_mount_get_mount_point(mount);
	MountWait *x, *next;

	for (x = l->first; x; x = next) {
		next = x->next;
		if (streq_ptr(x->mount_point, point)) {
			const mw_mount *top = mw_watcher_get_mount_by_path(w, x->mount_point);

			(void)reply_path(x->message, mw_mount_get_unique_id(top ?: mount), x->mount_point);
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
	const mw_mount *e;
	WaitCaller *c = NULL;
	MountWait *x;
	int r;

	/* Sent without waiting for the answer: keeping it would only hold memory. */
	if (!sd_bus_message_get_expect_reply(message))
		return 0;
	e = mw_watcher_get_mount_by_path(w, point);
	if (e) {
		r = reply_path(message, mw_mount_get_unique_id(e), point);
		return r < 0 ? r : 1;
	}
	if (l->n >= WAIT_MAX)
		return -EUSERS;
	r = caller_get(l, message, &c);
	if (r < 0)
		return r;
	if (c->n >= WAIT_MAX_PER_CALLER)
		return -EDQUOT;
	if (waits_of_user(l, c->uid) >= WAIT_MAX_PER_USER) {
		if (c->n == 0)
			caller_free(c);
		return -EMLINK;
	}

	x = calloc(1, sizeof(*x));
	if (!x) {
		if (c->n == 0)
			caller_free(c);
		return -ENOMEM;
	}
	x->list = l;
	x->caller = c;
	c->n++;
	x->mount_point = TAKE_PTR(point);
	x->message = sd_bus_message_ref(message);
	LIST_PREPEND(l->first, x);
	l->n++;
	/* A timeout past the clock's end (sd-event: EOVERFLOW) waits for ever, as 0 and UINT64_MAX do. */
	if (timeout_usec > 0 && timeout_usec < UINT64_MAX - now_usec()) {
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
	while (l->callers)
		caller_free(l->callers);
}
