/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager's lifecycle and event loop: the watcher's fd and its timeout
 * as sd-event sources (a move's second half is waited for with a timer,
 * never by blocking in a callback), SIGHUP reloads, SIGTERM/SIGINT exits.
 * The table and its upkeep are libmountwatch's (../libmountwatch/).
 */
#include <signal.h>
#include <sys/epoll.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "mountwatch/mountwatch-sd-event.h" /* after sd-event.h: it uses the caller's */

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>

#include "manager.h"
#include "util.h"

/* m->instance_id: $INVOCATION_ID if it is 32 hex digits, else 128 random bits. Returns 0 or -errno. */
static int manager_make_instance_id(Manager *m)
{
	const char *e = getenv("INVOCATION_ID");
	uint8_t bytes[16];

	if (e && strlen(e) == 32 && strspn(e, "0123456789abcdef") == 32) {
		memcpy(m->instance_id, e, 33);
		return 0;
	}
	if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes))
		return -errno;
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(m->instance_id + 2 * i, 3, "%02x", bytes[i]);
	return 0;
}

int manager_new(Manager **ret)
{
	Manager *m;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	r = config_init(&m->config);
	if (r < 0) {
		free(m);
		return r;
	}
	m->reply_size_max = MANAGER_REPLY_SIZE_MAX;
	m->table_memfd = -1;
	r = manager_make_instance_id(m);
	if (r < 0) {
		config_done(&m->config);
		free(m);
		return r;
	}
	*ret = m;
	return 0;
}

void manager_drop_table_memfd(Manager *m)
{
	if (m->table_memfd >= 0)
		(void)close(m->table_memfd);
	m->table_memfd = -1;
}

Manager *manager_free(Manager *m)
{
	if (!m)
		return NULL;
	wait_list_done(&m->waits);
	subscribers_done(&m->subscribers);
	change_batch_free(&m->batch);
	table_limits_done(&m->table_limits);
	manager_drop_table_memfd(m);
	m->manager_slot = sd_bus_slot_unref(m->manager_slot);
	m->mount_slot = sd_bus_slot_unref(m->mount_slot);
	m->enumerator_slot = sd_bus_slot_unref(m->enumerator_slot);
	m->object_manager_slot = sd_bus_slot_unref(m->object_manager_slot);
	m->disconnected_slot = sd_bus_slot_unref(m->disconnected_slot);
	m->filter_slot = sd_bus_slot_unref(m->filter_slot);
	if (m->bus) {
		(void)sd_bus_flush(m->bus);
		m->bus = sd_bus_flush_close_unref(m->bus);
	}
	sd_event_source_disable_unref(m->sighup_source);
	sd_event_source_disable_unref(m->sigterm_source);
	sd_event_source_disable_unref(m->sigint_source);
	mw_watcher_free(m->watcher);
	config_done(&m->config);
	free(m->config_path);
	sd_event_unref(m->event);
	free(m);
	return NULL;
}

void manager_freep(Manager **m)
{
	manager_free(*m);
}

void manager_set_change_fn(Manager *m, ManagerChangeFn fn, void *userdata)
{
	m->change_fn = fn;
	m->change_userdata = userdata;
}

void manager_set_batch_end_fn(Manager *m, ManagerBatchEndFn fn)
{
	m->batch_end_fn = fn;
}

uint64_t manager_generation(const Manager *m)
{
	return m->watcher ? mw_watcher_get_generation(m->watcher) : 0;
}

/* The watcher's changes, out through the one callback. */
static void on_change(mw_watcher *w, const mw_change *c, void *userdata)
{
	const struct mw_resync_stats *rs = mw_change_get_resync(c);
	Manager *m = userdata;

	if (mw_change_get_type(c) == MW_CHANGE_LOST)
		log_notice("Notification queue overran, resynchronising.");
	if (rs)
		log_info("Resynchronised with the kernel: %u added, %u removed, %u changed, %u of %zu mounts re-queried.",
			 rs->added, rs->removed, rs->changed, rs->requeried, mw_watcher_count(w));
	if (m->change_fn)
		m->change_fn(m, c, m->change_userdata);
}

void manager_set_watcher(Manager *m, mw_watcher *w)
{
	mw_watcher_free(m->watcher);
	m->watcher = w;
	manager_drop_table_memfd(m); /* its generation counts another watcher's changes */
	mw_watcher_set_change_fn(w, on_change, m);
}

static void log_backend(Manager *m)
{
	_cleanup_free_ char *reason = strdup(mw_watcher_get_backend_reason(m->watcher));
	char *save = NULL;

	log_info("Using the %s backend (Backend=%s):", mw_watcher_get_backend(m->watcher),
		 m->config.backend);
	/* One log line per backend tried. */
	for (char *l = reason ? strtok_r(reason, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
		log_info("  %s", l);
}

static int open_failed(Manager *m, int r)
{
	_cleanup_free_ char *why = NULL;
	const char *b = m->config.backend, *reason;

	if (r == -EOPNOTSUPP) {
		(void)mw_watcher_probe(b, &why);
		if (streq_ptr(b, "auto"))
			return log_error_errno(r, "No backend works on this kernel:\n%s", why ?: "");
		/* "NAME: not supported by this kernel: WHY" */
		reason = why ? strstr(why, "kernel: ") : NULL;
		return log_error_errno(r, "Backend=%s is not available on this kernel: %s", b,
				       reason ? reason + 8 : why ?: "");
	}
	return log_error_errno(r, "Failed to watch mounts below %s with Backend=%s: %m",
			       m->config.watch_path, b);
}

int manager_open_watcher(Manager *m)
{
	mw_watcher *w;
	int r;

	/* Queue, filter, watch, then the snapshot: nothing is missed. */
	r = mw_watcher_new(&w, m->config.watch_path, m->config.backend, m->config.queue_size);
	if (r < 0)
		return open_failed(m, r);
	manager_set_watcher(m, w);
	log_backend(m);
	return 0;
}

int manager_drop_privileges(Manager *m)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	const char *backend = mw_watcher_get_backend(m->watcher);
	const unsigned word = CAP_TO_INDEX(CAP_SYS_ADMIN);
	const uint32_t bit = CAP_TO_MASK(CAP_SYS_ADMIN);

	if (!streq_ptr(backend, "fanotify") && !streq_ptr(backend, "mountinfo")) {
		log_info("Keeping CAP_SYS_ADMIN: the %s backend needs it after start-up.", backend);
		return 0;
	}
	if (syscall(SYS_capget, &header, data) < 0)
		return log_error_errno(-errno, "Failed to read the capabilities: %m");
	if (!((data[word].effective | data[word].permitted | data[word].inheritable) & bit))
		return 0;
	/* mountinfo arms nothing: only a fanotify watch cannot be armed anew without it. */
	m->privileges_dropped = streq_ptr(backend, "fanotify");
	data[word].effective &= ~bit;
	data[word].permitted &= ~bit;
	data[word].inheritable &= ~bit; /* and so the ambient set too */
	if (syscall(SYS_capset, &header, data) < 0)
		return log_error_errno(-errno, "Failed to drop CAP_SYS_ADMIN: %m");
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_ADMIN, 0, 0);
	log_info("Dropped CAP_SYS_ADMIN once the %s watch was armed: a Backend= that needs it%s takes a restart.",
		 backend, m->privileges_dropped ? ", and a change of Path= or QueueSize=," : "");
	return 0;
}

void manager_notify_status(Manager *m, const char *extra)
{
	int e = m->watcher ? mw_watcher_get_resync_error(m->watcher) : 0;

	if (e < 0)
		(void)sd_notifyf(false, "%sSTATUS=Failed to resynchronise (%s), retrying; the table may miss changes.",
				 extra, strerror(-e));
	else if (m->watcher)
		(void)sd_notifyf(false, "%sSTATUS=Watching %zu mounts below %s (%s backend).", extra,
				 mw_watcher_count(m->watcher), m->config.watch_path,
				 mw_watcher_get_backend(m->watcher));
}

void manager_check_sync(Manager *m)
{
	int e = mw_watcher_get_resync_error(m->watcher);

	if (m->batch_end_fn)
		m->batch_end_fn(m, m->change_userdata);
	/* The deadline may have moved (a resync, a reopen); nothing to do without a loop. */
	if (m->event)
		(void)mw_watcher_event_update(m->watcher);
	if ((e < 0) == m->resync_pending)
		return;
	m->resync_pending = e < 0;
	if (e < 0)
		log_warning_errno(e, "Failed to resynchronise with the kernel, retrying; the table may miss changes: %m");
	else
		log_notice("Resynchronised with the kernel after a failure: the table is current again.");
	manager_notify_status(m, "");
	if (m->change_fn)
		m->change_fn(m, NULL, m->change_userdata); /* ResyncPending */
}

/* After each mw_watcher_process(): say what failed, follow the resync state. Returns r. */
static int manager_processed(Manager *m, int r)
{
	if (r == -ENOLINK)
		return log_error_errno(r, "Failed to keep watching %s: the watched mount went away.",
				       m->config.watch_path);
	/* A failed resync is said once, by manager_check_sync(), not at every retry. */
	if (r < 0 && r != mw_watcher_get_resync_error(m->watcher))
		log_error_errno(r, "Failed to process mount notifications: %m");
	manager_check_sync(m);
	return r < 0 ? r : 0;
}

int manager_process_events(Manager *m)
{
	return manager_processed(m, mw_watcher_process(m->watcher));
}

/* The loop's call (mountwatch-sd-event.h): the watcher's fd was readable or its deadline came. */
static void on_processed(mw_watcher *w, int result, void *userdata)
{
	Manager *m = userdata;
	int r;

	r = manager_processed(m, result);
	if (r == -ENOLINK || r == -ENOMEM || r == -EBADF)
		(void)sd_event_exit(m->event, EXIT_FAILURE);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)manager_reload(userdata, NULL);
	return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	Manager *m = userdata;

	(void)sd_notify(false, "STOPPING=1");
	return sd_event_exit(m->event, EXIT_SUCCESS);
}

int manager_attach_watcher(Manager *m)
{
	int r;

	r = mw_watcher_attach_event_full(m->watcher, m->event, SD_EVENT_PRIORITY_NORMAL, on_processed, m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the notification queue: %m");
	return 0;
}

int manager_attach_event(Manager *m)
{
	sigset_t mask;
	int r;

	if (!m->event) {
		/*
		 * A loop of our own, not sd_event_default(): sd_event_prepare()
		 * checks that a default loop runs in the thread that made it,
		 * with a gettid() system call on every wake-up - one of the
		 * eight calls a mount change costs.
		 */
		r = sd_event_new(&m->event);
		if (r < 0)
			return log_error_errno(r, "Failed to allocate the event loop: %m");
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_error_errno(errno, "Failed to block signals: %m");
	r = sd_event_add_signal(m->event, &m->sighup_source, SIGHUP, on_sighup, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, &m->sigterm_source, SIGTERM, on_sigterm, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, &m->sigint_source, SIGINT, on_sigterm, m);
	if (r < 0)
		return log_error_errno(r, "Failed to handle signals: %m");
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		return log_error_errno(r, "Failed to enable the watchdog: %m");
	if (m->watcher)
		return manager_attach_watcher(m);
	return 0;
}

static int reload(Manager *m, char **ret_error);

int manager_reload(Manager *m, char **ret_error)
{
	int r;

	log_info("Reloading configuration from %s.", m->config_path ?: CONFIG_DEFAULT_PATH);
	(void)sd_notify(false, "RELOADING=1");
	r = reload(m, ret_error);
	manager_notify_status(m, "READY=1\n");
	return r;
}

/* Logs why a reload failed and hands the reason to the caller (if it wants it). Returns r. */
static int reload_failed(int r, char *reason, char **ret_error)
{
	log_error("Failed to reload configuration, keeping the running one: %s", reason ?: strerror(-r));
	if (ret_error)
		*ret_error = reason ?: strdup(strerror(-r));
	else
		free(reason);
	return r;
}

static int reload(Manager *m, char **ret_error)
{
	_cleanup_free_ char *error = NULL;
	char *reason = NULL;
	Config c;
	bool rewatch;
	int r;

	r = config_init(&c);
	if (r < 0)
		return reload_failed(r, NULL, ret_error);
	/* A file named with --config must still be there: its loss is an error, not the defaults. */
	r = config_load(&c, m->config_path ?: CONFIG_DEFAULT_PATH, !m->config_path, &error);
	if (r >= 0 && m->overrides)
		r = config_override(&c, m->overrides);
	if (r < 0) {
		config_done(&c);
		return reload_failed(r, TAKE_PTR(error), ret_error);
	}

	rewatch = !streq_ptr(c.watch_path, m->config.watch_path) ||
		  c.queue_size != m->config.queue_size || !streq_ptr(c.backend, m->config.backend);
	if (rewatch && m->privileges_dropped) {
		config_done(&c);
		if (asprintf(&reason, "Path=, QueueSize= or Backend= changed, but the daemon gave up "
			     "CAP_SYS_ADMIN once its watch was armed: restart it to watch anew") < 0)
			reason = NULL;
		return reload_failed(-EPERM, reason, ret_error);
	}
	if (rewatch) {
		Config old = m->config;

		m->config = c;
		r = m->watcher ? mw_watcher_reopen(m->watcher, c.watch_path, c.backend, c.queue_size) : -EBADF;
		if (r < 0) {
			(void)open_failed(m, r);
			if (asprintf(&reason, "cannot watch %s with Backend=%s: %s", c.watch_path, c.backend,
				     strerror(-r)) < 0)
				reason = NULL;
			m->config = old;
			config_done(&c);
			return reload_failed(r, reason, ret_error);
		}
		config_done(&old);
		log_backend(m);
		if (m->event) {
			r = manager_attach_watcher(m);
			if (r < 0)
				return reload_failed(r, NULL, ret_error);
		}
		manager_check_sync(m);
		if (m->change_fn)
			m->change_fn(m, NULL, m->change_userdata); /* the manager's properties changed */
	} else {
		config_done(&m->config);
		m->config = c;
	}
	log_max_level = m->config.log_level;
	log_info("Configuration reloaded: Path=%s QueueSize=%u Backend=%s Level=%s.", m->config.watch_path,
		 m->config.queue_size, m->config.backend, log_level_to_string(m->config.log_level));
	return 0;
}
