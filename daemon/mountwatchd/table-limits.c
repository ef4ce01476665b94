/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The budget of whole-table calls per caller and per user; see table-limits.h. */
#include "table-limits.h"
#include "util.h"

/* A window of calls: since start, n charged. */
typedef struct Window {
	uint64_t start;
	unsigned n;
} Window;

struct TableCaller {
	TableCaller *prev, *next;
	char *name; /* NULL: the peer of a direct connection */
	uid_t uid;
	Window window;
};

struct TableUser {
	TableUser *prev, *next;
	uid_t uid;
	Window window;
};

static bool window_over(const Window *w, uint64_t now)
{
	return now - w->start >= TABLE_LIMIT_INTERVAL_USEC;
}

static uint64_t window_left(const Window *w, uint64_t now)
{
	return window_over(w, now) ? 0 : w->start + TABLE_LIMIT_INTERVAL_USEC - now;
}

/* Forgets the records whose window has passed. */
static void table_limits_expire(TableLimits *l, uint64_t now)
{
	TableCaller *c, *cn;
	TableUser *u, *un;

	for (c = l->callers; c; c = cn) {
		cn = c->next;
		if (window_over(&c->window, now)) {
			LIST_REMOVE(l->callers, c);
			free(c->name);
			free(c);
		}
	}
	for (u = l->users; u; u = un) {
		un = u->next;
		if (window_over(&u->window, now)) {
			LIST_REMOVE(l->users, u);
			free(u);
		}
	}
}

static TableCaller *caller_find(const TableLimits *l, const char *name)
{
	for (TableCaller *c = l->callers; c; c = c->next)
		if (streq_ptr(c->name, name))
			return c;
	return NULL;
}

static int caller_add(TableLimits *l, const char *name, uid_t uid, uint64_t now, TableCaller **ret)
{
	TableCaller *c;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (name) {
		c->name = strdup(name);
		if (!c->name) {
			free(c);
			return -ENOMEM;
		}
	}
	c->uid = uid;
	c->window.start = now;
	LIST_PREPEND(l->callers, c);
	*ret = c;
	return 0;
}

int table_limits_charge_uid(TableLimits *l, const char *caller, uid_t uid, uint64_t now,
			    uint64_t *ret_retry_usec)
{
	TableCaller *c;
	TableUser *u;
	int r;

	table_limits_expire(l, now);
	c = caller_find(l, caller);
	if (!c) {
		r = caller_add(l, caller, uid, now, &c);
		if (r < 0)
			return r;
	}
	if (uid == 0)
		return 0; /* the record only keeps the answer to "who is it?" */
	for (u = l->users; u; u = u->next)
		if (u->uid == uid)
			break;
	if (!u) {
		u = calloc(1, sizeof(*u));
		if (!u)
			return -ENOMEM;
		u->uid = uid;
		u->window.start = now;
		LIST_PREPEND(l->users, u);
	}
	if (c->window.n >= TABLE_LIMIT_PER_CALLER) {
		if (ret_retry_usec)
			*ret_retry_usec = window_left(&c->window, now);
		return -EDQUOT;
	}
	if (u->window.n >= TABLE_LIMIT_PER_USER) {
		if (ret_retry_usec)
			*ret_retry_usec = window_left(&u->window, now);
		return -EMLINK;
	}
	c->window.n++;
	u->window.n++;
	return 0;
}

int table_limits_charge(TableLimits *l, sd_bus_message *message, uint64_t *ret_retry_usec)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	const char *sender = sd_bus_message_get_sender(message);
	uint64_t now = now_usec();
	TableCaller *c;
	uid_t uid;
	int r;

	table_limits_expire(l, now);
	c = caller_find(l, sender);
	if (c)
		uid = c->uid;
	else {
		/* One question to the bus per caller and window, not one per call. */
		r = sd_bus_query_sender_creds(message, SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &creds);
		if (r >= 0)
			r = sd_bus_creds_get_euid(creds, &uid);
		if (r < 0)
			return r;
	}
	return table_limits_charge_uid(l, sender, uid, now, ret_retry_usec);
}

unsigned table_limits_records(const TableLimits *l)
{
	unsigned n = 0;

	for (const TableCaller *c = l->callers; c; c = c->next)
		n++;
	for (const TableUser *u = l->users; u; u = u->next)
		n++;
	return n;
}

void table_limits_done(TableLimits *l)
{
	while (l->callers) {
		TableCaller *c = l->callers;

		LIST_REMOVE(l->callers, c);
		free(c->name);
		free(c);
	}
	while (l->users) {
		TableUser *u = l->users;

		LIST_REMOVE(l->users, u);
		free(u);
	}
}
