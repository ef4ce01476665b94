/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mw_set_log_fn() and the MOUNTWATCH_DEBUG mask: where the library's debug
 * messages go, if anywhere (libmount's LIBMOUNT_DEBUG is the model).
 */
#include <stdatomic.h>
#include <stdio.h>

#include "log.h"
#include "mountwatch/mountwatch.h"

static mw_log_fn log_fn;
static void *log_userdata;
/* -1: MOUNTWATCH_DEBUG not read yet; 0: off; 1: to stderr. */
static atomic_int log_env = -1;

_public_ void mw_set_log_fn(mw_log_fn fn, void *userdata)
{
	log_fn = fn;
	log_userdata = userdata;
}

static bool log_to_stderr(void)
{
	int v = atomic_load(&log_env);

	if (v < 0) {
		const char *e = secure_getenv("MOUNTWATCH_DEBUG");

		v = e && (streq_ptr(e, "all") || streq_ptr(e, "1") || streq_ptr(e, "0xffff"));
		atomic_store(&log_env, v);
	}
	return v > 0;
}

static void log_vsend(int level, const char *fmt, va_list ap)
{
	char buf[512];

	if (!log_fn && !log_to_stderr())
		return;
	/* A fixed buffer: logging must not allocate (nor fail) on the way to an -ENOMEM. */
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_fn)
		log_fn(level, buf, log_userdata);
	else
		fprintf(stderr, "libmountwatch: %s\n", buf);
}

void mw_log_internal(int level, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_vsend(level, fmt, ap);
	va_end(ap);
	errno = saved;
}

int mw_log_errno_internal(int level, int error, const char *fmt, ...)
{
	va_list ap;

	if (error < 0)
		error = -error;
	errno = error;
	va_start(ap, fmt);
	log_vsend(level, fmt, ap);
	va_end(ap);
	errno = error;
	return -error;
}
