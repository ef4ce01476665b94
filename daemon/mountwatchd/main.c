/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountwatchd: keeps an exact mount table from the kernel's mount
 * notifications and exports it on the system bus. main() reads the command
 * line and the config, then sets things up in the order that loses nothing:
 * the watch (libmountwatch picks the backend), snapshot, bus, READY=1.
 */
#include <getopt.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "manager-bus.h"
#include "manager.h"
#include "util.h"

/*
 * Exit statuses beyond 0 and 1 (the LSB's, as systemd.exec(5) lists them),
 * for what a restart cannot fix: the unit's RestartPreventExitStatus= names
 * them, so that systemd does not restart into its start limit.
 */
#define EXIT_NOT_INSTALLED 5  /* no backend works on this kernel */
#define EXIT_NOT_CONFIGURED 6 /* a bad option or configuration file */

static void help(void)
{
	printf("Usage: mountwatchd [OPTIONS]\n"
	       "\n"
	       "Keep the mount table from kernel mount notifications and export it\n"
	       "on the system bus as " MW_BUS_NAME ".\n"
	       "\n"
	       "  -h --help              Show this help and exit\n"
	       "     --version           Show the version and exit\n"
	       "  -c --config=FILE       Configuration file (default " CONFIG_DEFAULT_PATH ")\n"
	       "     --path=PATH         Watch mounts at and below PATH ([Watch] Path=)\n"
	       "     --queue-size=N      Notification queue slots, 1-512 ([Watch] QueueSize=)\n"
	       "     --backend=NAME      Kernel interface ([Watch] Backend=): auto, watch_queue,\n"
	       "                         fanotify or mountinfo\n"
	       "     --log-level=LEVEL   emerg ... debug ([Log] Level=)\n"
	       "     --check-config      Parse the configuration, report errors and exit\n"
	       "     --check-kernel      Exit 0 if the configured backend works on this kernel,\n"
	       "                         1 (and why) if not: the unit's ExecCondition=\n"
	       "\n"
	       "Command-line values override the file, also across reloads (SIGHUP).\n");
}

enum {
	ARG_VERSION = 0x100,
	ARG_PATH,
	ARG_QUEUE_SIZE,
	ARG_BACKEND,
	ARG_LOG_LEVEL,
	ARG_CHECK_CONFIG,
	ARG_CHECK_KERNEL,
};

/* --check-kernel: EXIT_FAILURE when no backend works (the unit is skipped), this for a bad configuration. */
#define EXIT_CONDITION_ERROR 255

/* Returns 1 to go on, 0 to exit successfully (--help), negative on error. */
static int parse_argv(int argc, char *argv[], Config *overrides, char **config_path,
		      bool *check_only, bool *check_kernel)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "config", required_argument, NULL, 'c' },
		{ "path", required_argument, NULL, ARG_PATH },
		{ "queue-size", required_argument, NULL, ARG_QUEUE_SIZE },
		{ "backend", required_argument, NULL, ARG_BACKEND },
		{ "log-level", required_argument, NULL, ARG_LOG_LEVEL },
		{ "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
		{ "check-kernel", no_argument, NULL, ARG_CHECK_KERNEL },
		{}
	};
	const char *why = NULL, *option = NULL;
	int c, r, index = -1;

	while ((c = getopt_long(argc, argv, "hc:", options, &index)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return 0;
		case ARG_VERSION:
			printf("mountwatchd %s\n", MOUNTWATCH_VERSION);
			return 0;
		case 'c':
			if (free_and_strdup(config_path, optarg) < 0)
				return -ENOMEM;
			break;
		case ARG_PATH:
			r = config_set_watch_path(overrides, optarg, &why);
			if (r < 0)
				goto bad;
			break;
		case ARG_QUEUE_SIZE:
			r = config_set_queue_size(overrides, optarg, &why);
			if (r < 0)
				goto bad;
			break;
		case ARG_BACKEND:
			r = config_set_backend(overrides, optarg, &why);
			if (r < 0)
				goto bad;
			break;
		case ARG_LOG_LEVEL:
			r = config_set_log_level(overrides, optarg, &why);
			if (r < 0)
				goto bad;
			break;
		case ARG_CHECK_CONFIG:
			*check_only = true;
			break;
		case ARG_CHECK_KERNEL:
			*check_kernel = true;
			break;
		default:
			return -EINVAL;
		}
	}
	if (optind < argc) {
		log_error("Unexpected argument: %s", argv[optind]);
		return -EINVAL;
	}
	return 1;

bad:
	if (r == -ENOMEM)
		return r;
	option = index >= 0 ? options[index].name : "option";
	log_error("Invalid value for --%s: \"%s\": %s", option, optarg, why);
	return -EINVAL;
}

/*
 * --check-kernel: whether backend ("auto": any) works here, as
 * mw_watcher_probe() finds by opening it. Returns 0, or -EOPNOTSUPP after
 * logging why not.
 */
static int check_backend(const char *backend)
{
	_cleanup_free_ char *why = NULL;
	char *line, *save = NULL;
	int r;

	r = mw_watcher_probe(backend, &why);
	if (r < 0)
		return log_error_errno(r, "Failed to probe the backends: %m");
	for (line = strtok_r(why, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);

		if (n > 4 && streq_ptr(line + n - 4, ": ok")) {
			log_info("Backend=%s works on this kernel (%.*s).", backend, (int)(n - 4), line);
			return 0;
		}
		log_notice("%s", line);
	}
	log_notice("No backend for Backend=%s works on this kernel: not starting.", backend);
	return -EOPNOTSUPP;
}

/* Returns 0, or a negative errno with the exit status in *status (EXIT_FAILURE unless more is known). */
static int run(int argc, char *argv[], int *status)
{
	_cleanup_(manager_freep) Manager *m = NULL;
	_cleanup_(sd_bus_unrefp) sd_bus *bus = NULL; /* the manager keeps its own reference */
	_cleanup_free_ char *error = NULL;
	bool check_only = false, check_kernel = false;
	Config overrides;
	int r;

	log_open();
	r = manager_new(&m);
	if (r < 0)
		return log_error_errno(r, "Failed to allocate the manager: %m");
	r = config_init(&overrides);
	if (r < 0)
		return log_error_errno(r, "Failed to allocate the configuration: %m");
	overrides.set = 0;
	m->overrides = &overrides;

	/* ExecCondition= skips the unit for 1-254: a bad option or configuration must fail it instead. */
	*status = EXIT_NOT_CONFIGURED;
	for (int i = 1; i < argc; i++)
		if (streq_ptr(argv[i], "--check-kernel"))
			*status = EXIT_CONDITION_ERROR;
	r = parse_argv(argc, argv, &overrides, &m->config_path, &check_only, &check_kernel);
	if (r <= 0)
		goto out;

	r = config_load(&m->config, m->config_path ?: CONFIG_DEFAULT_PATH, !m->config_path, &error);
	if (r < 0) {
		if (error)
			log_error("Failed to load configuration: %s", error);
		else
			log_error_errno(r, "Failed to load configuration: %m");
		goto out;
	}
	r = config_override(&m->config, &overrides);
	if (r < 0)
		goto out;
	log_max_level = m->config.log_level;
	if (check_only) {
		printf("Path=%s\nQueueSize=%u\nBackend=%s\nLevel=%s\n", m->config.watch_path,
		       m->config.queue_size, m->config.backend, log_level_to_string(m->config.log_level));
		r = 0;
		goto out;
	}

	if (check_kernel) {
		r = check_backend(m->config.backend);
		*status = EXIT_FAILURE;
		goto out;
	}

	/* Queue, filter, watch: from here on nothing is missed, then the snapshot. */
	*status = EXIT_FAILURE;
	r = manager_open_watcher(m);
	if (r == -EOPNOTSUPP)
		*status = EXIT_NOT_INSTALLED;
	if (r < 0)
		goto out;
	log_info("Watching %zu mounts below %s (%s backend, queue of %u).", mw_watcher_count(m->watcher),
		 m->config.watch_path, mw_watcher_get_backend(m->watcher), m->config.queue_size);

	r = manager_drop_privileges(m);
	if (r < 0)
		goto out;
	r = manager_attach_event(m);
	if (r < 0)
		goto out;
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		log_error_errno(r, "Failed to connect to the system bus: %m");
		goto out;
	}
	r = manager_bus_setup(m, bus);
	if (r < 0)
		goto out;

	manager_notify_status(m, "READY=1\n");
	r = sd_event_loop(m->event);
	(void)sd_notify(false, "STOPPING=1");
	if (r < 0) {
		log_error_errno(r, "Failed to run the event loop: %m");
		goto out;
	}
	r = r == EXIT_SUCCESS ? 0 : -EIO;
out:
	m->overrides = NULL;
	config_done(&overrides);
	return r;
}

int main(int argc, char *argv[])
{
	int status = EXIT_FAILURE, r;

	r = run(argc, argv, &status);
	if (r == -ENOMEM)
		return EXIT_FAILURE; /* whatever it was doing */
	return r < 0 ? status : EXIT_SUCCESS;
}
