/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountwatchctl: the command-line client of org.mountwatch.MountWatch1.
 * Exit codes are documented in --help so that scripts can use them.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-api.h"
#include "ctl-format.h"
#include "mount-info.h"
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

static bool arg_json;
static bool arg_no_start;
static double arg_timeout = -1; /* seconds; < 0: none */

static void help(void)
{
	printf("Usage: mountwatchctl [OPTIONS] COMMAND ...\n"
	       "\n"
	       "Query mountwatchd, the mount table on the system bus.\n"
	       "\n"
	       "Commands:\n"
	       "  list              All mounts: unique ID, parent, type, mount point, source\n"
	       "  tree [PATH]       The mount tree (below the mount at PATH)\n"
	       "  show ID|PATH      Every property of one mount (by unique ID or mount point)\n"
	       "  monitor           Print changes as they happen, until interrupted\n"
	       "  wait PATH         Wait until something is mounted at PATH\n"
	       "  status            The daemon's state and counters\n"
	       "  resync            Make the daemon resynchronise with the kernel (root)\n"
	       "\n"
	       "Options:\n"
	       "  -h --help         Show this help\n"
	       "     --version      Show the version\n"
	       "     --json         Print data as JSON (list, tree, show, monitor, status, resync)\n"
	       "  -t --timeout=SEC  For wait: give up after SEC seconds (default: wait forever)\n"
	       "     --no-start     Do not start mountwatchd through bus activation\n"
	       "\n"
	       "Exit status: 0 success, 1 failure, 2 usage error, 3 no such mount,\n"
	       "4 timed out, 5 mountwatchd not running or unreachable, 6 permission denied.\n");
}

/* Maps a failed call to a message and an exit status. */
static int bus_failure(const char *what, const sd_bus_error *error, int r)
{
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
	if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES || r == -EPERM) {
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

/* A property that a command reads from an a{sv}, and where it goes. */
typedef struct BusProperty {
	const char *name;
	char type; /* 's' (char *, a copy), 'b' (bool), 'u' (uint32_t) or 't' (uint64_t) */
	size_t offset;
} BusProperty;

/* Where each Mount property goes; the names and types are mount-info.h's table. */
static const size_t mount_fields[_MW_FIELD_MAX] = {
	[MW_FIELD_UNIQUE_ID] = offsetof(CtlMount, unique_id),
	[MW_FIELD_MOUNT_ID] = offsetof(CtlMount, mount_id),
	[MW_FIELD_PARENT_UNIQUE_ID] = offsetof(CtlMount, parent_unique_id),
	[MW_FIELD_PARENT_ID] = offsetof(CtlMount, parent_id),
	[MW_FIELD_MOUNT_POINT] = offsetof(CtlMount, mount_point),
	[MW_FIELD_ROOT] = offsetof(CtlMount, root),
	[MW_FIELD_SOURCE] = offsetof(CtlMount, source),
	[MW_FIELD_FS_TYPE] = offsetof(CtlMount, fstype),
	[MW_FIELD_OPTIONS] = offsetof(CtlMount, options),
	[MW_FIELD_SUPER_OPTIONS] = offsetof(CtlMount, super_options),
	[MW_FIELD_ATTRIBUTES] = offsetof(CtlMount, attributes),
	[MW_FIELD_READ_ONLY] = offsetof(CtlMount, read_only),
	[MW_FIELD_PROPAGATION] = offsetof(CtlMount, propagation),
	[MW_FIELD_PEER_GROUP] = offsetof(CtlMount, peer_group),
	[MW_FIELD_MASTER_GROUP] = offsetof(CtlMount, master_group),
	[MW_FIELD_SUPERBLOCK_ID] = offsetof(CtlMount, superblock_id),
	[MW_FIELD_DEVICE] = offsetof(CtlMount, device),
	[MW_FIELD_CHANGE_COUNT] = offsetof(CtlMount, change_count),
};


/* The Manager's properties, for status. */
typedef struct Status {
	char *version, *backend, *watched_path;
	uint32_t mount_count;
	uint64_t generation, overruns, resyncs;
} Status;

static const BusProperty status_properties[] = {
	{ "Version", 's', offsetof(Status, version) },
	{ "Backend", 's', offsetof(Status, backend) },
	{ "WatchedPath", 's', offsetof(Status, watched_path) },
	{ "MountCount", 'u', offsetof(Status, mount_count) },
	{ "Generation", 't', offsetof(Status, generation) },
	{ "Overruns", 't', offsetof(Status, overruns) },
	{ "Resyncs", 't', offsetof(Status, resyncs) },
};

/* Reads the variant's value (entered already) into the field p names. */
static int read_property(sd_bus_message *reply, const BusProperty *p, void *base)
{
	void *field = (char *)base + p->offset;
	const char *s;
	int b, r;

	switch (p->type) {
	case 's':
		r = sd_bus_message_read_basic(reply, 's', &s);
		if (r < 0)
			return r;
		return free_and_strdup(field, s) < 0 ? -ENOMEM : 0;
	case 'b':
		r = sd_bus_message_read_basic(reply, 'b', &b);
		if (r < 0)
			return r;
		*(bool *)field = b;
		return 0;
	default: /* 'u', 't': the field has the wire type */
		return sd_bus_message_read_basic(reply, p->type, field);
	}
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
 * Reads an a{sv} into the struct at base as the table says. A property the
 * table does not name, or one with another type, is skipped.
 */
static int read_properties(sd_bus_message *reply, const BusProperty *table, size_t n, void *base)
{
	const char *name;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = next_entry(reply, "sv", &name)) > 0) {
		const BusProperty *p = NULL;
		const char *contents = NULL;

		r = sd_bus_message_peek_type(reply, NULL, &contents);
		if (r < 0)
			return r;
		for (size_t i = 0; i < n && !p; i++)
			if (streq_ptr(name, table[i].name) && contents && contents[0] == table[i].type &&
			    !contents[1])
				p = &table[i];
		if (p) {
			r = sd_bus_message_enter_container(reply, 'v', contents);
			if (r >= 0)
				r = read_property(reply, p, base);
			if (r >= 0)
				r = sd_bus_message_exit_container(reply); /* v */
		} else
			r = sd_bus_message_skip(reply, "v");
		if (r >= 0)
			r = sd_bus_message_exit_container(reply); /* e */
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(reply);
}

static int read_mount_props(sd_bus_message *reply, CtlMount *m)
{
	BusProperty props[_MW_FIELD_MAX];

	for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
		props[i] = (BusProperty){ mount_properties[i].name, mount_properties[i].signature[0],
					  mount_fields[i] };
	return read_properties(reply, props, ELEMENTSOF(props), m);
}

/* Every mount with every property, from one GetManagedObjects call. */
static int get_all_mounts(sd_bus *bus, CtlMount **ret, size_t *ret_n)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *path, *iface;
	CtlMount *l = NULL;
	size_t n = 0, allocated = 0;
	int r;

	r = call(bus, "list mounts", &reply, 0, MW_MANAGER_PATH, "org.freedesktop.DBus.ObjectManager",
		 "GetManagedObjects", NULL);
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
	if (r < 0)
		goto bad;
	while ((r = next_entry(reply, "oa{sa{sv}}", &path)) > 0) {
		r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
		if (r < 0)
			goto bad;
		while ((r = next_entry(reply, "sa{sv}", &iface)) > 0) {
			if (streq_ptr(iface, MW_MOUNT_IFACE)) {
				if (n == allocated) {
					CtlMount *t;

					allocated = allocated ? allocated * 2 : 64;
					t = realloc(l, allocated * sizeof(*t));
					if (!t) {
						r = -ENOMEM;
						goto bad;
					}
					l = t;
				}
				l[n] = (CtlMount){};
				l[n].object_path = strdup(path);
				n++;
				r = read_mount_props(reply, &l[n - 1]);
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
	r = read_mount_props(reply, &m);
	if (r < 0 || !m.object_path) {
		ctl_mount_done(&m);
		fprintf(stderr, "Failed to parse the mount's properties: %s\n", strerror(r < 0 ? -r : ENOMEM));
		return -EXIT_FAIL;
	}
	*ret = m;
	return 0;
}

/* Resolves ID or PATH to an object path (to be freed). */
static int resolve(sd_bus *bus, const char *arg, char **ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *object;
	uint64_t id;
	int r;

	if (parse_u64(arg, &id) >= 0)
		r = call(bus, "look up the mount", &reply, 0, MW_MANAGER_PATH, MW_MANAGER_IFACE, "GetMount", "t", id);
	else if (arg[0] == '/') {
		_cleanup_free_ char *abs = realpath(arg, NULL);

		/* Follow symlinks where the path exists, as findmnt does. */
		r = call(bus, "look up the mount", &reply, 0, MW_MANAGER_PATH, MW_MANAGER_IFACE, "GetMountByPath",
			 "s", abs ?: arg);
	} else {
		fprintf(stderr, "Not a unique mount ID or an absolute path: %s\n", arg);
		return -EXIT_USAGE;
	}
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "o", &object);
	if (r < 0 || !(*ret = strdup(object)))
		return -EXIT_FAIL;
	return 0;
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
	if (arg_json)
		format_list_json(stdout, m, n);
	else
		format_list(stdout, m, n);
	ctl_mounts_free(m, n);
	return EXIT_OK;
}

static int cmd_tree(sd_bus *bus, int argc, char **argv)
{
	_cleanup_free_ char *object = NULL;
	uint64_t root = 0;
	CtlMount *m;
	size_t n;
	int r;

	if (argc > 2) {
		fprintf(stderr, "tree takes at most one PATH.\n");
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
		root = top.unique_id;
		ctl_mount_done(&top);
	}
	r = get_all_mounts(bus, &m, &n);
	if (r < 0)
		return -r;
	r = arg_json ? format_tree_json(stdout, m, n, root) : format_tree(stdout, m, n, root);
	ctl_mounts_free(m, n);
	if (r == -ENOENT) {
		fprintf(stderr, "The mount at %s went away.\n", argv[1]);
		return EXIT_NO_SUCH_MOUNT;
	}
	return r < 0 ? EXIT_FAIL : EXIT_OK;
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
	if (arg_json)
		format_show_json(stdout, &m);
	else
		format_show(stdout, &m);
	ctl_mount_done(&m);
	return EXIT_OK;
}

static int cmd_wait(sd_bus *bus, int argc, char **argv)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_free_ char *abs = NULL;
	uint64_t usec = 0, call_timeout = UINT64_MAX;
	const char *object;
	CtlMount m;
	int r;

	if (argc != 2 || argv[1][0] != '/') {
		fprintf(stderr, "wait needs one absolute PATH.\n");
		return EXIT_USAGE;
	}
	if (arg_timeout >= 0) {
		usec = (uint64_t)(arg_timeout * 1e6);
		if (usec == 0)
			usec = 1;
		call_timeout = usec + 5 * 1000000ULL; /* the daemon answers Timeout first */
	}
	abs = realpath(argv[1], NULL);
	r = call(bus, "wait for the mount", &reply, call_timeout, MW_MANAGER_PATH, MW_MANAGER_IFACE,
		 "WaitForMount", "st", abs ?: argv[1], usec);
	if (r < 0)
		return -r;
	r = sd_bus_message_read(reply, "o", &object);
	if (r < 0)
		return EXIT_FAIL;
	r = get_mount(bus, object, &m);
	if (r < 0)
		return -r;
	if (arg_json)
		format_show_json(stdout, &m);
	else
		printf("%s %" PRIu64 " %s %s\n", m.mount_point, m.unique_id, m.fstype, m.source);
	ctl_mount_done(&m);
	return EXIT_OK;
}

static int cmd_status(sd_bus *bus, int argc, char **argv)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	Status st = {};
	int r;

	r = call(bus, "read the daemon's status", &reply, 0, MW_MANAGER_PATH, "org.freedesktop.DBus.Properties",
		 "GetAll", "s", MW_MANAGER_IFACE);
	if (r < 0)
		return -r;
	r = read_properties(reply, status_properties, ELEMENTSOF(status_properties), &st);
	if (r < 0) {
		fprintf(stderr, "Failed to parse the daemon's status: %s\n", strerror(-r));
		r = EXIT_FAIL;
	} else if (arg_json) {
		printf("{\"version\": ");
		json_string(stdout, st.version);
		printf(", \"backend\": ");
		json_string(stdout, st.backend);
		printf(", \"watched_path\": ");
		json_string(stdout, st.watched_path);
		printf(", \"mount_count\": %u, \"generation\": %" PRIu64 ", \"overruns\": %" PRIu64
		       ", \"resyncs\": %" PRIu64 "}\n", st.mount_count, st.generation, st.overruns, st.resyncs);
		r = EXIT_OK;
	} else {
		printf("Version: %s\nBackend: %s\nWatchedPath: %s\nMountCount: %u\nGeneration: %" PRIu64
		       "\nOverruns: %" PRIu64 "\nResyncs: %" PRIu64 "\n",
		       st.version ?: "", st.backend ?: "", st.watched_path ?: "", st.mount_count, st.generation,
		       st.overruns, st.resyncs);
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
	if (arg_json)
		printf("{\"added\": %u, \"removed\": %u, \"changed\": %u}\n", added, removed, changed);
	else
		printf("Resynchronised: %u added, %u removed, %u changed.\n", added, removed, changed);
	return EXIT_OK;
}

/* ---- monitor ---- */

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *member = sd_bus_message_get_member(m);
	uint64_t id, generation;
	const char *object, *point;
	int r;

	if (streq_ptr(member, "MountAdded") || streq_ptr(member, "MountRemoved")) {
		r = sd_bus_message_read(m, "tost", &id, &object, &point, &generation);
		if (r < 0)
			return 0;
		if (arg_json) {
			printf("{\"event\": \"%s\", \"generation\": %" PRIu64 ", \"unique_id\": %" PRIu64
			       ", \"mount_point\": ", member[5] == 'A' ? "added" : "removed", generation, id);
			json_string(stdout, point);
			printf("}\n");
		} else
			printf("%-8" PRIu64 " %-8s %" PRIu64 " %s\n", generation,
			       member[5] == 'A' ? "added" : "removed", id, point);
	} else if (streq_ptr(member, "MountChanged")) {
		const char *prop;
		bool first = true;

		r = sd_bus_message_read(m, "to", &id, &object);
		if (r < 0)
			return 0;
		r = sd_bus_message_enter_container(m, 'a', "s");
		if (r < 0)
			return 0;
		if (arg_json)
			printf("{\"event\": \"changed\", \"unique_id\": %" PRIu64 ", \"properties\": [", id);
		else
			printf("%-8s %-8s %" PRIu64 " ", "", "changed", id);
		while (sd_bus_message_read(m, "s", &prop) > 0) {
			if (arg_json) {
				printf("%s", first ? "" : ", ");
				json_string(stdout, prop);
			} else
				printf("%s%s", first ? "" : ",", prop);
			first = false;
		}
		(void)sd_bus_message_exit_container(m);
		if (sd_bus_message_read(m, "t", &generation) < 0)
			generation = 0;
		if (arg_json)
			printf("], \"generation\": %" PRIu64 "}\n", generation);
		else
			printf(" (generation %" PRIu64 ")\n", generation);
	} else if (streq_ptr(member, "Resynced")) {
		uint32_t a, rm, c;

		r = sd_bus_message_read(m, "tuuu", &generation, &a, &rm, &c);
		if (r < 0)
			return 0;
		if (arg_json)
			printf("{\"event\": \"resynced\", \"generation\": %" PRIu64
			       ", \"added\": %u, \"removed\": %u, \"changed\": %u}\n", generation, a, rm, c);
		else
			printf("%-8" PRIu64 " %-8s %u added, %u removed, %u changed\n", generation, "resynced",
			       a, rm, c);
	}
	fflush(stdout);
	return 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *name, *old_owner, *new_owner, *line;

	if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
		return 0;
	line = owner_change_message(MW_BUS_NAME, name, old_owner, new_owner);
	if (line)
		fprintf(stderr, "%s\n", line);
	return 0;
}

static int cmd_monitor(sd_bus *bus, int argc, char **argv)
{
	_cleanup_(sd_event_unrefp) sd_event *event = NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_match_signal(bus, NULL, MW_BUS_NAME, MW_MANAGER_PATH, MW_MANAGER_IFACE, NULL, on_signal, NULL);
	if (r >= 0)
		r = sd_bus_add_match(bus, NULL, OWNER_MATCH, on_owner_changed, NULL);
	if (r < 0) {
		fprintf(stderr, "Failed to subscribe to signals: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	/* Subscribed first, then make sure the daemon is there (and started). */
	r = call(bus, "reach mountwatchd", &reply, 0, MW_MANAGER_PATH, "org.freedesktop.DBus.Peer", "Ping", NULL);
	if (r < 0)
		return -r;
	if (!arg_json) {
		printf("%-8s %-8s %s\n", "GEN", "EVENT", "UNIQUE-ID MOUNTPOINT|PROPERTIES");
		fflush(stdout);
	}
	r = sd_event_default(&event);
	if (r >= 0)
		r = sd_bus_attach_event(bus, event, 0);
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
	if (r < 0) {
		fprintf(stderr, "Failed to run the monitor: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int main(int argc, char *argv[])
{
	static const struct {
		const char *name;
		int (*run)(sd_bus *bus, int argc, char **argv);
	} commands[] = {
		{ "list", cmd_list },     { "tree", cmd_tree },     { "show", cmd_show },
		{ "monitor", cmd_monitor }, { "wait", cmd_wait },   { "status", cmd_status },
		{ "resync", cmd_resync },
	};
	enum { ARG_VERSION = 0x100, ARG_JSON, ARG_NO_START };
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "json", no_argument, NULL, ARG_JSON },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-start", no_argument, NULL, ARG_NO_START },
		{}
	};
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	char *end;
	int c, r;

	while ((c = getopt_long(argc, argv, "ht:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return EXIT_OK;
		case ARG_VERSION:
			printf("mountwatchctl %s\n", MOUNTWATCH_VERSION);
			return EXIT_OK;
		case ARG_JSON:
			arg_json = true;
			break;
		case ARG_NO_START:
			arg_no_start = true;
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
		if (commands[i].run != cmd_tree && commands[i].run != cmd_show &&
		    commands[i].run != cmd_wait && argc - optind > 1) {
			fprintf(stderr, "%s takes no arguments.\n", commands[i].name);
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
