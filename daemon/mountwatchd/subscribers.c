/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who listens to the per-mount signals; see subscribers.h. */
#include "subscribers.h"
#include "util.h"

struct Subscriber {
	char *name;    /* unique bus name */
	unsigned sets; /* 1 << SubscriberSet */
};

static Subscriber *subscriber_find(const Subscribers *s, const char *name)
{
	for (size_t i = 0; i < s->n_names; i++)
		if (streq_ptr(s->names[i].name, name))
			return &s->names[i];
	return NULL;
}

/* Drops entry e (in s->names) once it is in no set. */
static void subscriber_drop_if_unused(Subscribers *s, Subscriber *e)
{
	if (e->sets)
		return;
	free(e->name);
	*e = s->names[--s->n_names];
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	const char *name, *old_owner, *new_owner;

	if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0 || *new_owner)
		return 0;
	subscribers_gone(userdata, name);
	return 0;
}

int subscribers_start(Subscribers *s, sd_bus *bus)
{
	if (sd_bus_is_bus_client(bus) <= 0 || s->gone_slot)
		return 0;
	/* Synchronous: the rule is in place before anyone can call us by our name. arg2='': lost owners only. */
	return sd_bus_add_match(bus, &s->gone_slot,
				"type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
				"interface='org.freedesktop.DBus',member='NameOwnerChanged',arg2=''",
				on_name_owner_changed, s);
}

int subscribers_add(Subscribers *s, SubscriberSet set, sd_bus_message *message)
{
	const char *sender = sd_bus_message_get_sender(message);
	Subscriber *e;

	if (!sender) { /* a direct connection: its one peer */
		if (!s->direct[set])
			s->count[set]++;
		s->direct[set] = true;
		return 0;
	}
	e = subscriber_find(s, sender);
	if (!e) {
		if (s->n_names == s->n_allocated) {
			size_t n = s->n_allocated ? 2 * s->n_allocated : 16;
			Subscriber *p = reallocarray(s->names, n, sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->names = p;
			s->n_allocated = n;
		}
		e = &s->names[s->n_names];
		e->name = strdup(sender);
		if (!e->name)
			return -ENOMEM;
		e->sets = 0;
		s->n_names++;
	}
	if (!(e->sets & (1U << set)))
		s->count[set]++;
	e->sets |= 1U << set;
	return 0;
}

int subscribers_remove(Subscribers *s, SubscriberSet set, sd_bus_message *message)
{
	const char *sender = sd_bus_message_get_sender(message);
	Subscriber *e;

	if (!sender) {
		bool was = s->direct[set];

		s->direct[set] = false;
		s->count[set] -= was;
		return was;
	}
	e = subscriber_find(s, sender);
	if (!e || !(e->sets & (1U << set)))
		return 0;
	e->sets &= ~(1U << set);
	s->count[set]--;
	subscriber_drop_if_unused(s, e);
	return 1;
}

void subscribers_gone(Subscribers *s, const char *name)
{
	Subscriber *e = subscriber_find(s, name);

	if (!e)
		return;
	for (unsigned set = 0; set < _SUBSCRIBERS_SET_MAX; set++)
		if (e->sets & (1U << set))
			s->count[set]--;
	log_debug("%s left the bus: it no longer gets the per-mount or batched signals.", name);
	e->sets = 0;
	subscriber_drop_if_unused(s, e);
}

unsigned subscribers_count(const Subscribers *s, SubscriberSet set)
{
	return s->count[set];
}

bool subscribers_any(const Subscribers *s, SubscriberSet set)
{
	return s->count[set] > 0;
}

void subscribers_done(Subscribers *s)
{
	s->gone_slot = sd_bus_slot_unref(s->gone_slot);
	for (size_t i = 0; i < s->n_names; i++)
		free(s->names[i].name);
	free(s->names);
	*s = (Subscribers){};
}
