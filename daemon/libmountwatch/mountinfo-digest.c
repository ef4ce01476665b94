/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-line digests of /proc/self/mountinfo (see mountinfo-digest.h).
 * The values stored in the hash map are the digests themselves, with the
 * low bit set so that none is NULL (one bit of the 64 is given up).
 */
#include <fcntl.h>
#include <stdio.h>

#include "hashmap.h"
#include "mountinfo-digest.h"
#include "util.h"

struct MountinfoDigest {
	int fd;
	Hashmap *lines; /* 32-bit mount ID -> digest | 1 */
	char *buf;
	size_t size;
};

MountinfoDigest *mountinfo_digest_free(MountinfoDigest *d)
{
	if (!d)
		return NULL;
	if (d->fd >= 0)
		(void)close(d->fd);
	hashmap_free(d->lines);
	free(d->buf);
	free(d);
	return NULL;
}

void mountinfo_digest_freep(MountinfoDigest **d)
{
	*d = mountinfo_digest_free(*d);
}

/* The whole file into d->buf (NUL-terminated); returns its length or -errno. */
static ssize_t read_all(MountinfoDigest *d)
{
	size_t off = 0;

	for (;;) {
		ssize_t k;

		if (d->size - off < 4096) {
			char *t = realloc(d->buf, d->size * 2);

			if (!t)
				return -ENOMEM;
			d->buf = t;
			d->size *= 2;
		}
		k = pread(d->fd, d->buf + off, d->size - off - 1, (off_t)off);
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		off += (size_t)k;
	}
	d->buf[off] = 0;
	return (ssize_t)off;
}

static uint64_t digest(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h | 1;
}

/* Digests every line into a new map; with old, lists the IDs of new or changed lines. */
static int scan(MountinfoDigest *d, Hashmap *old, Hashmap **ret, uint32_t **changed, size_t *n_changed)
{
	_cleanup_(hashmap_freep) Hashmap *h = NULL;
	_cleanup_free_ uint32_t *ids = NULL;
	size_t n = 0, cap = 0;
	ssize_t len;
	int r;

	len = read_all(d);
	if (len < 0)
		return (int)len;
	r = hashmap_new(&h);
	if (r < 0)
		return r;
	for (char *p = d->buf, *end = d->buf + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)) ?: end;
		unsigned long id;
		char *e;
		uint64_t dg;
		void *was;

		id = strtoul(p, &e, 10);
		if (e == p || id > UINT32_MAX)
			return -EBADMSG;
		dg = digest(p, (size_t)(nl - p));
		r = hashmap_put(h, id, (void *)(uintptr_t)dg);
		if (r < 0)
			return r;
		was = old ? hashmap_get(old, id) : NULL;
		/*
		 * New lines count too: the mount may have been queried for its
		 * ATTACH before this read and changed (a remount) since, and
		 * this digest would hide that from the next rescan.
		 */
		if (old && (uintptr_t)was != (uintptr_t)dg) {
			if (n == cap) {
				uint32_t *t = realloc(ids, (cap = cap ? cap * 2 : 16) * sizeof(*ids));

				if (!t)
					return -ENOMEM;
				ids = t;
			}
			ids[n++] = (uint32_t)id;
		}
		p = nl + 1;
	}
	*ret = TAKE_PTR(h);
	if (changed) {
		*changed = TAKE_PTR(ids);
		*n_changed = n;
	}
	return 0;
}

int mountinfo_digest_new(MountinfoDigest **ret)
{
	_cleanup_(mountinfo_digest_freep) MountinfoDigest *d = NULL;
	int r;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->size = 64 * 1024;
	d->buf = malloc(d->size);
	if (!d->buf)
		return -ENOMEM;
	d->fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	r = scan(d, NULL, &d->lines, NULL, NULL);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(d);
	return 0;
}

int mountinfo_digest_update(MountinfoDigest *d, uint32_t **ret, size_t *ret_n)
{
	Hashmap *h;
	int r;

	r = scan(d, d->lines, &h, ret, ret_n);
	if (r < 0)
		return r;
	hashmap_free(d->lines);
	d->lines = h;
	return 0;
}

size_t mountinfo_digest_size(const MountinfoDigest *d)
{
	return hashmap_size(d->lines);
}
