/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for ctl-format.c: findmnt-style tree and list tables (tree
 * lines, widths that fit, chosen columns, raw, no headings), one JSON layout
 * for list, tree and show, show's Name=value lines, monitor's "what changed
 * to what", and the owner-change lines.
 */
#include <stdio.h>

#include "check.h"
#include "ctl-format.h"
#include "util.h"

static CtlMount mk(uint64_t id, uint64_t parent, const char *point, const char *type)
{
	CtlMount m = {};
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, id);
	assert_se(ctl_mount_set(&m, MW_FIELD_UNIQUE_ID, buf) == 0);
	m.v[MW_FIELD_PARENT_UNIQUE_ID].u = parent;
	m.v[MW_FIELD_MOUNT_ID].u = id + 10;
	assert_se(ctl_mount_set(&m, MW_FIELD_MOUNT_POINT, point) == 0);
	assert_se(ctl_mount_set(&m, MW_FIELD_FS_TYPE, type) == 0);
	assert_se(ctl_mount_set(&m, MW_FIELD_SOURCE, "src \"x\"") == 0);
	assert_se(ctl_mount_set(&m, MW_FIELD_OPTIONS, "rw,relatime") == 0);
	assert_se(ctl_mount_set(&m, MW_FIELD_PROPAGATION, "shared") == 0);
	assert_se(ctl_mount_set(&m, MW_FIELD_DEVICE, "0:20") == 0);
	assert_se(ctl_mount_set(&m, MW_FIELD_READ_ONLY, "no") == 0);
	return m;
}

/* Output goes to f, then end() returns it as a string. */
static FILE *f;
static char *buf;
static size_t size;

static void begin(void)
{
	f = open_memstream(&buf, &size);
	assert_se(f);
}

static char *end(void)
{
	assert_se(fclose(f) == 0);
	return buf;
}

static const int default_cols[] = { MW_FIELD_MOUNT_POINT, MW_FIELD_SOURCE, MW_FIELD_FS_TYPE,
				    MW_FIELD_OPTIONS };

/*
 * ctl_escape(): every control byte, DEL, C1 and invalid byte escaped; unescape_octal() undoes it. A
 * backslash is left alone: the daemon's strings come escaped already (escape_for_display()).
 */
static void test_escape(void)
{
	static const char *const cases[] = {
		"plain/päth",
		"\033[31mred\033]0;title\007",
		"new\nline\ttab\177del\\back",
		"c1\302\233csi and \302\240nbsp",
		"bad\377byte\303",
		"",
	};
	char json[256];
	FILE *jf;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_free_ char *e = ctl_escape(cases[i]);

		assert_se(e);
		for (const unsigned char *p = (const unsigned char *)e; *p; p++)
			assert_se(*p >= 0x20 && *p != 0x7f && !(p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) &&
				  *p != 0xff);
		assert_se(streq_ptr(unescape_octal(e), cases[i]));
	}
	{
		_cleanup_free_ char *e = ctl_escape("a\\134b\n\302\240");

		assert_se(streq_ptr(e, "a\\134b\\012\302\240")); /* NBSP is no control: kept */
	}
	jf = fmemopen(json, sizeof(json), "w");
	assert_se(jf);
	json_string(jf, "\033\177\302\233\377\"\\\n");
	assert_se(fclose(jf) == 0);
	assert_se(streq_ptr(json, "\"\\u001b\\u007f\\u009b\\ufffd\\\"\\\\\\n\""));
}

int main(void)
{
	CtlMount m[] = {
		mk(10, 10, "/", "ext4"),
		mk(13, 11, "/sys/fs/cgroup", "tmpfs"),
		mk(11, 10, "/sys", "sysfs"),
		mk(14, 13, "/sys/fs/cgroup/unified", "cgroup2"),
		mk(12, 11, "/sys/kernel/security", "securityfs"),
		mk(15, 10, "/a mount point with spaces and a long name", "tmpfs"),
	};
	size_t n = ELEMENTSOF(m);
	int cols[_MW_FIELD_MAX], r;

	test_escape();
	const char *bad;
	size_t bad_len;
	char *out, *line;

	/* Columns: the Mount properties by name, any case; '+' appends. */
	assert_se(ctl_column_from_string("mountpoint") == MW_FIELD_MOUNT_POINT);
	assert_se(ctl_column_from_string("FSTYPE") == MW_FIELD_FS_TYPE);
	assert_se(ctl_column_from_string("ChangeCount") == MW_FIELD_CHANGE_COUNT);
	assert_se(ctl_column_from_string("TARGET") == -EINVAL);
	r = ctl_columns_parse("uniqueid,MountPoint", default_cols, 4, cols, &bad, &bad_len);
	assert_se(r == 2 && cols[0] == MW_FIELD_UNIQUE_ID && cols[1] == MW_FIELD_MOUNT_POINT);
	r = ctl_columns_parse("+propagation", default_cols, 4, cols, &bad, &bad_len);
	assert_se(r == 5 && cols[0] == MW_FIELD_MOUNT_POINT && cols[4] == MW_FIELD_PROPAGATION);
	r = ctl_columns_parse("fstype,bogus,source", default_cols, 4, cols, &bad, &bad_len);
	assert_se(r == -EINVAL && bad_len == 5 && strncmp(bad, "bogus", 5) == 0);
	assert_se(ctl_columns_parse("", default_cols, 4, cols, &bad, &bad_len) == -EINVAL);
	printf("ok - columns by property name, in any case, '+' appends, a bad one is named\n");

	/*
	 * tree: findmnt's lines, full mount points, siblings sorted, widths that
	 * fit. (In the C locale libsmartcols draws the lines in ASCII.)
	 */
	out = (begin(), r = ctl_print_tree(f, m, n, 0, default_cols, 4, 0), end());
	assert_se(r == 0);
	fputs(out, stdout);
	assert_se(strncmp(out, "MOUNTPOINT", 10) == 0 && strstr(out, "SOURCE") && strstr(out, "OPTIONS\n"));
	assert_se(strstr(out, "\n/ "));
	assert_se(strstr(out, "\n|-/a mount point with spaces and a long name "));
	assert_se(strstr(out, "\n`-/sys "));
	assert_se(strstr(out, "\n  |-/sys/fs/cgroup "));
	assert_se(strstr(out, "\n  | `-/sys/fs/cgroup/unified "));
	assert_se(strstr(out, "\n  `-/sys/kernel/security "));
	/* Every line is as wide as the longest mount point needs: the columns after it line up. */
	line = strstr(out, "\n`-/sys ") + 1;
	assert_se(strstr(line, "src \"x\"") - line == strstr(out, "SOURCE") - out);
	free(out);

	out = (begin(), r = ctl_print_tree(f, m, n, 13, default_cols, 4, CTL_OUTPUT_NOHEADINGS), end());
	assert_se(r == 0);
	assert_se(strncmp(out, "/sys/fs/cgroup ", 15) == 0 && strstr(out, "\n`-/sys/fs/cgroup/unified "));
	assert_se(!strstr(out, "MOUNTPOINT") && !strstr(out, "security"));
	free(out);
	out = (begin(), r = ctl_print_tree(f, m, n, 99, default_cols, 4, 0), end());
	assert_se(r == -ENOENT);
	free(out);
	printf("ok - tree: lines, full mount points, a subtree, no headings, an unknown root\n");

	/* JSON: one layout; booleans typed, 64-bit IDs as strings; the tree nests children. */
	cols[0] = MW_FIELD_MOUNT_POINT;
	cols[1] = MW_FIELD_UNIQUE_ID;
	cols[2] = MW_FIELD_READ_ONLY;
	cols[3] = MW_FIELD_SOURCE;
	out = (begin(), r = ctl_print_tree(f, m, n, 0, cols, 4, CTL_OUTPUT_JSON), end());
	assert_se(r == 0);
	fputs(out, stdout);
	assert_se(strstr(out, "\"mounts\": ["));
	assert_se(strstr(out, "\"mountpoint\": \"/sys/fs/cgroup/unified\""));
	assert_se(strstr(out, "\"uniqueid\": \"14\""));
	assert_se(strstr(out, "\"readonly\": false"));
	assert_se(strstr(out, "\"source\": \"src \\\"x\\\"\""));
	assert_se(strstr(out, "\"children\": ["));
	free(out);

	ctl_mounts_sort(m, n);
	assert_se(strcmp(m[0].v[MW_FIELD_MOUNT_POINT].s, "/") == 0);
	assert_se(strcmp(m[n - 1].v[MW_FIELD_MOUNT_POINT].s, "/sys/kernel/security") == 0);
	out = (begin(), r = ctl_print_list(f, m, n, cols, 4, CTL_OUTPUT_JSON), end());
	assert_se(r == 0 && strstr(out, "\"mounts\": [") && !strstr(out, "children"));
	assert_se(strstr(out, "\"mountpoint\": \"/sys/kernel/security\",\n         \"uniqueid\": \"12\","));
	free(out);
	m[0].v[MW_FIELD_READ_ONLY].b = true;
	out = (begin(), r = ctl_print_show(f, &m[0], cols, 4, false, CTL_OUTPUT_JSON), end());
	assert_se(r == 0 && strstr(out, "\"mounts\": [") && strstr(out, "\"readonly\": true"));
	free(out);
	printf("ok - JSON: {\"mounts\": [...]} for tree, list and show, typed values, IDs as strings, nested children\n");

	/* raw: one space between columns, spaces escaped; no headings. */
	out = (begin(), r = ctl_print_list(f, m, n, default_cols, 2, CTL_OUTPUT_RAW | CTL_OUTPUT_NOHEADINGS), end());
	assert_se(r == 0);
	fputs(out, stdout);
	assert_se(strncmp(out, "/ src\\x20\"x\"\n", sizeof("/ src\\x20\"x\"\n") - 1) == 0);
	assert_se(strstr(out, "\n/a\\x20mount\\x20point"));
	assert_se(!strstr(out, "MOUNTPOINT"));
	free(out);
	printf("ok - list: raw and without headings\n");

	/* show: Name=value, or only the values, in the order asked. */
	cols[0] = MW_FIELD_READ_ONLY;
	cols[1] = MW_FIELD_FS_TYPE;
	out = (begin(), r = ctl_print_show(f, &m[0], cols, 2, false, 0), end());
	assert_se(r == 0 && strcmp(out, "ReadOnly=yes\nFsType=ext4\n") == 0);
	free(out);
	out = (begin(), r = ctl_print_show(f, &m[0], cols, 2, true, 0), end());
	assert_se(r == 0 && strcmp(out, "yes\next4\n") == 0);
	free(out);
	printf("ok - show: Name=value lines and --value\n");

	/* monitor: what changed, to what. */
	{
		CtlMount new;
		uint32_t mask = 1U << MW_FIELD_OPTIONS | 1U << MW_FIELD_READ_ONLY;

		assert_se(ctl_mount_copy(&m[1], &new) == 0);
		assert_se(ctl_mount_set(&new, MW_FIELD_OPTIONS, "ro,relatime") == 0);
		new.v[MW_FIELD_READ_ONLY].b = true;
		line = ctl_change_text(&m[1], &new, mask, false);
		assert_se(line && strcmp(line, "Options: rw,relatime -> ro,relatime, ReadOnly: no -> yes") == 0);
		free(line);
		line = ctl_change_text(&m[1], &new, mask, true);
		assert_se(line && strcmp(line, "{\"Options\": [\"rw,relatime\", \"ro,relatime\"], "
					       "\"ReadOnly\": [false, true]}") == 0);
		free(line);
		cols[0] = MW_FIELD_UNIQUE_ID;
		cols[1] = MW_FIELD_MOUNT_POINT;
		out = (begin(), ctl_print_mount_json(f, &new, cols, 2), end());
		assert_se(strcmp(out, "{\"uniqueid\": \"11\", \"mountpoint\": \"/a mount point with spaces "
				      "and a long name\"}") == 0 ||
			  strcmp(out, "{\"uniqueid\": \"15\", \"mountpoint\": \"/a mount point with spaces "
				      "and a long name\"}") == 0);
		free(out);
		ctl_mount_done(&new);
	}
	printf("ok - monitor: old -> new values, as text and as JSON\n");

	/* monitor: only owner changes of the daemon's name are news; clients' unique names are not. */
	{
		const char *bus = "org.mountwatch.MountWatch1";

		assert_se(!owner_change_message(bus, ":1.42", "", ":1.42"));
		assert_se(!owner_change_message(bus, ":1.42", ":1.42", ""));
		assert_se(!owner_change_message(bus, "org.freedesktop.login1", "", ":1.7"));
		assert_se(!owner_change_message(bus, bus, ":1.7", ":1.7"));
		assert_se(strstr(owner_change_message(bus, bus, ":1.7", ""), "went away"));
		assert_se(strstr(owner_change_message(bus, bus, "", ":1.9"), "(re)started"));
		assert_se(strstr(owner_change_message(bus, bus, ":1.7", ":1.9"), "(re)started"));
	}
	printf("ok - monitor's owner-change lines\n");
	for (size_t i = 0; i < n; i++)
		ctl_mount_done(&m[i]);
	return 0;
}
