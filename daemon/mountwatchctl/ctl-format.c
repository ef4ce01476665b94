/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountwatchctl's tables (libsmartcols), show lines, monitor text and JSON.
 */
#include <errno.h>
#include <libsmartcols.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctl-format.h"
#include "util.h"

static char sig(unsigned prop)
{
	return mount_properties[prop].signature[0];
}

void ctl_mount_done(CtlMount *m)
{
	free(m->object_path);
	for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
		if (sig(i) == 's')
			free(m->v[i].s);
	*m = (CtlMount){};
}

void ctl_mounts_free(CtlMount *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ctl_mount_done(&m[i]);
	free(m);
}

int ctl_mount_copy(const CtlMount *m, CtlMount *ret)
{
	CtlMount c = *m;

	c.object_path = NULL;
	for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
		if (sig(i) == 's')
			c.v[i].s = NULL;
	if (m->object_path && !(c.object_path = strdup(m->object_path)))
		goto oom;
	for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
		if (sig(i) == 's' && m->v[i].s && !(c.v[i].s = strdup(m->v[i].s)))
			goto oom;
	*ret = c;
	return 0;
oom:
	ctl_mount_done(&c);
	return -ENOMEM;
}

int ctl_mount_set(CtlMount *m, unsigned prop, const char *value)
{
	switch (sig(prop)) {
	case 's':
		return free_and_strdup(&m->v[prop].s, value) < 0 ? -ENOMEM : 0;
	case 'b':
		m->v[prop].b = streq_ptr(value, "yes") || streq_ptr(value, "true") || streq_ptr(value, "1");
		return 0;
	default:
		return parse_u64(value, &m->v[prop].u);
	}
}

char *ctl_value_string(const CtlMount *m, unsigned prop)
{
	char *s = NULL;

	switch (sig(prop)) {
	case 's':
		return strdup(m->v[prop].s ?: "");
	case 'b':
		return strdup(m->v[prop].b ? "yes" : "no");
	default:
		if (asprintf(&s, "%" PRIu64, m->v[prop].u) < 0)
			return NULL;
		return s;
	}
}

static int cmp_point(const void *a, const void *b)
{
	const CtlMount *x = a, *y = b;
	uint64_t i = x->v[MW_FIELD_UNIQUE_ID].u, j = y->v[MW_FIELD_UNIQUE_ID].u;
	int r = strcmp(x->v[MW_FIELD_MOUNT_POINT].s ?: "", y->v[MW_FIELD_MOUNT_POINT].s ?: "");

	if (r)
		return r;
	return i < j ? -1 : i > j;
}

void ctl_mounts_sort(CtlMount *m, size_t n)
{
	qsort(m, n, sizeof(*m), cmp_point);
}

int ctl_column_from_string(const char *name)
{
	for (unsigned i = 0; i < _MW_FIELD_MAX; i++)
		if (strcasecmp(name, mount_property_name(i)) == 0)
			return (int)i;
	return -EINVAL;
}

int ctl_columns_parse(const char *list, const int *defaults, size_t n_defaults, int *cols,
		      const char **bad, size_t *bad_len)
{
	size_t n = 0;
	const char *p = list;

	if (*p == '+') {
		memcpy(cols, defaults, n_defaults * sizeof(*cols));
		n = n_defaults;
		p++;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		char name[64];
		int c = -EINVAL;

		if (len > 0 && len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = 0;
			c = ctl_column_from_string(name);
		}
		if (c < 0 || n >= _MW_FIELD_MAX) {
			*bad = p;
			*bad_len = len;
			return -EINVAL;
		}
		cols[n++] = c;
		p += len;
		if (*p == ',')
			p++;
	}
	if (n == 0) {
		*bad = list;
		*bad_len = 0;
		return -EINVAL;
	}
	return (int)n;
}

/* ---- libsmartcols tables ---- */

static void table_unrefp(struct libscols_table **t)
{
	scols_unref_table(*t);
}

/* A table named name with the columns cols; its tree column is tree_col (or none: -1). */
static struct libscols_table *new_table(FILE *f, const char *name, const int *cols, size_t n_cols,
					 int tree_col, unsigned flags)
{
	struct libscols_table *t = scols_new_table();

	if (!t)
		return NULL;
	scols_table_set_stream(t, f);
	scols_table_set_name(t, name);
	scols_table_enable_raw(t, !!(flags & CTL_OUTPUT_RAW));
	scols_table_enable_noheadings(t, !!(flags & CTL_OUTPUT_NOHEADINGS));
	scols_table_enable_json(t, !!(flags & CTL_OUTPUT_JSON));
	for (size_t i = 0; i < n_cols; i++) {
		const MountProperty *p = &mount_properties[cols[i]];
		const char *pname = mount_property_name(cols[i]);
		char header[64];
		int fl = 0, json = SCOLS_JSON_STRING;
		struct libscols_column *c;
		size_t k;

		for (k = 0; pname[k] && k < sizeof(header) - 1; k++)
			header[k] = (char)(pname[k] >= 'a' && pname[k] <= 'z' ? pname[k] - 32 : pname[k]);
		header[k] = 0;
		if (p->signature[0] == 'b')
			json = SCOLS_JSON_BOOLEAN;
		else if (p->signature[0] != 's') {
			/* 64-bit values (IDs) as strings: a JSON reader with doubles loses digits past 2^53. */
			json = p->signature[0] == 't' ? SCOLS_JSON_STRING : SCOLS_JSON_NUMBER;
			fl |= SCOLS_FL_RIGHT;
		}
		if (cols[i] == tree_col)
			fl = SCOLS_FL_TREE | SCOLS_FL_NOEXTREMES;
		else if (cols[i] == MW_FIELD_OPTIONS || cols[i] == MW_FIELD_SUPER_OPTIONS)
			fl |= SCOLS_FL_TRUNC;
		else if (cols[i] == MW_FIELD_SOURCE || cols[i] == MW_FIELD_MOUNT_POINT ||
			 cols[i] == MW_FIELD_ROOT)
			fl |= SCOLS_FL_NOEXTREMES;
		c = scols_table_new_column(t, header, 0.1, fl);
		if (!c) {
			scols_unref_table(t);
			return NULL;
		}
		(void)scols_column_set_json_type(c, json);
	}
	return t;
}

/* A line of m's values in t; escaped for a terminal (ctl_escape()) unless the table is JSON. */
static int add_line(struct libscols_table *t, struct libscols_line *parent, const CtlMount *m,
		    const int *cols, size_t n_cols, struct libscols_line **ret)
{
	struct libscols_line *l = scols_table_new_line(t, parent);
	bool json = scols_table_is_json(t);

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n_cols; i++) {
		char *s = ctl_value_string(m, cols[i]);

		if (s && !json && sig(cols[i]) == 's') {
			char *e = ctl_escape(s);

			free(s);
			s = e;
		}

		/* JSON booleans: libsmartcols reads 'n' and '0' as false. */
		if (!s || scols_line_refer_data(l, i, s) < 0) {
			free(s);
			return -ENOMEM;
		}
	}
	if (ret)
		*ret = l;
	return 0;
}

int ctl_print_list(FILE *f, const CtlMount *m, size_t n, const int *cols, size_t n_cols,
		   unsigned flags)
{
	_cleanup_(table_unrefp) struct libscols_table *t = new_table(f, "mounts", cols, n_cols, -1, flags);
	int r;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = add_line(t, NULL, &m[i], cols, n_cols, NULL);
		if (r < 0)
			return r;
	}
	return scols_print_table(t) < 0 ? -EIO : 0;
}

/* ---- trees ---- */

static uint64_t uid(const CtlMount *m)
{
	return m->v[MW_FIELD_UNIQUE_ID].u;
}

static uint64_t parent_uid(const CtlMount *m)
{
	return m->v[MW_FIELD_PARENT_UNIQUE_ID].u;
}

static int cmp_parent(const void *a, const void *b)
{
	uint64_t x = parent_uid(a), y = parent_uid(b);

	if (x != y)
		return x < y ? -1 : 1;
	return cmp_point(a, b);
}

/* Children of id: a contiguous range once sorted by parent. */
static size_t children(const CtlMount *m, size_t n, uint64_t id, size_t *first)
{
	size_t lo = 0, hi = n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (parent_uid(&m[mid]) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && parent_uid(&m[end]) == id; end++)
		;
	*first = lo;
	return end - lo;
}

static const CtlMount *find(const CtlMount *m, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (uid(&m[i]) == id)
			return &m[i];
	return NULL;
}

typedef struct Tree {
	struct libscols_table *table;
	const CtlMount *m;
	size_t n;
	const int *cols;
	size_t n_cols;
} Tree;

static int add_subtree(Tree *t, struct libscols_line *parent, const CtlMount *mount, unsigned depth)
{
	struct libscols_line *line;
	size_t first, k;
	int r;

	r = add_line(t->table, parent, mount, t->cols, t->n_cols, &line);
	if (r < 0)
		return r;
	if (depth > 4096) /* a cycle in what the bus said: stop */
		return 0;
	k = children(t->m, t->n, uid(mount), &first);
	for (size_t i = first; i < first + k; i++) {
		if (&t->m[i] == mount) /* its own parent */
			continue;
		r = add_subtree(t, line, &t->m[i], depth + 1);
		if (r < 0)
			return r;
	}
	return 0;
}

int ctl_print_tree(FILE *f, CtlMount *m, size_t n, uint64_t root_id, const int *cols,
		   size_t n_cols, unsigned flags)
{
	_cleanup_(table_unrefp) struct libscols_table *t = NULL;
	int tree_col = cols[0];
	Tree tree;
	int r;

	for (size_t i = 0; i < n_cols; i++)
		if (cols[i] == MW_FIELD_MOUNT_POINT)
			tree_col = MW_FIELD_MOUNT_POINT;
	qsort(m, n, sizeof(*m), cmp_parent);
	if (root_id && !find(m, n, root_id))
		return -ENOENT;
	t = new_table(f, "mounts", cols, n_cols, tree_col, flags);
	if (!t)
		return -ENOMEM;
	tree = (Tree){ .table = t, .m = m, .n = n, .cols = cols, .n_cols = n_cols };
	for (size_t i = 0; i < n; i++) {
		bool top = root_id ? uid(&m[i]) == root_id
				   : parent_uid(&m[i]) == uid(&m[i]) || !find(m, n, parent_uid(&m[i]));

		if (!top)
			continue;
		r = add_subtree(&tree, NULL, &m[i], 0);
		if (r < 0)
			return r;
	}
	return scols_print_table(t) < 0 ? -EIO : 0;
}

/* ---- show ---- */

int ctl_print_show(FILE *f, const CtlMount *m, const int *props, size_t n_props, bool values_only,
		   unsigned flags)
{
	if (flags & CTL_OUTPUT_JSON)
		return ctl_print_list(f, m, 1, props, n_props, flags);
	for (size_t i = 0; i < n_props; i++) {
		_cleanup_free_ char *v = ctl_value_string(m, props[i]);
		_cleanup_free_ char *s = v ? ctl_escape(v) : NULL;

		if (!s)
			return -ENOMEM;
		if (values_only)
			fprintf(f, "%s\n", s);
		else
			fprintf(f, "%s=%s\n", mount_property_name(props[i]), s);
	}
	return 0;
}

/* ---- JSON and monitor ---- */

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ?: ""); *p;) {
		size_t n = utf8_sequence(p);

		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) { /* C1 */
			fprintf(f, "\\u%04x", p[1]);
			p += 2;
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
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
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
		p++;
	}
	fputc('"', f);
}

char *ctl_escape(const char *s)
{
	char *t = NULL;
	int r = escape_unsafe(s ?: "", &t);

	if (r < 0)
		return NULL;
	return r > 0 ? t : strdup(s ?: "");
}

static void json_value(FILE *f, const CtlMount *m, unsigned prop)
{
	switch (sig(prop)) {
	case 's':
		json_string(f, m->v[prop].s);
		break;
	case 'b':
		fputs(m->v[prop].b ? "true" : "false", f);
		break;
	case 't': /* as the tables have it: a string */
		fprintf(f, "\"%" PRIu64 "\"", m->v[prop].u);
		break;
	default:
		fprintf(f, "%" PRIu64, m->v[prop].u);
	}
}

void ctl_print_mount_json(FILE *f, const CtlMount *m, const int *cols, size_t n_cols)
{
	fputc('{', f);
	for (size_t i = 0; i < n_cols; i++) {
		fputs(i ? ", \"" : "\"", f);
		for (const char *p = mount_property_name(cols[i]); *p; p++)
			fputc(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p, f);
		fputs("\": ", f);
		json_value(f, m, cols[i]);
	}
	fputc('}', f);
}

char *ctl_change_text(const CtlMount *old, const CtlMount *new, uint32_t mask, bool json)
{
	char *buf = NULL;
	size_t size = 0;
	bool first = true;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	if (json)
		fputc('{', f);
	for (unsigned i = 0; i < _MW_FIELD_MAX; i++) {
		_cleanup_free_ char *a = NULL, *b = NULL;

		if (!(mask & (1U << i)))
			continue;
		if (json) {
			fprintf(f, "%s\"%s\": [", first ? "" : ", ", mount_property_name(i));
			json_value(f, old, i);
			fputs(", ", f);
			json_value(f, new, i);
			fputc(']', f);
		} else {
			_cleanup_free_ char *va = ctl_value_string(old, i), *vb = ctl_value_string(new, i);

			a = va ? ctl_escape(va) : NULL;
			b = vb ? ctl_escape(vb) : NULL;
			fprintf(f, "%s%s: %s -> %s", first ? "" : ", ", mount_property_name(i), a ?: "",
				b ?: "");
		}
		first = false;
	}
	if (json)
		fputc('}', f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
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
