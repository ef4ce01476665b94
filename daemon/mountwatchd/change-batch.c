/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* MountsChanged: the changes of one batch in as few messages as the bus takes; see change-batch.h. */
#include "change-batch.h"
#include "util.h"

bool change_batch_full(unsigned n, size_t size, unsigned max)
{
	return n >= (max ?: CHANGE_BATCH_MAX) || size >= CHANGE_BATCH_SIZE_MAX;
}

int change_batch_begin(ChangeBatch *b, sd_bus *bus, const char *path, const char *interface,
		       uint64_t generation, const char *kind)
{
	int r;

	if (!b->message) {
		r = sd_bus_message_new_signal(bus, &b->message, path, interface, "MountsChanged");
		if (r >= 0)
			r = sd_bus_message_open_container(b->message, 'a', "(" CHANGE_BATCH_ENTRY ")");
		if (r < 0) {
			change_batch_done(b);
			return r;
		}
		b->n = 0;
		b->size = 0;
		b->first = generation;
	}
	b->last = generation;
	/* append_basic(): sd_bus_message_append()'s format parsing doubles a storm's cost. */
	r = sd_bus_message_open_container(b->message, 'r', CHANGE_BATCH_ENTRY);
	if (r >= 0)
		r = sd_bus_message_append_basic(b->message, 't', &generation);
	if (r >= 0)
		r = sd_bus_message_append_basic(b->message, 's', kind);
	if (r < 0)
		change_batch_done(b);
	return r;
}

int change_batch_end(ChangeBatch *b, size_t size)
{
	int r;

	if (!b->message)
		return -EBADMSG;
	r = sd_bus_message_close_container(b->message);
	if (r < 0) {
		change_batch_done(b);
		return r;
	}
	b->n++;
	b->size += size;
	return change_batch_full(b->n, b->size, b->max) ? change_batch_flush(b) : 0;
}

int change_batch_flush(ChangeBatch *b)
{
	int r;

	if (!b->message)
		return 0;
	r = sd_bus_message_close_container(b->message);
	if (r >= 0)
		r = sd_bus_message_append(b->message, "tt", b->first, b->last);
	if (r >= 0)
		r = sd_bus_send(NULL, b->message, NULL);
	if (r >= 0)
		b->sent++;
	change_batch_done(b);
	return r < 0 ? r : 0;
}

void change_batch_done(ChangeBatch *b)
{
	b->message = sd_bus_message_unref(b->message);
	b->n = 0;
	b->size = 0;
}
