/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmountwatch on an sd-event loop, header-only: the functions are static
 * inline, so they use the caller's sd-event (libsystemd.so, or systemd's
 * own libsystemd-shared inside PID 1) and libmountwatch itself never links
 * libsystemd. Include <systemd/sd-event.h> (or systemd's sd-event.h)
 * first.
 *
 *   mw_watcher_attach_event(w, event, SD_EVENT_PRIORITY_NORMAL);
 *
 * adds an I/O source on mw_watcher_get_fd() and a CLOCK_MONOTONIC timer for
 * mw_watcher_get_timeout(); each calls mw_watcher_process(), then the
 * optional processed function with its result, then arms the timer again.
 * The sources live in the watcher's attachment slot
 * (mw_watcher_set_attachment()): mw_watcher_free() or
 * mw_watcher_detach_event() disables and drops them. Call
 * mw_watcher_attach_event() again after mw_watcher_reopen() (its fd may
 * change), and mw_watcher_event_update() after a mw_watcher_resync() made
 * outside the loop (its timeout may change). If the change callback frees
 * the watcher, the processed function is not called.
 */
#ifndef MOUNTWATCH_SD_EVENT_H
#define MOUNTWATCH_SD_EVENT_H

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>

#include <mountwatch/mountwatch.h>

/* Called after each mw_watcher_process() the loop made, with what it returned. */
typedef void (*mw_processed_fn)(mw_watcher *w, int result, void *userdata);

typedef struct mw_sd_event_state {
	sd_event_source *io, *timer;
	mw_processed_fn processed;
	void *userdata;
} mw_sd_event_state;

static inline void mw_sd_event_state_free(void *data)
{
	mw_sd_event_state *st = (mw_sd_event_state *)data;

	if (!st)
		return;
	sd_event_source_disable_unref(st->io);
	sd_event_source_disable_unref(st->timer);
	free(st);
}

/* Drops the sources mw_watcher_attach_event() added (NULL-safe, idempotent). */
static inline void mw_watcher_detach_event(mw_watcher *w)
{
	if (w)
		mw_watcher_set_attachment(w, NULL, NULL);
}

/* Arms the timer for the watcher's deadline, or disarms it. Returns 0 or a negative errno. */
static inline int mw_watcher_event_update(mw_watcher *w)
{
	mw_sd_event_state *st = (mw_sd_event_state *)mw_watcher_get_attachment(w);
	uint64_t t = mw_watcher_get_timeout(w);
	int r;

	if (!st)
		return -ENOENT;
	if (t == UINT64_MAX)
		return sd_event_source_set_enabled(st->timer, SD_EVENT_OFF);
	r = sd_event_source_set_time(st->timer, t);
	if (r >= 0)
		r = sd_event_source_set_enabled(st->timer, SD_EVENT_ONESHOT);
	return r;
}

static inline int mw_sd_event_dispatch(mw_watcher *w)
{
	mw_sd_event_state *st = (mw_sd_event_state *)mw_watcher_get_attachment(w);
	mw_processed_fn fn = st ? st->processed : NULL;
	void *userdata = st ? st->userdata : NULL;
	int r;

	r = mw_watcher_process(w);
	if (r == -ECANCELED)
		return 0; /* the change callback freed w, and these sources with it */
	if (fn)
		fn(w, r, userdata);
	/* fn may have detached, re-attached or freed nothing else: look again. */
	if (mw_watcher_get_attachment(w))
		(void)mw_watcher_event_update(w);
	return 0;
}

static inline int mw_sd_event_on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	return mw_sd_event_dispatch((mw_watcher *)userdata);
}

static inline int mw_sd_event_on_time(sd_event_source *s, uint64_t usec, void *userdata)
{
	return mw_sd_event_dispatch((mw_watcher *)userdata);
}

/*
 * Attaches w to event at priority, calling processed (may be NULL) after
 * each mw_watcher_process(). Replaces an earlier attachment (dropped first).
 * Returns 0 or a negative errno (nothing attached then).
 */
static inline int mw_watcher_attach_event_full(mw_watcher *w, sd_event *event, int64_t priority,
					       mw_processed_fn processed, void *userdata)
{
	mw_sd_event_state *st;
	int r;

	/* The old sources first: the fd may be the same one (sd-event refuses it twice). */
	mw_watcher_detach_event(w);
	st = (mw_sd_event_state *)calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->processed = processed;
	st->userdata = userdata;
	r = sd_event_add_io(event, &st->io, mw_watcher_get_fd(w), EPOLLIN, mw_sd_event_on_io, w);
	if (r >= 0)
		r = sd_event_add_time(event, &st->timer, CLOCK_MONOTONIC, UINT64_MAX, 0, mw_sd_event_on_time, w);
	if (r >= 0)
		r = sd_event_source_set_priority(st->io, priority);
	if (r >= 0)
		r = sd_event_source_set_priority(st->timer, priority);
	if (r < 0) {
		mw_sd_event_state_free(st);
		return r;
	}
	(void)sd_event_source_set_description(st->io, "mountwatch-fd");
	(void)sd_event_source_set_description(st->timer, "mountwatch-timeout");
	mw_watcher_set_attachment(w, st, mw_sd_event_state_free);
	return mw_watcher_event_update(w);
}

static inline int mw_watcher_attach_event(mw_watcher *w, sd_event *event, int64_t priority)
{
	return mw_watcher_attach_event_full(w, event, priority, NULL, NULL);
}

#endif
