/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel half of the fanotify backend (mainline 6.15 and later): what
 * changed in the caller's mount namespace, as a stream of hints.
 *
 * fanotify's mount events (FAN_MARK_MNTNS, FAN_REPORT_MNT) say only which
 * mount was attached, detached or moved, by 64-bit unique ID; the rest
 * comes from statmount(2). Remounts and mount_setattr() have no fanotify
 * event at all: they only wake pollers of /proc/self/mountinfo with POLLPRI,
 * and so does every attach and detach, so a wake-up cannot be told apart
 * from the topology events that came with it. Every such wake-up therefore
 * costs a rescan: /proc/self/mountinfo is read again and each line's digest
 * compared with the last (mountinfo-digest.h; O(mounts), but 0.4 of the
 * cost of a statmount of every mount), and each mount whose line changed
 * comes out as FANOTIFY_EVENT_CHANGED. At most one rescan per rescan
 * interval, so a burst of changes pays for one. The digests also catch
 * what has no fanotify event: a mount propagated beneath an existing one
 * reparents it ("tucking"), a moved mount's children get new mount points.
 * mount(2)'s MS_SHARED/MS_SLAVE/MS_PRIVATE/MS_UNBINDABLE and fsconfig()
 * reconfiguration of a superblock wake nobody on mainline (6.18): they are
 * seen at the next rescan or resync only.
 *
 * Every event is a hint to re-query the present: applying an old one again
 * (after a resync, say) is harmless, because unique IDs are never reused.
 */
#ifndef MOUNTWATCH_FANOTIFY_WATCH_H
#define MOUNTWATCH_FANOTIFY_WATCH_H

#include <stddef.h>
#include <stdint.h>

typedef enum FanotifyEventType {
	FANOTIFY_EVENT_ATTACH,   /* unique_id was mounted (or propagated) here */
	FANOTIFY_EVENT_DETACH,   /* unique_id was unmounted: it is gone for good */
	FANOTIFY_EVENT_MOVE,     /* unique_id was moved within the namespace */
	FANOTIFY_EVENT_CHANGED,  /* mountinfo's line of mnt_id is new or changed: re-query it */
	FANOTIFY_EVENT_OVERFLOW, /* the queue overflowed: list and re-query all */
} FanotifyEventType;

#define FANOTIFY_EVENT_TYPES (FANOTIFY_EVENT_OVERFLOW + 1)

typedef struct FanotifyEvent {
	FanotifyEventType type;
	/*
	 * ATTACH, DETACH, MOVE: the unique ID. CHANGED: mnt_id, the 32-bit ID
	 * that mountinfo shows (find the mount by it in a table that has applied
	 * the events before this one; it may since have been reused, so
	 * re-query by unique ID and drop what is gone).
	 */
	uint64_t unique_id;
	uint32_t mnt_id;
} FanotifyEvent;

typedef struct FanotifyWatch FanotifyWatch;

/*
 * Watches the caller's mount namespace. rescan_interval_usec is the least
 * time between two rescans (0: one per wake-up). Returns 0;
 * -EOPNOTSUPP if the kernel has no fanotify mount events (before 6.15),
 * -ENOSYS without fanotify or statmount(2), -EPERM without CAP_SYS_ADMIN
 * in the namespace's user namespace, else -errno.
 */
int fanotify_watch_new(FanotifyWatch **ret, uint64_t rescan_interval_usec);
/*
 * Rescans interval_usec after the last (0: never) even without a wake-up:
 * the kernel signals neither fanotify nor a mountinfo change for a
 * propagation change (mount --make-shared), so this low-rate digest compare
 * is how one is seen. Each such rescan that finds nothing, with no event in
 * its window, doubles the wait up to max_usec; any event or change brings it
 * back to interval_usec.
 */
void fanotify_watch_set_verify(FanotifyWatch *w, uint64_t interval_usec, uint64_t max_usec);
/* Whether fanotify_watch_new() could work here, without its mountinfo digest: 0 or as it. */
int fanotify_watch_probe(void);
FanotifyWatch *fanotify_watch_free(FanotifyWatch *w);
void fanotify_watch_freep(FanotifyWatch **w);

/* One fd (an epoll fd) for the caller's event loop: readable when there is work. */
int fanotify_watch_get_fd(FanotifyWatch *w);

/*
 * Reads up to n_max events without blocking; returns how many. Call it until
 * it returns 0 (events read from the kernel but not yet handed out do not
 * make the fd readable). A held-back rescan makes the fd readable when due.
 */
int fanotify_watch_read(FanotifyWatch *w, FanotifyEvent *events, size_t n_max);

/* Counters for tests and the benchmark: fanotify events read, rescans done. */
uint64_t fanotify_watch_n_events(const FanotifyWatch *w);
uint64_t fanotify_watch_n_rescans(const FanotifyWatch *w);

const char *fanotify_event_type_to_string(FanotifyEventType t);

#endif /* MOUNTWATCH_FANOTIFY_WATCH_H */
