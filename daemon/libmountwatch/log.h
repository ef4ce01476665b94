/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's own logging: silent unless the application installed a log
 * function (mw_set_log_fn()) or set MOUNTWATCH_DEBUG. Never the daemon's
 * log_*() of util.h, which write to stderr.
 */
#ifndef MOUNTWATCH_LOG_H
#define MOUNTWATCH_LOG_H

#include <syslog.h>

#include "util.h"

void mw_log_internal(int level, const char *fmt, ...) _printf_(2, 3);
/* Logs with %m as error; returns -|error|. */
int mw_log_errno_internal(int level, int error, const char *fmt, ...) _printf_(3, 4);

#define lib_debug(...) mw_log_internal(LOG_DEBUG, __VA_ARGS__)
#define lib_warning(...) mw_log_internal(LOG_WARNING, __VA_ARGS__)
#define lib_debug_errno(e, ...) mw_log_errno_internal(LOG_DEBUG, (e), __VA_ARGS__)

#endif
