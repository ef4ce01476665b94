/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Config parsing: the libinih callback and the value setters.
 */
#include <ini.h>
#include <stdio.h>
#include <strings.h>

#include "mountwatch/mountwatch.h"

#include "config.h"
#include "util.h"

int config_init(Config *c)
{
	*c = (Config){
		.queue_size = CONFIG_QUEUE_SIZE_DEFAULT,
		.log_level = LOG_INFO,
	};
	c->watch_path = strdup("/");
	c->backend = strdup("auto");
	if (!c->watch_path || !c->backend) {
		config_done(c);
		return -ENOMEM;
	}
	return 0;
}

void config_done(Config *c)
{
	free(c->watch_path);
	free(c->backend);
	*c = (Config){};
}

int config_set_watch_path(Config *c, const char *value, const char **why)
{
	char *p;
	int r;

	r = path_normalize(value, &p);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		*why = "not an absolute path without \"..\"";
		return -EINVAL;
	}
	free(c->watch_path);
	c->watch_path = p;
	c->set |= CONFIG_SET_WATCH_PATH;
	return 0;
}

/* The message below names the bound. */
_Static_assert(MW_QUEUE_SIZE_MAX == 512, "config_set_queue_size()'s message says 512");

int config_set_queue_size(Config *c, const char *value, const char **why)
{
	uint32_t v;

	if (parse_u32(value, &v) < 0 || v < 1 || v > MW_QUEUE_SIZE_MAX) {
		*why = "not a number between 1 and 512";
		return -EINVAL;
	}
	c->queue_size = v;
	c->set |= CONFIG_SET_QUEUE_SIZE;
	return 0;
}

int config_set_backend(Config *c, const char *value, const char **why)
{
	if (!mw_backend_name_is_valid(value)) {
		*why = "unknown backend (known: auto, watch_queue, fanotify, mountinfo)";
		return -EINVAL;
	}
	if (free_and_strdup(&c->backend, value) < 0)
		return -ENOMEM;
	c->set |= CONFIG_SET_BACKEND;
	return 0;
}

int config_set_log_level(Config *c, const char *value, const char **why)
{
	int l = log_level_from_string(value);

	if (l < 0) {
		*why = "not a log level (emerg, alert, crit, err, warning, notice, info, debug)";
		return -EINVAL;
	}
	c->log_level = l;
	c->set |= CONFIG_SET_LOG_LEVEL;
	return 0;
}

int config_override(Config *dst, const Config *src)
{
	if ((src->set & CONFIG_SET_WATCH_PATH) && free_and_strdup(&dst->watch_path, src->watch_path) < 0)
		return -ENOMEM;
	if ((src->set & CONFIG_SET_BACKEND) && free_and_strdup(&dst->backend, src->backend) < 0)
		return -ENOMEM;
	if (src->set & CONFIG_SET_QUEUE_SIZE)
		dst->queue_size = src->queue_size;
	if (src->set & CONFIG_SET_LOG_LEVEL)
		dst->log_level = src->log_level;
	dst->set |= src->set;
	return 0;
}

struct parse_state {
	Config *config;
	char *error; /* the first error, without the "FILE:LINE: " prefix */
	int oom;
};

static const struct {
	const char *section, *key;
	int (*set)(Config *c, const char *value, const char **why);
} config_keys[] = {
	{ "Watch", "Path", config_set_watch_path },
	{ "Watch", "QueueSize", config_set_queue_size },
	{ "Watch", "Backend", config_set_backend },
	{ "Log", "Level", config_set_log_level },
};

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *s = user;
	const char *why = "unknown key";
	bool known_section = false;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(config_keys); i++) {
		if (strcasecmp(section, config_keys[i].section) != 0)
			continue;
		known_section = true;
		if (strcasecmp(name, config_keys[i].key) != 0)
			continue;
		r = config_keys[i].set(s->config, value, &why);
		if (r == -ENOMEM)
			s->oom = 1;
		if (r >= 0)
			return 1;
		break;
	}
	if (!known_section)
		why = "unknown section";
	if (!s->error && asprintf(&s->error, "[%s] %s=%s: %s", section, name, value, why) < 0) {
		s->error = NULL;
		s->oom = 1;
	}
	return 0;
}

int config_load(Config *c, const char *path, int missing_ok, char **error)
{
	struct parse_state s = {};
	Config t;
	FILE *f;
	int r, line;

	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		if (r == -ENOENT && missing_ok)
			return 0;
		if (asprintf(error, "%s: %s", path, strerror(-r)) < 0)
			return -ENOMEM;
		return r;
	}

	/* Parse into a copy, so that a bad file leaves *c as it was. */
	t = (Config){ .queue_size = c->queue_size, .log_level = c->log_level, .set = c->set };
	t.watch_path = strdup(c->watch_path);
	t.backend = strdup(c->backend);
	if (!t.watch_path || !t.backend) {
		fclose(f);
		config_done(&t);
		return -ENOMEM;
	}
	s.config = &t;
	line = ini_parse_file(f, handler, &s);
	fclose(f);
	if (s.oom) {
		free(s.error);
		config_done(&t);
		return -ENOMEM;
	}
	if (line != 0) {
		if (s.error)
			r = asprintf(error, "%s:%d: %s", path, line, s.error);
		else
			r = asprintf(error, "%s:%d: syntax error", path, line);
		free(s.error);
		config_done(&t);
		return r < 0 ? -ENOMEM : -EINVAL;
	}
	config_done(c);
	*c = t;
	return 0;
}
