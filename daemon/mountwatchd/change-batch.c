/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* MountsChanged: the changes of one batch in as few messages as the bus takes; see change-batch.h. */
#include <errno.h>
#include <stdlib.h>

#include "change-batch.h"
#include "util.h"

bool change_batch_full(unsigned n, size_t size, unsigned max)
{
	return n >= (max ?: CHANGE_BATCH_MAX) || size >= CHANGE_BATCH_SIZE_MAX;
}

/* Closes the open run of removals, if any: its a{sv} (AlsoRemoved when others joined) and its entry. */
static int run_close(ChangeBatch *b)
{
	size_t n = b->n_run;
	int r;

	if (!b->run_open)
		return 0;
	b->run_open = false;
	b->n_run = 0;
	r = sd_bus_message_open_container(b->message, 'a', "{sv}");
	if (r >= 0 && n > 0) {
		r = sd_bus_message_open_container(b->message, 'e', "sv");
		if (r >= 0)
			r = sd_bus_message_append_basic(b->message, 's', "AlsoRemoved");
		if (r >= 0)
			r = sd_bus_message_open_container(b->message, 'v', "at");
		if (r >= 0)
			r = sd_bus_message_append_array(b->message, 't', b->run, n * sizeof(uint64_t));
		if (r >= 0)
			r = sd_bus_message_close_container(b->message);
		if (r >= 0)
			r = sd_bus_message_close_container(b->message);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(b->message);
	if (r < 0) {
		change_batch_done(b);
		return r;
	}
	return change_batch_end(b, 64 + n * sizeof(uint64_t));
}

int change_batch_begin(ChangeBatch *b, sd_bus *bus, const char *path, const char *interface,
		       uint64_t generation, const char *kind)
{
	int r;

	r = run_close(b);
	if (r < 0)
		return r;
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

bool change_batch_joins_run(const ChangeBatch *b, uint64_t generation)
{
	return b->run_open && generation == b->last + 1 && b->n_run < CHANGE_BATCH_RUN_MAX;
}

int change_batch_removed(ChangeBatch *b, sd_bus *bus, const char *path, const char *interface,
			 uint64_t generation, uint64_t unique_id, const char *mount_point)
{
	int r;

	if (change_batch_joins_run(b, generation)) {
		if (b->n_run == b->run_allocated) {
			size_t a = b->run_allocated ? b->run_allocated * 2 : 64;
			uint64_t *run = reallocarray(b->run, a, sizeof(*run));

			if (!run) {
				change_batch_done(b);
				return -ENOMEM;
			}
			b->run = run;
			b->run_allocated = a;
		}
		b->run[b->n_run++] = unique_id;
		b->last = generation;
		return 0;
	}
	if (!mount_point) {
		change_batch_done(b);
		return -EINVAL;
	}
	r = change_batch_begin(b, bus, path, interface, generation, "removed");
	if (r >= 0)
		r = sd_bus_message_append_basic(b->message, 't', &unique_id);
	if (r >= 0)
		r = sd_bus_message_append_basic(b->message, 's', mount_point);
	if (r < 0) {
		change_batch_done(b);
		return r;
	}
	b->run_open = true;
	b->n_run = 0;
	return 0;
}

int change_batch_flush(ChangeBatch *b)
{
	int r;

	r = run_close(b);
	if (r < 0 || !b->message)
		return r;
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
	b->run_open = false;
	b->n_run = 0;
}

void change_batch_free(ChangeBatch *b)
{
	change_batch_done(b);
	free(b->run);
	b->run = NULL;
	b->run_allocated = 0;
}
