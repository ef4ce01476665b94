/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fanotify mount events plus the /proc/self/mountinfo wake-up (see
 * fanotify-watch.h).
 *
 * Two mountinfo fds: POLLPRI is consumed by whoever polls a seq_file first,
 * and when our epoll fd sits inside the caller's epoll (sd-event), the
 * caller's readiness check polls it. So "wake" lives in our epoll set only to
 * wake the caller, and "probe", which nobody else polls, tells us whether the
 * namespace changed since we last looked.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/timerfd.h>
#include <time.h>

#include "fanotify-watch.h"
#include "log.h"
#include "mainline-uapi.h"
#include "mountinfo-digest.h"
#include "statmount.h"
#include "util.h"

struct FanotifyWatch {
	int epoll_fd;
	int fan_fd;
	int wake_fd;  /* /proc/self/mountinfo, in the epoll set */
	int probe_fd; /* /proc/self/mountinfo, polled here only */
	int timer_fd; /* the next rescan, when one is held back */
	MountinfoDigest *digest;
	/* CHANGED events of the last rescan not yet handed out. */
	uint32_t *changed;
	size_t n_changed, i_changed;
	uint64_t rescan_interval;
	uint64_t last_rescan;
	bool rescan_pending;
	bool timer_armed;
	uint64_t timer_at; /* when the armed timer fires */
	uint64_t verify_interval, verify_due; /* fanotify_watch_set_verify() */
	uint64_t verify_max, verify_wait;     /* the largest wait, the current one */
	bool active;                          /* an event or wake-up since the last rescan */
	uint64_t n_events, n_rescans;
	/* Bytes read from fanotify and not yet handed out. */
	size_t pos, len;
	union {
		struct fanotify_event_metadata align;
		unsigned char bytes[4096];
	} buf;
};

FanotifyWatch *fanotify_watch_free(FanotifyWatch *w)
{
	if (!w)
		return NULL;
	int *fds[] = { &w->epoll_fd, &w->fan_fd, &w->wake_fd, &w->probe_fd, &w->timer_fd };
	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		if (*fds[i] >= 0)
			(void)close(*fds[i]);
	mountinfo_digest_free(w->digest);
	free(w->changed);
	free(w);
	return NULL;
}

void fanotify_watch_freep(FanotifyWatch **w)
{
	*w = fanotify_watch_free(*w);
}

static int epoll_add(int epoll_fd, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/*
 * What the watch needs of the kernel, and no more: statmount(2) with
 * sb_source, and a fanotify group with the mount namespace marked. Returns
 * the group's fd, or -EOPNOTSUPP / -ENOSYS / -errno.
 */
static int fanotify_open_group(void)
{
	_cleanup_close_ int fd = -1, ns_fd = -1;
	uint64_t supported;
	int r;

	/* statmount(2) with sb_source is as necessary as the events. */
	r = statmount_supported(&supported);
	if (r < 0)
		return r;
	if ((supported & STATMOUNT_MOUNT_INFO_MASK) != STATMOUNT_MOUNT_INFO_MASK)
		return -EOPNOTSUPP;
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_MNT | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		/* EINVAL: a kernel that does not know FAN_REPORT_MNT. */
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	ns_fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (ns_fd < 0)
		return -errno;
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MNTNS, FAN_MNT_ATTACH | FAN_MNT_DETACH, ns_fd, NULL) < 0)
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	return TAKE_FD(fd);
}

int fanotify_watch_probe(void)
{
	int fd = fanotify_open_group();

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int fanotify_watch_new(FanotifyWatch **ret, uint64_t rescan_interval_usec)
{
	_cleanup_(fanotify_watch_freep) FanotifyWatch *w = NULL;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->epoll_fd = w->wake_fd = w->probe_fd = w->timer_fd = -1;
	w->rescan_interval = rescan_interval_usec;

	w->fan_fd = fanotify_open_group();
	if (w->fan_fd < 0)
		return w->fan_fd;

	w->wake_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (w->wake_fd < 0)
		return -errno;
	w->probe_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (w->probe_fd < 0)
		return -errno;
	w->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->timer_fd < 0)
		return -errno;
	w->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epoll_fd < 0)
		return -errno;
	r = epoll_add(w->epoll_fd, w->fan_fd, EPOLLIN);
	if (r >= 0)
		r = epoll_add(w->epoll_fd, w->wake_fd, EPOLLPRI);
	if (r >= 0)
		r = epoll_add(w->epoll_fd, w->timer_fd, EPOLLIN);
	if (r < 0)
		return r;
	/* What happened before now is the caller's snapshot's business. */
	(void)poll(&(struct pollfd){ .fd = w->probe_fd, .events = POLLPRI }, 1, 0);
	r = mountinfo_digest_new(&w->digest);
	if (r < 0)
		return r;
	w->last_rescan = now_usec();

	*ret = TAKE_PTR(w);
	return 0;
}

int fanotify_watch_get_fd(FanotifyWatch *w)
{
	return w->epoll_fd;
}

uint64_t fanotify_watch_n_events(const FanotifyWatch *w)
{
	return w->n_events;
}

uint64_t fanotify_watch_n_rescans(const FanotifyWatch *w)
{
	return w->n_rescans;
}

const char *fanotify_event_type_to_string(FanotifyEventType t)
{
	static const char *const names[] = {
		[FANOTIFY_EVENT_ATTACH] = "attach",   [FANOTIFY_EVENT_DETACH] = "detach",
		[FANOTIFY_EVENT_MOVE] = "move",       [FANOTIFY_EVENT_CHANGED] = "changed",
		[FANOTIFY_EVENT_OVERFLOW] = "overflow",
	};

	return (size_t)t < ELEMENTSOF(names) ? names[t] : NULL;
}

/* Empties the epoll set's ready list (the wake-up fd's POLLPRI, mostly). */
static void consume_wakeups(FanotifyWatch *w)
{
	struct epoll_event ev[3];
	uint64_t expirations;

	(void)epoll_wait(w->epoll_fd, ev, ELEMENTSOF(ev), 0);
	if (read(w->timer_fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		w->timer_armed = false;
}

/* The next event from the fanotify buffer; 0 if none is left, 1 if *ret is set. */
static int next_event(FanotifyWatch *w, FanotifyEvent *ret)
{
	while (w->pos < w->len) {
		const struct fanotify_event_metadata *m =
			(const struct fanotify_event_metadata *)(w->buf.bytes + w->pos);
		size_t left = w->len - w->pos;
		uint64_t id = 0;

		if (!FAN_EVENT_OK(m, (ssize_t)left) || m->vers != FANOTIFY_METADATA_VERSION ||
		    m->metadata_len < sizeof(*m) || m->metadata_len > m->event_len) {
			/* A record we cannot parse: drop the rest, and resync. */
			lib_warning("Dropping a malformed fanotify record (%zu bytes left).", left);
			w->pos = w->len = 0;
			*ret = (FanotifyEvent){ .type = FANOTIFY_EVENT_OVERFLOW };
			return 1;
		}
		w->pos += m->event_len;
		if (m->fd >= 0)
			(void)close(m->fd); /* not for mount events, but never leak one */
		if (m->mask & FAN_Q_OVERFLOW) {
			*ret = (FanotifyEvent){ .type = FANOTIFY_EVENT_OVERFLOW };
			return 1;
		}
		for (size_t off = m->metadata_len; off + sizeof(struct mw_fanotify_info_mnt) <= m->event_len;) {
			const struct mw_fanotify_info_mnt *info =
				(const void *)((const unsigned char *)m + off);

			if (info->len < 4)
				break;
			if (info->info_type == FAN_EVENT_INFO_TYPE_MNT) {
				id = info->mnt_id;
				break;
			}
			off += info->len;
		}
		if (!id)
			continue; /* an event of another kind: none is asked for */
		w->n_events++;
		if ((m->mask & FAN_MNT_ATTACH) && (m->mask & FAN_MNT_DETACH))
			*ret = (FanotifyEvent){ .type = FANOTIFY_EVENT_MOVE, .unique_id = id };
		else if (m->mask & FAN_MNT_ATTACH)
			*ret = (FanotifyEvent){ .type = FANOTIFY_EVENT_ATTACH, .unique_id = id };
		else if (m->mask & FAN_MNT_DETACH)
			*ret = (FanotifyEvent){ .type = FANOTIFY_EVENT_DETACH, .unique_id = id };
		else
			continue;
		return 1;
	}
	return 0;
}

static int arm_timer(FanotifyWatch *w, uint64_t at)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = (time_t)(at / 1000000), .tv_nsec = (long)(at % 1000000) * 1000 },
	};

	if (timerfd_settime(w->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	w->timer_armed = true;
	w->timer_at = at;
	return 0;
}

void fanotify_watch_set_verify(FanotifyWatch *w, uint64_t interval_usec, uint64_t max_usec)
{
	w->verify_interval = w->verify_wait = interval_usec;
	w->verify_max = max_usec > interval_usec ? max_usec : interval_usec;
	w->verify_due = now_usec() + interval_usec;
}

int fanotify_watch_read(FanotifyWatch *w, FanotifyEvent *events, size_t n_max)
{
	struct pollfd probe = { .fd = w->probe_fd, .events = POLLPRI };
	bool drained = false;
	size_t n = 0;

	consume_wakeups(w);
	/* Before reading the queue: a change after this poll is seen by the next one. */
	if (poll(&probe, 1, 0) > 0 && (probe.revents & POLLPRI))
		w->rescan_pending = w->active = true;
	if (w->verify_interval && now_usec() >= w->verify_due)
		w->rescan_pending = true; /* what no wake-up says: propagation */

	/* What the last rescan found and did not hand out yet. */
	while (n < n_max && w->i_changed < w->n_changed)
		events[n++] = (FanotifyEvent){
			.type = FANOTIFY_EVENT_CHANGED,
			.mnt_id = w->changed[w->i_changed++],
		};

	while (n < n_max) {
		ssize_t k;

		if (next_event(w, &events[n]) > 0) {
			w->active = true;
			if (events[n].type == FANOTIFY_EVENT_OVERFLOW) {
				_cleanup_free_ uint32_t *stale = NULL;
				size_t n_stale;
				int r;

				/*
				 * The caller's resync re-queries everything: no rescan
				 * needed, and what the last one found is moot. New
				 * digests, so that the next rescan starts from here.
				 */
				w->rescan_pending = false;
				w->i_changed = w->n_changed;
				r = mountinfo_digest_update(w->digest, &stale, &n_stale);
				if (r < 0)
					return r;
			}
			n++;
			continue;
		}
		k = read(w->fan_fd, w->buf.bytes, sizeof(w->buf.bytes));
		if (k < 0) {
			if (errno == EAGAIN) {
				drained = true;
				break;
			}
			if (errno == EINTR)
				break;
			return -errno;
		}
		if (k == 0) {
			drained = true;
			break;
		}
		w->pos = 0;
		w->len = (size_t)k;
	}

	/* The rescan's events go after the topology events that came with the wake-up. */
	if (drained && w->rescan_pending && n < n_max && w->i_changed == w->n_changed) {
		uint64_t now = now_usec();

		if (now - w->last_rescan >= w->rescan_interval) {
			int r;

			free(w->changed);
			w->changed = NULL;
			w->n_changed = w->i_changed = 0;
			r = mountinfo_digest_update(w->digest, &w->changed, &w->n_changed);
			if (r < 0)
				return r;
			w->rescan_pending = false;
			w->last_rescan = now;
			/* A quiet window and nothing found: wait longer for the next. */
			if (w->active || w->n_changed > 0)
				w->verify_wait = w->verify_interval;
			else if ((w->verify_wait *= 2) > w->verify_max)
				w->verify_wait = w->verify_max;
			w->active = false;
			w->verify_due = now + w->verify_wait;
			w->n_rescans++;
			while (n < n_max && w->i_changed < w->n_changed)
				events[n++] = (FanotifyEvent){
					.type = FANOTIFY_EVENT_CHANGED,
					.mnt_id = w->changed[w->i_changed++],
				};
		} else if (!w->timer_armed || w->timer_at > w->last_rescan + w->rescan_interval) {
			int r;

			/* Sooner than a verification the timer may be armed for. */
			r = arm_timer(w, w->last_rescan + w->rescan_interval);
			if (r < 0)
				return r;
		}
	}
	/* Idle: the next verification wakes the caller through the timer. */
	if (drained && !w->rescan_pending && w->verify_interval && !w->timer_armed) {
		int r = arm_timer(w, w->verify_due);

		if (r < 0)
			return r;
	}
	return (int)n;
}
