/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for config.c: good files, every kind of bad file (the message
 * names file, line and key; the old config stays), overrides, the
 * shipped conf/mountwatchd.conf, and the manager's reload: a bad file or a
 * --config file that is gone keeps the running config.
 */
#include "check.h"
#include <stdio.h>

#include "config.h"
#include "manager.h"
#include "util.h"

static char dir[] = "/tmp/test-config-XXXXXX";

static char *write_file(const char *name, const char *text)
{
	char *path;
	FILE *f;

	assert_se(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "we");
	assert_se(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void expect_error(const char *text, const char *message_part)
{
	_cleanup_free_ char *path = write_file("bad.conf", text), *error = NULL;
	Config c;

	assert_se(config_init(&c) == 0);
	assert_se(config_set_queue_size(&c, "7", &(const char *){ NULL }) == 0);
	assert_se(config_load(&c, path, 0, &error) == -EINVAL);
	assert_se(error);
	if (!strstr(error, message_part) || !strstr(error, path)) {
		fprintf(stderr, "unexpected message: %s (wanted %s)\n", error, message_part);
		abort();
	}
	/* The previous values are kept. */
	assert_se(c.queue_size == 7 && strcmp(c.watch_path, "/") == 0);
	config_done(&c);
	printf("ok - rejected with \"%s\"\n", strstr(error, ": ") + 2);
}

int main(void)
{
	_cleanup_free_ char *good = NULL, *error = NULL;
	Config c, o;
	const char *why;

	assert_se(mkdtemp(dir));

	good = write_file("good.conf",
			  "# comment\n"
			  "[Watch]\n"
			  "Path = /srv//data/\n"
			  "QueueSize=64\n"
			  "Backend=watch_queue\n"
			  "\n"
			  "[Log]\n"
			  "Level=debug\n");
	assert_se(config_init(&c) == 0);
	assert_se(c.queue_size == CONFIG_QUEUE_SIZE_DEFAULT && strcmp(c.watch_path, "/") == 0);
	assert_se(config_load(&c, good, 0, &error) == 0);
	assert_se(strcmp(c.watch_path, "/srv/data") == 0);
	assert_se(c.queue_size == 64 && c.log_level == LOG_DEBUG);
	assert_se(strcmp(c.backend, "watch_queue") == 0);
	printf("ok - a good file is read\n");

	/* Flags win over the file. */
	assert_se(config_init(&o) == 0);
	o.set = 0;
	assert_se(config_set_queue_size(&o, "3", &why) == 0);
	assert_se(config_set_queue_size(&o, "0", &why) == -EINVAL && why);
	assert_se(config_override(&c, &o) == 0);
	assert_se(c.queue_size == 3 && strcmp(c.watch_path, "/srv/data") == 0);
	config_done(&o);
	config_done(&c);
	printf("ok - command-line values override the file\n");

	/* A missing file: fine for the default path, an error when named. */
	assert_se(config_init(&c) == 0);
	assert_se(config_load(&c, "/nonexistent/mountwatchd.conf", 1, &error) == 0);
	assert_se(config_load(&c, "/nonexistent/mountwatchd.conf", 0, &error) == -ENOENT);
	assert_se(error && strstr(error, "/nonexistent/mountwatchd.conf"));
	config_done(&c);
	printf("ok - a missing file\n");

	/*
	 * Comments as mountwatchd.conf(5) says: # or ; starting a line (after
	 * blanks), ; after a blank within a line; # within a line is a value's.
	 */
	free(good);
	good = write_file("comments.conf",
			  "  # indented\n"
			  "; semicolon\n"
			  "[Watch]\n"
			  "Path=/srv ; was /data\n"
			  "  ; QueueSize=8\n");
	assert_se(config_init(&c) == 0);
	assert_se(config_load(&c, good, 0, &error) == 0);
	assert_se(strcmp(c.watch_path, "/srv") == 0 && c.queue_size == CONFIG_QUEUE_SIZE_DEFAULT);
	config_done(&c);
	printf("ok - comments: # and ; at a line's start, ; after a blank within a line\n");
	expect_error("[Watch]\nQueueSize=64 # not a comment\n", ":2: [Watch] QueueSize=64 # not a comment: not a number");
	expect_error("[Watch]\nQueueSize=1000\n", ":2: [Watch] QueueSize=1000: not a number between 1 and 512");
	expect_error("[Watch]\nPath=/\n\nQueueSize=abc\n", ":4: [Watch] QueueSize=abc");
	expect_error("[Watch]\nPath=relative\n", ":2: [Watch] Path=relative: not an absolute path");
	expect_error("[Watch]\nFrobnicate=1\n", ":2: [Watch] Frobnicate=1: unknown key");
	expect_error("[Nope]\nKey=1\n", ":2: [Nope] Key=1: unknown section");
	expect_error("[Log]\nLevel=loud\n", ":2: [Log] Level=loud: not a log level");
	expect_error("[Watch]\nBackend=inotify\n", ":2: [Watch] Backend=inotify: unknown backend");
	expect_error("[Watch]\nthis line has no equals sign\n", ":2: syntax error");

	/* Reload with --config=FILE: a change is taken, a bad file or a deleted one keeps what runs. */
	{
		_cleanup_(manager_freep) Manager *m = NULL;
		_cleanup_free_ char *reason = NULL;

		assert_se(manager_new(&m) == 0);
		m->config_path = write_file("named.conf", "[Log]\nLevel=notice\n");
		assert_se(config_load(&m->config, m->config_path, 0, &error) == 0);
		assert_se(m->config.log_level == LOG_NOTICE);
		free(write_file("named.conf", "[Log]\nLevel=debug\n"));
		assert_se(manager_reload(m, &reason) == 0 && !reason);
		assert_se(m->config.log_level == LOG_DEBUG);
		free(write_file("named.conf", "[Log]\nLevel=loud\n"));
		assert_se(manager_reload(m, &reason) == -EINVAL);
		assert_se(reason && strstr(reason, m->config_path) && strstr(reason, "Level=loud"));
		assert_se(m->config.log_level == LOG_DEBUG);
		free(reason);
		reason = NULL;
		assert_se(unlink(m->config_path) == 0);
		assert_se(manager_reload(m, &reason) == -ENOENT);
		assert_se(reason && strstr(reason, m->config_path) && strstr(reason, strerror(ENOENT)));
		assert_se(m->config.log_level == LOG_DEBUG);
		log_max_level = LOG_WARNING;
		printf("ok - reload: a change is taken; a bad file and a deleted --config file keep the running config\n");
	}

#ifdef SHIPPED_CONF
	assert_se(config_init(&c) == 0);
	assert_se(config_load(&c, SHIPPED_CONF, 0, &error) == 0);
	config_done(&c);
	printf("ok - the shipped %s parses\n", SHIPPED_CONF);
#endif
	return 0;
}
