/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for ctl-format.c: the test-mntinfo style tree, list and JSON.
 */
#include <assert.h>
#include <stdio.h>

#include "ctl-format.h"
#include "util.h"

static CtlMount mk(uint64_t id, uint64_t parent, uint32_t mnt_id, const char *point, const char *type)
{
	return (CtlMount){
		.unique_id = id,
		.parent_unique_id = parent,
		.mount_id = mnt_id,
		.mount_point = strdup(point),
		.fstype = strdup(type),
		.propagation = strdup("shared"),
		.device = strdup("0:20"),
		.source = strdup("src\"x"),
		.attributes = 0xe,
	};
}

static char *render(int (*fn)(FILE *, CtlMount *, size_t, uint64_t), CtlMount *m, size_t n,
		    uint64_t root, int *ret)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert(f);
	*ret = fn(f, m, n, root);
	fclose(f);
	return buf;
}

int main(void)
{
	CtlMount m[] = {
		mk(10, 0, 21, "/", "ext4"),
		mk(13, 11, 28, "/sys/fs/cgroup", "tmpfs"),
		mk(11, 10, 22, "/sys", "sysfs"),
		mk(14, 13, 29, "/sys/fs/cgroup/unified", "cgroup2"),
		mk(12, 11, 24, "/sys/kernel/security", "securityfs"),
		mk(15, 10, 30, "/tmp", "tmpfs"),
	};
	size_t n = ELEMENTSOF(m);
	char *out;
	int r;

	out = render(format_tree, m, n, 0, &r);
	assert(r == 0);
	fputs(out, stdout);
	assert(strstr(out, "MOUNT                                 MOUNT ID   CHANGE#  AT P DEV   TYPE\n"));
	/* Children are named relative to the parent; bars continue while siblings follow. */
	assert(strstr(out, "\n \\_ sys "));
	assert(strstr(out, "\n |   \\_ fs/cgroup "));
	assert(strstr(out, "\n |   |   \\_ unified "));
	assert(strstr(out, "\n |   \\_ kernel/security "));
	assert(strstr(out, "\n \\_ tmp "));
	/* DEV in hex as test-mntinfo prints it; the bus says "0:20" in decimal. */
	assert(strstr(out, "        21        0  e 4  0:14 ext4\n"));
	assert(!strstr(out, "0:20"));
	/* The columns line up as in test-mntinfo: ID right-aligned after 38 columns. */
	{
		const char *l = strstr(out, "\n \\_ tmp ") + 1;
		assert(l[38 + 10 - 2] == '3' && l[38 + 10 - 1] == '0');
	}
	free(out);

	out = render(format_tree, m, n, 13, &r);
	assert(r == 0);
	assert(strstr(out, "/sys/fs/cgroup ") && strstr(out, " \\_ unified ") && !strstr(out, "tmp "));
	free(out);
	out = render(format_tree, m, n, 99, &r);
	assert(r == -ENOENT);
	free(out);

	out = render(format_tree_json, m, n, 0, &r);
	assert(r == 0);
	assert(strstr(out, "\"mount_point\": \"/sys/fs/cgroup/unified\""));
	assert(strstr(out, "\"source\": \"src\\\"x\""));
	assert(strstr(out, "\"children\": ["));
	/* JSON is data: the Device property as the bus and mountinfo give it. */
	assert(strstr(out, "\"device\": \"0:20\""));
	free(out);

	/* A block device; something that is not "major:minor" is shown as it is. */
	for (size_t i = 0; i < n; i++) {
		if (streq_ptr(m[i].mount_point, "/tmp"))
			assert(free_and_strdup(&m[i].device, "259:17") > 0);
		else if (streq_ptr(m[i].mount_point, "/sys/kernel/security"))
			assert(free_and_strdup(&m[i].device, "weird") > 0);
	}
	out = render(format_tree, m, n, 0, &r);
	assert(r == 0);
	assert(strstr(out, " 103:11 tmpfs\n") && strstr(out, " weird securityfs\n"));
	free(out);

	{
		char *buf = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&buf, &size);

		ctl_mounts_sort(m, n);
		assert(strcmp(m[0].mount_point, "/") == 0 && strcmp(m[n - 1].mount_point, "/tmp") == 0);
		format_list(f, m, n);
		format_list_json(f, m, n);
		json_string(f, "a\nb\x01");
		fclose(f);
		assert(strstr(buf, "UNIQUE-ID"));
		assert(strstr(buf, "\"mount_point\": \"/sys/kernel/security\""));
		assert(strstr(buf, "\"a\\nb\\u0001\""));
		free(buf);
	}
	assert(propagation_number("slave") == 3 && propagation_number("bogus") == 0);

	/* monitor: only owner changes of the daemon's name are news; clients' unique names are not. */
	{
		const char *bus = "org.mountwatch.MountWatch1";

		assert(!owner_change_message(bus, ":1.42", "", ":1.42"));
		assert(!owner_change_message(bus, ":1.42", ":1.42", ""));
		assert(!owner_change_message(bus, "org.freedesktop.login1", "", ":1.7"));
		assert(!owner_change_message(bus, bus, ":1.7", ":1.7"));
		assert(strstr(owner_change_message(bus, bus, ":1.7", ""), "went away"));
		assert(strstr(owner_change_message(bus, bus, "", ":1.9"), "(re)started"));
		assert(strstr(owner_change_message(bus, bus, ":1.7", ":1.9"), "(re)started"));
	}
	for (size_t i = 0; i < n; i++)
		ctl_mount_done(&m[i]);
	printf("ok - tree, list and JSON output; monitor's owner-change lines\n");
	return 0;
}
