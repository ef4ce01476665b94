/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Table, tree and JSON output for mountwatchctl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-format.h"
#include "mount-info.h"
#include "util.h"

void ctl_mount_done(CtlMount *m)
{
	free(m->object_path);
	free(m->mount_point);
	free(m->root);
	free(m->source);
	free(m->fstype);
	free(m->options);
	free(m->super_options);
	free(m->propagation);
	free(m->device);
	*m = (CtlMount){};
}

void ctl_mounts_free(CtlMount *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ctl_mount_done(&m[i]);
	free(m);
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ?: ""); *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static int cmp_point(const void *a, const void *b)
{
	const CtlMount *x = a, *y = b;
	int r = strcmp(x->mount_point ?: "", y->mount_point ?: "");

	if (r)
		return r;
	return x->unique_id < y->unique_id ? -1 : x->unique_id > y->unique_id;
}

void ctl_mounts_sort(CtlMount *m, size_t n)
{
	qsort(m, n, sizeof(*m), cmp_point);
}

void format_list(FILE *f, const CtlMount *m, size_t n)
{
	fprintf(f, "%-20s %-20s %-12s %-40s %s\n", "UNIQUE-ID", "PARENT", "FSTYPE", "MOUNTPOINT", "SOURCE");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%-20" PRIu64 " %-20" PRIu64 " %-12s %-40s %s\n", m[i].unique_id,
			m[i].parent_unique_id, m[i].fstype ?: "", m[i].mount_point ?: "", m[i].source ?: "");
}

void format_list_json(FILE *f, const CtlMount *m, size_t n)
{
	fputs("[", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n  {\"unique_id\": %" PRIu64 ", \"object\": ", i ? "," : "", m[i].unique_id);
		json_string(f, m[i].object_path);
		fprintf(f, ", \"parent_unique_id\": %" PRIu64 ", \"mount_point\": ", m[i].parent_unique_id);
		json_string(f, m[i].mount_point);
		fputs(", \"fstype\": ", f);
		json_string(f, m[i].fstype);
		fputs(", \"source\": ", f);
		json_string(f, m[i].source);
		fputs("}", f);
	}
	fputs(n ? "\n]\n" : "]\n", f);
}

void format_show(FILE *f, const CtlMount *m)
{
	fprintf(f, "UniqueId: %" PRIu64 "\n", m->unique_id);
	fprintf(f, "Object: %s\n", m->object_path ?: "");
	fprintf(f, "MountId: %u\n", m->mount_id);
	fprintf(f, "ParentUniqueId: %" PRIu64 "\n", m->parent_unique_id);
	fprintf(f, "ParentId: %u\n", m->parent_id);
	fprintf(f, "MountPoint: %s\n", m->mount_point ?: "");
	fprintf(f, "Root: %s\n", m->root ?: "");
	fprintf(f, "Source: %s\n", m->source ?: "");
	fprintf(f, "FsType: %s\n", m->fstype ?: "");
	fprintf(f, "Options: %s\n", m->options ?: "");
	fprintf(f, "SuperOptions: %s\n", m->super_options ?: "");
	fprintf(f, "Attributes: 0x%" PRIx64 "\n", m->attributes);
	fprintf(f, "ReadOnly: %s\n", m->read_only ? "yes" : "no");
	fprintf(f, "Propagation: %s\n", m->propagation ?: "");
	fprintf(f, "PeerGroup: %u\n", m->peer_group);
	fprintf(f, "MasterGroup: %u\n", m->master_group);
	fprintf(f, "SuperblockId: %" PRIu64 "\n", m->superblock_id);
	fprintf(f, "Device: %s\n", m->device ?: "");
	fprintf(f, "ChangeCount: %" PRIu64 "\n", m->change_count);
}

static void show_json_fields(FILE *f, const CtlMount *m, const char *indent)
{
	fprintf(f, "%s\"unique_id\": %" PRIu64 ",\n", indent, m->unique_id);
	fprintf(f, "%s\"object\": ", indent);
	json_string(f, m->object_path);
	fprintf(f, ",\n%s\"mount_id\": %u,\n", indent, m->mount_id);
	fprintf(f, "%s\"parent_unique_id\": %" PRIu64 ",\n", indent, m->parent_unique_id);
	fprintf(f, "%s\"parent_id\": %u,\n", indent, m->parent_id);
#define S(key, v)                                  \
	fprintf(f, "%s\"" key "\": ", indent);     \
	json_string(f, v);                         \
	fputs(",\n", f)
	S("mount_point", m->mount_point);
	S("root", m->root);
	S("source", m->source);
	S("fstype", m->fstype);
	S("options", m->options);
	S("super_options", m->super_options);
	S("propagation", m->propagation);
	S("device", m->device);
#undef S
	fprintf(f, "%s\"attributes\": %" PRIu64 ",\n", indent, m->attributes);
	fprintf(f, "%s\"read_only\": %s,\n", indent, m->read_only ? "true" : "false");
	fprintf(f, "%s\"peer_group\": %u,\n", indent, m->peer_group);
	fprintf(f, "%s\"master_group\": %u,\n", indent, m->master_group);
	fprintf(f, "%s\"superblock_id\": %" PRIu64 ",\n", indent, m->superblock_id);
	fprintf(f, "%s\"change_count\": %" PRIu64, indent, m->change_count);
}

void format_show_json(FILE *f, const CtlMount *m)
{
	fputs("{\n", f);
	show_json_fields(f, m, "  ");
	fputs("\n}\n", f);
}

int propagation_number(const char *s)
{
	int p = propagation_from_string(s);

	return p < 0 ? MW_PROPAGATION_UNKNOWN : p;
}

const char *owner_change_message(const char *watched, const char *name, const char *old_owner,
				 const char *new_owner)
{
	old_owner = old_owner ?: "";
	new_owner = new_owner ?: "";
	if (!streq_ptr(name, watched) || streq_ptr(old_owner, new_owner))
		return NULL;
	if (!*new_owner)
		return "mountwatchd went away.";
	/* A new owner, after none or replacing another: a new daemon, a new table. */
	return "mountwatchd (re)started; events in between were not seen.";
}

/* ---- trees ---- */

static int cmp_parent(const void *a, const void *b)
{
	const CtlMount *x = a, *y = b;

	if (x->parent_unique_id != y->parent_unique_id)
		return x->parent_unique_id < y->parent_unique_id ? -1 : 1;
	return cmp_point(a, b);
}

/* Children of id: a contiguous range once sorted by parent. */
static size_t children(const CtlMount *m, size_t n, uint64_t id, size_t *first)
{
	size_t lo = 0, hi = n, end;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m[mid].parent_unique_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && m[end].parent_unique_id == id; end++)
		;
	*first = lo;
	return end - lo;
}

static const CtlMount *find(const CtlMount *m, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].unique_id == id)
			return &m[i];
	return NULL;
}

/* The name of a child as test-mntinfo shows it: its point relative to the parent's. */
static const char *relative_point(const CtlMount *parent, const CtlMount *child)
{
	const char *p = parent->mount_point ?: "", *c = child->mount_point ?: "";
	size_t n = strlen(p);

	if (strcmp(p, "/") == 0)
		return c[0] == '/' ? c + 1 : c;
	if (strncmp(c, p, n) == 0 && (c[n] == '/' || c[n] == 0))
		return c[n] == '/' ? c + n + 1 : c + n;
	return c;
}

/*
 * DEV as test-mntinfo prints it, "%x:%x"; the Device property is "major:minor"
 * in decimal, as in mountinfo. Anything else is shown as it is.
 */
static const char *device_hex(const char *device, char *buf, size_t size)
{
	unsigned major, minor;
	int end = -1;

	if (!device || sscanf(device, "%u:%u%n", &major, &minor, &end) != 2 || device[end])
		return device ?: "";
	snprintf(buf, size, "%x:%x", major, minor);
	return buf;
}

static void tree_line(FILE *f, const CtlMount *m, const char *prefix, const char *name, unsigned depth)
{
	char dev[32];
	int s;

	fputs(prefix, f);
	s = (int)strlen(name);
	fputs(s ? name : "\"\"", f);
	if (!s)
		s = 2;
	s += (int)depth;
	s = s < 38 ? 38 - s : 1;
	fprintf(f, "%*s%10u %8" PRIx64 " %2" PRIx64 " %x %5s %s\n", s, "", m->mount_id, m->change_count,
		m->attributes, propagation_number(m->propagation), device_hex(m->device, dev, sizeof(dev)),
		m->fstype ?: "");
}

static void tree_rec(FILE *f, const CtlMount *all, size_t n, const CtlMount *m, char *prefix,
		     size_t prefix_len, unsigned depth)
{
	size_t first, k = children(all, n, m->unique_id, &first);

	if (depth > 1000)
		return;
	for (size_t i = 0; i < k; i++) {
		const CtlMount *c = &all[first + i];
		bool last = i == k - 1;

		if (c == m)
			continue;
		/* " \_ " before the child; its own children continue with " |  " or "    ". */
		memcpy(prefix + prefix_len, " \\_ ", 5);
		tree_line(f, c, prefix, relative_point(m, c), depth + 4);
		memcpy(prefix + prefix_len, last ? "    " : " |  ", 5);
		tree_rec(f, all, n, c, prefix, prefix_len + 4, depth + 4);
		prefix[prefix_len] = 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted unique IDs, so that finding the roots is O(n log n), not O(n^2). */
static uint64_t *id_index(const CtlMount *m, size_t n)
{
	uint64_t *ids = malloc((n + 1) * sizeof(*ids));

	if (!ids)
		return NULL;
	for (size_t i = 0; i < n; i++)
		ids[i] = m[i].unique_id;
	qsort(ids, n, sizeof(*ids), cmp_u64);
	return ids;
}

static bool is_root(const uint64_t *ids, size_t n, const CtlMount *x)
{
	return x->parent_unique_id == 0 || x->parent_unique_id == x->unique_id ||
	       !bsearch(&x->parent_unique_id, ids, n, sizeof(*ids), cmp_u64);
}

int format_tree(FILE *f, CtlMount *m, size_t n, uint64_t root_id)
{
	_cleanup_free_ char *prefix = NULL;
	_cleanup_free_ uint64_t *ids = NULL;

	qsort(m, n, sizeof(*m), cmp_parent);
	if (root_id && !find(m, n, root_id))
		return -ENOENT;
	prefix = calloc(1, 4 * 1024 + 8);
	ids = id_index(m, n);
	if (!prefix || !ids)
		return -ENOMEM;
	fprintf(f, "MOUNT                                 MOUNT ID   CHANGE#  AT P DEV   TYPE\n");
	fprintf(f, "------------------------------------- ---------- -------- -- - ----- --------\n");
	for (size_t i = 0; i < n; i++) {
		if (root_id ? m[i].unique_id != root_id : !is_root(ids, n, &m[i]))
			continue;
		prefix[0] = 0;
		tree_line(f, &m[i], "", m[i].mount_point ?: "", 0);
		tree_rec(f, m, n, &m[i], prefix, 0, 0);
	}
	return 0;
}

static void tree_json_rec(FILE *f, const CtlMount *all, size_t n, const CtlMount *m, unsigned depth)
{
	size_t first, k = children(all, n, m->unique_id, &first), printed = 0;
	char indent[64];

	snprintf(indent, sizeof(indent), "%*s", (int)(depth > 20 ? 20 : depth) * 2 + 2, "");
	fprintf(f, "%.*s{\n", (int)strlen(indent) - 2, indent);
	show_json_fields(f, m, indent);
	fprintf(f, ",\n%s\"children\": [", indent);
	for (size_t i = 0; i < k && depth < 1000; i++) {
		if (&all[first + i] == m)
			continue;
		fputs(printed++ ? ",\n" : "\n", f);
		tree_json_rec(f, all, n, &all[first + i], depth + 1);
	}
	fprintf(f, "%s]\n%.*s}", printed ? "\n" : "", (int)strlen(indent) - 2, indent);
}

int format_tree_json(FILE *f, CtlMount *m, size_t n, uint64_t root_id)
{
	_cleanup_free_ uint64_t *ids = NULL;
	size_t printed = 0;

	qsort(m, n, sizeof(*m), cmp_parent);
	if (root_id && !find(m, n, root_id))
		return -ENOENT;
	ids = id_index(m, n);
	if (!ids)
		return -ENOMEM;
	fputs("[\n", f);
	for (size_t i = 0; i < n; i++) {
		if (root_id ? m[i].unique_id != root_id : !is_root(ids, n, &m[i]))
			continue;
		if (printed++)
			fputs(",\n", f);
		tree_json_rec(f, m, n, &m[i], 1);
	}
	fputs("\n]\n", f);
	return 0;
}
