/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountwatchctl: the command-line client of org.mountwatch.MountWatch1.
 * Reads from the bus here, prints through ctl-format.c (libsmartcols).
 * Exit codes are documented in --help and mountwatchctl(1) so that scripts
 * can use them.
 */
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <systemd/sd-bus.h>
#include <sys/stat.h>
#include <systemd/sd-event.h>

#include "bus-api.h"
#include "ctl-format.h"
#include "mount-properties.h"
#include "hashmap.h"
#include "util.h"

/*
 * NameOwnerChanged for our bus name only (arg0): without arg0 the bus sends
 * it for every name, e.g. each client's unique name as it comes and goes.
 */
#define OWNER_MATCH                                                                         \
	"type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"         \
	"interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" MW_BUS_NAME "'"

enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_NO_SUCH_MOUNT = 3,
	EXIT_TIMEOUT = 4,
	EXIT_NOT_RUNNING = 5,
	EXIT_DENIED = 6,
};

static unsigned arg_flags; /* CTL_OUTPUT_* */
static bool arg_no_start;
static bool arg_per_mount;
static bool arg_value;
static double arg_timeout = -1; /* seconds; < 0: none */
static int arg_cols[_MW_FIELD_MAX];
static size_t arg_n_cols;
static int arg_props[_MW_FIELD_MAX];
static size_t arg_n_props;

/* findmnt's default columns. */
static const int default_cols[] = { MW_FIELD_MOUNT_POINT, MW_FIELD_SOURCE, MW_FIELD_FS_TYPE,
				    MW_FIELD_OPTIONS };

static void help(void)
{
	printf("Usage: mountwatchctl [OPTIONS] COMMAND ...\n"
	       "\n"
	       "Show and follow the mount table that mountwatchd keeps on the system bus.\n"
	       "\n"
	       "Commands:\n"
	       "  list                All mounts, one a line\n"
	       "  tree [ID|PATH]      The mounts as a tree (below the mount ID or at PATH)\n"
	       "  show ID|PATH        The properties of one mount, Name=value\n"
	       "  monitor             What changes, to what, as it happens\n"
	       "  wait PATH           Wait until something is mounted at PATH, then show it\n"
	       "  target PATH         The mount that holds PATH (as findmnt -T)\n"
	       "  status              The daemon's backend and counters\n"
	       "  resync              Make the daemon resynchronise with the kernel (root)\n"
	       "  reload              Make the daemon re-read its configuration, wait until done (root)\n"
	       "\n"
	       "Options:\n"
	       "  -o --output=LIST    Columns (Mount properties, any case; +LIST adds to the default)\n"
	       "     --output-all     Every column\n"
	       "  -r --raw            No alignment, no tree lines; unsafe characters escaped\n"
	       "  -n --noheadings     No header line\n"
	       "  -J --json           JSON: {\"mounts\": [...]} for every command that prints mounts\n"
	       "  -p --property=LIST  For show: only these properties\n"
	       "     --value          For show: only the values\n"
	       "  -t --timeout=SEC    For wait: give up after SEC seconds (default: wait forever)\n"
	       "     --no-start       Do not start mountwatchd through bus activation\n"
	       "     --per-mount      For monitor: the per-mount signals (Subscribe()), not MountsChanged\n"
	       "  -h --help           Show this help\n"
	       "     --version        Show the version\n"
	       "\n"
	       "Columns:");
	for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
		printf("%s%s", i % 6 ? " " : "\n  ", mount_property_name(i));
	printf("\n\n"
	       "Exit status: 0 success, 1 failure, 2 usage error, 3 no such mount,\n"
	       "4 timed out, 5 mountwatchd not running or unreachable, 6 permission denied.\n"
	       "See mountwatchctl(1).\n");
}

/* Maps a failed call to a message and an exit status. */
static int bus_failure(const char *what, const sd_bus_error *raw_error, int r)
{
	/* The daemon's messages quote paths: escaped like every other text for a terminal. */
	_cleanup_free_ char *message = raw_error->message ? ctl_escape(raw_error->message) : NULL;
	const sd_bus_error *error = &(const sd_bus_error){ .name = raw_error->name, .message = message };

	if (sd_bus_error_has_names(error, "org.freedesktop.DBus.Error.ServiceUnknown",
				   "org.freedesktop.DBus.Error.NameHasNoOwner",
				   "org.freedesktop.systemd1.NoSuchUnit", "org.freedesktop.systemd1.UnitFailed",
				   "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Disconnected") ||
	    (error->name && strncmp(error->name, "org.freedesktop.DBus.Error.Spawn.", 33) == 0)) {
		fprintf(stderr, "mountwatchd is not running%s: %s\n",
			arg_no_start ? "" : " and could not be started", error->message ?: error->name);
		return EXIT_NOT_RUNNING;
	}
	if (sd_bus_error_has_name(error, MW_ERROR_NO_SUCH_MOUNT)) {
		fprintf(stderr, "%s\n", error->message);
		return EXIT_NO_SUCH_MOUNT;
	}
	if (sd_bus_error_has_name(error, MW_ERROR_TIMEOUT) ||
	    sd_bus_error_has_name(error, SD_BUS_ERROR_TIMEOUT) || r == -ETIMEDOUT) {
		fprintf(stderr, "%s: timed out%s%s\n", what, error->message ? ": " : "",
			error->message ?: "");
		return EXIT_TIMEOUT;
	}
	/* Not by errno alone when the error has a name: sd-bus maps Error.Failed to EACCES too. */
	if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED) ||
	    (!sd_bus_error_is_set(error) && (r == -EACCES || r == -EPERM))) {
		fprintf(stderr, "%s: permission denied%s%s\n", what, error->message ? ": " : "",
			error->message ?: "");
		return EXIT_DENIED;
	}
	fprintf(stderr, "Failed to %s: %s\n", what, error->message ?: strerror(-r));
	return EXIT_FAIL;
}

static int call(sd_bus *bus, const char *what, sd_bus_message **reply, uint64_t timeout_usec,
		const char *path, const char *iface, const char *member, const char *sig, ...)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, MW_BUS_NAME, path, iface, member);
	if (r < 0)
		goto fail;
	if (arg_no_start)
		(void)sd_bus_message_set_auto_start(m, 0);
	if (sig) {
		va_start(ap, sig);
		r = sd_bus_message_appendv(m, sig, ap);
		va_end(ap);
		if (r < 0)
			goto fail;
	}
	r = sd_bus_call(bus, m, timeout_usec, &error, reply);
	if (r >= 0)
		return 0;
fail:
	r = bus_failure(what, &error, r);
	sd_bus_error_free(&error);
	return -r; /* negative exit status */
}

/*
 * Calls a manager method, with one argument of basic type (type 0: none;
 * value as sd_bus_message_append_basic() takes it), and leaves the error to
 * the caller, who may take some errors as an answer (LimitsExceeded,
 * UnknownMethod, NoSuchMount). Returns sd_bus_call()'s result.
 */
static int call_manager_arg(sd_bus *bus, const char *iface, const char *member, char type, const void *value,
			    sd_bus_error *error, sd_bus_message **reply)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, MW_BUS_NAME, MW_MANAGER_PATH, iface, member);
	if (r >= 0 && arg_no_start)
		r = sd_bus_message_set_auto_start(m, 0);
	if (r >= 0 && type)
		r = sd_bus_message_append_basic(m, type, value);
	if (r >= 0)
		r = sd_bus_call(bus, m, 0, error, reply);
	return r;
}

static int call_manager(sd_bus *bus, const char *iface, const char *member, sd_bus_error *error,
			sd_bus_message **reply)
{
	return call_manager_arg(bus, iface, member, 0, NULL, error, reply);
}

/*
 * Enters the next entry of the open dict array (contents: the entry's key
 * and value types) and reads its key. Returns 0 after the last entry.
 */
static int next_entry(sd_bus_message *reply, const char *contents, const char **key)
{
	int r;

	r = sd_bus_message_enter_container(reply, 'e', contents);
	if (r <= 0)
		return r;
	r = sd_bus_message_read_basic(reply, contents[0], key);
	return r < 0 ? r : 1;
}

/*
 * Reads the value of an a{sv} entry (the variant is next) into property
 * prop of m, or skips it when prop < 0 or the type is not the table's.
 * Returns 1 if read, 0 if skipped.
 */
static int read_mount_value(sd_bus_message *reply, int prop, CtlMount *m)
{
	const char *contents = NULL, *s;
	char type;
	int b, r;

	r = sd_bus_message_peek_type(reply, NULL, &contents);
	if (r < 0)
		return r;
	if (prop < 0 || !contents || contents[1] || contents[0] != mount_properties[prop].signature[0])
		return sd_bus_message_skip(reply, "v") < 0 ? -EBADMSG : 0;
	type = contents[0];
	r = sd_bus_message_enter_container(reply, 'v', contents);
	if (r < 0)
		return r;
	switch (type) {
	case 's':
		r = sd_bus_message_read_basic(reply, 's', &s);
		if (r >= 0)
			r = free_and_strdup(&m->v[prop].s, s) < 0 ? -ENOMEM : 0;
		break;
	case 'b':
		r = sd_bus_message_read_basic(reply, 'b', &b);
		m->v[prop].b = b;
		break;
	case 'u': {
		uint32_t u = 0;

		r = sd_bus_message_read_basic(reply, 'u', &u);
		m->v[prop].u = u;
		break;
	}
	default:
		r = sd_bus_message_read_basic(reply, 't', &m->v[prop].u);
	}
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(reply);
	return r < 0 ? r : 1;
}

/*
 * Reads an a{sv} of Mount properties into m; the bit of each one read is
 * added to *mask (if given). Properties it does not know are skipped.
 */
static int read_mount_props(sd_bus_message *reply, CtlMount *m, uint32_t *mask)
{
	const char *name;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = next_entry(reply, "sv", &name)) > 0) {
		int prop = ctl_column_from_string(name);

		r = read_mount_value(reply, prop, m);
		if (r > 0 && mask)
			*mask |= 1U << prop;
		if (r >= 0)
			r = sd_bus_message_exit_container(reply); /* e */
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(reply);
}

/* The Manager's properties, for status: the same reader, its own little table. */
typedef struct Status {
	char *version, *backend, *watched_path;
	uint64_t mount_count, generation, overruns, resyncs;
	int resync_pending; /* -1: the daemon has no such property */
} Status;

static int read_status(sd_bus_message *reply, Status *st)
{
	const char *name, *contents, *s;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = next_entry(reply, "sv", &name)) > 0) {
		char **str = streq_ptr(name, "Version")       ? &st->version
			     : streq_ptr(name, "Backend")     ? &st->backend
			     : streq_ptr(name, "WatchedPath") ? &st->watched_path
							      : NULL;
		uint64_t *num = streq_ptr(name, "MountCount")   ? &st->mount_count
				: streq_ptr(name, "Generation") ? &st->generation
				: streq_ptr(name, "Overruns")   ? &st->overruns
				: streq_ptr(name, "Resyncs")    ? &st->resyncs
								: NULL;

		r = sd_bus_message_peek_type(reply, NULL, &contents);
		if (r < 0)
			return r;
		if (streq_ptr(name, "ResyncPending") && streq_ptr(contents, "b")) {
			r = sd_bus_message_read(reply, "v", "b", &st->resync_pending);
			if (r >= 0)
				r = sd_bus_message_exit_container(reply);
			if (r < 0)
				return r;
			continue;
		}
		if ((str && streq_ptr(contents, "s")) || (num && (streq_ptr(contents, "t") ||
								  streq_ptr(contents, "u")))) {
			r = sd_bus_message_enter_container(reply, 'v', contents);
			if (r >= 0 && str) {
				r = sd_bus_message_read_basic(reply, 's', &s);
				if (r >= 0 && free_and_strdup(str, s) < 0)
					r = -ENOMEM;
			} else if (r >= 0 && contents[0] == 'u') {
				uint32_t u = 0;

				r = sd_bus_message_read_basic(reply, 'u', &u);
				*num = u;
			} else if (r >= 0)
				r = sd_bus_message_read_basic(reply, 't', num);
			if (r >= 0)
				r = sd_bus_message_exit_container(reply);
		} else
			r = sd_bus_message_skip(reply, "v");
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(reply);
}

/* Appends an empty mount with object path path to *l. */
static CtlMount *append(CtlMount **l, size_t *n, size_t *allocated, const char *path)
{
	if (*n == *allocated) {
		size_t a = *allocated ? *allocated * 2 : 64;
		CtlMount *t = realloc(*l, a * sizeof(*t));

		if (!t)
			return NULL;
		*l = t;
		*allocated = a;
	}
	(*l)[*n] = (CtlMount){ .object_path = strdup(path) };
	if (!(*l)[*n].object_path)
		return NULL;
	return &(*l)[(*n)++];
}

/* One mount of the one-by-one listing: its GetAll in flight, then its answer. */
typedef struct PagedMount {
	CtlMount *mount;
	unsigned *in_flight;
	int error; /* 0, 1: gone meanwhile (skipped), or a negative errno */
} PagedMount;

static int on_get_all(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	PagedMount *p = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(reply);

	(*p->in_flight)--;
	if (e)
		p->error = sd_bus_error_has_names(e, SD_BUS_ERROR_UNKNOWN_OBJECT, SD_BUS_ERROR_UNKNOWN_INTERFACE,
						  SD_BUS_ERROR_UNKNOWN_METHOD) ? 1 : -sd_bus_error_get_errno(e) ?: -EIO;
	else {
		int r = read_mount_props(reply, p->mount, NULL);

		p->error = r < 0 ? r : 0;
	}
	return 0;
}

/* The most GetAll calls in flight at once: fewer round trips, far below the bus's limits. */
#define PAGED_IN_FLIGHT 64

/*
 * Every mount with every property when GetManagedObjects is refused as too
 * large: the object paths from ListMounts, then each mount's properties,
 * many calls in flight at a time. A mount gone meanwhile is left out.
 */
static int get_all_mounts_paged(sd_bus *bus, CtlMount **ret, size_t *ret_n)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_free_ PagedMount *pages = NULL;
	unsigned in_flight = 0;
	const char *path;
	CtlMount *l = NULL;
	size_t n = 0, allocated = 0, k = 0;
	int r;

	r = call(bus, "list mounts", &reply, 0, MW_MANAGER_PATH, MW_MANAGER_IFACE, "ListMounts", NULL);
	if (r < 0)
		return r;
	r = sd_bus_message_skip(reply, "t");
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "(totsss)");
	while (r >= 0 && (r = sd_bus_message_read(reply, "(totsss)", NULL, &path, NULL, NULL, NULL, NULL)) > 0)
		if (!append(&l, &n, &allocated, path))
			r = -ENOMEM;
	if (r >= 0) {
		pages = calloc(n + 1, sizeof(*pages));
		if (!pages)
			r = -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && i < n; i++) {
		pages[i] = (PagedMount){ .mount = &l[i], .in_flight = &in_flight };
		r = sd_bus_call_method_async(bus, NULL, MW_BUS_NAME, l[i].object_path, "org.freedesktop.DBus.Properties",
					     "GetAll", on_get_all, &pages[i], "s", MW_MOUNT_IFACE);
		if (r >= 0)
			in_flight++;
		while (r >= 0 && (in_flight >= PAGED_IN_FLIGHT || (i + 1 == n && in_flight > 0))) {
			r = sd_bus_process(bus, NULL);
			if (r == 0)
				r = sd_bus_wait(bus, UINT64_MAX);
		}
	}
	for (size_t i = 0; r >= 0 && i < n; i++) {
		if (pages[i].error < 0)
			r = pages[i].error;
		else if (pages[i].error > 0)
			ctl_mount_done(&l[i]); /* gone since ListMounts */
		else
			l[k++] = l[i];
	}
	if (r < 0) {
		ctl_mounts_free(l, n);
		fprintf(stderr, "Failed to read the mounts one by one: %s\n", strerror(-r));
		return -EXIT_FAIL;
	}
	*ret = l;
	*ret_n = k;
	return 0;
}

/*
 * Parses ListMountsByFileDescriptor's table (org.mountwatch.MountWatch1(5)):
 * the header names the columns, a column this client does not know is
 * skipped. Returns 0 or -errno.
 */
static int parse_mount_table(char *text, size_t len, CtlMount **ret, size_t *ret_n)
{
	char *header[_MW_FIELD_MAX + 64], *fields[ELEMENTSOF(header)], *line, *next;
	int cols[ELEMENTSOF(header)]; /* by position: a MW_FIELD_*, or -1 */
	CtlMount *l = NULL;
	size_t n = 0, allocated = 0;
	int n_cols, path_col = -1, r = 0;

	if (len == 0 || memchr(text, 0, len) || text[len - 1] != '\n')
		return -EBADMSG;
	next = strchr(text, '\n');
	*next++ = 0;
	n_cols = text_split(text, header, ELEMENTSOF(header));
	if (n_cols < 0)
		return n_cols;
	for (int c = 0; c < n_cols; c++) {
		cols[c] = ctl_column_from_string(header[c]);
		if (streq_ptr(header[c], MW_TABLE_OBJECT_PATH))
			path_col = c;
	}
	if (path_col < 0)
		return -EBADMSG;
	while (r >= 0 && *(line = next)) {
		CtlMount *m;

		next = strchr(line, '\n');
		*next++ = 0;
		if (text_split(line, fields, ELEMENTSOF(fields)) != n_cols) {
			r = -EBADMSG;
			break;
		}
		m = append(&l, &n, &allocated, fields[path_col]);
		if (!m)
			r = -ENOMEM;
		for (int c = 0; c < n_cols && r >= 0; c++) {
			_cleanup_free_ char *shown = NULL;

			if (cols[c] < 0)
				continue;
			/* The table carries the kernel's bytes: shown as the string properties show them. */
			r = escape_for_display(fields[c], &shown);
			if (r >= 0)
				r = ctl_mount_set(m, (unsigned)cols[c], shown ?: fields[c]) < 0 ? -EBADMSG : 0;
		}
	}
	if (r < 0) {
		ctl_mounts_free(l, n);
		return r;
	}
	*ret = l;
	*ret_n = n;
	return 0;
}

/*
 * Every mount with every property from one ListMountsByFileDescriptor
 * call. Returns 0, 1 when this way is not open (an older daemon without the
 * method, or a connection without fd passing): the caller asks one by one
 * then; or a negative exit status.
 */
static int get_all_mounts_by_fd(sd_bus *bus, CtlMount **ret, size_t *ret_n)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *text = NULL;
	size_t size = 0, len;
	uint64_t generation;
	int r, fd;

	if (sd_bus_can_send(bus, SD_BUS_TYPE_UNIX_FD) <= 0)
		return 1;
	r = call_manager(bus, MW_MANAGER_IFACE, "ListMountsByFileDescriptor", &error, &reply);
	if (r < 0 && sd_bus_error_has_names(&error, SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_NOT_SUPPORTED)) {
		sd_bus_error_free(&error);
		return 1;
	}
	if (r < 0) {
		r = bus_failure("list mounts", &error, r);
		sd_bus_error_free(&error);
		return -r;
	}
	r = sd_bus_message_read(reply, "th", &generation, &fd);
	if (r >= 0)
		r = read_full(fd, &text, &size, &len); /* the message owns fd */
	if (r >= 0)
		r = parse_mount_table(text, len, ret, ret_n);
	if (r < 0) {
		fprintf(stderr, "Failed to read the mount table from its file descriptor: %s\n", strerror(-r));
		return -EXIT_FAIL;
	}
	return 0;
}

/*
 * Every mount with every property: from a file descriptor
 * (ListMountsByFileDescriptor: one reply of a few bytes and one read,
 * whatever the size, and no reply-size estimate on the daemon's side); from a daemon
 * without it, or over a connection that cannot pass one, from one
 * GetManagedObjects call, or one by one when the daemon refuses that reply
 * as too large for the bus.
 */
static int get_all_mounts(sd_bus *bus, CtlMount **ret, size_t *ret_n)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	const char *path, *iface;
	CtlMount *l = NULL;
	size_t n = 0, allocated = 0;
	int r;

	r = get_all_mounts_by_fd(bus, ret, ret_n);
	if (r != 1)
		return r;
	r = call_manager(bus, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", &error, &reply);
	if (r < 0 && sd_bus_error_has_name(&error, SD_BUS_ERROR_LIMITS_EXCEEDED)) {
		sd_bus_error_free(&error);
		return get_all_mounts_paged(bus, ret, ret_n);
	}
	if (r < 0) {
		r = bus_failure("list mounts", &error, r);
		sd_bus_error_free(&error);
		return -r;
	}
	r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
	if (r < 0)
		goto bad;
	while ((r = next_entry(reply, "oa{sa{sv}}", &path)) > 0) {
		r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
		if (r < 0)
			goto bad;
		while ((r = next_entry(reply, "sa{sv}", &iface)) > 0) {
			if (streq_ptr(iface, MW_MOUNT_IFACE)) {
				CtlMount *m = append(&l, &n, &allocated, path);

				r = m ? read_mount_props(reply, m, NULL) : -ENOMEM;
			} else
				r = sd_bus_message_skip(reply, "a{sv}");
			if (r < 0)
				goto bad;
			r = sd_bus_message_exit_container(reply);
			if (r < 0)
				goto bad;
		}
		if (r < 0)
			goto bad;
		r = sd_bus_message_exit_container(reply);
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
		if (r < 0)
			goto bad;
	}
	if (r < 0)
		goto bad;
	*ret = l;
	*ret_n = n;
	return 0;
bad:
	ctl_mounts_free(l, n);
	fprintf(stderr, "Failed to parse the mount list: %s\n", strerror(-r));
	return -EXIT_FAIL;
}

static int get_mount(sd_bus *bus, const char *object, CtlMount *ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	CtlMount m = {};
	int r;

	r = call(bus, "read the mount's properties", &reply, 0, object, "org.freedesktop.DBus.Properties",
		 "GetAll", "s", MW_MOUNT_IFACE);
	if (r < 0)
		return r;
	m.object_path = strdup(object);
	r = m.object_path ? read_mount_props(reply, &m, NULL) : -ENOMEM;
	if (r < 0) {
		ctl_mount_done(&m);
		fprintf(stderr, "Failed to parse the mount's properties: %s\n", strerror(-r));
		return -EXIT_FAIL;
	}
	*ret = m;
	return 0;
}

/*
 * PATH as the daemon wants it, absolute: with symlinks followed where it
 * exists (as findmnt does), else a relative one below the working
 * directory. Allocated; NULL on ENOMEM or without a working directory.
 */
static char *absolute_path(const char *path)
{
	_cleanup_free_ char *cwd = NULL;
	char *abs = realpath(path, NULL);

	if (abs || path[0] == '/')
		return abs ?: strdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd || asprintf(&abs, "%s/%s", cwd, path) < 0)
		return NULL;
	return abs;
}

/* Resolves ID or PATH (absolute or relative; "./123" for a path of digits) to an object path (to be freed). */
static int resolve(sd_bus *bus, const char *arg, char **ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *object;
	uint64_t id;
	int r;

	if (parse_u64(arg, &id) >= 0)
		r = call(bus, "look up the mount", &reply, 0, MW_MANAGER_PATH, MW_MANAGER_IFACE, "GetMount",
			 "t", id);
	else {
		_cleanup_free_ char *abs = absolute_path(arg);

		if (!abs) {
			fprintf(stderr, "Failed to make %s absolute: %s\n", arg, strerror(errno));
			return -EXIT_FAIL;
		}
		r = call(bus, "look up the mount", &reply, 0, MW_MANAGER_PATH, MW_MANAGER_IFACE,
			 "GetMountByPath", "s", abs);
	}
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "o", &object);
	if (r < 0 || !(*ret = strdup(object)))
		return -EXIT_FAIL;
	return 0;
}

static int printed(int r)
{
	if (r < 0) {
		fprintf(stderr, "Failed to print: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int cmd_list(sd_bus *bus, int argc, char **argv)
{
	CtlMount *m;
	size_t n;
	int r;

	r = get_all_mounts(bus, &m, &n);
	if (r < 0)
		return -r;
	ctl_mounts_sort(m, n);
	r = ctl_print_list(stdout, m, n, arg_cols, arg_n_cols, arg_flags);
	ctl_mounts_free(m, n);
	return printed(r);
}

static int cmd_tree(sd_bus *bus, int argc, char **argv)
{
	_cleanup_free_ char *object = NULL;
	uint64_t root = 0;
	CtlMount *m;
	size_t n;
	int r;

	if (argc > 2) {
		fprintf(stderr, "tree takes at most one unique ID or PATH.\n");
		return EXIT_USAGE;
	}
	if (argc == 2) {
		CtlMount top;

		r = resolve(bus, argv[1], &object);
		if (r < 0)
			return -r;
		r = get_mount(bus, object, &top);
		if (r < 0)
			return -r;
		root = top.v[MW_FIELD_UNIQUE_ID].u;
		ctl_mount_done(&top);
	}
	r = get_all_mounts(bus, &m, &n);
	if (r < 0)
		return -r;
	r = ctl_print_tree(stdout, m, n, root, arg_cols, arg_n_cols, arg_flags);
	ctl_mounts_free(m, n);
	if (r == -ENOENT) {
		fprintf(stderr, "The mount at %s went away.\n", argv[1]);
		return EXIT_NO_SUCH_MOUNT;
	}
	return printed(r);
}

static int cmd_show(sd_bus *bus, int argc, char **argv)
{
	_cleanup_free_ char *object = NULL;
	CtlMount m;
	int r;

	if (argc != 2) {
		fprintf(stderr, "show needs one unique ID or mount point.\n");
		return EXIT_USAGE;
	}
	r = resolve(bus, argv[1], &object);
	if (r < 0)
		return -r;
	r = get_mount(bus, object, &m);
	if (r < 0)
		return -r;
	r = ctl_print_show(stdout, &m, arg_props, arg_n_props, arg_value, arg_flags);
	ctl_mount_done(&m);
	return printed(r);
}

/* wait's and target's answer: the mount at object, in list's layout. Returns an exit status. */
static int print_mount(sd_bus *bus, const char *object)
{
	CtlMount m;
	int r;

	r = get_mount(bus, object, &m);
	if (r < 0)
		return -r;
	r = ctl_print_list(stdout, &m, 1, arg_cols, arg_n_cols, arg_flags);
	ctl_mount_done(&m);
	return printed(r);
}

static int cmd_wait(sd_bus *bus, int argc, char **argv)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_free_ char *abs = NULL;
	uint64_t usec = 0, call_timeout = UINT64_MAX;
	const char *object;
	int r;

	if (argc != 2 || !*argv[1]) {
		fprintf(stderr, "wait needs one PATH.\n");
		return EXIT_USAGE;
	}
	if (arg_timeout >= 0) {
		usec = (uint64_t)(arg_timeout * 1e6);
		if (usec == 0)
			usec = 1;
		call_timeout = usec + 5 * 1000000ULL; /* the daemon answers Timeout first */
	}
	abs = absolute_path(argv[1]);
	if (!abs) {
		fprintf(stderr, "Failed to make %s absolute: %s\n", argv[1], strerror(errno));
		return EXIT_FAIL;
	}
	r = call(bus, "wait for the mount", &reply, call_timeout, MW_MANAGER_PATH, MW_MANAGER_IFACE,
		 "WaitForMount", "st", abs, usec);
	if (r < 0)
		return -r;
	r = sd_bus_message_read(reply, "o", &object);
	if (r < 0)
		return EXIT_FAIL;
	return print_mount(bus, object);
}

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U /* Linux 6.8 */
#endif

/*
 * The object of the mount that holds path (which exists), as findmnt -T
 * finds it: by statx()'s STATX_MNT_ID_UNIQUE, the daemon's UniqueId, where
 * the kernel has it; else (or if the daemon does not know that ID) the
 * nearest of path and its parents that is a mount point. Returns 0, or an
 * exit status negated.
 */
static int target_object(sd_bus *bus, const char *path, char **ret)
{
	_cleanup_free_ char *p = strdup(path);
	struct statx stx = {};
	const char *object;
	int r;

	if (!p)
		return -EXIT_FAIL;
	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID_UNIQUE, &stx) == 0 && (stx.stx_mask & STATX_MNT_ID_UNIQUE)) {
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

		r = call_manager_arg(bus, MW_MANAGER_IFACE, "GetMount", 't', &(uint64_t){ stx.stx_mnt_id }, NULL,
				     &reply);
		if (r >= 0 && sd_bus_message_read(reply, "o", &object) > 0)
			return (*ret = strdup(object)) ? 0 : -EXIT_FAIL;
	}
	for (;;) {
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
		sd_bus_error error = SD_BUS_ERROR_NULL;
		char *slash;

		r = call_manager_arg(bus, MW_MANAGER_IFACE, "GetMountByPath", 's', p, &error, &reply);
		if (r >= 0) {
			if (sd_bus_message_read(reply, "o", &object) <= 0)
				return -EXIT_FAIL;
			return (*ret = strdup(object)) ? 0 : -EXIT_FAIL;
		}
		if (!sd_bus_error_has_name(&error, MW_ERROR_NO_SUCH_MOUNT) || streq_ptr(p, "/")) {
			r = bus_failure("look up the mount", &error, r);
			sd_bus_error_free(&error);
			return -r;
		}
		sd_bus_error_free(&error);
		slash = strrchr(p, '/');
		slash[slash == p] = 0; /* "/a" -> "/", "/a/b" -> "/a" */
	}
}

static int cmd_target(sd_bus *bus, int argc, char **argv)
{
	_cleanup_free_ char *abs = NULL, *object = NULL;
	int r;

	if (argc != 2 || !*argv[1]) {
		fprintf(stderr, "target needs one PATH.\n");
		return EXIT_USAGE;
	}
	abs = realpath(argv[1], NULL);
	if (!abs) {
		fprintf(stderr, "Failed to resolve %s: %s\n", argv[1], strerror(errno));
		return errno == ENOENT ? EXIT_NO_SUCH_MOUNT : EXIT_FAIL;
	}
	r = target_object(bus, abs, &object);
	if (r < 0)
		return -r;
	return print_mount(bus, object);
}

static int cmd_status(sd_bus *bus, int argc, char **argv)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	Status st = { .resync_pending = -1 };
	int r;

	r = call(bus, "read the daemon's status", &reply, 0, MW_MANAGER_PATH,
		 "org.freedesktop.DBus.Properties", "GetAll", "s", MW_MANAGER_IFACE);
	if (r < 0)
		return -r;
	r = read_status(reply, &st);
	if (r < 0) {
		fprintf(stderr, "Failed to parse the daemon's status: %s\n", strerror(-r));
		r = EXIT_FAIL;
	} else if (arg_flags & CTL_OUTPUT_JSON) {
		printf("{\n   \"status\": [\n      {\"version\": ");
		json_string(stdout, st.version);
		printf(", \"backend\": ");
		json_string(stdout, st.backend);
		printf(", \"watchedpath\": ");
		json_string(stdout, st.watched_path);
		printf(", \"mountcount\": %" PRIu64 ", \"generation\": \"%" PRIu64 "\", \"overruns\": \"%" PRIu64
		       "\", \"resyncs\": \"%" PRIu64 "\"", st.mount_count, st.generation, st.overruns, st.resyncs);
		if (st.resync_pending >= 0)
			printf(", \"resyncpending\": %s", st.resync_pending ? "true" : "false");
		printf("}\n   ]\n}\n");
		r = EXIT_OK;
	} else {
		_cleanup_free_ char *version = ctl_escape(st.version), *backend = ctl_escape(st.backend);
		_cleanup_free_ char *watched = ctl_escape(st.watched_path);

		printf("Version: %s\nBackend: %s\nWatchedPath: %s\nMountCount: %" PRIu64
		       "\nGeneration: %" PRIu64 "\nOverruns: %" PRIu64 "\nResyncs: %" PRIu64 "\n",
		       version ?: "", backend ?: "", watched ?: "", st.mount_count,
		       st.generation, st.overruns, st.resyncs);
		/* The one property that says the table may be wrong. */
		if (st.resync_pending >= 0)
			printf("ResyncPending: %s\n", st.resync_pending ? "yes (the table may miss changes)" : "no");
		r = EXIT_OK;
	}
	free(st.version);
	free(st.backend);
	free(st.watched_path);
	return r;
}

static int cmd_resync(sd_bus *bus, int argc, char **argv)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	uint32_t added, removed, changed;
	int r;

	r = call(bus, "resync", &reply, 0, MW_MANAGER_PATH, MW_MANAGER_IFACE, "Resync", NULL);
	if (r < 0)
		return -r;
	r = sd_bus_message_read(reply, "uuu", &added, &removed, &changed);
	if (r < 0)
		return EXIT_FAIL;
	if (arg_flags & CTL_OUTPUT_JSON)
		printf("{\n   \"resync\": [\n      {\"added\": %u, \"removed\": %u, \"changed\": %u}\n   ]\n}\n",
		       added, removed, changed);
	else
		printf("Resynchronised: %u added, %u removed, %u changed.\n", added, removed, changed);
	return EXIT_OK;
}

/* What ExecReload= runs: returns once the daemon re-read its configuration, fails if it could not. */
static int cmd_reload(sd_bus *bus, int argc, char **argv)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	r = call(bus, "reload", &reply, 0, MW_MANAGER_PATH, MW_MANAGER_IFACE, "Reload", NULL);
	return r < 0 ? -r : EXIT_OK;
}

/* ---- monitor ---- */

/*
 * What monitor knows of every mount, to say what changed from what: filled
 * from GetManagedObjects and InterfacesAdded, updated from
 * PropertiesChanged (which the daemon sends before its MountChanged).
 */
typedef struct Monitor {
	CtlMount *mounts;
	size_t n, allocated;
	/* The last PropertiesChanged: its object, the values before, what changed. */
	char *changed_path;
	CtlMount before;
	uint32_t changed_mask;
	/* The last generation seen and the daemon instance it counts in (NULL: a daemon without one). */
	uint64_t generation;
	char *instance_id;
	/* mounts[] by unique ID (from the object path): index + 1, so a lookup is no search. */
	Hashmap *by_id;
	/* SubscribeBatched() answered: the changes come as MountsChanged, no MountAdded & co. */
	bool batched;
} Monitor;

/* The unique ID an object path names, 0 if it names none. */
static uint64_t object_unique_id(const char *path)
{
	size_t n = strlen(MW_MOUNT_PREFIX);
	uint64_t id;

	if (!path || strncmp(path, MW_MOUNT_PREFIX "/", n + 1) != 0 || parse_u64(path + n + 1, &id) < 0)
		return 0;
	return id;
}

static CtlMount *monitor_find(Monitor *mon, const char *path)
{
	uintptr_t i = (uintptr_t)hashmap_get(mon->by_id, object_unique_id(path));

	return i && streq_ptr(mon->mounts[i - 1].object_path, path) ? &mon->mounts[i - 1] : NULL;
}

/* Indexes mounts[i]. Returns 0 or -ENOMEM. */
static int monitor_index(Monitor *mon, size_t i)
{
	uint64_t id = object_unique_id(mon->mounts[i].object_path);

	return id ? hashmap_put(mon->by_id, id, (void *)(uintptr_t)(i + 1)) : 0;
}

/* A new mount at object, appended and indexed; NULL on ENOMEM. */
static CtlMount *monitor_add(Monitor *mon, const char *object)
{
	CtlMount *m = append(&mon->mounts, &mon->n, &mon->allocated, object);

	if (m && monitor_index(mon, mon->n - 1) < 0) {
		ctl_mount_done(m);
		mon->n--;
		return NULL;
	}
	return m;
}

static void monitor_forget(Monitor *mon, CtlMount *m)
{
	size_t i = (size_t)(m - mon->mounts);

	(void)hashmap_remove(mon->by_id, object_unique_id(m->object_path));
	ctl_mount_done(m);
	*m = mon->mounts[--mon->n];
	if (i < mon->n)
		(void)monitor_index(mon, i); /* the last one moved here: only a replacement, no allocation */
}

static void monitor_line(uint64_t generation, const char *event, const CtlMount *m, const char *what,
			 const char *json_changes)
{
	if (arg_flags & CTL_OUTPUT_JSON) {
		printf("{\"generation\": \"%" PRIu64 "\", \"event\": \"%s\"", generation, event);
		if (m) {
			printf(", \"mount\": ");
			ctl_print_mount_json(stdout, m, arg_cols, arg_n_cols);
		}
		if (json_changes)
			printf(", \"changed\": %s", json_changes);
		printf("}\n");
	} else {
		_cleanup_free_ char *point = ctl_escape(m ? m->v[MW_FIELD_MOUNT_POINT].s : "");

		/* what is escaped already: ctl_change_text(), or monitor_added_text(). */
		printf("%-7" PRIu64 " %-9s %s%s%s\n", generation, event, point ?: "", what && *what ? "   " : "",
		       what ?: "");
	}
	fflush(stdout);
}

/*
 * A change of a mount this monitor has no copy of (added and gone before it
 * could ask, or its adding not seen: signals lost), from what the signal
 * carried alone: its unique ID and, when the signal names one, its mount
 * point (the other removals of a run, AlsoRemoved, come as IDs only) - not
 * the copy's other columns, which it does not know.
 */
static void monitor_line_unseen(uint64_t generation, const char *event, uint64_t id, const char *point)
{
	if (arg_flags & CTL_OUTPUT_JSON) {
		printf("{\"generation\": \"%" PRIu64 "\", \"event\": \"%s\", \"mount\": {\"uniqueid\": \"%" PRIu64 "\"",
		       generation, event, id);
		if (point) {
			printf(", \"mountpoint\": ");
			json_string(stdout, point);
		}
		printf("}}\n");
	} else if (point) {
		_cleanup_free_ char *p = ctl_escape(point);

		printf("%-7" PRIu64 " %-9s %s\n", generation, event, p ?: "");
	} else
		printf("%-7" PRIu64 " %-9s (unique ID %" PRIu64 ", its mount point not seen)\n", generation, event, id);
	fflush(stdout);
}

/*
 * Each change adds 1 to the generation and is announced with it: a signal
 * more than 1 past the last one seen means signals were lost (the bus
 * dropped them, or this client read too slowly). Says so, in the stream.
 */
static void monitor_check_generation(Monitor *mon, uint64_t generation)
{
	if (generation > mon->generation + 1) {
		uint64_t missed = generation - mon->generation - 1;

		if (arg_flags & CTL_OUTPUT_JSON)
			printf("{\"generation\": \"%" PRIu64 "\", \"event\": \"gap\", \"missed\": \"%" PRIu64
			       "\"}\n", generation, missed);
		else
			printf("%-7" PRIu64 " %-9s %" PRIu64 " changes not seen (generations %" PRIu64 "-%" PRIu64
			       "): 'mountwatchctl list' shows the table now\n", generation, "gap", missed,
			       mon->generation + 1, generation - 1);
		fflush(stdout);
	}
	if (generation > mon->generation)
		mon->generation = generation;
}

/*
 * The daemon's generation and instance now (subscribed before: what
 * follows is seen). A new instance counts its generations from 0: says so
 * when the instance differs from the one before. Returns 0 or -errno.
 */
static int monitor_read_instance(Monitor *mon, sd_bus *bus)
{
	_cleanup_free_ char *instance = NULL;
	uint64_t generation = 0;
	int r;

	r = sd_bus_get_property_trivial(bus, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation", NULL,
					't', &generation);
	if (r < 0)
		return r;
	/* A daemon from before InstanceId: no instance to compare. */
	(void)sd_bus_get_property_string(bus, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE, "InstanceId",
					 NULL, &instance);
	if (mon->instance_id && instance && !streq_ptr(mon->instance_id, instance)) {
		if (arg_flags & CTL_OUTPUT_JSON)
			printf("{\"generation\": \"%" PRIu64 "\", \"event\": \"instance\", \"instanceid\": \"%s\", "
			       "\"was\": \"%s\"}\n", generation, instance, mon->instance_id);
		else
			printf("%-7" PRIu64 " %-9s a new mountwatchd (InstanceId %s, was %s): generations count "
			       "from 0 again, changes in between were not seen\n", generation, "instance", instance,
			       mon->instance_id);
		fflush(stdout);
	}
	free(mon->instance_id);
	mon->instance_id = TAKE_PTR(instance);
	mon->generation = generation;
	return 0;
}

/*
 * A mount MountAdded announced and InterfacesAdded did not (the daemon sends
 * that only to GetManagedObjects' callers): its properties, asked for; NULL
 * when it is gone again already.
 */
static CtlMount *monitor_fetch(Monitor *mon, sd_bus *bus, const char *object)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	CtlMount *m;

	if (sd_bus_call_method(bus, MW_BUS_NAME, object, "org.freedesktop.DBus.Properties", "GetAll", NULL,
			       &reply, "s", MW_MOUNT_IFACE) < 0)
		return NULL;
	m = monitor_add(mon, object);
	if (m && read_mount_props(reply, m, NULL) < 0) {
		monitor_forget(mon, m);
		m = NULL;
	}
	return m;
}

/* "FSTYPE SOURCE OPTIONS" of a new mount, escaped for a terminal; allocated, NULL on ENOMEM. */
static char *monitor_added_text(const CtlMount *m)
{
	_cleanup_free_ char *type = ctl_escape(m->v[MW_FIELD_FS_TYPE].s);
	_cleanup_free_ char *source = ctl_escape(m->v[MW_FIELD_SOURCE].s);
	_cleanup_free_ char *options = ctl_escape(m->v[MW_FIELD_OPTIONS].s);
	char *what;

	if (!type || !source || !options || asprintf(&what, "%s %s %s", type, source, options) < 0)
		return NULL;
	return what;
}

static int on_signal(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	Monitor *mon = userdata;
	const char *member = sd_bus_message_get_member(msg);
	uint64_t id, generation;
	const char *object, *point;
	CtlMount *m;

	/*
	 * Subscribed to MountsChanged, this connection still receives the
	 * per-mount signals whenever another client has called Subscribe()
	 * (they are broadcast): the same changes again.
	 */
	if (mon->batched && (streq_ptr(member, "MountAdded") || streq_ptr(member, "MountRemoved") ||
			     streq_ptr(member, "MountChanged")))
		return 0;
	if (streq_ptr(member, "MountAdded") || streq_ptr(member, "MountRemoved")) {
		bool added = member[5] == 'A';
		_cleanup_free_ char *what = NULL;

		if (sd_bus_message_read(msg, "tost", &id, &object, &point, &generation) < 0)
			return 0;
		monitor_check_generation(mon, generation);
		m = monitor_find(mon, object);
		if (!m && added)
			m = monitor_fetch(mon, sd_bus_message_get_bus(msg), object);
		if (!m) { /* gone, or removed unseen: what the signal says */
			monitor_line_unseen(generation, added ? "added" : "removed", id, point);
			return 0;
		}
		if (added)
			what = monitor_added_text(m);
		monitor_line(generation, added ? "added" : "removed", m, what, NULL);
		if (!added)
			monitor_forget(mon, m);
	} else if (streq_ptr(member, "MountChanged")) {
		_cleanup_free_ char *what = NULL, *json = NULL;
		uint32_t mask = 0;
		const char *prop;

		if (sd_bus_message_read(msg, "to", &id, &object) < 0 ||
		    sd_bus_message_enter_container(msg, 'a', "s") < 0)
			return 0;
		while (sd_bus_message_read(msg, "s", &prop) > 0) {
			int p = ctl_column_from_string(prop);

			if (p >= 0)
				mask |= 1U << p;
		}
		if (sd_bus_message_exit_container(msg) < 0 || sd_bus_message_read(msg, "t", &generation) < 0)
			return 0;
		monitor_check_generation(mon, generation);
		m = monitor_find(mon, object);
		if (m && streq_ptr(mon->changed_path, object)) {
			/* The values came in PropertiesChanged just before: old -> new. */
			what = ctl_change_text(&mon->before, m, mask & mon->changed_mask, false);
			json = ctl_change_text(&mon->before, m, mask & mon->changed_mask, true);
		}
		monitor_line(generation, "changed", m, what, json ?: "{}");
	} else if (streq_ptr(member, "Resynced")) {
		uint32_t a, rm, c;
		char what[128];

		if (sd_bus_message_read(msg, "tuuu", &generation, &a, &rm, &c) < 0)
			return 0;
		/* A resync adds no generation of its own: the table is whole again from here. */
		mon->generation = generation;
		if (arg_flags & CTL_OUTPUT_JSON) {
			printf("{\"generation\": \"%" PRIu64 "\", \"event\": \"resynced\", \"added\": %u, "
			       "\"removed\": %u, \"changed\": %u}\n", generation, a, rm, c);
			fflush(stdout);
		} else {
			snprintf(what, sizeof(what), "%u added, %u removed, %u changed", a, rm, c);
			printf("%-7" PRIu64 " %-9s %s\n", generation, "resynced", what);
			fflush(stdout);
		}
	}
	return 0;
}

/* The properties a MountsChanged entry of a new mount carries, beside its unique ID and mount point. */
#define BATCH_ADDED_FIELDS                                                                              \
	(1U << MW_FIELD_UNIQUE_ID | 1U << MW_FIELD_MOUNT_POINT | 1U << MW_FIELD_PARENT_UNIQUE_ID |      \
	 1U << MW_FIELD_FS_TYPE | 1U << MW_FIELD_SOURCE | 1U << MW_FIELD_OPTIONS)

/* Do the columns asked for need more of a new mount than its MountsChanged entry carries? */
static bool monitor_needs_fetch(void)
{
	for (size_t i = 0; i < arg_n_cols; i++)
		if (!(BATCH_ADDED_FIELDS & (1U << arg_cols[i])))
			return true;
	return false;
}

/*
 * One MountsChanged entry (generation, kind, unique ID, mount point, the
 * values it carries), the message at its a{sv}: a line, as the per-mount
 * signals make. The monitor's copy of the mount gives the old values of a
 * change. Returns 0 or -errno.
 */
static int monitor_batch_entry(Monitor *mon, sd_bus_message *msg, uint64_t generation, const char *kind,
			       uint64_t id, const char *point)
{
	_cleanup_free_ char *what = NULL, *json = NULL;
	char object[128];
	CtlMount *m, before = {};
	uint32_t mask = 0;
	int r;

	snprintf(object, sizeof(object), MW_MOUNT_PREFIX "/%" PRIu64, id);
	monitor_check_generation(mon, generation);
	m = monitor_find(mon, object);
	if (streq_ptr(kind, "added")) {
		/* Columns beyond what the entry carries: asked for, as without batches. */
		if (!m && monitor_needs_fetch())
			m = monitor_fetch(mon, sd_bus_message_get_bus(msg), object);
		if (!m)
			m = monitor_add(mon, object);
		if (!m)
			return sd_bus_message_skip(msg, "a{sv}");
		r = read_mount_props(msg, m, NULL);
		if (r < 0)
			return r;
		m->v[MW_FIELD_UNIQUE_ID].u = id;
		if (!m->v[MW_FIELD_MOUNT_POINT].s) {
			m->v[MW_FIELD_MOUNT_POINT].s = strdup(point);
			if (!m->v[MW_FIELD_MOUNT_POINT].s)
				return -ENOMEM;
		}
		what = monitor_added_text(m);
		monitor_line(generation, "added", m, what, NULL);
		return 0;
	}
	if (streq_ptr(kind, "removed")) {
		const uint64_t *also = NULL;
		size_t n_also = 0;
		const char *key;

		/* A run of removals: the others' IDs in AlsoRemoved, each at the next generation. */
		r = sd_bus_message_enter_container(msg, 'a', "{sv}");
		while (r >= 0 && (r = next_entry(msg, "sv", &key)) > 0) {
			if (streq_ptr(key, "AlsoRemoved") && sd_bus_message_enter_container(msg, 'v', "at") > 0) {
				r = sd_bus_message_read_array(msg, 't', (const void **)&also, &n_also);
				n_also /= sizeof(uint64_t);
				if (r >= 0)
					r = sd_bus_message_exit_container(msg);
			} else
				r = sd_bus_message_skip(msg, "v");
			if (r >= 0)
				r = sd_bus_message_exit_container(msg);
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(msg);
		if (r < 0)
			return r;
		for (size_t i = 0; i <= n_also; i++) {
			if (i > 0) {
				id = also[i - 1];
				snprintf(object, sizeof(object), MW_MOUNT_PREFIX "/%" PRIu64, id);
				monitor_check_generation(mon, generation + i);
				m = monitor_find(mon, object);
				point = NULL;
			}
			if (!m) { /* removed unseen: what the entry says (of a run's others, the ID alone) */
				monitor_line_unseen(generation + i, "removed", id, point);
				continue;
			}
			monitor_line(generation + i, "removed", m, NULL, NULL);
			monitor_forget(mon, m);
		}
		return 0;
	}
	if (!m) {
		r = sd_bus_message_skip(msg, "a{sv}");
		monitor_line(generation, "changed", NULL, NULL, "{}");
		return r;
	}
	r = ctl_mount_copy(m, &before);
	if (r >= 0)
		r = read_mount_props(msg, m, &mask);
	if (r >= 0) {
		/* The counters change with everything: not worth a word, as PropertiesChanged leaves them out. */
		mask &= mount_properties_announced();
		what = ctl_change_text(&before, m, mask, false);
		json = ctl_change_text(&before, m, mask, true);
		monitor_line(generation, "changed", m, what, json ?: "{}");
	}
	ctl_mount_done(&before);
	return r;
}

/* MountsChanged: a batch of changes, each a line. */
static int on_mounts_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	Monitor *mon = userdata;
	const char *kind, *point;
	uint64_t generation, id;
	int r;

	if (!mon->batched)
		return 0;
	r = sd_bus_message_enter_container(msg, 'a', "(tstsa{sv})");
	while (r >= 0 && (r = sd_bus_message_enter_container(msg, 'r', "tstsa{sv}")) > 0) {
		r = sd_bus_message_read(msg, "tsts", &generation, &kind, &id, &point);
		if (r >= 0)
			r = monitor_batch_entry(mon, msg, generation, kind, id, point);
		if (r >= 0)
			r = sd_bus_message_exit_container(msg);
	}
	if (r < 0)
		fprintf(stderr, "Failed to read MountsChanged: %s\n", strerror(-r));
	return 0;
}

/* InterfacesAdded: a new mount, all its properties. */
static int on_interfaces_added(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	Monitor *mon = userdata;
	const char *object, *iface;

	if (sd_bus_message_read(msg, "o", &object) < 0 ||
	    sd_bus_message_enter_container(msg, 'a', "{sa{sv}}") < 0)
		return 0;
	while (next_entry(msg, "sa{sv}", &iface) > 0) {
		if (streq_ptr(iface, MW_MOUNT_IFACE)) {
			CtlMount *m = monitor_find(mon, object);

			if (!m)
				m = monitor_add(mon, object);
			if (!m || read_mount_props(msg, m, NULL) < 0)
				return 0;
		} else if (sd_bus_message_skip(msg, "a{sv}") < 0)
			return 0;
		if (sd_bus_message_exit_container(msg) < 0)
			return 0;
	}
	return 0;
}

/* PropertiesChanged of a mount: keep the values before, apply the new ones. */
static int on_properties_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	Monitor *mon = userdata;
	const char *iface, *object = sd_bus_message_get_path(msg);
	CtlMount *m = monitor_find(mon, object);

	/* Batched, the old values are the table's own (another client's Subscribe() sends these). */
	if (mon->batched || !m || sd_bus_message_read(msg, "s", &iface) < 0 || !streq_ptr(iface, MW_MOUNT_IFACE))
		return 0;
	ctl_mount_done(&mon->before);
	free(mon->changed_path);
	mon->changed_path = NULL;
	mon->changed_mask = 0;
	if (ctl_mount_copy(m, &mon->before) < 0)
		return 0;
	if (read_mount_props(msg, m, &mon->changed_mask) >= 0)
		mon->changed_path = strdup(object);
	return 0;
}

/*
 * The daemon sends its signals only to subscribers: SubscribeBatched()
 * (MountsChanged, one message per batch of changes, with the values a line
 * shows) for as long as this connection lasts, and again whenever the
 * daemon restarts; a daemon without it (UnknownMethod), or a bus policy
 * that refuses it (AccessDenied), and --per-mount get Subscribe()
 * (MountAdded/Removed/Changed, PropertiesChanged). InterfacesAdded, with a
 * new mount's properties, comes only when get_all_mounts() had to call
 * GetManagedObjects (no fd passing); else monitor_fetch() asks.
 */
static int subscribe(Monitor *mon, sd_bus *bus)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	int r;

	r = arg_per_mount ? -EOPNOTSUPP : call_manager(bus, MW_MANAGER_IFACE, "SubscribeBatched", &error, NULL);
	mon->batched = r >= 0;
	/* --per-mount, an older daemon, or an older bus policy that lets only Subscribe() through. */
	if (r < 0 && (arg_per_mount || sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD) ||
		      sd_bus_error_has_name(&error, SD_BUS_ERROR_ACCESS_DENIED))) {
		sd_bus_error_free(&error);
		r = call_manager(bus, MW_MANAGER_IFACE, "Subscribe", &error, NULL);
	}
	if (r < 0) {
		r = bus_failure("subscribe to the signals", &error, r);
		sd_bus_error_free(&error);
		return -r;
	}
	return 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	Monitor *mon = userdata;
	const char *name, *old_owner, *new_owner, *line;

	if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
		return 0;
	line = owner_change_message(MW_BUS_NAME, name, old_owner, new_owner);
	if (line)
		fprintf(stderr, "%s\n", line);
	if (line && *new_owner && subscribe(mon, sd_bus_message_get_bus(m)) >= 0)
		/* subscribed before it says so: what follows the line is seen */
		(void)monitor_read_instance(mon, sd_bus_message_get_bus(m));
	return 0;
}

/* Our own bus connection dropped: nothing more can arrive, so stop (not hang). */
static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	sd_event *event = userdata;

	fprintf(stderr, "Lost the connection to the system bus.\n");
	return sd_event_exit(event, EXIT_NOT_RUNNING);
}

static int cmd_monitor(sd_bus *bus, int argc, char **argv)
{
	_cleanup_(sd_event_unrefp) sd_event *event = NULL;
	Monitor mon = {};
	int r;

	r = sd_bus_match_signal(bus, NULL, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE, NULL, on_signal,
				&mon);
	if (r >= 0)
		r = sd_bus_match_signal(bus, NULL, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE, "MountsChanged",
					on_mounts_changed, &mon);
	if (r >= 0)
		r = sd_bus_match_signal(bus, NULL, MW_BUS_NAME, MW_MANAGER_PATH,
					"org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
					on_interfaces_added, &mon);
	if (r >= 0)
		r = sd_bus_add_match(bus, NULL,
				     "type='signal',sender='" MW_BUS_NAME "',path_namespace='" MW_MOUNT_PREFIX
				     "',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
				     on_properties_changed, &mon);
	if (r >= 0)
		r = sd_bus_add_match(bus, NULL, OWNER_MATCH, on_owner_changed, &mon);
	if (r < 0) {
		fprintf(stderr, "Failed to subscribe to signals: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	/* Subscribed first, then what the mounts are now (and the daemon started). */
	r = subscribe(&mon, bus);
	if (r >= 0) {
		r = monitor_read_instance(&mon, bus);
		if (r < 0) {
			fprintf(stderr, "Failed to read the daemon's generation: %s\n", strerror(-r));
			return EXIT_FAIL;
		}
		r = get_all_mounts(bus, &mon.mounts, &mon.n);
	}
	if (r < 0)
		return -r;
	mon.allocated = mon.n;
	r = hashmap_new(&mon.by_id);
	for (size_t i = 0; r >= 0 && i < mon.n; i++)
		r = monitor_index(&mon, i);
	if (r < 0) {
		fprintf(stderr, "Failed to index the mounts: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	if (!(arg_flags & (CTL_OUTPUT_JSON | CTL_OUTPUT_NOHEADINGS))) {
		printf("%-7s %-9s %s   %s\n", "GEN", "EVENT", "MOUNTPOINT", "CHANGE");
		fflush(stdout);
	}
	r = sd_event_default(&event);
	if (r >= 0)
		r = sd_bus_attach_event(bus, event, 0);
	if (r >= 0)
		r = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus.Local", NULL, "org.freedesktop.DBus.Local",
					"Disconnected", on_disconnected, event);
	if (r >= 0) {
		sigset_t mask;

		sigemptyset(&mask);
		sigaddset(&mask, SIGINT);
		sigaddset(&mask, SIGTERM);
		sigprocmask(SIG_BLOCK, &mask, NULL);
		r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
		if (r >= 0)
			r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
	}
	if (r >= 0)
		r = sd_event_loop(event);
	ctl_mounts_free(mon.mounts, mon.n);
	hashmap_free(mon.by_id);
	ctl_mount_done(&mon.before);
	free(mon.changed_path);
	free(mon.instance_id);
	if (r < 0) {
		fprintf(stderr, "Failed to run the monitor: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	return r; /* EXIT_OK when interrupted, EXIT_NOT_RUNNING when the bus went away */
}

/* -o, -p: a column list, or a usage error naming the bad column. */
static int parse_columns(const char *option, const char *list, const int *defaults, size_t n_defaults,
			 int *cols, size_t *n)
{
	const char *bad;
	size_t bad_len;
	int r = ctl_columns_parse(list, defaults, n_defaults, cols, &bad, &bad_len);

	if (r < 0) {
		fprintf(stderr, "%s: unknown column \"%.*s\". Columns: the Mount properties "
			"(mountwatchctl --help).\n", option, (int)bad_len, bad);
		return -EXIT_USAGE;
	}
	*n = (size_t)r;
	return 0;
}

int main(int argc, char *argv[])
{
	static const struct {
		const char *name;
		int (*run)(sd_bus *bus, int argc, char **argv);
		int max_args;
	} commands[] = {
		{ "list", cmd_list, 0 },       { "tree", cmd_tree, 1 },     { "show", cmd_show, 1 },
		{ "monitor", cmd_monitor, 0 }, { "wait", cmd_wait, 1 },     { "status", cmd_status, 0 },
		{ "resync", cmd_resync, 0 },     { "reload", cmd_reload, 0 },   { "target", cmd_target, 1 },
	};
	enum { ARG_VERSION = 0x100, ARG_NO_START, ARG_OUTPUT_ALL, ARG_VALUE, ARG_PER_MOUNT };
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "output", required_argument, NULL, 'o' },
		{ "output-all", no_argument, NULL, ARG_OUTPUT_ALL },
		{ "raw", no_argument, NULL, 'r' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "property", required_argument, NULL, 'p' },
		{ "value", no_argument, NULL, ARG_VALUE },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-start", no_argument, NULL, ARG_NO_START },
		{ "per-mount", no_argument, NULL, ARG_PER_MOUNT },
		{}
	};
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	char *end;
	int c, r;

	setlocale(LC_ALL, ""); /* libsmartcols draws tree lines in UTF-8 where the locale allows */
	memcpy(arg_cols, default_cols, sizeof(default_cols));
	arg_n_cols = ELEMENTSOF(default_cols);
	for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
		arg_props[i] = (int)i;
	arg_n_props = _MW_FIELD_MAX;

	/* Options may come before or after the command (getopt moves the arguments last). */
	while ((c = getopt_long(argc, argv, "ho:rnJp:t:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return EXIT_OK;
		case ARG_VERSION:
			printf("mountwatchctl %s\n", MOUNTWATCH_VERSION);
			return EXIT_OK;
		case 'o':
			r = parse_columns("--output", optarg, default_cols, ELEMENTSOF(default_cols), arg_cols,
					  &arg_n_cols);
			if (r < 0)
				return -r;
			break;
		case ARG_OUTPUT_ALL:
			for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
				arg_cols[i] = (int)i;
			arg_n_cols = _MW_FIELD_MAX;
			break;
		case 'r':
			arg_flags |= CTL_OUTPUT_RAW;
			break;
		case 'n':
			arg_flags |= CTL_OUTPUT_NOHEADINGS;
			break;
		case 'J':
			arg_flags |= CTL_OUTPUT_JSON;
			break;
		case 'p':
			r = parse_columns("--property", optarg, NULL, 0, arg_props, &arg_n_props);
			if (r < 0)
				return -r;
			break;
		case ARG_VALUE:
			arg_value = true;
			break;
		case ARG_NO_START:
			arg_no_start = true;
			break;
		case ARG_PER_MOUNT:
			arg_per_mount = true;
			break;
		case 't':
			errno = 0;
			arg_timeout = strtod(optarg, &end);
			if (errno || *end || end == optarg || arg_timeout < 0 || !isfinite(arg_timeout) ||
			    arg_timeout > 1e9) {
				fprintf(stderr, "Invalid timeout: %s (seconds expected)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			fprintf(stderr, "Try 'mountwatchctl --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		help();
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
		if (!streq_ptr(argv[optind], commands[i].name))
			continue;
		if (argc - optind - 1 > commands[i].max_args) {
			fprintf(stderr, "%s takes %s.\n", commands[i].name,
				commands[i].max_args ? "one argument" : "no arguments");
			return EXIT_USAGE;
		}
		r = sd_bus_open_system(&bus);
		if (r < 0) {
			fprintf(stderr, "Failed to connect to the system bus: %s\n", strerror(-r));
			return EXIT_NOT_RUNNING;
		}
		return commands[i].run(bus, argc - optind, argv + optind);
	}
	fprintf(stderr, "Unknown command: %s. Try 'mountwatchctl --help'.\n", argv[optind]);
	return EXIT_USAGE;
}
