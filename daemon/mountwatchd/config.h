/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountwatchd's configuration: CONFIG_DEFAULT_PATH (INI, read
 * with libinih) overridden by command-line flags. Errors name the file, the
 * line and the key.
 */
#ifndef MOUNTWATCH_CONFIG_H
#define MOUNTWATCH_CONFIG_H

#include <stdint.h>

/* CONFIG_DEFAULT_PATH: sysconfdir/mountwatch/mountwatchd.conf, from daemon/meson.build. */
#ifndef CONFIG_DEFAULT_PATH
#error "CONFIG_DEFAULT_PATH is set by the build (daemon/meson.build)"
#endif
#define CONFIG_QUEUE_SIZE_DEFAULT 512

enum {
	CONFIG_SET_WATCH_PATH = 1U << 0,
	CONFIG_SET_QUEUE_SIZE = 1U << 1,
	CONFIG_SET_BACKEND = 1U << 2,
	CONFIG_SET_LOG_LEVEL = 1U << 3,
};

typedef struct Config {
	char *watch_path;    /* [Watch] Path= */
	unsigned queue_size; /* [Watch] QueueSize= */
	char *backend;       /* [Watch] Backend=: "auto" or a backend's name */
	int log_level;       /* [Log] Level= */
	uint32_t set;        /* CONFIG_SET_*: which values were given */
} Config;

int config_init(Config *c);
void config_done(Config *c);

/*
 * Parses the file at path into *c (which starts from config_init()). A
 * missing file is not an error when missing_ok is set. On a bad file or
 * value, returns -EINVAL and a message "FILE:LINE: [Section] Key=...: why"
 * in *error (to be freed); *c is then left unchanged.
 */
int config_load(Config *c, const char *path, int missing_ok, char **error);

/* Setters shared by the file parser and the command line. */
int config_set_watch_path(Config *c, const char *value, const char **why);
int config_set_queue_size(Config *c, const char *value, const char **why);
int config_set_backend(Config *c, const char *value, const char **why);
int config_set_log_level(Config *c, const char *value, const char **why);

/* Copies into dst every value that src has set. */
int config_override(Config *dst, const Config *src);

#endif
