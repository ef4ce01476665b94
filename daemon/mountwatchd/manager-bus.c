/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.mountwatch.MountWatch1 on the system bus: vtables and emit helpers
 * (SPEC.md, "D-Bus API"). The per-mount objects are a fallback vtable with
 * a node enumerator, so they cost no memory beyond the table itself.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>

#include "manager-bus.h"
#include "mount-properties.h"
#include "util.h"

void mount_object_path(uint64_t unique_id, char buf[static 64])
{
	snprintf(buf, 64, MW_MOUNT_PREFIX "/%" PRIu64, unique_id);
}

static int parse_object_path(const char *path, uint64_t *ret)
{
	const char *p = path + strlen(MW_MOUNT_PREFIX);

	if (strncmp(path, MW_MOUNT_PREFIX, strlen(MW_MOUNT_PREFIX)) != 0 || *p != '/')
		return -EINVAL;
	p++;
	if (*p < '1' || *p > '9')
		return -EINVAL;
	return parse_u64(p, ret);
}

/* ---- Manager interface ---- */

static int property_version(sd_bus *bus, const char *path, const char *interface,
			    const char *property, sd_bus_message *reply, void *userdata,
			    sd_bus_error *error)
{
	return sd_bus_message_append(reply, "s", MOUNTWATCH_VERSION);
}

static int property_backend(sd_bus *bus, const char *path, const char *interface,
			    const char *property, sd_bus_message *reply, void *userdata,
			    sd_bus_error *error)
{
	Manager *m = userdata;

	return sd_bus_message_append(reply, "s", mw_watcher_get_backend(m->watcher));
}

static int property_watched_path(sd_bus *bus, const char *path, const char *interface,
				 const char *property, sd_bus_message *reply, void *userdata,
				 sd_bus_error *error)
{
	Manager *m = userdata;

	return sd_bus_message_append(reply, "s", m->config.watch_path);
}

static int property_mount_count(sd_bus *bus, const char *path, const char *interface,
				const char *property, sd_bus_message *reply, void *userdata,
				sd_bus_error *error)
{
	Manager *m = userdata;

	return sd_bus_message_append(reply, "u", (uint32_t)mw_watcher_count(m->watcher));
}

static int property_counter(sd_bus *bus, const char *path, const char *interface,
			    const char *property, sd_bus_message *reply, void *userdata,
			    sd_bus_error *error)
{
	Manager *m = userdata;

	if (streq_ptr(property, "Generation"))
		return sd_bus_message_append(reply, "t", mw_watcher_get_generation(m->watcher));
	if (streq_ptr(property, "Overruns"))
		return sd_bus_message_append(reply, "t", mw_watcher_get_overruns(m->watcher));
	return sd_bus_message_append(reply, "t", mw_watcher_get_resyncs(m->watcher));
}

static int property_instance_id(sd_bus *bus, const char *path, const char *interface,
				const char *property, sd_bus_message *reply, void *userdata,
				sd_bus_error *error)
{
	Manager *m = userdata;

	return sd_bus_message_append(reply, "s", m->instance_id);
}

static int property_resync_pending(sd_bus *bus, const char *path, const char *interface,
				   const char *property, sd_bus_message *reply, void *userdata,
				   sd_bus_error *error)
{
	Manager *m = userdata;

	return sd_bus_message_append(reply, "b", (int)m->resync_pending);
}

/*
 * What one mount costs in a reply with every property (GetManagedObjects)
 * or with ListMounts' six fields, over-estimated: the fixed part covers
 * the object path, the interface and property names, signatures, padding,
 * the numbers and Options; the other strings are added as they are.
 * Measured on the fake kernel with short strings: 740 and 100 bytes.
 */
static size_t mount_reply_size(const mw_mount *e, bool all_properties)
{
	size_t n = strlen(mw_mount_get_mount_point(e)) + strlen(mw_mount_get_fstype(e)) +
		   strlen(mw_mount_get_source(e));

	if (!all_properties)
		return 128 + n;
	return 1024 + n + strlen(mw_mount_get_root(e)) + strlen(mw_mount_get_super_options(e)) +
	       strlen(mw_mount_get_user_options(e));
}

/* Refuses a reply with the whole table that could pass the bus's message limit. Returns 0 or -errno. */
static int check_reply_size(Manager *m, bool all_properties, const char *method, sd_bus_error *error)
{
	size_t size = 0, i = 0;
	const mw_mount *e;

	while (mw_watcher_iterate(m->watcher, &i, &e))
		size += mount_reply_size(e, all_properties);
	if (size <= m->reply_size_max)
		return 0;
	return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
				 "%s: the reply for %zu mounts would take about %zu MiB, more than the %zu MiB "
				 "a reply may take; take the table by file descriptor (ListMountsByFileDescriptor) "
				 "and its changes with SubscribeBatched(), or ask for single mounts (GetMount, "
				 "GetMountByPath, the mount objects' properties) instead.",
				 method, mw_watcher_count(m->watcher), (size + (1U << 20) - 1) >> 20,
				 m->reply_size_max >> 20);
}

/*
 * Charges a whole-table call to its caller's budget (table-limits.h).
 * Returns 0, or a negative errno with error set: LimitsExceeded when the
 * caller or its user has spent the budget.
 */
static int charge_table_call(Manager *m, sd_bus_message *message, const char *method, sd_bus_error *error)
{
	uint64_t retry = 0;
	int r;

	r = table_limits_charge(&m->table_limits, message, &retry);
	if (r == -EDQUOT || r == -EMLINK) {
		log_debug("Refused %s of %s: %s.", method, sd_bus_message_get_sender(message) ?: "the peer",
			  r == -EDQUOT ? "its caller's budget is spent" : "its user's budget is spent");
		return sd_bus_error_setf(error, MW_ERROR_LIMITS_EXCEEDED,
					 "%s: %s made the %u calls that return the whole table (ListMounts, "
					 "ListMountsByFileDescriptor, GetManagedObjects) that %s may make in %llu s; "
					 "try again in %.1f s, or follow the table by its signals.",
					 method, r == -EDQUOT ? "this caller" : "the callers of this user",
					 r == -EDQUOT ? TABLE_LIMIT_PER_CALLER : TABLE_LIMIT_PER_USER,
					 r == -EDQUOT ? "one caller" : "one user",
					 TABLE_LIMIT_INTERVAL_USEC / 1000000ULL, (double)retry / 1e6);
	}
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to learn the caller's user: %m");
	return 0;
}

/*
 * GetManagedObjects is sd-bus's: a filter sees the call first and refuses
 * it when the reply would be too large, before sd-bus builds it.
 */
static int filter_get_managed_objects(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	Manager *m = userdata;
	int r;

	/* The mount objects' parent lists every mount as a child node: a whole-table call too. */
	if (sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Introspectable", "Introspect") &&
	    streq_ptr(sd_bus_message_get_path(message), MW_MOUNT_PREFIX))
		return charge_table_call(m, message, "Introspect", error);
	if (!sd_bus_message_is_method_call(message, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects") ||
	    !streq_ptr(sd_bus_message_get_path(message), MW_MANAGER_PATH))
		return 0;
	r = charge_table_call(m, message, "GetManagedObjects", error);
	if (r < 0)
		return r;
	r = check_reply_size(m, true, "GetManagedObjects", error);
	if (r < 0)
		return r;
	/* An ObjectManager client: from now on it wants InterfacesAdded & co. */
	r = subscribers_add(&m->subscribers, SUBSCRIBERS_OBJECTS, message);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to follow the caller for its signals: %m");
	return 0;
}

static int method_list_mounts(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	Manager *m = userdata;
	const mw_mount *e;
	size_t i = 0;
	int r;

	r = charge_table_call(m, message, "ListMounts", error);
	if (r < 0)
		return r;
	r = check_reply_size(m, false, "ListMounts", error);
	if (r < 0)
		return r;
	r = sd_bus_message_new_method_return(message, &reply);
	if (r < 0)
		return r;
	r = sd_bus_message_append(reply, "t", manager_generation(m));
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(reply, 'a', "(totsss)");
	if (r < 0)
		return r;
	while (mw_watcher_iterate(m->watcher, &i, &e)) {
		_cleanup_free_ char *p_owned = NULL, *t_owned = NULL, *s_owned = NULL;
		const char *point, *fstype, *source;
		char path[64];

		/* As the properties show them: escaped for display (MountPointBytes has the bytes). */
		r = mount_string_display(mw_mount_get_mount_point(e), &point, &p_owned);
		if (r >= 0)
			r = mount_string_display(mw_mount_get_fstype(e), &fstype, &t_owned);
		if (r >= 0)
			r = mount_string_display(mw_mount_get_source(e), &source, &s_owned);
		if (r < 0)
			return r;
		mount_object_path(mw_mount_get_unique_id(e), path);
		r = sd_bus_message_append(reply, "(totsss)", mw_mount_get_unique_id(e), path,
					  mw_mount_get_parent_unique_id(e), point, fstype, source);
		if (r < 0)
			return r;
	}
	r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;
	return sd_bus_send(NULL, reply, NULL);
}

/*
 * The table as text (the format is org.mountwatch.MountWatch1(5)'s, under
 * ListMountsByFileDescriptor): a header line naming the columns, then one
 * line per mount in ListMounts' order. The columns are the object path and
 * every Mount property, by the property table, so a property added there
 * is a column here too. Returns 0 or -errno.
 */
static int write_mount_table(Manager *m, FILE *f)
{
	const mw_mount *e;
	size_t i = 0;
	int r = 0;

	fputs(MW_TABLE_OBJECT_PATH, f);
	for (unsigned p = 0; p < _MW_FIELD_MAX; p++)
		fprintf(f, "\t%s", mount_property_name(p));
	putc('\n', f);
	while (r >= 0 && mw_watcher_iterate(m->watcher, &i, &e)) {
		char path[64];

		mount_object_path(mw_mount_get_unique_id(e), path);
		r = text_field_write(f, path);
		for (unsigned p = 0; r >= 0 && p < _MW_FIELD_MAX; p++) {
			MountValue v;
			char buf[128];

			/* The kernel's bytes: the table's own escaping (text_field_write()) suffices. */
			r = mount_property_value_raw(e, p, buf, &v);
			if (r < 0)
				break;
			putc('\t', f);
			switch (mount_properties[p].signature[0]) {
			case 's':
				r = text_field_write(f, v.s);
				break;
			case 'b':
				fputs(v.b ? "true" : "false", f);
				break;
			default:
				fprintf(f, "%" PRIu64, v.u);
			}
			mount_value_done(&v);
		}
		putc('\n', f);
	}
	if (r < 0)
		return r;
	return ferror(f) ? -EIO : 0;
}

/* The seals that make the memfd read-only for good, for the receiver to check with F_GET_SEALS. */
#define TABLE_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)

/*
 * The table in a sealed memfd, its offset at 0 (the daemon closes its copy
 * once the reply holds one, so the receiver alone moves it). Returns the fd
 * or -errno.
 */
static int mount_table_memfd_new(Manager *m)
{
	_cleanup_close_ int fd = -1;
	FILE *f;
	int r, dup_fd;

	fd = memfd_create("mountwatch-mounts", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dup_fd < 0)
		return -errno;
	f = fdopen(dup_fd, "w");
	if (!f) {
		r = -errno;
		(void)close(dup_fd);
		return r;
	}
	r = write_mount_table(m, f);
	if (fclose(f) != 0 && r >= 0)
		r = -errno;
	if (r < 0)
		return r;
	if (fcntl(fd, F_ADD_SEALS, TABLE_SEALS) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	return TAKE_FD(fd);
}

/*
 * The table at the current generation, read-only, in an open file of its
 * own (its own offset): of the memfd written at this generation if there is
 * one (the callers in one generation share its memory: a caller who keeps
 * its fds pins one table, not one per call), else of a new one, kept for
 * the next caller. Returns the fd or -errno.
 */
static int mount_table_memfd(Manager *m)
{
	uint64_t generation = manager_generation(m);
	char proc[64];
	int fd;

	if (m->table_memfd < 0 || m->table_memfd_generation != generation) {
		manager_drop_table_memfd(m);
		fd = mount_table_memfd_new(m);
		if (fd < 0)
			return fd;
		m->table_memfd = fd;
		m->table_memfd_generation = generation;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", m->table_memfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * ListMounts without the bus's message size limit (as systemd's
 * DumpByFileDescriptor): the table goes into a sealed memfd and only the
 * fd crosses the bus. A connection that cannot pass fds is refused here;
 * on a bus, that is this daemon's own connection (see the man page for a
 * caller whose connection cannot).
 */
static int method_list_mounts_by_fd(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	_cleanup_close_ int fd = -1;
	Manager *m = userdata;
	int r;

	r = sd_bus_can_send(sd_bus_message_get_bus(message), SD_BUS_TYPE_UNIX_FD);
	if (r < 0)
		return r;
	if (r == 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED,
					 "ListMountsByFileDescriptor: this connection does not pass file "
					 "descriptors; call ListMounts instead.");
	r = charge_table_call(m, message, "ListMountsByFileDescriptor", error);
	if (r < 0)
		return r;
	fd = mount_table_memfd(m);
	if (fd < 0)
		return sd_bus_error_set_errnof(error, fd, "Failed to write the mount table to a memfd: %m");
	return sd_bus_reply_method_return(message, "th", manager_generation(m), fd);
}

static int method_get_mount(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	Manager *m = userdata;
	uint64_t id;
	char path[64];
	int r;

	r = sd_bus_message_read(message, "t", &id);
	if (r < 0)
		return r;
	if (!mw_watcher_get_mount(m->watcher, id))
		return sd_bus_error_setf(error, MW_ERROR_NO_SUCH_MOUNT, "No mount with unique ID %" PRIu64 ".", id);
	mount_object_path(id, path);
	return sd_bus_reply_method_return(message, "o", path);
}

/*
 * A mount point as the string properties show it (escape_for_display(): the
 * octal escapes are undone, so "/c\\377" finds the mount at the bytes
 * "/c" 0xff), normalised.
 */
static int read_mount_point(sd_bus_message *message, char **ret, sd_bus_error *error)
{
	_cleanup_free_ char *raw = NULL;
	const char *s;
	int r;

	r = sd_bus_message_read(message, "s", &s);
	if (r < 0)
		return r;
	raw = strdup(s);
	if (!raw)
		return -ENOMEM;
	r = path_normalize(unescape_octal(raw), ret);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Mount point \"%s\" is not an absolute path.", s);
	return 0;
}

static int method_get_mount_by_path(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	_cleanup_free_ char *point = NULL;
	Manager *m = userdata;
	const mw_mount *e;
	char path[64];
	int r;

	r = read_mount_point(message, &point, error);
	if (r < 0)
		return r;
	e = mw_watcher_get_mount_by_path(m->watcher, point);
	if (!e)
		return sd_bus_error_setf(error, MW_ERROR_NO_SUCH_MOUNT, "Nothing is mounted at %s.", point);
	mount_object_path(mw_mount_get_unique_id(e), path);
	return sd_bus_reply_method_return(message, "o", path);
}

/* GetMountByPathBytes: the mount point as the kernel's bytes (MountPointBytes), not escaped. */
static int method_get_mount_by_path_bytes(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	_cleanup_free_ char *point = NULL;
	Manager *m = userdata;
	const mw_mount *e;
	const void *bytes;
	size_t n;
	char path[64];
	int r;

	r = sd_bus_message_read_array(message, 'y', &bytes, &n);
	if (r < 0)
		return r;
	if (n == 0 || memchr(bytes, 0, n))
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "A mount point is a non-empty byte string without NUL bytes.");
	{
		_cleanup_free_ char *s = strndup(bytes, n);

		if (!s)
			return -ENOMEM;
		r = path_normalize(s, &point);
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Mount point is not an absolute path.");
	e = mw_watcher_get_mount_by_path(m->watcher, point);
	if (!e)
		return sd_bus_error_setf(error, MW_ERROR_NO_SUCH_MOUNT, "Nothing is mounted at that path.");
	mount_object_path(mw_mount_get_unique_id(e), path);
	return sd_bus_reply_method_return(message, "o", path);
}

static int method_wait_for_mount(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	char *point = NULL;
	Manager *m = userdata;
	uint64_t timeout;
	int r;

	r = read_mount_point(message, &point, error);
	if (r < 0)
		return r;
	r = sd_bus_message_read(message, "t", &timeout);
	if (r < 0) {
		free(point);
		return r;
	}
	r = wait_list_add(&m->waits, m->watcher, message, point, timeout);
	if (r == -EDQUOT)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "%s has %u WaitForMount calls waiting already, the most one caller may have.",
					 sd_bus_message_get_sender(message) ?: "This caller", WAIT_MAX_PER_CALLER);
	if (r == -EMLINK)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "The callers of this user have %u WaitForMount calls waiting already, the most "
					 "one user may have.", WAIT_MAX_PER_USER);
	if (r == -EUSERS)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "%u WaitForMount calls are waiting already, the most the daemon keeps.",
					 WAIT_MAX);
	return r;
}

static int method_subscribe(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	Manager *m = userdata;
	bool batched = streq_ptr(sd_bus_message_get_member(message), "SubscribeBatched");
	int r;

	r = subscribers_add(&m->subscribers, batched ? SUBSCRIBERS_BATCHED : SUBSCRIBERS_MANAGER, message);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to follow the caller for its signals: %m");
	return sd_bus_reply_method_return(message, NULL);
}

/* Ends both subscriptions, Subscribe()'s and SubscribeBatched()'s. */
static int method_unsubscribe(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	Manager *m = userdata;
	int r;

	r = subscribers_remove(&m->subscribers, SUBSCRIBERS_MANAGER, message);
	r += subscribers_remove(&m->subscribers, SUBSCRIBERS_BATCHED, message);
	if (r == 0)
		return sd_bus_error_setf(error, MW_ERROR_NOT_SUBSCRIBED,
					 "The caller has not subscribed (Subscribe(), SubscribeBatched()).");
	return sd_bus_reply_method_return(message, NULL);
}

/* Not only the policy: methods that change things check their caller themselves. Returns 1 for root. */
static int check_root(sd_bus_message *message, const char *what, sd_bus_error *error)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	uid_t uid;
	int r;

	r = sd_bus_query_sender_creds(message, SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &creds);
	if (r >= 0)
		r = sd_bus_creds_get_euid(creds, &uid);
	if (r < 0 || uid != 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "%s is for root only.", what);
	return 1;
}

static int method_reload(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	_cleanup_free_ char *reason = NULL;
	Manager *m = userdata;
	int r;

	r = check_root(message, "Reload", error);
	if (r < 0)
		return r;
	log_info("Reload requested over the bus.");
	/* Answered when the reload is done: ExecReload= waits for this answer. */
	r = manager_reload(m, &reason);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s; the running configuration stays.",
					 reason ?: strerror(-r));
	return sd_bus_reply_method_return(message, NULL);
}

static int method_resync(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	Manager *m = userdata;
	struct mw_resync_stats s;
	int r;

	r = check_root(message, "Resync", error);
	if (r < 0)
		return r;

	log_info("Resync requested over the bus.");
	r = mw_watcher_resync(m->watcher, &s);
	manager_check_sync(m);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to resynchronise: %m");
	return sd_bus_reply_method_return(message, "uuu", s.added, s.removed, s.changed);
}

/*
 * Every method is SD_BUS_VTABLE_UNPRIVILEGED: without it sd-bus itself
 * refuses callers that lack CAP_SYS_ADMIN ("Access to ... not permitted"),
 * whatever the bus policy allows. The policy says who may call what;
 * Resync and Reload check their caller themselves.
 */
static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", property_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Backend", "s", property_backend, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("WatchedPath", "s", property_watched_path, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("MountCount", "u", property_mount_count, 0, 0),
	SD_BUS_PROPERTY("Generation", "t", property_counter, 0, 0),
	SD_BUS_PROPERTY("InstanceId", "s", property_instance_id, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Overruns", "t", property_counter, 0, 0),
	SD_BUS_PROPERTY("Resyncs", "t", property_counter, 0, 0),
	SD_BUS_PROPERTY("ResyncPending", "b", property_resync_pending, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_METHOD_WITH_ARGS("ListMounts", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("t", generation, "a(totsss)", mounts),
				method_list_mounts, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ListMountsByFileDescriptor", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("t", generation, "h", fd),
				method_list_mounts_by_fd, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("GetMount", SD_BUS_ARGS("t", unique_id),
				SD_BUS_RESULT("o", mount), method_get_mount, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("GetMountByPath", SD_BUS_ARGS("s", mount_point),
				SD_BUS_RESULT("o", mount), method_get_mount_by_path,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("GetMountByPathBytes", SD_BUS_ARGS("ay", mount_point),
				SD_BUS_RESULT("o", mount), method_get_mount_by_path_bytes,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("WaitForMount", SD_BUS_ARGS("s", mount_point, "t", timeout_usec),
				SD_BUS_RESULT("o", mount), method_wait_for_mount,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Subscribe", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_subscribe,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SubscribeBatched", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_subscribe,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Unsubscribe", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_unsubscribe,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Resync", SD_BUS_NO_ARGS,
				SD_BUS_RESULT("u", added, "u", removed, "u", changed),
				method_resync, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL_WITH_ARGS("MountAdded",
				SD_BUS_ARGS("t", unique_id, "o", mount, "s", mount_point, "t", generation), 0),
	SD_BUS_SIGNAL_WITH_ARGS("MountRemoved",
				SD_BUS_ARGS("t", unique_id, "o", mount, "s", mount_point, "t", generation), 0),
	SD_BUS_SIGNAL_WITH_ARGS("MountChanged",
				SD_BUS_ARGS("t", unique_id, "o", mount, "as", properties, "t", generation), 0),
	SD_BUS_SIGNAL_WITH_ARGS("MountsChanged",
				SD_BUS_ARGS("a(" CHANGE_BATCH_ENTRY ")", changes, "t", first_generation,
					    "t", last_generation), 0),
	SD_BUS_SIGNAL_WITH_ARGS("Resynced",
				SD_BUS_ARGS("t", generation, "u", added, "u", removed, "u", changed), 0),
	SD_BUS_VTABLE_END,
};

/* ---- Mount interface ---- */

/*
 * One getter for every Mount property: the vtable is built from the
 * property table (mount-properties.h), the values come from mount_property_value(),
 * so the names and the mapping live in one place.
 */
/* Appends Mount property p of i, by its signature in the property table. */
static int append_mount_value(sd_bus_message *msg, const mw_mount *i, unsigned p)
{
	MountValue v;
	char buf[128];
	int r;

	r = mount_property_value(i, p, buf, &v);
	if (r < 0)
		return r;
	/* append_basic(): sd_bus_message_append() parses its format each time (a storm's batch is many). */
	switch (mount_properties[p].signature[0]) {
	case 's':
		r = sd_bus_message_append_basic(msg, 's', v.s);
		break;
	case 'b': {
		int b = v.b;

		r = sd_bus_message_append_basic(msg, 'b', &b);
		break;
	}
	case 'u': {
		uint32_t u = (uint32_t)v.u;

		r = sd_bus_message_append_basic(msg, 'u', &u);
		break;
	}
	default:
		r = sd_bus_message_append_basic(msg, 't', &v.u);
	}
	mount_value_done(&v);
	return r;
}

/* Appends bytes property b (mount_bytes_properties[]) of i: the field's raw bytes, no NUL. */
static int append_mount_bytes(sd_bus_message *msg, const mw_mount *i, unsigned b)
{
	const char *s = mount_field_bytes(i, mount_bytes_properties[b].field);

	return sd_bus_message_append_array(msg, 'y', s, strlen(s));
}

static int property_mount_bytes(sd_bus *bus, const char *path, const char *interface,
				const char *property, sd_bus_message *reply, void *userdata,
				sd_bus_error *error)
{
	for (unsigned b = 0; b < N_MOUNT_BYTES_PROPERTIES; b++)
		if (streq_ptr(mount_bytes_properties[b].name, property))
			return append_mount_bytes(reply, userdata, b);
	return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "Unknown property %s.", property);
}

static int property_mount(sd_bus *bus, const char *path, const char *interface,
			  const char *property, sd_bus_message *reply, void *userdata,
			  sd_bus_error *error)
{
	unsigned p;

	for (p = 0; p < _MW_FIELD_MAX; p++)
		if (streq_ptr(mount_property_name(p), property))
			break;
	if (p == _MW_FIELD_MAX)
		return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "Unknown property %s.", property);
	return append_mount_value(reply, userdata, p);
}

static sd_bus_vtable mount_vtable[_MW_FIELD_MAX + N_MOUNT_BYTES_PROPERTIES + 2];

static const sd_bus_vtable *mount_vtable_get(void)
{
	static const uint64_t flags[] = {
		[MOUNT_PROPERTY_CONST] = SD_BUS_VTABLE_PROPERTY_CONST,
		[MOUNT_PROPERTY_EMITS] = SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE,
		[MOUNT_PROPERTY_COUNTER] = 0,
	};
	size_t n = 0;

	if (mount_vtable[0].type == _SD_BUS_VTABLE_START)
		return mount_vtable;
	mount_vtable[n++] = (sd_bus_vtable)SD_BUS_VTABLE_START(0);
	for (unsigned p = 0; p < _MW_FIELD_MAX; p++) {
		const MountProperty *mp = &mount_properties[p];

		mount_vtable[n++] = (sd_bus_vtable)SD_BUS_PROPERTY(mount_property_name(p), mp->signature,
								   property_mount, 0, flags[mp->kind]);
	}
	for (unsigned b = 0; b < N_MOUNT_BYTES_PROPERTIES; b++)
		mount_vtable[n++] = (sd_bus_vtable)SD_BUS_PROPERTY(mount_bytes_properties[b].name, "ay",
								   property_mount_bytes, 0,
								   SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE);
	mount_vtable[n] = (sd_bus_vtable)SD_BUS_VTABLE_END;
	return mount_vtable;
}

static int find_mount(sd_bus *bus, const char *path, const char *interface, void *userdata,
		      void **found, sd_bus_error *error)
{
	Manager *m = userdata;
	const mw_mount *e;
	uint64_t id;

	if (parse_object_path(path, &id) < 0)
		return 0;
	e = mw_watcher_get_mount(m->watcher, id);
	if (!e)
		return 0;
	*found = (void *)e; /* sd-bus wants it non-const; the getters only read */
	return 1;
}

static int enumerate_mounts(sd_bus *bus, const char *path, void *userdata, char ***nodes,
			    sd_bus_error *error)
{
	Manager *m = userdata;
	size_t n = mw_watcher_count(m->watcher), i = 0, k = 0;
	const mw_mount *e;
	char **l;

	l = calloc(n + 1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	while (mw_watcher_iterate(m->watcher, &i, &e) && k < n) {
		char p[64];

		mount_object_path(mw_mount_get_unique_id(e), p);
		l[k] = strdup(p);
		if (!l[k]) {
			for (size_t j = 0; j < k; j++)
				free(l[j]);
			free(l);
			return -ENOMEM;
		}
		k++;
	}
	*nodes = l;
	return 0;
}

/* ---- setup ---- */

static void on_change(Manager *m, const mw_change *c, void *userdata);
static void on_batch_end(Manager *m, void *userdata);

/*
 * The bus connection dropped (dbus-daemon restarted or killed, or it
 * disconnected us): without it the daemon serves nobody, so it exits with a
 * failure and the service manager (Restart=on-failure) starts a fresh one,
 * with a fresh table, on the new bus.
 */
static int on_disconnected(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
	Manager *m = userdata;

	log_error("Lost the connection to the bus, exiting.");
	if (m->event)
		return sd_event_exit(m->event, EXIT_FAILURE);
	return 0;
}

int manager_bus_setup(Manager *m, sd_bus *bus)
{
	int r;

	m->bus = sd_bus_ref(bus);
	manager_set_change_fn(m, on_change, NULL);
	manager_set_batch_end_fn(m, on_batch_end);
	r = subscribers_start(&m->subscribers, bus);
	if (r < 0)
		return log_error_errno(r, "Failed to watch for callers leaving the bus: %m");
	r = sd_bus_add_object_vtable(bus, &m->manager_slot, MW_MANAGER_PATH, MW_MANAGER_IFACE,
				     manager_vtable, m);
	if (r < 0)
		return log_error_errno(r, "Failed to register %s: %m", MW_MANAGER_PATH);
	r = sd_bus_add_fallback_vtable(bus, &m->mount_slot, MW_MOUNT_PREFIX, MW_MOUNT_IFACE,
				       mount_vtable_get(), find_mount, m);
	if (r < 0)
		return log_error_errno(r, "Failed to register %s: %m", MW_MOUNT_PREFIX);
	r = sd_bus_add_node_enumerator(bus, &m->enumerator_slot, MW_MOUNT_PREFIX, enumerate_mounts, m);
	if (r < 0)
		return log_error_errno(r, "Failed to register the mount enumerator: %m");
	r = sd_bus_add_object_manager(bus, &m->object_manager_slot, MW_MANAGER_PATH);
	if (r < 0)
		return log_error_errno(r, "Failed to register the object manager: %m");
	r = sd_bus_add_filter(bus, &m->filter_slot, filter_get_managed_objects, m);
	if (r < 0)
		return log_error_errno(r, "Failed to install the reply size check: %m");
	r = sd_bus_match_signal(bus, &m->disconnected_slot, "org.freedesktop.DBus.Local", NULL,
				"org.freedesktop.DBus.Local", "Disconnected", on_disconnected, m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch for the loss of the bus connection: %m");
	if (m->event) {
		r = sd_bus_attach_event(bus, m->event, SD_EVENT_PRIORITY_NORMAL);
		if (r < 0)
			return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
	}
	/* The objects exist: now take the name (a direct connection has none). */
	if (sd_bus_is_bus_client(bus) <= 0)
		return 0;
	r = sd_bus_request_name(bus, MW_BUS_NAME, 0);
	if (r < 0)
		return log_error_errno(r, "Failed to acquire bus name %s: %m", MW_BUS_NAME);
	return 0;
}

/* ---- emitting ---- */

/*
 * Per-mount signals are built and sent only for those who listen
 * (subscribers.h), each protocol's to its own clients: the Manager's
 * MountAdded/Removed/Changed for Subscribe()'s callers, the ObjectManager's
 * InterfacesAdded/Removed for GetManagedObjects()'s (they update the object
 * list that call returned; a Subscribe() caller has none), the mounts'
 * PropertiesChanged for both. Resynced and the manager's own
 * PropertiesChanged are rare and always sent.
 */
static bool want_manager_signals(const Manager *m)
{
	return subscribers_any(&m->subscribers, SUBSCRIBERS_MANAGER);
}

static bool want_object_signals(const Manager *m)
{
	return subscribers_any(&m->subscribers, SUBSCRIBERS_OBJECTS);
}

static bool want_properties_changed(const Manager *m)
{
	return want_manager_signals(m) || want_object_signals(m);
}

static void emit_mount_signal(Manager *m, const char *member, uint64_t id, const char *point)
{
	_cleanup_free_ char *owned = NULL;
	char path[64];
	int r;

	mount_object_path(id, path);
	/* As MountPoint shows it. */
	r = mount_string_display(point ?: "", &point, &owned);
	if (r >= 0)
		r = sd_bus_emit_signal(m->bus, MW_MANAGER_PATH, MW_MANAGER_IFACE, member, "tost", id, path,
				       point, manager_generation(m));
	if (r < 0)
		log_warning_errno(r, "Failed to emit %s for %s: %m", member, path);
}

/* What sd-bus serves on every mount object: the standard interfaces and ours (last). */
static const char *const mount_object_interfaces[] = {
	"org.freedesktop.DBus.Peer",
	"org.freedesktop.DBus.Introspectable",
	"org.freedesktop.DBus.Properties",
	MW_MOUNT_IFACE,
	NULL,
};

/*
 * One {sv} of a mount's a{sv}: property p, the table's (p < _MW_FIELD_MAX)
 * or, past them, the *Bytes ones; InterfacesAdded and MountsChanged build
 * their dictionaries of it.
 */
static int append_mount_property(sd_bus_message *msg, const mw_mount *mount, unsigned p)
{
	bool bytes = p >= _MW_FIELD_MAX;
	unsigned b = p - _MW_FIELD_MAX;
	int r;

	r = sd_bus_message_open_container(msg, 'e', "sv");
	if (r >= 0)
		r = sd_bus_message_append_basic(msg, 's',
						bytes ? mount_bytes_properties[b].name : mount_property_name(p));
	if (r >= 0)
		r = sd_bus_message_open_container(msg, 'v', bytes ? "ay" : mount_properties[p].signature);
	if (r >= 0)
		r = bytes ? append_mount_bytes(msg, mount, b) : append_mount_value(msg, mount, p);
	if (r >= 0)
		r = sd_bus_message_close_container(msg);
	if (r >= 0)
		r = sd_bus_message_close_container(msg);
	return r;
}

/*
 * InterfacesAdded for a new mount: every interface of the object with every
 * property, as GetManagedObjects lists them (test-manager-bus compares the
 * two), built from the record at hand. sd_bus_emit_object_added() would
 * find the object again and call a getter per property, each looking up
 * its name.
 */
static int emit_interfaces_added(Manager *m, const mw_mount *mount, const char *path)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *s = NULL;
	int r;

	r = sd_bus_message_new_signal(m->bus, &s, MW_MANAGER_PATH, "org.freedesktop.DBus.ObjectManager",
				      "InterfacesAdded");
	if (r >= 0)
		r = sd_bus_message_append(s, "o", path);
	if (r >= 0)
		r = sd_bus_message_open_container(s, 'a', "{sa{sv}}");
	for (size_t i = 0; r >= 0 && mount_object_interfaces[i + 1]; i++)
		r = sd_bus_message_append(s, "{sa{sv}}", mount_object_interfaces[i], 0);
	if (r >= 0)
		r = sd_bus_message_open_container(s, 'e', "sa{sv}");
	if (r >= 0)
		r = sd_bus_message_append(s, "s", MW_MOUNT_IFACE);
	if (r >= 0)
		r = sd_bus_message_open_container(s, 'a', "{sv}");
	/* Every property (the table's, then the *Bytes ones) as an {sv}. */
	for (unsigned p = 0; r >= 0 && p < _MW_FIELD_MAX + N_MOUNT_BYTES_PROPERTIES; p++)
		r = append_mount_property(s, mount, p);
	for (int k = 0; r >= 0 && k < 3; k++) /* a{sv}, e, a{sa{sv}} */
		r = sd_bus_message_close_container(s);
	if (r >= 0)
		r = sd_bus_send(m->bus, s, NULL);
	return r;
}

static void emit_mount_added(Manager *m, const mw_mount *mount)
{
	char path[64];
	int r;

	/* Nothing, not even the object path's snprintf(), when nobody asked: a storm's every mount comes here. */
	if (want_object_signals(m)) {
		mount_object_path(mw_mount_get_unique_id(mount), path);
		r = emit_interfaces_added(m, mount, path);
		if (r < 0)
			log_warning_errno(r, "Failed to emit InterfacesAdded for %s: %m", path);
	}
	if (want_manager_signals(m))
		emit_mount_signal(m, "MountAdded", mw_mount_get_unique_id(mount),
				  mw_mount_get_mount_point(mount));
}

static void emit_mount_removed(Manager *m, uint64_t unique_id, const char *mount_point)
{
	char path[64];
	int r;

	/*
	 * The same interfaces that InterfacesAdded and GetManagedObjects name,
	 * or a client (GLib's GDBusObjectManagerClient) keeps the object with
	 * the rest. Built here like InterfacesAdded: sd_bus_emit_object_removed()
	 * asks the object, which the table no longer has, and
	 * sd_bus_emit_interfaces_removed_strv() looks for the ObjectManager
	 * along the path each time.
	 */
	if (want_object_signals(m)) {
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *s = NULL;

		mount_object_path(unique_id, path);
		r = sd_bus_message_new_signal(m->bus, &s, MW_MANAGER_PATH,
					      "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved");
		if (r >= 0)
			r = sd_bus_message_append(s, "o", path);
		if (r >= 0)
			r = sd_bus_message_append_strv(s, (char **)mount_object_interfaces);
		if (r >= 0)
			r = sd_bus_send(m->bus, s, NULL);
		if (r < 0)
			log_warning_errno(r, "Failed to emit InterfacesRemoved for %s: %m", path);
	}
	if (want_manager_signals(m))
		emit_mount_signal(m, "MountRemoved", unique_id, mount_point);
}

/*
 * PropertiesChanged for the announced properties among prop_mask (the
 * *Bytes ones beside their strings), and MountChanged naming every property
 * in it: each change adds 1 to the generation, so each gets its
 * MountChanged, also one of counters alone (ChangeCount), or a subscriber
 * would see a gap in the generations.
 */
static void emit_mount_changed(Manager *m, const mw_mount *mount, uint32_t prop_mask)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *s = NULL;
	const char *names[_MW_FIELD_MAX + 1], *announced[_MW_FIELD_MAX + N_MOUNT_BYTES_PROPERTIES + 1];
	uint32_t announced_mask = prop_mask & mount_properties_announced();
	char path[64];
	size_t n = 0, k = 0;
	int r;

	if (!want_properties_changed(m))
		return;
	for (unsigned i = 0; i < _MW_FIELD_MAX; i++) {
		if (!(prop_mask & (1U << i)))
			continue;
		names[n++] = mount_property_name(i);
		if (announced_mask & (1U << i))
			announced[k++] = mount_property_name(i);
	}
	for (unsigned b = 0; b < N_MOUNT_BYTES_PROPERTIES; b++)
		if (announced_mask & (1U << mount_bytes_properties[b].field))
			announced[k++] = mount_bytes_properties[b].name;
	names[n] = announced[k] = NULL;

	mount_object_path(mw_mount_get_unique_id(mount), path);
	if (k > 0) {
		r = sd_bus_emit_properties_changed_strv(m->bus, path, MW_MOUNT_IFACE, (char **)announced);
		if (r < 0)
			log_warning_errno(r, "Failed to emit PropertiesChanged for %s: %m", path);
	}
	if (!want_manager_signals(m))
		return;

	r = sd_bus_message_new_signal(m->bus, &s, MW_MANAGER_PATH, MW_MANAGER_IFACE, "MountChanged");
	if (r >= 0)
		r = sd_bus_message_append(s, "to", mw_mount_get_unique_id(mount), path);
	if (r >= 0)
		r = sd_bus_message_append_strv(s, (char **)names);
	if (r >= 0)
		r = sd_bus_message_append(s, "t", manager_generation(m));
	if (r >= 0)
		r = sd_bus_send(m->bus, s, NULL);
	if (r < 0)
		log_warning_errno(r, "Failed to emit MountChanged for %s: %m", path);
}

static void emit_resynced(Manager *m, const struct mw_resync_stats *s)
{
	int r;

	r = sd_bus_emit_signal(m->bus, MW_MANAGER_PATH, MW_MANAGER_IFACE, "Resynced", "tuuu",
			       manager_generation(m), s->added, s->removed, s->changed);
	if (r < 0)
		log_warning_errno(r, "Failed to emit Resynced: %m");
}

static void emit_manager_changed(Manager *m)
{
	int r;

	r = sd_bus_emit_properties_changed(m->bus, MW_MANAGER_PATH, MW_MANAGER_IFACE, "Backend",
					   "WatchedPath", "ResyncPending", NULL);
	if (r < 0)
		log_warning_errno(r, "Failed to emit PropertiesChanged for the manager: %m");
}

static bool want_batched_signals(const Manager *m)
{
	return subscribers_any(&m->subscribers, SUBSCRIBERS_BATCHED);
}

/* Appends properties (1 << MW_FIELD_*) of mount to msg as an a{sv}, as the mount object shows them. */
static int append_mount_dict(sd_bus_message *msg, const mw_mount *mount, uint32_t properties)
{
	int r;

	r = sd_bus_message_open_container(msg, 'a', "{sv}");
	for (unsigned p = 0; r >= 0 && p < _MW_FIELD_MAX; p++)
		if (properties & (1U << p))
			r = append_mount_property(msg, mount, p);
	if (r >= 0)
		r = sd_bus_message_close_container(msg);
	return r;
}

/*
 * One change into the MountsChanged being built (change-batch.h): what
 * MountAdded/Removed/Changed say, and values - a new mount's ListMounts
 * fields and Options, the new values of a changed one's changed
 * properties, none for a removed one (a run of removals is one entry:
 * change_batch_removed()) - so a batched client needs no call per mount
 * for what ListMounts and `mountwatchctl monitor` show.
 */
static void batch_change(Manager *m, const mw_change *c)
{
	_cleanup_free_ char *owned = NULL;
	const mw_mount *mount = mw_change_get_mount(c);
	enum mw_change_type type = mw_change_get_type(c);
	uint64_t id = mount ? mw_mount_get_unique_id(mount) : mw_change_get_unique_id(c);
	uint64_t generation = manager_generation(m);
	const char *point = mount ? mw_mount_get_mount_point(mount) : mw_change_get_mount_point(c);
	uint32_t properties;
	size_t size;
	int r = 0;

	if (type == MW_CHANGE_REMOVED) {
		/* One that joins the open run is its unique ID alone: no mount point to escape. */
		if (change_batch_joins_run(&m->batch, generation))
			point = NULL;
		else
			r = mount_string_display(point ?: "", &point, &owned);
		if (r >= 0)
			r = change_batch_removed(&m->batch, m->bus, MW_MANAGER_PATH, MW_MANAGER_IFACE, generation,
						 id, point);
		if (r < 0)
			log_warning_errno(r, "Failed to emit MountsChanged with mount %" PRIu64 ": %m", id);
		return;
	}

	/*
	 * ListMounts' fields and Options, not every property: the bus checks
	 * every byte of a message, and a storm's batch of every property of
	 * each new mount cost it as much as a message per mount.
	 */
	if (type == MW_CHANGE_ADDED)
		properties = 1U << MW_FIELD_PARENT_UNIQUE_ID | 1U << MW_FIELD_FS_TYPE | 1U << MW_FIELD_SOURCE |
			     1U << MW_FIELD_OPTIONS;
	else
		properties = mw_change_get_fields(c);
	/* Over-estimated: every property, every string escaped (4 bytes a byte at most). */
	size = 64 + 4 * (strlen(point ?: "") + (mount ? mount_reply_size(mount, true) : 0));
	r = mount_string_display(point ?: "", &point, &owned);
	if (r >= 0)
		r = change_batch_begin(&m->batch, m->bus, MW_MANAGER_PATH, MW_MANAGER_IFACE, generation,
				       type == MW_CHANGE_ADDED ? "added" : "changed");
	if (r >= 0)
		r = sd_bus_message_append_basic(m->batch.message, 't', &id);
	if (r >= 0)
		r = sd_bus_message_append_basic(m->batch.message, 's', point);
	if (r >= 0)
		r = append_mount_dict(m->batch.message, mount, properties);
	if (r >= 0)
		r = change_batch_end(&m->batch, size);
	else
		change_batch_done(&m->batch);
	if (r < 0)
		log_warning_errno(r, "Failed to emit MountsChanged with mount %" PRIu64 ": %m", id);
}

/* The end of a batch: its MountsChanged leaves (if anyone asked for it, there is one). */
static void on_batch_end(Manager *m, void *userdata)
{
	int r;

	r = change_batch_flush(&m->batch);
	if (r < 0)
		log_warning_errno(r, "Failed to emit MountsChanged: %m");
}

/* The one way changes leave the manager: signals after the table is updated, and the waits. */
static void on_change(Manager *m, const mw_change *c, void *userdata)
{
	if (!c) {
		emit_manager_changed(m);
		return;
	}
	if (want_batched_signals(m) && mw_change_get_type(c) <= MW_CHANGE_CHANGED)
		batch_change(m, c);
	switch (mw_change_get_type(c)) {
	case MW_CHANGE_ADDED:
		emit_mount_added(m, mw_change_get_mount(c));
		wait_list_check(&m->waits, m->watcher, mw_change_get_mount(c));
		break;
	case MW_CHANGE_REMOVED:
		emit_mount_removed(m, mw_change_get_unique_id(c), mw_change_get_mount_point(c));
		break;
	case MW_CHANGE_MOVED:
	case MW_CHANGE_CHANGED:
		emit_mount_changed(m, mw_change_get_mount(c), mw_change_get_fields(c));
		if (mw_change_get_fields(c) & (1U << MW_FIELD_MOUNT_POINT))
			wait_list_check(&m->waits, m->watcher, mw_change_get_mount(c));
		break;
	case MW_CHANGE_RESYNCED:
		/* The changes the resync made (and those before it) first: Resynced comes after them. */
		on_batch_end(m, NULL);
		emit_resynced(m, mw_change_get_resync(c));
		break;
	case MW_CHANGE_SUPERBLOCK:
	case MW_CHANGE_LOST:
		break; /* no signal of their own: MountChanged / Resynced follow */
	}
}
