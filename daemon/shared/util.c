/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers shared by the daemon and the client; see util.h.
 */
#include <stdio.h>
#include <strings.h>
#include <time.h>

#include "util.h"

int log_max_level = LOG_INFO;
static bool log_prefix;

int free_and_strdup(char **p, const char *s)
{
	char *t = NULL;

	if (streq_ptr(*p, s))
		return 0;
	if (s) {
		t = strdup(s);
		if (!t)
			return -ENOMEM;
	}
	free(*p);
	*p = t;
	return 1;
}

int parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -errno;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_u32(const char *s, uint32_t *ret)
{
	uint64_t v;
	int r;

	r = parse_u64(s, &v);
	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int path_normalize(const char *path, char **ret)
{
	const char *p = path;
	char *out, *o;

	if (!path || path[0] != '/')
		return -EINVAL;
	out = malloc(strlen(path) + 1);
	if (!out)
		return -ENOMEM;
	o = out;
	while (*p) {
		const char *e;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		if (n == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			free(out);
			return -EINVAL;
		}
		*o++ = '/';
		memcpy(o, p, n);
		o += n;
		p = e;
	}
	if (o == out)
		*o++ = '/';
	*o = 0;
	*ret = out;
	return 0;
}

int text_field_write(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p < 0x20 || *p == 0x7f) {
			if (fprintf(f, "\\%03o", *p) < 0)
				return -EIO;
		} else if (putc(*p, f) == EOF)
			return -EIO;
	}
	return 0;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

char *unescape_octal(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && is_octal(r[2]) && is_octal(r[3])) {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else
			*w++ = *r++;
	}
	*w = 0;
	return s;
}

int text_split(char *line, char **fields, size_t max)
{
	size_t n = 0;

	for (char *p = line;; p++) {
		char *tab = strchr(p, '\t');

		if (n == max)
			return -EBADMSG;
		fields[n++] = p;
		if (!tab)
			break;
		*tab = 0;
		p = tab;
	}
	for (size_t i = 0; i < n; i++)
		unescape_octal(fields[i]);
	return (int)n;
}

size_t utf8_sequence(const unsigned char *p)
{
	size_t n;
	uint32_t c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, c = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/*
 * Whether byte sequence p (of n bytes) is written as is: valid UTF-8 that
 * is not a control character (C0, DEL, C1), nor a backslash unless
 * keep_backslash.
 */
static bool shown_as_is(const unsigned char *p, size_t n, bool keep_backslash)
{
	if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) /* C1 */
		return false;
	return n > 1 || (p[0] >= 0x20 && p[0] != 0x7f && (p[0] != '\\' || keep_backslash));
}

static int escape_bytes(const char *s, bool keep_backslash, char **ret)
{
	const unsigned char *p;
	char *out, *o;
	bool plain = true;

	for (p = (const unsigned char *)s; *p;) {
		size_t n = utf8_sequence(p);

		if (!n || !shown_as_is(p, n, keep_backslash)) {
			plain = false;
			break;
		}
		p += n;
	}
	if (plain)
		return 0;
	out = malloc(strlen(s) * 4 + 1);
	if (!out)
		return -ENOMEM;
	o = out;
	for (p = (const unsigned char *)s; *p;) {
		size_t n = utf8_sequence(p);

		if (n && shown_as_is(p, n, keep_backslash)) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			o += sprintf(o, "\\%03o", *p);
			p++;
		}
	}
	*o = 0;
	*ret = out;
	return 1;
}

int escape_for_display(const char *s, char **ret)
{
	return escape_bytes(s, false, ret);
}

int escape_unsafe(const char *s, char **ret)
{
	return escape_bytes(s, true, ret);
}

uint64_t now_usec(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t string_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static const char *const level_names[] = {
	[LOG_EMERG] = "emerg",   [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit",
	[LOG_ERR] = "err",       [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info",     [LOG_DEBUG] = "debug",
};

int log_level_from_string(const char *s)
{
	for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
		if (strcasecmp(s, level_names[i]) == 0)
			return (int)i;
	if (strcasecmp(s, "error") == 0)
		return LOG_ERR;
	return -EINVAL;
}

const char *log_level_to_string(int level)
{
	if (level < 0 || (size_t)level >= ELEMENTSOF(level_names))
		return NULL;
	return level_names[level];
}

void log_open(void)
{
	/* Under systemd stderr is a stream to the journal, which reads "<N>". */
	log_prefix = !!getenv("JOURNAL_STREAM");
}

static void log_vemit(int level, const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_prefix)
		fprintf(stderr, "<%d>%s\n", level, buf);
	else
		fprintf(stderr, "%s\n", buf);
}

void log_internal(int level, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (level > log_max_level)
		return;
	va_start(ap, fmt);
	log_vemit(level, fmt, ap);
	va_end(ap);
	errno = saved;
}

int log_errno_internal(int level, int error, const char *fmt, ...)
{
	va_list ap;

	if (error < 0)
		error = -error;
	if (level <= log_max_level) {
		errno = error;
		va_start(ap, fmt);
		log_vemit(level, fmt, ap);
		va_end(ap);
	}
	errno = error;
	return -error;
}

int read_full(int fd, char **buf, size_t *size, size_t *ret_len)
{
	size_t len = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		if (*size - len < 4096) {
			size_t n = *size ? *size * 2 : 65536;
			char *t = realloc(*buf, n);

			if (!t)
				return -ENOMEM;
			*buf = t;
			*size = n;
		}
		k = read(fd, *buf + len, *size - len - 1);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	(*buf)[len] = 0;
	*ret_len = len;
	return 0;
}
