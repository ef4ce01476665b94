/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for table.c, mount-info.c and the path helpers.
 */
#include "check.h"
#include <stdio.h>
#include <linux/mount.h>

#include "table.h"
#include "util.h"

static MountInfo make(uint64_t id, uint64_t parent, const char *point)
{
	MountInfo i = {
		.unique_id = id,
		.mnt_id = (uint32_t)id,
		.parent_unique_id = parent,
		.parent_id = (uint32_t)parent,
		.mount_point = strdup(point),
		.fstype = strdup("tmpfs"),
	};
	assert_se(i.mount_point && i.fstype);
	return i;
}

static void add(Table *t, uint64_t id, uint64_t parent, const char *point)
{
	MountInfo i = make(id, parent, point);

	assert_se(table_add(t, &i, NULL) == 0);
}

static unsigned count_children(Table *t, uint64_t id)
{
	unsigned n = 0;

	for (Mount *c = table_first_child(t, id); c; c = c->sibling_next)
		n++;
	return n;
}

static void test_table(void)
{
	Table *t;
	MountInfo i;
	Mount *m, *root;

	assert_se(table_new(&t) == 0);
	i = make(100, 0, "/");
	assert_se(table_add(t, &i, &root) == 0);
	assert_se(i.mount_point == NULL); /* taken over */
	/* A child before its ... sibling, and one whose parent is not there yet. */
	i = make(101, 100, "/a");
	assert_se(table_add(t, &i, NULL) == 0);
	i = make(103, 102, "/b/c");
	assert_se(table_add(t, &i, NULL) == 0);
	i = make(102, 100, "/b");
	assert_se(table_add(t, &i, NULL) == 0);
	i = make(102, 100, "/b");
	assert_se(table_add(t, &i, NULL) == -EEXIST);
	mount_info_done(&i);

	assert_se(table_size(t) == 4);
	assert_se(count_children(t, 100) == 2);
	assert_se(count_children(t, 102) == 1);
	assert_se(table_parent(t, table_get(t, 103)) == table_get(t, 102));
	assert_se(table_parent(t, root) == NULL);
	assert_se(table_get_by_mnt_id(t, 101) == table_get(t, 101));

	/* Stacking at /a: 104 on top of 101, 105 on top of 104. */
	i = make(104, 101, "/a");
	assert_se(table_add(t, &i, NULL) == 0);
	i = make(105, 104, "/a");
	assert_se(table_add(t, &i, NULL) == 0);
	assert_se(table_topmost_at(t, "/a") == table_get(t, 105));
	table_remove(t, table_get(t, 105));
	assert_se(table_topmost_at(t, "/a") == table_get(t, 104));
	assert_se(table_topmost_at(t, "/nothing") == NULL);

	/* Update re-indexes: move /b/c under /a. */
	m = table_get(t, 103);
	i = make(103, 101, "/a/c");
	i.attributes = MOUNT_ATTR_RDONLY;
	int diff = table_update(t, m, &i);
	assert_se(diff > 0);
	assert_se(diff & (1 << MW_FIELD_MOUNT_POINT));
	assert_se(diff & (1 << MW_FIELD_PARENT_UNIQUE_ID));
	assert_se(diff & (1 << MW_FIELD_READ_ONLY));
	assert_se(diff & (1 << MW_FIELD_OPTIONS));
	assert_se(!(diff & (1 << MW_FIELD_FS_TYPE)));
	assert_se(count_children(t, 102) == 0);
	assert_se(count_children(t, 101) == 2);
	assert_se(table_topmost_at(t, "/a/c") == m);
	assert_se(table_topmost_at(t, "/b/c") == NULL);

	/*
	 * Two stacks on one path: 110 at /h with 111 on /h/s below it; 112
	 * mounted on /h covers 110 (111 is hidden), 113 on 112's /h/s. The
	 * topmost at /h/s is 113, whichever the index lists first.
	 */
	add(t, 110, 100, "/h");
	add(t, 111, 110, "/h/s");
	add(t, 112, 110, "/h");
	assert_se(table_topmost_at(t, "/h/s") == table_get(t, 111)); /* hidden, but the only one */
	add(t, 113, 112, "/h/s");
	assert_se(table_topmost_at(t, "/h/s") == table_get(t, 113));
	assert_se(table_topmost_at(t, "/h") == table_get(t, 112));
	/* and the other way round: 111 listed before 113 */
	table_remove(t, table_get(t, 111));
	add(t, 111, 110, "/h/s");
	assert_se(table_topmost_at(t, "/h/s") == table_get(t, 113));
	/* 112 unmounted: 111 is reachable again */
	table_remove(t, table_get(t, 113));
	table_remove(t, table_get(t, 112));
	assert_se(table_topmost_at(t, "/h/s") == table_get(t, 111));
	/* Both stacks hidden (124 covers 122, which covers 120): the newest top, 123, in either order. */
	add(t, 120, 100, "/k");
	add(t, 123, 122, "/k/s");
	add(t, 121, 120, "/k/s");
	add(t, 122, 120, "/k");
	add(t, 124, 122, "/k");
	assert_se(table_topmost_at(t, "/k/s") == table_get(t, 123));
	table_remove(t, table_get(t, 123));
	add(t, 123, 122, "/k/s");
	assert_se(table_topmost_at(t, "/k/s") == table_get(t, 123));

	/*
	 * Shadowed: 130 on /m/s of the root's directory /m, then 131 mounted
	 * on /m hides it (130's parent is not covered, but /m is). 132 on
	 * 131's /m/s is the topmost, in either order; 131 gone, 130 again.
	 */
	add(t, 130, 100, "/m/s");
	add(t, 131, 100, "/m");
	assert_se(table_topmost_at(t, "/m/s") == table_get(t, 130)); /* hidden, but the only one */
	add(t, 132, 131, "/m/s");
	assert_se(table_topmost_at(t, "/m/s") == table_get(t, 132));
	table_remove(t, table_get(t, 130));
	add(t, 130, 100, "/m/s");
	assert_se(table_topmost_at(t, "/m/s") == table_get(t, 132));
	table_remove(t, table_get(t, 132));
	table_remove(t, table_get(t, 131));
	assert_se(table_topmost_at(t, "/m/s") == table_get(t, 130));

	size_t it = 0, n = 0;
	while (table_iterate(t, &it, &m))
		n++;
	assert_se(n == table_size(t));
	table_free(t);
	printf("ok - table indexes: children, mount ID, stacked mount points, hidden stacks, updates\n");
}

static void test_mount_info(void)
{
	MountInfo a = { .attributes = 0 }, b;
	char buf[128];

	assert_se(mount_info_options(&a, buf, sizeof(buf)) == 0);
	assert_se(strcmp(buf, "rw,relatime") == 0);
	a.attributes = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
		       MOUNT_ATTR_NOATIME;
	assert_se(mount_info_options(&a, buf, sizeof(buf)) == 0);
	assert_se(strcmp(buf, "ro,nosuid,nodev,noexec,noatime") == 0);
	a.attributes = MOUNT_ATTR_STRICTATIME | MOUNT_ATTR_NOSYMFOLLOW;
	assert_se(mount_info_options(&a, buf, sizeof(buf)) == 0);
	assert_se(strcmp(buf, "rw,nosymfollow") == 0);
	assert_se(mount_info_options(&a, buf, 4) == -ENOBUFS);

	assert_se(strcmp(propagation_to_string(MW_PROPAGATION_SHARED), "shared") == 0);
	assert_se(strcmp(propagation_to_string(MW_PROPAGATION_SLAVE), "slave") == 0);
	assert_se(strcmp(propagation_to_string(99), "unknown") == 0);
	assert_se(propagation_from_string("unbindable") == MW_PROPAGATION_UNBINDABLE);
	assert_se(propagation_from_string("x") == -EINVAL);

	a = (MountInfo){ .unique_id = 1, .mount_point = strdup("/x"), .source = strdup("s") };
	assert_se(mount_info_copy(&b, &a) == 0);
	assert_se(mount_info_diff(&a, &b) == 0);
	assert_se(b.mount_point != a.mount_point && strcmp(b.mount_point, "/x") == 0);
	b.notify_sum = 5;
	assert_se(mount_info_diff(&a, &b) == 1U << MW_FIELD_CHANGE_COUNT);
	mount_info_done(&a);
	mount_info_done(&b);
	printf("ok - mount options as mountinfo shows them, propagation names, copy and diff\n");
}

static void test_paths(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/", "/" },        { "//", "/" },           { "/a/", "/a" },
		{ "/a//b/./c", "/a/b/c" }, { "/./", "/" },   { "a", NULL },
		{ "", NULL },        { "/a/../b", NULL },     { "/a/..b", "/a/..b" },
	};
	uint64_t v;
	uint32_t u;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *p = NULL;
		int r = path_normalize(cases[i].in, &p);

		if (cases[i].out) {
			assert_se(r == 0 && strcmp(p, cases[i].out) == 0);
			free(p);
		} else
			assert_se(r == -EINVAL && !p);
	}
	assert_se(parse_u64("123", &v) == 0 && v == 123);
	assert_se(parse_u64("0x10", &v) == 0 && v == 16);
	assert_se(parse_u64("-1", &v) == -EINVAL);
	assert_se(parse_u64("12a", &v) == -EINVAL);
	assert_se(parse_u64("", &v) == -EINVAL);
	assert_se(parse_u64("99999999999999999999999", &v) == -ERANGE);
	assert_se(parse_u32("4294967296", &u) == -ERANGE);
	assert_se(parse_u32("4294967295", &u) == 0 && u == UINT32_MAX);
	assert_se(log_level_from_string("DEBUG") == LOG_DEBUG);
	assert_se(log_level_from_string("error") == LOG_ERR);
	assert_se(log_level_from_string("loud") == -EINVAL);
	{
		char *t = NULL;

		assert_se(escape_for_display("/plain/päth/日本 x", &t) == 0 && !t);
		assert_se(escape_for_display("/bad\xff/x\xc3", &t) == 1);
		assert_se(strcmp(t, "/bad\\377/x\\303") == 0);
		free(t);
		assert_se(escape_for_display("\xed\xa0\x80", &t) == 1); /* a surrogate */
		free(t);
		/* Reversible, and no two paths alike: the backslash and control bytes are escaped too. */
		static const char *const paths[] = { "/c\xff", "/c\\377", "/n\nl", "/t\tab", "/c\\134", "/\x7f" };
		char *shown[ELEMENTSOF(paths)];

		for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
			assert_se(escape_for_display(paths[i], &shown[i]) == 1);
			assert_se(!strpbrk(shown[i], "\n\t\x7f\xff"));
			for (size_t j = 0; j < i; j++)
				assert_se(strcmp(shown[i], shown[j]) != 0);
			t = strdup(shown[i]);
			assert_se(t && strcmp(unescape_octal(t), paths[i]) == 0);
			free(t);
		}
		assert_se(strcmp(shown[0], "/c\\377") == 0 && strcmp(shown[1], "/c\\134377") == 0);
		assert_se(strcmp(shown[2], "/n\\012l") == 0 && strcmp(shown[3], "/t\\011ab") == 0);
		for (size_t i = 0; i < ELEMENTSOF(paths); i++)
			free(shown[i]);
	}
	printf("ok - path normalisation, number and log level parsing, reversible display escaping\n");
}

int main(void)
{
	test_table();
	test_mount_info();
	test_paths();
	return 0;
}
