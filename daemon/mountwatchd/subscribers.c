/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who listens to the per-mount signals; see subscribers.h. */
#include "subscribers.h"
#include "util.h"

static const char *const set_names[_SUBSCRIBERS_SET_MAX] = {
	[SUBSCRIBERS_MANAGER] = "Subscribe()",
	[SUBSCRIBERS_OBJECTS] = "GetManagedObjects()",
};

int subscribers_add(Subscribers *s, SubscriberSet set, sd_bus_message *message)
{
	const char *sender = sd_bus_message_get_sender(message);
	int r;

	if (!sender) { /* a direct connection: its one peer */
		s->direct[set] = true;
		return 0;
	}
	if (s->overflowed[set])
		return 0;
	if (!s->track[set]) {
		r = sd_bus_track_new(sd_bus_message_get_bus(message), &s->track[set], NULL, NULL);
		if (r < 0)
			return r;
	}
	if (sd_bus_track_contains(s->track[set], sender))
		return 0;
	if (sd_bus_track_count(s->track[set]) >= SUBSCRIBERS_MAX) {
		log_warning("More than %u callers of %s at once: sending their signals from now on "
			    "whether anyone listens or not.", SUBSCRIBERS_MAX, set_names[set]);
		s->overflowed[set] = true;
		s->track[set] = sd_bus_track_unref(s->track[set]);
		return 0;
	}
	return sd_bus_track_add_sender(s->track[set], message);
}

int subscribers_remove(Subscribers *s, SubscriberSet set, sd_bus_message *message)
{
	const char *sender = sd_bus_message_get_sender(message);
	bool was;

	if (!sender) {
		was = s->direct[set];
		s->direct[set] = false;
		return was;
	}
	if (s->overflowed[set])
		return 1; /* not followed by name any more: take its word */
	if (!s->track[set] || !sd_bus_track_contains(s->track[set], sender))
		return 0;
	return sd_bus_track_remove_sender(s->track[set], message) < 0 ? 0 : 1;
}

unsigned subscribers_count(const Subscribers *s, SubscriberSet set)
{
	return s->direct[set] + (s->track[set] ? sd_bus_track_count(s->track[set]) : 0);
}

bool subscribers_any(const Subscribers *s, SubscriberSet set)
{
	return s->overflowed[set] || subscribers_count(s, set) > 0;
}

void subscribers_done(Subscribers *s)
{
	for (unsigned i = 0; i < _SUBSCRIBERS_SET_MAX; i++)
		s->track[i] = sd_bus_track_unref(s->track[i]);
}
