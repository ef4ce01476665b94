/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The budget of whole-table calls (table-limits.h): per caller, per user, root, windows. */
#include <stdio.h>

#include "check.h"
#include "table-limits.h"
#include "util.h"

#define T0 1000000ULL

static void test_per_caller(void)
{
	TableLimits l = {};
	uint64_t retry = 0;

	for (unsigned i = 0; i < TABLE_LIMIT_PER_CALLER; i++)
		assert_se(table_limits_charge_uid(&l, ":1.1", 65534, T0 + i, &retry) == 0);
	assert_se(table_limits_charge_uid(&l, ":1.1", 65534, T0 + 100, &retry) == -EDQUOT);
	assert_se(retry == TABLE_LIMIT_INTERVAL_USEC - 100);
	/* Another caller of the same user still has budget. */
	assert_se(table_limits_charge_uid(&l, ":1.2", 65534, T0 + 200, &retry) == 0);
	/* The window passes: the caller may call again. */
	assert_se(table_limits_charge_uid(&l, ":1.1", 65534, T0 + TABLE_LIMIT_INTERVAL_USEC, &retry) == 0);
	table_limits_done(&l);
	assert_se(table_limits_records(&l) == 0);
}

static void test_per_user(void)
{
	TableLimits l = {};
	uint64_t retry = 0;
	unsigned passed = 0;
	char name[32];

	/* New connections buy no new budget: one call each, a hundred callers. */
	for (unsigned i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), ":1.%u", 100 + i);
		passed += table_limits_charge_uid(&l, name, 1000, T0 + i, &retry) == 0;
	}
	assert_se(passed == TABLE_LIMIT_PER_USER);
	assert_se(table_limits_charge_uid(&l, ":1.999", 1000, T0 + 500, &retry) == -EMLINK);
	assert_se(retry == TABLE_LIMIT_INTERVAL_USEC - 500);
	/* Another user is not charged for it. */
	assert_se(table_limits_charge_uid(&l, ":1.998", 1001, T0 + 500, &retry) == 0);
	/* Root is never refused. */
	for (unsigned i = 0; i < 10 * TABLE_LIMIT_PER_USER; i++)
		assert_se(table_limits_charge_uid(&l, ":1.5", 0, T0 + 600 + i, &retry) == 0);
	/* After the window every record goes: they are bounded by one interval's calls. */
	assert_se(table_limits_records(&l) > 100);
	assert_se(table_limits_charge_uid(&l, ":1.999", 1000, T0 + 2 * TABLE_LIMIT_INTERVAL_USEC, &retry) == 0);
	assert_se(table_limits_records(&l) == 2);
	table_limits_done(&l);
}

static void test_direct_peer(void)
{
	TableLimits l = {};

	/* NULL: the one peer of a direct connection, a caller like any other. */
	for (unsigned i = 0; i < TABLE_LIMIT_PER_CALLER; i++)
		assert_se(table_limits_charge_uid(&l, NULL, 7, T0, NULL) == 0);
	assert_se(table_limits_charge_uid(&l, NULL, 7, T0, NULL) == -EDQUOT);
	table_limits_done(&l);
}

int main(void)
{
	test_per_caller();
	test_per_user();
	test_direct_peer();
	printf("test-table-limits: %u checks passed\n", check_count);
	return 0;
}
