/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for manager-bus.c: a forked server runs the manager on the
 * fake kernel behind a direct (peer-to-peer) sd-bus connection, and the
 * client calls the API as SPEC.md fixes it: properties, ListMounts,
 * ListMountsByFileDescriptor (its sealed memfd against ListMounts, and
 * its refusal on a connection without fd passing), GetMount,
 * GetMountByPath, WaitForMount (answer and timeout), Resync,
 * ObjectManager, per-mount properties, and the signals with generations.
 * A test-only interface lets the client make the fake kernel mount things
 * (and mount and unmount one in one go: Flash),
 * count the WaitForMount calls waiting (PendingWaits), make the next
 * resyncs fail (FailListings), make a storm (Storm), mount and unmount many
 * in one batch (Burst), lower the changes per MountsChanged
 * (SetBatchLimit), lower the most a
 * reply with the whole table may take (SetReplyLimit) and answer as a
 * daemon without ListMountsByFileDescriptor (HideFdListing); the server's
 * sd_notify() messages come to a socket of the client's (NOTIFY_SOCKET).
 *
 * With --introspect it prints what the manager object and one mount object
 * answer to Introspect instead, for tests/check-interface-xml, which
 * compares that with the shipped interface XML. With --serve it is a
 * mountwatchd on the fake kernel, on the bus at $DBUS_SYSTEM_BUS_ADDRESS
 * under the real name, for tests/check-ctl to run mountwatchctl against.
 */
#include "check.h"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>

#include "manager-bus.h"
#include "manager.h"
#include "mount-properties.h"
#include "watcher.h"
#include "fake-kernel.h"
#include "util.h"

#define TEST_IFACE "org.mountwatch.Test"

static FakeKernel *kernel;
static Manager *manager;

/*
 * Mount: a tmpfs on /NAME. Flash: the same, unmounted again in the same
 * handler - gone before anyone can ask about it: MountAdded and MountRemoved
 * both leave before the server reads the next call (a client's GetAll).
 */
static int method_mount(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	/* Quiet(name): a mount that adds a generation but sends no signal, as a lost one would look. */
	bool quiet = streq_ptr(sd_bus_message_get_member(m), "Quiet");
	ManagerChangeFn fn = manager->change_fn;
	void *data = manager->change_userdata;
	const char *name;
	uint64_t id;
	int r;

	r = sd_bus_message_read(m, "s", &name);
	if (r < 0)
		return r;
	if (quiet)
		manager_set_change_fn(manager, NULL, NULL);
	id = fake_mount(kernel, fake_root(kernel), name, "tmpfs");
	(void)manager_process_events(manager);
	if (quiet)
		manager_set_change_fn(manager, fn, data);
	if (streq_ptr(sd_bus_message_get_member(m), "Flash")) {
		fake_umount(kernel, id);
		(void)manager_process_events(manager);
	}
	return sd_bus_reply_method_return(m, "t", id);
}

/*
 * MountAs(name, fstype): a mount whose name and type (the fake kernel's
 * source too) are given with mountinfo's "\\ooo" escapes, so a test can
 * mount what a string on the bus cannot carry (invalid UTF-8).
 */
static int method_mount_as(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_free_ char *name = NULL, *fstype = NULL;
	const char *n, *t;
	uint64_t id;
	int r;

	r = sd_bus_message_read(m, "ss", &n, &t);
	if (r < 0)
		return r;
	name = strdup(n);
	fstype = strdup(t);
	if (!name || !fstype)
		return -ENOMEM;
	id = fake_mount(kernel, fake_root(kernel), unescape_octal(name), unescape_octal(fstype));
	(void)manager_process_events(manager);
	return sd_bus_reply_method_return(m, "t", id);
}

static int method_umount(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	uint64_t id;
	int r;

	r = sd_bus_message_read(m, "t", &id);
	if (r < 0)
		return r;
	fake_umount(kernel, id);
	(void)manager_process_events(manager);
	return sd_bus_reply_method_return(m, NULL);
}

static int method_setattr(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	uint64_t id, attr;
	int r;

	r = sd_bus_message_read(m, "tt", &id, &attr);
	if (r < 0)
		return r;
	fake_setattr(kernel, id, attr);
	(void)manager_process_events(manager);
	return sd_bus_reply_method_return(m, NULL);
}

/* n mounts at once, then one pass of the loop's handler, as when the notification fd wakes it. */
static int method_storm(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	char name[32];
	uint32_t n;
	int r;

	r = sd_bus_message_read(m, "u", &n);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "storm%u", i);
		(void)fake_mount(kernel, fake_root(kernel), name, "tmpfs");
	}
	(void)manager_process_events(manager);
	return sd_bus_reply_method_return(m, NULL);
}

/*
 * Burst(prefix, n, umount): n mounts /PREFIXi, or with umount the umount of
 * the last burst's mounts, all read by one manager_process_events(): one batch.
 * QuietBurst(prefix, n, umount): the same, each change adding a generation
 * but sending no signal (as Quiet), so a client never sees these mounts
 * added, only their removal.
 */
static int method_burst(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	static uint64_t *ids;
	static uint32_t n_ids;
	bool quiet = streq_ptr(sd_bus_message_get_member(m), "QuietBurst");
	ManagerChangeFn fn = manager->change_fn;
	void *data = manager->change_userdata;
	const char *prefix;
	char name[64];
	uint32_t n;
	int umount, r;

	r = sd_bus_message_read(m, "sub", &prefix, &n, &umount);
	if (r < 0)
		return r;
	if (umount) {
		for (uint32_t i = 0; i < n_ids; i++)
			fake_umount(kernel, ids[i]);
		free(ids);
		ids = NULL;
		n_ids = 0;
	} else {
		free(ids);
		ids = calloc(n ?: 1, sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		for (n_ids = 0; n_ids < n; n_ids++) {
			snprintf(name, sizeof(name), "%s%u", prefix, n_ids);
			ids[n_ids] = fake_mount(kernel, fake_root(kernel), name, "tmpfs");
		}
	}
	if (quiet)
		manager_set_change_fn(manager, NULL, NULL);
	(void)manager_process_events(manager);
	if (quiet)
		manager_set_change_fn(manager, fn, data);
	return sd_bus_reply_method_return(m, NULL);
}

/* SetBatchLimit(n): at most n changes per MountsChanged (0: the daemon's own limit). */
static int method_set_batch_limit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	uint32_t n;
	int r;

	r = sd_bus_message_read(m, "u", &n);
	if (r < 0)
		return r;
	manager->batch.max = n;
	return sd_bus_reply_method_return(m, NULL);
}

static int method_set_reply_limit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	uint64_t limit;
	int r;

	r = sd_bus_message_read(m, "t", &limit);
	if (r < 0)
		return r;
	manager->reply_size_max = limit ?: MANAGER_REPLY_SIZE_MAX;
	return sd_bus_reply_method_return(m, NULL);
}

static int method_fail_listings(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	uint32_t n;
	int r;

	r = sd_bus_message_read(m, "u", &n);
	if (r < 0)
		return r;
	fake_fail_listings(kernel, n);
	return sd_bus_reply_method_return(m, NULL);
}

/* Set by HideFdListing: the server answers as a daemon from before ListMountsByFileDescriptor. */
static int hide_fd_listing;

static int method_hide_fd_listing(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	int r;

	r = sd_bus_message_read(m, "b", &hide_fd_listing);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(m, NULL);
}

static int filter_hide_fd_listing(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	if (hide_fd_listing && sd_bus_message_is_method_call(m, MW_MANAGER_IFACE, "ListMountsByFileDescriptor"))
		return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_METHOD, "Unknown method (hidden by the test).");
	return 0;
}

static int method_pending_waits(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return sd_bus_reply_method_return(m, "u", (uint32_t)manager->waits.n);
}

static const sd_bus_vtable test_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_ARGS("Mount", SD_BUS_ARGS("s", name), SD_BUS_RESULT("t", id), method_mount, 0),
	SD_BUS_METHOD_WITH_ARGS("MountAs", SD_BUS_ARGS("s", name, "s", fstype), SD_BUS_RESULT("t", id),
				method_mount_as, 0),
	SD_BUS_METHOD_WITH_ARGS("Quiet", SD_BUS_ARGS("s", name), SD_BUS_RESULT("t", id), method_mount, 0),
	SD_BUS_METHOD_WITH_ARGS("Umount", SD_BUS_ARGS("t", id), SD_BUS_NO_ARGS, method_umount, 0),
	SD_BUS_METHOD_WITH_ARGS("Flash", SD_BUS_ARGS("s", name), SD_BUS_RESULT("t", id), method_mount, 0),
	SD_BUS_METHOD_WITH_ARGS("SetAttr", SD_BUS_ARGS("t", id, "t", attr), SD_BUS_NO_ARGS, method_setattr, 0),
	SD_BUS_METHOD_WITH_ARGS("Storm", SD_BUS_ARGS("u", n), SD_BUS_NO_ARGS, method_storm, 0),
	SD_BUS_METHOD_WITH_ARGS("Burst", SD_BUS_ARGS("s", prefix, "u", n, "b", umount), SD_BUS_NO_ARGS,
				method_burst, 0),
	SD_BUS_METHOD_WITH_ARGS("QuietBurst", SD_BUS_ARGS("s", prefix, "u", n, "b", umount), SD_BUS_NO_ARGS,
				method_burst, 0),
	SD_BUS_METHOD_WITH_ARGS("SetBatchLimit", SD_BUS_ARGS("u", n), SD_BUS_NO_ARGS, method_set_batch_limit, 0),
	SD_BUS_METHOD_WITH_ARGS("SetReplyLimit", SD_BUS_ARGS("t", bytes), SD_BUS_NO_ARGS, method_set_reply_limit, 0),
	SD_BUS_METHOD_WITH_ARGS("FailListings", SD_BUS_ARGS("u", n), SD_BUS_NO_ARGS, method_fail_listings, 0),
	SD_BUS_METHOD_WITH_ARGS("HideFdListing", SD_BUS_ARGS("b", hide), SD_BUS_NO_ARGS, method_hide_fd_listing, 0),
	SD_BUS_METHOD_WITH_ARGS("PendingWaits", SD_BUS_NO_ARGS, SD_BUS_RESULT("u", n), method_pending_waits, 0),
	SD_BUS_VTABLE_END,
};

static int on_disconnect(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return sd_event_exit(manager->event, 0);
}

/* Serves the manager on fd (a peer connection), or on the system bus address if fd < 0. */
static void server(int fd)
{
	sd_bus *bus;
	sd_id128_t id;
	mw_watcher *w;

	kernel = fake_kernel_new(4096);
	fake_mount(kernel, fake_root(kernel), "boot", "ext4");
	fake_mount(kernel, fake_root(kernel), "home", "ext4");
	fake_flush_queue(kernel);
	assert_se(manager_new(&manager) == 0);
	assert_se(watcher_new_with_backend(&w, fake_kernel_backend(kernel), "/") == 0);
	assert_se(watcher_snapshot(w) == 0);
	manager_set_watcher(manager, w);
	assert_se(sd_event_new(&manager->event) == 0);
	assert_se(manager_attach_watcher(manager) == 0); /* as the daemon: the library's sd-event helper */

	assert_se(sd_bus_new(&bus) == 0);
	if (fd >= 0) {
		assert_se(sd_id128_randomize(&id) == 0);
		assert_se(sd_bus_set_fd(bus, fd, fd) == 0);
		assert_se(sd_bus_set_server(bus, 1, id) == 0);
		assert_se(sd_bus_set_anonymous(bus, 1) == 0);
	} else {
		assert_se(getenv("DBUS_SYSTEM_BUS_ADDRESS"));
		assert_se(sd_bus_set_address(bus, getenv("DBUS_SYSTEM_BUS_ADDRESS")) >= 0);
		assert_se(sd_bus_set_bus_client(bus, 1) >= 0);
	}
	assert_se(sd_bus_start(bus) >= 0);
	assert_se(sd_bus_add_object_vtable(bus, NULL, MW_MANAGER_PATH, TEST_IFACE, test_vtable, NULL) == 0);
	assert_se(sd_bus_add_filter(bus, NULL, filter_hide_fd_listing, NULL) >= 0);
	assert_se(sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus.Local", NULL, NULL, "Disconnected",
				   on_disconnect, NULL) >= 0);
	assert_se(manager_bus_setup(manager, bus) == 0);
	sd_bus_unref(bus);
	(void)sd_event_loop(manager->event);
	manager_free(manager);
	fake_kernel_free(kernel);
	_exit(0);
}

/* ---- client ---- */

static sd_bus *client;
static unsigned signals_added, signals_removed, signals_changed, signals_resynced;
static unsigned ifaces_added, ifaces_removed, props_changed;
static uint64_t last_generation;
/* The interfaces the last InterfacesAdded / InterfacesRemoved named, sorted, comma-separated. */
static char ifaces_added_names[512], ifaces_removed_names[512];

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* names sorted, joined with "," into buf */
static void join_sorted(const char **names, size_t n, char *buf, size_t size)
{
	qsort(names, n, sizeof(names[0]), compare_strings);
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		assert_se(strlen(buf) + strlen(names[i]) + 2 < size);
		if (i > 0)
			strcat(buf, ",");
		strcat(buf, names[i]);
	}
}

/*
 * Reads interface names (the keys of an a{sa{sv}} with dict, else the
 * elements of an as) into buf, sorted and comma-separated.
 */
static void read_interface_names(sd_bus_message *m, bool dict, char *buf, size_t size)
{
	const char *names[16];
	size_t n = 0;

	assert_se(sd_bus_message_enter_container(m, 'a', dict ? "{sa{sv}}" : "s") > 0);
	for (;;) {
		if (dict) {
			if (sd_bus_message_enter_container(m, 'e', "sa{sv}") <= 0)
				break;
			assert_se(n < ELEMENTSOF(names));
			assert_se(sd_bus_message_read(m, "s", &names[n++]) > 0);
			assert_se(sd_bus_message_skip(m, "a{sv}") >= 0);
			assert_se(sd_bus_message_exit_container(m) >= 0);
		} else {
			assert_se(n < ELEMENTSOF(names));
			if (sd_bus_message_read(m, "s", &names[n]) <= 0)
				break;
			n++;
		}
	}
	assert_se(sd_bus_message_exit_container(m) >= 0);
	join_sorted(names, n, buf, size);
}

/*
 * Reads an a{sa{sv}} (interfaces and their properties) as text into buf:
 * "interface: name=value ..." a line, in the message's order.
 */
static void read_interfaces_text(sd_bus_message *m, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");
	const char *iface, *name;

	assert_se(f);
	assert_se(sd_bus_message_enter_container(m, 'a', "{sa{sv}}") > 0);
	while (sd_bus_message_enter_container(m, 'e', "sa{sv}") > 0) {
		assert_se(sd_bus_message_read(m, "s", &iface) > 0);
		fprintf(f, "%s:", iface);
		assert_se(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
		while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
			const char *contents, *str;
			uint64_t t = 0;
			uint32_t u = 0;
			int b = 0;
			char type;

			assert_se(sd_bus_message_read(m, "s", &name) > 0);
			assert_se(sd_bus_message_peek_type(m, &type, &contents) > 0 && type == 'v');
			assert_se(sd_bus_message_enter_container(m, 'v', contents) > 0);
			switch (contents[0]) {
			case 's':
				assert_se(sd_bus_message_read(m, "s", &str) > 0);
				fprintf(f, " %s=\"%s\"", name, str);
				break;
			case 't':
				assert_se(sd_bus_message_read(m, "t", &t) > 0);
				fprintf(f, " %s=%" PRIu64, name, t);
				break;
			case 'u':
				assert_se(sd_bus_message_read(m, "u", &u) > 0);
				fprintf(f, " %s=%" PRIu32, name, u);
				break;
			case 'b':
				assert_se(sd_bus_message_read(m, "b", &b) > 0);
				fprintf(f, " %s=%s", name, b ? "true" : "false");
				break;
			case 'a': { /* the *Bytes properties: ay */
				const void *bytes;
				size_t n;

				assert_se(streq_ptr(contents, "ay"));
				assert_se(sd_bus_message_read_array(m, 'y', &bytes, &n) >= 0);
				fprintf(f, " %s=[%.*s]", name, (int)n, (const char *)bytes);
				break;
			}
			default:
				assert_se(!"a property of an unexpected type");
			}
			assert_se(sd_bus_message_exit_container(m) >= 0); /* v */
			assert_se(sd_bus_message_exit_container(m) >= 0); /* e */
		}
		assert_se(sd_bus_message_exit_container(m) >= 0);
		assert_se(sd_bus_message_exit_container(m) >= 0);
		fputc('\n', f);
	}
	assert_se(sd_bus_message_exit_container(m) >= 0);
	assert_se(fclose(f) == 0);
}

/* The interface names of read_interfaces_text()'s text (each line's start), as read_interface_names(). */
static void interface_names_of_text(const char *text, char *buf, size_t size)
{
	char copy[4096], *line, *save = NULL;
	const char *names[16];
	size_t n = 0;

	assert_se(strlen(text) < sizeof(copy));
	strcpy(copy, text);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_se(n < ELEMENTSOF(names) && strchr(line, ':'));
		*strchr(line, ':') = 0;
		names[n++] = line;
	}
	join_sorted(names, n, buf, size);
}

/* The last InterfacesAdded's interfaces and properties, by read_interfaces_text(). */
static char ifaces_added_text[4096];

/*
 * MountsChanged: messages, changes by kind (a run of removals counted as
 * its mounts), the largest message in entries, the longest run of removals
 * in one entry, the last generation (each change one past the one before,
 * across messages), the
 * FsType of the last "added" entry, the Options of the last "changed" one,
 * and whether a Resynced came after the last MountsChanged.
 */
static unsigned batch_messages, batch_added, batch_removed, batch_changed, batch_largest, batch_longest_run;
static uint64_t batch_generation;
static char batch_fstype[32], batch_options[64];
static bool resynced_after_batch;

/* Pumps until MountsChanged reached generation (the daemon may read a burst in parts), for 10 s at most. */
static void pump_batches(uint64_t generation);

static void read_batch(sd_bus_message *m)
{
	uint64_t gen, id, first = 0, last;
	const char *kind, *point, *name;
	unsigned n = 0;

	assert_se(sd_bus_message_enter_container(m, 'a', "(tstsa{sv})") > 0);
	while (sd_bus_message_enter_container(m, 'r', "tstsa{sv}") > 0) {
		assert_se(sd_bus_message_read(m, "tsts", &gen, &kind, &id, &point) > 0);
		assert_se(gen == batch_generation + 1);
		assert_se(id > 0 && point[0] == '/');
		if (n++ == 0)
			first = gen;
		batch_generation = gen;
		assert_se(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
		while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
			const uint64_t *also;
			const char *v;
			size_t size;

			assert_se(sd_bus_message_read(m, "s", &name) > 0);
			if ((streq_ptr(name, "FsType") || streq_ptr(name, "Options")) &&
			    sd_bus_message_read(m, "v", "s", &v) > 0)
				snprintf(streq_ptr(name, "FsType") ? batch_fstype : batch_options, 32, "%s", v);
			else if (streq_ptr(name, "AlsoRemoved")) {
				/* A run: the others' IDs, distinct, each at the next generation. */
				assert_se(streq_ptr(kind, "removed"));
				assert_se(sd_bus_message_enter_container(m, 'v', "at") > 0);
				assert_se(sd_bus_message_read_array(m, 't', (const void **)&also, &size) >= 0);
				assert_se(size > 0 && size % sizeof(uint64_t) == 0);
				for (size_t i = 0; i < size / sizeof(uint64_t); i++)
					assert_se(also[i] > 0 && also[i] != id && (i == 0 || also[i] != also[i - 1]));
				batch_generation += size / sizeof(uint64_t);
				batch_removed += size / sizeof(uint64_t);
				if (1 + size / sizeof(uint64_t) > batch_longest_run)
					batch_longest_run = 1 + size / sizeof(uint64_t);
				assert_se(sd_bus_message_exit_container(m) >= 0);
			} else
				assert_se(sd_bus_message_skip(m, "v") >= 0);
			assert_se(sd_bus_message_exit_container(m) >= 0);
		}
		assert_se(sd_bus_message_exit_container(m) >= 0);
		assert_se(sd_bus_message_exit_container(m) >= 0);
		if (streq_ptr(kind, "added"))
			batch_added++;
		else if (streq_ptr(kind, "removed"))
			batch_removed++;
		else {
			assert_se(streq_ptr(kind, "changed"));
			batch_changed++;
		}
	}
	assert_se(sd_bus_message_exit_container(m) >= 0);
	assert_se(sd_bus_message_read(m, "tt", &gen, &last) > 0);
	assert_se(n > 0 && gen == first && last == batch_generation);
	batch_messages++;
	if (n > batch_largest)
		batch_largest = n;
	resynced_after_batch = false;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *member = sd_bus_message_get_member(m);
	uint64_t id, gen;
	const char *path, *point;

	if (streq_ptr(member, "MountAdded") || streq_ptr(member, "MountRemoved")) {
		assert_se(sd_bus_message_read(m, "tost", &id, &path, &point, &gen) > 0);
		assert_se(gen == last_generation + 1);
		last_generation = gen;
		if (member[5] == 'A')
			signals_added++;
		else
			signals_removed++;
	} else if (streq_ptr(member, "MountChanged")) {
		assert_se(sd_bus_message_skip(m, "toas") >= 0);
		assert_se(sd_bus_message_read(m, "t", &gen) > 0);
		assert_se(gen == last_generation + 1);
		last_generation = gen;
		signals_changed++;
	} else if (streq_ptr(member, "MountsChanged"))
		read_batch(m);
	else if (streq_ptr(member, "Resynced")) {
		signals_resynced++;
		resynced_after_batch = true;
	} else if (streq_ptr(member, "InterfacesAdded")) {
		assert_se(sd_bus_message_read(m, "o", &path) > 0);
		read_interface_names(m, true, ifaces_added_names, sizeof(ifaces_added_names));
		assert_se(sd_bus_message_rewind(m, true) >= 0);
		assert_se(sd_bus_message_read(m, "o", &path) > 0);
		read_interfaces_text(m, ifaces_added_text, sizeof(ifaces_added_text));
		ifaces_added++;
	} else if (streq_ptr(member, "InterfacesRemoved")) {
		assert_se(sd_bus_message_read(m, "o", &path) > 0);
		read_interface_names(m, false, ifaces_removed_names, sizeof(ifaces_removed_names));
		ifaces_removed++;
	}
	else if (streq_ptr(member, "PropertiesChanged"))
		props_changed++;
	return 0;
}

static int wait_done;

static int on_wait_reply(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *path;

	assert_se(!sd_bus_message_is_method_error(m, NULL));
	assert_se(sd_bus_message_read(m, "o", &path) > 0);
	assert_se(strncmp(path, MW_MOUNT_PREFIX "/", strlen(MW_MOUNT_PREFIX) + 1) == 0);
	wait_done = 1;
	return 0;
}

static void pump(void)
{
	/* Let the signals that followed the last reply arrive. */
	for (int i = 0; i < 50; i++) {
		int r = sd_bus_process(client, NULL);

		assert_se(r >= 0);
		if (r == 0 && sd_bus_wait(client, 20000) == 0)
			break;
	}
}

static void pump_batches(uint64_t generation)
{
	for (int i = 0; i < 500 && batch_generation < generation; i++)
		pump();
}

static int call(sd_bus_message **reply, sd_bus_error *error, const char *iface, const char *member,
		const char *sig, ...)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	va_list ap;

	assert_se(sd_bus_message_new_method_call(client, &m, NULL, MW_MANAGER_PATH, iface, member) >= 0);
	if (sig) {
		va_start(ap, sig);
		assert_se(sd_bus_message_appendv(m, sig, ap) >= 0);
		va_end(ap);
	}
	return sd_bus_call(client, m, 5 * 1000000ULL, error, reply);
}

/* Mounts name on the fake kernel and unmounts it again, letting the signals arrive. */
static void mount_umount(const char *name)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	uint64_t id;

	assert_se(call(&reply, &error, TEST_IFACE, "Mount", "s", name) >= 0);
	assert_se(sd_bus_message_read(reply, "t", &id) > 0);
	reply = sd_bus_message_unref(reply);
	pump();
	assert_se(call(&reply, &error, TEST_IFACE, "Umount", "t", id) >= 0);
	pump();
}

static uint64_t get_u64(const char *path, const char *iface, const char *prop)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint64_t v;

	assert_se(sd_bus_get_property_trivial(client, NULL, path, iface, prop, &e, 't', &v) >= 0);
	return v;
}

static char *get_string(const char *path, const char *iface, const char *prop)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *s = NULL;

	assert_se(sd_bus_get_property_string(client, NULL, path, iface, prop, &e, &s) >= 0);
	return s;
}

static int notify_fd = -1;
static char notify_dir[] = "/tmp/test-manager-bus.XXXXXX", notify_path[64];
static char notify_log[4096]; /* every sd_notify() message of the server so far */

static void notify_close(void)
{
	(void)unlink(notify_path);
	(void)rmdir(notify_dir);
}

/* Opens a socket for the server's sd_notify() and points NOTIFY_SOCKET at it. */
static void notify_open(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	assert_se(mkdtemp(notify_dir));
	snprintf(notify_path, sizeof(notify_path), "%s/notify", notify_dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", notify_path);
	assert_se(atexit(notify_close) == 0);
	notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	assert_se(notify_fd >= 0);
	assert_se(bind(notify_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	assert_se(setenv("NOTIFY_SOCKET", sa.sun_path, 1) == 0);
}

/* Appends what the server sent since the last call to notify_log; returns the new part. */
static const char *notify_read(void)
{
	size_t start = strlen(notify_log);
	char buf[1024];
	ssize_t n;

	while ((n = recv(notify_fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = 0;
		assert_se(strlen(notify_log) + (size_t)n + 2 < sizeof(notify_log));
		strcat(notify_log, buf);
		strcat(notify_log, "\n");
	}
	return notify_log + start;
}

static int get_bool(const char *path, const char *iface, const char *prop)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int v;

	assert_se(sd_bus_get_property_trivial(client, NULL, path, iface, prop, &e, 'b', &v) >= 0);
	return v;
}

/* The interfaces GetManagedObjects lists for object, as read_interface_names() writes them; 0 if absent. */
static int managed_interfaces(const char *object, char *buf, size_t size, char *text, size_t text_size)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	const char *path;
	int found = 0;

	assert_se(sd_bus_call_method(client, NULL, MW_MANAGER_PATH, "org.freedesktop.DBus.ObjectManager",
				     "GetManagedObjects", &error, &reply, NULL) >= 0);
	assert_se(sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}") > 0);
	while (sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}") > 0) {
		assert_se(sd_bus_message_read(reply, "o", &path) > 0);
		if (streq_ptr(path, object) && text) {
			/* One pass: the text, and the names from its lines. */
			read_interfaces_text(reply, text, text_size);
			interface_names_of_text(text, buf, size);
			found = 1;
		} else if (streq_ptr(path, object)) {
			read_interface_names(reply, true, buf, size);
			found = 1;
		} else
			assert_se(sd_bus_message_skip(reply, "a{sa{sv}}") >= 0);
		assert_se(sd_bus_message_exit_container(reply) >= 0);
	}
	return found;
}

/* Prints the introspection XML of the manager object and of one mount object. */
static int introspect(void)
{
	const char *paths[2] = { MW_MANAGER_PATH, NULL };
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *xml, *object;
	uint64_t gen;

	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "ListMounts", NULL) >= 0);
	assert_se(sd_bus_message_read(reply, "t", &gen) > 0);
	assert_se(sd_bus_message_enter_container(reply, 'a', "(totsss)") > 0);
	assert_se(sd_bus_message_read(reply, "(totsss)", NULL, &object, NULL, NULL, NULL, NULL) > 0);
	paths[1] = object;
	for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
		sd_bus_message *x = NULL;

		assert_se(sd_bus_call_method(client, NULL, paths[i], "org.freedesktop.DBus.Introspectable",
					  "Introspect", &error, &x, NULL) >= 0);
		assert_se(sd_bus_message_read(x, "s", &xml) > 0);
		fputs(xml, stdout);
		sd_bus_message_unref(x);
	}
	sd_bus_message_unref(reply);
	return 0;
}

/*
 * ListMountsByFileDescriptor against ListMounts: the same generation, the
 * same mounts in the same order with the same six fields, each line as many
 * fields as the header names, the columns every Mount property; the memfd
 * sealed against every change. With limit, ListMountsByFileDescriptor is
 * called while the daemon refuses ListMounts (a reply limit that small),
 * and ListMounts after the limit is lifted. Returns the number of mounts.
 */
static unsigned check_list_by_fd(uint64_t limit, const char *raw_needle)
{
	sd_bus_message *reply = NULL, *fd_reply = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *text = NULL;
	char *header[_MW_FIELD_MAX + 2], *fields[ELEMENTSOF(header)], *line, *next;
	const char *path, *point, *fstype, *source;
	uint64_t gen, fd_gen, id, parent;
	size_t size = 0, len;
	unsigned n = 0;
	int fd, ncols;
	struct stat st;

	if (limit) {
		assert_se(call(&reply, &error, TEST_IFACE, "SetReplyLimit", "t", limit) >= 0);
		reply = sd_bus_message_unref(reply);
		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "ListMounts", NULL) < 0);
		assert_se(sd_bus_error_has_name(&error, SD_BUS_ERROR_LIMITS_EXCEEDED));
		sd_bus_error_free(&error);
	}
	assert_se(call(&fd_reply, &error, MW_MANAGER_IFACE, "ListMountsByFileDescriptor", NULL) >= 0);
	assert_se(sd_bus_message_read(fd_reply, "th", &fd_gen, &fd) > 0);
	if (limit) {
		assert_se(call(&reply, &error, TEST_IFACE, "SetReplyLimit", "t", (uint64_t)0) >= 0);
		reply = sd_bus_message_unref(reply);
	}

	/*
	 * Read-only, and sealed: a writable open of the same file (it is
	 * shared by every caller in this generation) can neither write nor
	 * resize it nor add a seal; the content is fixed for good.
	 */
	assert_se((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY);
	assert_se(pwrite(fd, "x", 1, 0) < 0 && errno == EBADF);
	assert_se(fcntl(fd, F_GET_SEALS) == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL));
	assert_se(fstat(fd, &st) == 0 && st.st_size > 0);
	{
		char proc[64];
		_cleanup_close_ int rw = -1;

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		rw = open(proc, O_RDWR | O_CLOEXEC);
		assert_se(rw >= 0);
		assert_se(pwrite(rw, "x", 1, 0) < 0 && errno == EPERM);
		assert_se(ftruncate(rw, 0) < 0 && errno == EPERM);
		assert_se(ftruncate(rw, st.st_size + 4096) < 0 && errno == EPERM);
		assert_se(fcntl(rw, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) < 0 && errno == EPERM);
		assert_se(mmap(NULL, (size_t)st.st_size, PROT_WRITE, MAP_SHARED, rw, 0) == MAP_FAILED);
	}
	assert_se(lseek(fd, 0, SEEK_CUR) == 0);
	assert_se(read_full(fd, &text, &size, &len) == 0 && len == (size_t)st.st_size);
	/* At the same generation the next caller gets the same memory, in an open file of its own. */
	{
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *again = NULL;
		uint64_t gen2;
		struct stat st2;
		int fd2;

		assert_se(call(&again, &error, MW_MANAGER_IFACE, "ListMountsByFileDescriptor", NULL) >= 0);
		assert_se(sd_bus_message_read(again, "th", &gen2, &fd2) > 0);
		assert_se(gen2 != fd_gen || (fstat(fd2, &st2) == 0 && st2.st_ino == st.st_ino));
		char c;
		off_t at = lseek(fd, 0, SEEK_CUR);

		assert_se(lseek(fd2, 0, SEEK_CUR) == 0 && read(fd2, &c, 1) == 1);
		assert_se(lseek(fd, 0, SEEK_CUR) == at);
	}
	fd_reply = sd_bus_message_unref(fd_reply);
	assert_se(!raw_needle || strstr(text, raw_needle));

	/* The header: the object path, then every Mount property in the table's order. */
	next = strchr(text, '\n');
	assert_se(next && text[len - 1] == '\n');
	*next++ = 0;
	ncols = text_split(text, header, ELEMENTSOF(header));
	assert_se(ncols == _MW_FIELD_MAX + 1 && streq_ptr(header[0], MW_TABLE_OBJECT_PATH));
	for (unsigned p = 0; p < _MW_FIELD_MAX; p++)
		assert_se(streq_ptr(header[p + 1], mount_property_name(p)));

	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "ListMounts", NULL) >= 0);
	assert_se(sd_bus_message_read(reply, "t", &gen) > 0 && gen == fd_gen);
	assert_se(sd_bus_message_enter_container(reply, 'a', "(totsss)") > 0);
	while (sd_bus_message_read(reply, "(totsss)", &id, &path, &parent, &point, &fstype, &source) > 0) {
		char num[32];

		line = next;
		assert_se(*line);
		next = strchr(line, '\n');
		*next++ = 0;
		assert_se(text_split(line, fields, ELEMENTSOF(fields)) == ncols);
		snprintf(num, sizeof(num), "%" PRIu64, id);
		assert_se(streq_ptr(fields[1 + MW_FIELD_UNIQUE_ID], num));
		assert_se(streq_ptr(fields[0], path));
		snprintf(num, sizeof(num), "%" PRIu64, parent);
		assert_se(streq_ptr(fields[1 + MW_FIELD_PARENT_UNIQUE_ID], num));
		/* The table holds the kernel's bytes, the strings their escaped display. */
		{
			_cleanup_free_ char *raw = strdup(point);

			assert_se(raw && streq_ptr(fields[1 + MW_FIELD_MOUNT_POINT], unescape_octal(raw)));
		}
		assert_se(streq_ptr(fields[1 + MW_FIELD_FS_TYPE], fstype));
		assert_se(streq_ptr(fields[1 + MW_FIELD_SOURCE], source));
		assert_se(streq_ptr(fields[1 + MW_FIELD_OPTIONS], "rw,relatime"));
		assert_se(streq_ptr(fields[1 + MW_FIELD_READ_ONLY], "false"));
		n++;
	}
	assert_se(*next == 0); /* no line more than ListMounts has */
	reply = sd_bus_message_unref(reply);
	return n;
}

/* A daemon on the fake kernel in a child, and client a direct connection to it. */
static pid_t connect_server(bool pass_fds)
{
	int fds[2];
	pid_t pid;

	assert_se(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
	pid = fork();
	assert_se(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		server(fds[1]);
	}
	close(fds[1]);
	assert_se(sd_bus_new(&client) == 0);
	assert_se(sd_bus_set_fd(client, fds[0], fds[0]) == 0);
	assert_se(sd_bus_set_anonymous(client, 1) == 0);
	assert_se(sd_bus_negotiate_fds(client, pass_fds) == 0);
	assert_se(sd_bus_start(client) == 0);
	return pid;
}

/*
 * A peer whose connection does not pass fds gets NotSupported from
 * ListMountsByFileDescriptor, and the daemon goes on serving it.
 */
static void check_list_by_fd_without_fd_passing(void)
{
	sd_bus_message *reply = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus *saved = client;
	int status;
	pid_t pid;

	pid = connect_server(false);
	assert_se(sd_bus_can_send(client, SD_BUS_TYPE_UNIX_FD) == 0);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "ListMountsByFileDescriptor", NULL) < 0);
	assert_se(sd_bus_error_has_name(&error, SD_BUS_ERROR_NOT_SUPPORTED));
	assert_se(strstr(error.message, "file descriptors") && strstr(error.message, "ListMounts"));
	sd_bus_error_free(&error);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "ListMounts", NULL) >= 0);
	reply = sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(client);
	client = saved;
	assert_se(waitpid(pid, &status, 0) == pid);
	assert_se(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char *argv[])
{
	sd_bus_message *reply = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	const char *path, *point, *fstype, *source;
	uint64_t gen, gen0, id, parent, new_id;
	int status;
	unsigned n = 0;
	char *s, obj[64];
	uint32_t u, a, rm, c;
	pid_t pid;

	log_max_level = LOG_WARNING;
	if (argc > 1 && streq_ptr(argv[1], "--serve"))
		server(-1);
	notify_open();
	pid = connect_server(true);
	assert_se(sd_bus_add_match(client, NULL, "type='signal'", on_signal, NULL) >= 0);
	if (argc > 1 && streq_ptr(argv[1], "--introspect"))
		return introspect();

	/* Manager properties. */
	s = get_string(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Version");
	assert_se(strcmp(s, MOUNTWATCH_VERSION) == 0);
	free(s);
	s = get_string(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Backend");
	assert_se(strcmp(s, "fake") == 0);
	free(s);
	s = get_string(MW_MANAGER_PATH, MW_MANAGER_IFACE, "WatchedPath");
	assert_se(strcmp(s, "/") == 0);
	free(s);
	assert_se(sd_bus_get_property_trivial(client, NULL, MW_MANAGER_PATH, MW_MANAGER_IFACE, "MountCount",
					   &error, 'u', &u) >= 0 && u == 3);
	assert_se(get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation") == 0);
	printf("ok - manager properties\n");

	/*
	 * No method is left to sd-bus's own check, which refuses callers without
	 * CAP_SYS_ADMIN whatever the bus policy says: sd-bus marks such methods
	 * with this annotation in the introspection data.
	 */
	assert_se(call(&reply, &error, "org.freedesktop.DBus.Introspectable", "Introspect", NULL) >= 0);
	assert_se(sd_bus_message_read(reply, "s", &point) > 0);
	point = strstr(point, "<interface name=\"" MW_MANAGER_IFACE "\">");
	assert_se(point && strstr(point, "</interface>"));
	n = (unsigned)(strstr(point, "</interface>") - point);
	assert_se(memmem(point, n, "\"Resync\"", 8) && memmem(point, n, "\"ListMounts\"", 12));
	assert_se(!memmem(point, n, "org.freedesktop.systemd1.Privileged", 35));
	n = 0;
	reply = sd_bus_message_unref(reply);
	printf("ok - every method is callable as far as sd-bus goes; the bus policy decides\n");

	/* ListMounts. */
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "ListMounts", NULL) >= 0);
	assert_se(sd_bus_message_read(reply, "t", &gen) > 0 && gen == 0);
	assert_se(sd_bus_message_enter_container(reply, 'a', "(totsss)") > 0);
	while (sd_bus_message_read(reply, "(totsss)", &id, &path, &parent, &point, &fstype, &source) > 0) {
		mount_object_path(id, obj);
		assert_se(strcmp(path, obj) == 0);
		n++;
	}
	assert_se(n == 3);
	reply = sd_bus_message_unref(reply);
	printf("ok - ListMounts returns the generation and every mount\n");

	assert_se(check_list_by_fd(0, NULL) == 3);
	printf("ok - ListMountsByFileDescriptor: a sealed memfd with ListMounts' mounts and generation\n");
	check_list_by_fd_without_fd_passing();
	printf("ok - ListMountsByFileDescriptor without fd passing: NotSupported, the daemon serves on\n");

	/* GetMountByPath, GetMount, per-mount properties. */
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "GetMountByPath", "s", "//home/") >= 0);
	assert_se(sd_bus_message_read(reply, "o", &path) > 0);
	s = get_string(path, MW_MOUNT_IFACE, "MountPoint");
	assert_se(strcmp(s, "/home") == 0);
	free(s);
	s = get_string(path, MW_MOUNT_IFACE, "Options");
	assert_se(strcmp(s, "rw,relatime") == 0);
	free(s);
	id = get_u64(path, MW_MOUNT_IFACE, "UniqueId");
	reply = sd_bus_message_unref(reply);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "GetMount", "t", id) >= 0);
	reply = sd_bus_message_unref(reply);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "GetMount", "t", (uint64_t)12345) < 0);
	assert_se(sd_bus_error_has_name(&error, MW_ERROR_NO_SUCH_MOUNT));
	sd_bus_error_free(&error);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "GetMountByPath", "s", "relative") < 0);
	assert_se(sd_bus_error_has_name(&error, SD_BUS_ERROR_INVALID_ARGS));
	sd_bus_error_free(&error);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "GetMountByPath", "s", "/nothing") < 0);
	assert_se(sd_bus_error_has_name(&error, MW_ERROR_NO_SUCH_MOUNT));
	sd_bus_error_free(&error);
	printf("ok - GetMount, GetMountByPath, per-mount properties and their errors\n");

	/* Nobody listens yet: a change costs no per-mount signal at all. */
	gen0 = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation");
	mount_umount("quiet");
	assert_se(signals_added + signals_removed + ifaces_added + ifaces_removed == 0);
	assert_se(get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation") == gen0 + 2);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Unsubscribe", NULL) < 0);
	assert_se(sd_bus_error_has_name(&error, MW_ERROR_NOT_SUBSCRIBED));
	sd_bus_error_free(&error);
	printf("ok - without a subscriber no per-mount signal is sent; Unsubscribe() first: NotSubscribed\n");

	/* ObjectManager. */
	assert_se(call(&reply, &error, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", NULL) >= 0);
	n = 0;
	assert_se(sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}") > 0);
	while (sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}") > 0) {
		assert_se(sd_bus_message_read(reply, "o", &path) > 0);
		if (strncmp(path, MW_MOUNT_PREFIX "/", strlen(MW_MOUNT_PREFIX) + 1) == 0)
			n++;
		assert_se(sd_bus_message_skip(reply, "a{sa{sv}}") >= 0);
		assert_se(sd_bus_message_exit_container(reply) >= 0);
	}
	assert_se(n == 3);
	reply = sd_bus_message_unref(reply);
	printf("ok - GetManagedObjects lists every mount object\n");

	/* Its caller is an ObjectManager client: it gets the ObjectManager's signals, not the Manager's. */
	mount_umount("om");
	assert_se(ifaces_added == 1 && ifaces_removed == 1 && signals_added + signals_removed == 0);
	printf("ok - after GetManagedObjects: InterfacesAdded/Removed, no MountAdded/Removed\n");

	/* Subscribe(): every per-mount signal; a second call changes nothing. */
	for (int i = 0; i < 2; i++) {
		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Subscribe", NULL) >= 0);
		reply = sd_bus_message_unref(reply);
	}
	signals_added = signals_removed = signals_changed = ifaces_added = ifaces_removed = props_changed = 0;
	last_generation = gen0 = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation");

	/* Changes: signals after the state, with consecutive generations. */
	assert_se(call(&reply, &error, TEST_IFACE, "Mount", "s", "mnt") >= 0);
	assert_se(sd_bus_message_read(reply, "t", &new_id) > 0);
	reply = sd_bus_message_unref(reply);
	pump();
	assert_se(signals_added == 1 && ifaces_added == 1 && last_generation == gen0 + 1);
	assert_se(call(&reply, &error, TEST_IFACE, "SetAttr", "tt", new_id, (uint64_t)1) >= 0);
	reply = sd_bus_message_unref(reply);
	pump();
	assert_se(signals_changed == 1 && props_changed == 1 && last_generation == gen0 + 2);
	mount_object_path(new_id, obj);
	s = get_string(obj, MW_MOUNT_IFACE, "Options");
	assert_se(strcmp(s, "ro,relatime") == 0);
	free(s);
	assert_se(call(&reply, &error, TEST_IFACE, "Umount", "t", new_id) >= 0);
	reply = sd_bus_message_unref(reply);
	pump();
	assert_se(signals_removed == 1 && ifaces_removed == 1 && last_generation == gen0 + 3);
	assert_se(get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation") == gen0 + 3);
	printf("ok - MountAdded/Changed/Removed, InterfacesAdded/Removed, PropertiesChanged, generations\n");

	/*
	 * InterfacesAdded and InterfacesRemoved name what GetManagedObjects
	 * lists, or an ObjectManager client keeps removed objects: checked on a
	 * mount that existed before (/home) and on a new one.
	 */
	{
		char managed[512], managed_text[4096];
		uint64_t home_id;

		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "GetMountByPath", "s", "/home") >= 0);
		assert_se(sd_bus_message_read(reply, "o", &path) > 0);
		home_id = get_u64(path, MW_MOUNT_IFACE, "UniqueId");
		reply = sd_bus_message_unref(reply);
		mount_object_path(home_id, obj);
		assert_se(managed_interfaces(obj, managed, sizeof(managed), NULL, 0) == 1);
		assert_se(strstr(managed, MW_MOUNT_IFACE));
		assert_se(call(&reply, &error, TEST_IFACE, "Umount", "t", home_id) >= 0);
		reply = sd_bus_message_unref(reply);
		pump();
		assert_se(ifaces_removed == 2);
		assert_se(strcmp(ifaces_removed_names, managed) == 0);
		assert_se(managed_interfaces(obj, managed, sizeof(managed), NULL, 0) == 0);

		assert_se(call(&reply, &error, TEST_IFACE, "Mount", "s", "home") >= 0);
		assert_se(sd_bus_message_read(reply, "t", &home_id) > 0);
		reply = sd_bus_message_unref(reply);
		pump();
		assert_se(ifaces_added == 2);
		mount_object_path(home_id, obj);
		assert_se(managed_interfaces(obj, managed, sizeof(managed), managed_text, sizeof(managed_text)) == 1);
		assert_se(strcmp(ifaces_added_names, managed) == 0);
		/* Every property with the same value, in the same order. */
		if (strcmp(ifaces_added_text, managed_text) != 0)
			fprintf(stderr, "InterfacesAdded:\n%sGetManagedObjects:\n%s", ifaces_added_text, managed_text);
		assert_se(strcmp(ifaces_added_text, managed_text) == 0);
		assert_se(strstr(managed_text, "ChangeCount=") && strstr(managed_text, "MountPoint=\"/home\""));
		assert_se(call(&reply, &error, TEST_IFACE, "Umount", "t", home_id) >= 0);
		reply = sd_bus_message_unref(reply);
		pump();
		assert_se(ifaces_removed == 3);
		assert_se(strcmp(ifaces_removed_names, managed) == 0);
		last_generation = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation");
	}
	printf("ok - InterfacesAdded and InterfacesRemoved name the interfaces GetManagedObjects lists\n");

	/* Unsubscribe(): the Manager's signals stop; the ObjectManager client's go on. */
	{
		unsigned added = signals_added, removed = signals_removed, ifaces = ifaces_added;

		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Unsubscribe", NULL) >= 0);
		reply = sd_bus_message_unref(reply);
		mount_umount("unsubscribed");
		assert_se(signals_added == added && signals_removed == removed && ifaces_added == ifaces + 1);
		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Unsubscribe", NULL) < 0);
		assert_se(sd_bus_error_has_name(&error, MW_ERROR_NOT_SUBSCRIBED));
		sd_bus_error_free(&error);
		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Subscribe", NULL) >= 0);
		reply = sd_bus_message_unref(reply);
		last_generation = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation");
		mount_umount("subscribed");
		assert_se(signals_added == added + 1 && signals_removed == removed + 1);
	}
	printf("ok - Unsubscribe() stops MountAdded/Removed, not InterfacesAdded; again: NotSubscribed\n");

	/*
	 * SubscribeBatched(): a burst of 50 mounts, read at once, then their
	 * umount, at most 7 entries a message: ceil(50 / 7) = 8 MountsChanged
	 * for the mounts, and one for their umount, whose 50 removals are one
	 * entry (AlsoRemoved: 49 IDs); every change in order with the
	 * generations after the snapshot's, and no MountAdded/Removed
	 * (Subscribe() ended). Then a change's new values; after Unsubscribe()
	 * nothing more.
	 */
	{
		unsigned added = signals_added, removed = signals_removed;

		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Unsubscribe", NULL) >= 0);
		reply = sd_bus_message_unref(reply);
		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "SubscribeBatched", NULL) >= 0);
		reply = sd_bus_message_unref(reply);
		assert_se(call(&reply, &error, TEST_IFACE, "SetBatchLimit", "u", (uint32_t)7) >= 0);
		reply = sd_bus_message_unref(reply);
		batch_generation = gen0 = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation");
		assert_se(call(&reply, &error, TEST_IFACE, "Burst", "sub", "batch", (uint32_t)50, 0) >= 0);
		reply = sd_bus_message_unref(reply);
		pump_batches(gen0 + 50);
		assert_se(batch_added == 50 && batch_messages >= 8);
		assert_se(call(&reply, &error, TEST_IFACE, "Burst", "sub", "", (uint32_t)0, 1) >= 0);
		reply = sd_bus_message_unref(reply);
		pump_batches(gen0 + 100);
		assert_se(get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation") == gen0 + 100);
		assert_se(batch_generation == gen0 + 100 && batch_added == 50 && batch_removed == 50);
		assert_se(batch_messages == 9 && batch_largest == 7 && batch_longest_run == 50);
		assert_se(strcmp(batch_fstype, "tmpfs") == 0);
		assert_se(signals_added == added && signals_removed == removed);
		printf("ok - SubscribeBatched(): 50 mounts in 8 MountsChanged of at most 7 entries, their umount in one "
		       "entry, in order\n");

		assert_se(call(&reply, &error, TEST_IFACE, "Mount", "s", "batchattr") >= 0);
		assert_se(sd_bus_message_read(reply, "t", &new_id) > 0);
		reply = sd_bus_message_unref(reply);
		assert_se(call(&reply, &error, TEST_IFACE, "SetAttr", "tt", new_id, (uint64_t)1) >= 0);
		reply = sd_bus_message_unref(reply);
		assert_se(call(&reply, &error, TEST_IFACE, "Umount", "t", new_id) >= 0);
		reply = sd_bus_message_unref(reply);
		pump();
		assert_se(batch_messages == 12 && batch_changed == 1 && batch_generation == gen0 + 103);
		assert_se(strcmp(batch_options, "ro,relatime") == 0);
		printf("ok - MountsChanged: a change carries its new values\n");

		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Unsubscribe", NULL) >= 0);
		reply = sd_bus_message_unref(reply);
		mount_umount("unbatched");
		assert_se(batch_messages == 12);
		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Unsubscribe", NULL) < 0);
		assert_se(sd_bus_error_has_name(&error, MW_ERROR_NOT_SUBSCRIBED));
		sd_bus_error_free(&error);
		assert_se(call(&reply, &error, TEST_IFACE, "SetBatchLimit", "u", (uint32_t)0) >= 0);
		reply = sd_bus_message_unref(reply);
		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Subscribe", NULL) >= 0);
		reply = sd_bus_message_unref(reply);
		last_generation = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation");
		printf("ok - Unsubscribe() ends SubscribeBatched(): no MountsChanged\n");
	}

	/* WaitForMount: at once, later, and timing out. */
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "WaitForMount", "st", "/boot", (uint64_t)1000) >= 0);
	reply = sd_bus_message_unref(reply);
	{
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *w = NULL;
		sd_bus_slot *slot = NULL;

		assert_se(sd_bus_message_new_method_call(client, &w, NULL, MW_MANAGER_PATH, MW_MANAGER_IFACE,
						      "WaitForMount") >= 0);
		assert_se(sd_bus_message_append(w, "st", "/later", (uint64_t)0) >= 0);
		assert_se(sd_bus_call_async(client, &slot, w, on_wait_reply, NULL, 0) >= 0);
		pump();
		assert_se(!wait_done);
		/* Mount it: the pending wait is answered. */
		assert_se(call(&reply, &error, TEST_IFACE, "Mount", "s", "later") >= 0);
		reply = sd_bus_message_unref(reply);
		pump();
		assert_se(wait_done);
		sd_bus_slot_unref(slot);
	}
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "WaitForMount", "st", "/never", (uint64_t)200000) < 0);
	assert_se(sd_bus_error_has_name(&error, MW_ERROR_TIMEOUT));
	sd_bus_error_free(&error);
	printf("ok - WaitForMount answers at once, when the mount appears, and times out with Error.Timeout\n");

	/*
	 * A reply with the whole table that could pass the bus's message limit
	 * is refused with LimitsExceeded (the bus would disconnect the daemon
	 * for sending it); the connection stays.
	 */
	assert_se(call(&reply, &error, TEST_IFACE, "SetReplyLimit", "t", (uint64_t)1000) >= 0);
	reply = sd_bus_message_unref(reply);
	assert_se(call(&reply, &error, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", NULL) < 0);
	assert_se(sd_bus_error_has_name(&error, SD_BUS_ERROR_LIMITS_EXCEEDED));
	assert_se(strstr(error.message, "GetManagedObjects") && strstr(error.message, "GetMount"));
	sd_bus_error_free(&error);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "ListMounts", NULL) >= 0); /* smaller: still fits */
	reply = sd_bus_message_unref(reply);
	assert_se(call(&reply, &error, TEST_IFACE, "SetReplyLimit", "t", (uint64_t)100) >= 0);
	reply = sd_bus_message_unref(reply);
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "ListMounts", NULL) < 0);
	assert_se(sd_bus_error_has_name(&error, SD_BUS_ERROR_LIMITS_EXCEEDED));
	sd_bus_error_free(&error);
	assert_se(call(&reply, &error, TEST_IFACE, "SetReplyLimit", "t", (uint64_t)0) >= 0);
	reply = sd_bus_message_unref(reply);
	assert_se(call(&reply, &error, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", NULL) >= 0);
	reply = sd_bus_message_unref(reply);
	printf("ok - ListMounts and GetManagedObjects refuse a reply too large for the bus with LimitsExceeded\n");

	/* Resync (the peer is root here: it runs the test). */
	assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Resync", NULL) >= 0 || geteuid() != 0);
	if (reply) {
		assert_se(sd_bus_message_read(reply, "uuu", &a, &rm, &c) > 0);
		assert_se(a == 0 && rm == 0 && c == 0);
		reply = sd_bus_message_unref(reply);
		pump();
		assert_se(signals_resynced == 1);
		assert_se(get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Resyncs") == 1);
		printf("ok - Resync from root: nothing to fix, Resynced emitted\n");

		/* A resync that fails: ResyncPending and STATUS= say so until the retry succeeds. */
		assert_se(!get_bool(MW_MANAGER_PATH, MW_MANAGER_IFACE, "ResyncPending"));
		(void)notify_read();
		assert_se(call(&reply, &error, TEST_IFACE, "FailListings", "u", (uint32_t)1) >= 0);
		reply = sd_bus_message_unref(reply);
		assert_se(call(&reply, &error, MW_MANAGER_IFACE, "Resync", NULL) < 0);
		sd_bus_error_free(&error);
		assert_se(get_bool(MW_MANAGER_PATH, MW_MANAGER_IFACE, "ResyncPending"));
		assert_se(strstr(notify_read(), "STATUS=Failed to resynchronise (Input/output error), retrying"));
		/* The retry comes from the daemon's own timer: no call, no mount change needed. */
		for (unsigned i = 0; i < 1500 && get_bool(MW_MANAGER_PATH, MW_MANAGER_IFACE, "ResyncPending"); i++)
			usleep(20000);
		assert_se(!get_bool(MW_MANAGER_PATH, MW_MANAGER_IFACE, "ResyncPending"));
		assert_se(get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Resyncs") == 2);
		assert_se(strstr(notify_read(), "STATUS=Watching "));
		printf("ok - a failed resync: ResyncPending and STATUS= say so, the daemon retries by itself\n");
	} else {
		assert_se(sd_bus_error_has_name(&error, SD_BUS_ERROR_ACCESS_DENIED));
		sd_bus_error_free(&error);
		printf("ok - Resync from a non-root peer is refused\n");
	}

	/*
	 * A storm: the daemon answers a call in the middle of it, and goes on
	 * by itself (its timer) until every record is applied.
	 */
	{
		uint64_t before = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation"), during, after = 0;

		assert_se(call(&reply, &error, TEST_IFACE, "Storm", "u", (uint32_t)3000) >= 0);
		reply = sd_bus_message_unref(reply);
		during = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation");
		for (unsigned i = 0; i < 1500 && after < before + 3000; i++) {
			after = get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Generation");
			if (after < before + 3000)
				usleep(20000);
		}
		assert_se(during < before + 3000);
		assert_se(after == before + 3000);
		assert_se(get_u64(MW_MANAGER_PATH, MW_MANAGER_IFACE, "Overruns") == 0);
		printf("ok - a storm of 3000 records: a call is answered half way (%" PRIu64
		       " applied), the rest follows by itself\n", during - before);
	}

	/* The whole table where ListMounts is refused, odd bytes in a mount point too. */
	{
		uint64_t count, odd;

		assert_se(call(&reply, &error, TEST_IFACE, "Mount", "s", "odd\ttab\nline\\back\033esc") >= 0);
		assert_se(sd_bus_message_read(reply, "t", &odd) > 0);
		reply = sd_bus_message_unref(reply);
		assert_se(sd_bus_get_property_trivial(client, NULL, MW_MANAGER_PATH, MW_MANAGER_IFACE,
						   "MountCount", &error, 'u', &u) >= 0);
		count = check_list_by_fd(1000, "/odd\\011tab\\012line\\134back\\033esc\t");
		assert_se(count == u && count > 3000);
		printf("ok - ListMountsByFileDescriptor: %" PRIu64 " mounts where ListMounts is refused, "
		       "odd bytes escaped\n", count);
		assert_se(call(&reply, &error, TEST_IFACE, "Umount", "t", odd) >= 0);
		reply = sd_bus_message_unref(reply);
	}

	sd_bus_flush_close_unref(client);
	assert_se(waitpid(pid, &status, 0) == pid);
	assert_se(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("ok - the server shut down cleanly\n");
	return 0;
}
