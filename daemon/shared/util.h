/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers shared by mountwatchd and mountwatchctl: cleanup attributes,
 * string helpers and logging.
 *
 * Error rule (all of daemon/): functions return int, a negative errno on
 * failure, 0 on success, and a positive value only for a condition that the
 * function documents and its direct caller must handle. Out-parameters are
 * set only on success. A cast to (void) marks a failure ignored on purpose.
 */
#ifndef MOUNTWATCH_UTIL_H
#define MOUNTWATCH_UTIL_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
/* libmountwatch's exported functions (the rest is hidden; see libmountwatch.sym). */
#define _public_ __attribute__((visibility("default")))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Doubly linked lists through an item's prev and next members; head is the first item. */
#define LIST_PREPEND(head, item)                       \
	do {                                           \
		(item)->prev = NULL;                   \
		(item)->next = (head);                 \
		if (head)                              \
			(head)->prev = (item);         \
		(head) = (item);                       \
	} while (0)

#define LIST_REMOVE(head, item)                                \
	do {                                                   \
		if ((item)->prev)                              \
			(item)->prev->next = (item)->next;     \
		else if ((head) == (item))                     \
			(head) = (item)->next;                 \
		if ((item)->next)                              \
			(item)->next->prev = (item)->prev;     \
		(item)->prev = (item)->next = NULL;            \
	} while (0)

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Takes the pointer out of a cleanup variable, leaving NULL behind. */
#define TAKE_PTR(p)                                \
	({                                         \
		__typeof__(p) _tmp_ = (p);         \
		(p) = NULL;                        \
		_tmp_;                             \
	})

#define TAKE_FD(fd)                                \
	({                                         \
		int _tmp_ = (fd);                  \
		(fd) = -1;                         \
		_tmp_;                             \
	})

static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Replaces *p with a copy of s (or NULL); returns 1 if the value changed. */
int free_and_strdup(char **p, const char *s);

/* Parses a decimal or 0x-prefixed unsigned 64-bit number, whole string. */
int parse_u64(const char *s, uint64_t *ret);
int parse_u32(const char *s, uint32_t *ret);

/*
 * Normalises an absolute path: collapses repeated slashes, drops "."
 * components and a trailing slash. Returns -EINVAL for a relative or
 * empty path or one that contains "..".
 */
int path_normalize(const char *path, char **ret);

/*
 * The kernel's bytes as a person (and a D-Bus string, which must be valid
 * UTF-8) sees them, reversibly: every byte that is not part of valid UTF-8,
 * every control character (C0, DEL, C1: each of its bytes) and the backslash
 * itself are written as a backslash and three octal digits ("\\377", "\\012",
 * "\\134"), as mountinfo writes odd bytes; unescape_octal() undoes it, so no
 * two paths are shown alike. Returns 0 if s needs nothing (*ret untouched),
 * 1 with the escaped copy in *ret, or -ENOMEM.
 */
int escape_for_display(const char *s, char **ret);
/*
 * The same, but a backslash is left as it is: for text that is already
 * escaped (the bus's string properties, which escape_for_display() wrote)
 * before it reaches a terminal, so that whatever a peer sends, no control
 * byte gets through and the sender's escapes are shown unchanged.
 */
int escape_unsafe(const char *s, char **ret);
/* Length of the valid UTF-8 sequence at p (NUL-terminated), 0 if invalid. */
size_t utf8_sequence(const unsigned char *p);

/*
 * The text table of ListMountsByFileDescriptor (org.mountwatch.MountWatch1(5)):
 * fields separated by a TAB, lines ended by a LF; in a field, a backslash
 * and every control byte (below 0x20, and 0x7f) is written as a backslash and
 * three octal digits ("\\011" for TAB), as /proc/self/mountinfo writes odd
 * bytes. text_field_write() writes s so to f (0 or -EIO); text_split()
 * cuts a line (no LF) in place at each TAB into up to max fields, unescapes
 * each and returns how many there are, or -EBADMSG if there are more than max.
 */
int text_field_write(FILE *f, const char *s);
int text_split(char *line, char **fields, size_t max);

/* Undoes "\ooo" escapes (mountinfo's, and the text table's) in s, in place; returns s. */
char *unescape_octal(char *s);

/*
 * Reads all of fd, from offset 0, into *buf: a buffer that grows as needed
 * (realloc; the caller owns it and keeps it for the next read, *size its
 * allocated size) and ends with a NUL. For /proc files, which must be read
 * whole and in one pass. Returns 0 and the length in *ret_len, or -errno.
 */
int read_full(int fd, char **buf, size_t *size, size_t *ret_len);

/* CLOCK_MONOTONIC in microseconds (the clock of sd-event's timers and of mw_watcher_get_timeout()). */
uint64_t now_usec(void);

/* FNV-1a, for hashing mount points. */
uint64_t string_hash(const char *s);

/* Logging: one line per message, "<N>" prefixed when stderr is the journal. */
extern int log_max_level;
void log_open(void);
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);
void log_internal(int level, const char *fmt, ...) _printf_(2, 3);

/* log_*_errno() set errno so that %m names the error, and return -|error|. */
int log_errno_internal(int level, int error, const char *fmt, ...) _printf_(3, 4);

#define log_debug(...) log_internal(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_internal(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_internal(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_internal(LOG_ERR, __VA_ARGS__)
#define log_debug_errno(e, ...) log_errno_internal(LOG_DEBUG, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_errno_internal(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_errno_internal(LOG_ERR, (e), __VA_ARGS__)

#endif /* MOUNTWATCH_UTIL_H */
