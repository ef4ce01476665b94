/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The price of a whole-table call (ListMounts, ListMountsByFileDescriptor,
 * GetManagedObjects, the introspection of the mount objects' parent): each
 * costs the single-threaded daemon time in proportion to the table, and
 * ListMountsByFileDescriptor a memfd of the table's size, charged to the
 * daemon, for as long as the caller keeps it. As systemd's dump_ratelimit
 * for DumpByFileDescriptor, an unprivileged caller pays from a budget: per
 * TABLE_LIMIT_INTERVAL_USEC, TABLE_LIMIT_PER_CALLER such calls for each
 * caller (unique bus name) and TABLE_LIMIT_PER_USER for all the callers of
 * one user (effective UID) together, so that new connections do not buy new
 * budget. Root (UID 0) is not charged. A window starts at a record's first
 * call; a record whose window has passed is forgotten, so the records are
 * bounded by the calls of the last interval.
 */
#ifndef MOUNTWATCH_TABLE_LIMITS_H
#define MOUNTWATCH_TABLE_LIMITS_H

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#define TABLE_LIMIT_INTERVAL_USEC (10ULL * 1000 * 1000)
#define TABLE_LIMIT_PER_CALLER 10U
#define TABLE_LIMIT_PER_USER 20U

typedef struct TableCaller TableCaller;
typedef struct TableUser TableUser;

typedef struct TableLimits {
	TableCaller *callers;
	TableUser *users;
} TableLimits;

/*
 * Charges one whole-table call of caller (its unique name; NULL: the peer
 * of a direct connection) of user uid at time now (CLOCK_MONOTONIC, usec).
 * Returns 0 (go ahead); -EDQUOT when the caller has spent its budget,
 * -EMLINK when its user has, with the microseconds until the next call may
 * pass in *ret_retry_usec; -ENOMEM. A refused call is not charged.
 */
int table_limits_charge_uid(TableLimits *l, const char *caller, uid_t uid, uint64_t now,
			    uint64_t *ret_retry_usec);
/*
 * As table_limits_charge_uid() for message's sender, whose user is asked of
 * the bus once per window (and kept with the caller's record). Returns as
 * table_limits_charge_uid(), or the negative errno of the question.
 */
int table_limits_charge(TableLimits *l, sd_bus_message *message, uint64_t *ret_retry_usec);
/* Number of callers and users with a record (tests). */
unsigned table_limits_records(const TableLimits *l);
void table_limits_done(TableLimits *l);

#endif
