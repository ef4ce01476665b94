/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which mounts' /proc/self/mountinfo lines changed since the last look: a
 * 64-bit digest per line, kept by 32-bit mount ID. The cheap way to find
 * what a mountinfo wake-up changed (measured on 6.18: reading and digesting
 * the text costs 0.4 of a statmount(2) of every mount). Lines are compared
 * whole, so a mount whose parent, mount point (a moved ancestor, a renamed
 * directory), options, propagation or superblock options changed is found.
 */
#ifndef MOUNTWATCH_MOUNTINFO_DIGEST_H
#define MOUNTWATCH_MOUNTINFO_DIGEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct MountinfoDigest MountinfoDigest;

/* Opens /proc/self/mountinfo and takes the first digests. Returns 0 or -errno. */
int mountinfo_digest_new(MountinfoDigest **ret);
MountinfoDigest *mountinfo_digest_free(MountinfoDigest *d);
void mountinfo_digest_freep(MountinfoDigest **d);

/*
 * Reads the table again. *ret (malloc()ed, the caller frees it; NULL if
 * none) gets the 32-bit IDs of the lines that are new or differ from last
 * time (gone ones are not listed: their fanotify events say so). New lines
 * are listed because a mount queried for its ATTACH before this read may
 * have been changed since: its line is only now in the digests, and a later
 * rescan would not find it different. Returns 0 or -errno.
 */
int mountinfo_digest_update(MountinfoDigest *d, uint32_t **ret, size_t *ret_n);

/* Lines in the last reading. */
size_t mountinfo_digest_size(const MountinfoDigest *d);

#endif /* MOUNTWATCH_MOUNTINFO_DIGEST_H */
