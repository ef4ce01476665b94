/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountwatchctl's output: the mounts it reads from the bus, held by property
 * (mount_properties[], the one table of the Mount properties, says each
 * one's name and type), printed with libsmartcols as findmnt prints: list
 * and tree tables with automatic widths, chosen columns, raw, no headings,
 * JSON; show's Name=value lines; monitor's "what changed to what"; and what
 * monitor says when the daemon comes or goes. No bus in here, so it is
 * unit-tested.
 */
#ifndef MOUNTWATCH_CTL_FORMAT_H
#define MOUNTWATCH_CTL_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mount-properties.h"

/* One property's value, typed by mount_properties[].signature. */
typedef union CtlValue {
	uint64_t u; /* "t", "u" */
	char *s;    /* "s" (owned) */
	bool b;     /* "b" */
} CtlValue;

typedef struct CtlMount {
	char *object_path;
	CtlValue v[_MW_FIELD_MAX]; /* by MW_FIELD_* */
} CtlMount;

void ctl_mount_done(CtlMount *m);
void ctl_mounts_free(CtlMount *m, size_t n);
int ctl_mount_copy(const CtlMount *m, CtlMount *ret);

/* Sets property prop from text as the bus would carry it; for tests. */
int ctl_mount_set(CtlMount *m, unsigned prop, const char *value);

/* The property as text ("yes"/"no" for booleans), allocated. */
char *ctl_value_string(const CtlMount *m, unsigned prop);

/* Sorts by mount point, then unique ID. */
void ctl_mounts_sort(CtlMount *m, size_t n);

/* A column (a Mount property) by its name in any case; -EINVAL if none. */
int ctl_column_from_string(const char *name);

/*
 * Parses a comma-separated column list into cols (room for
 * _MW_FIELD_MAX); one starting with '+' is appended to the defaults.
 * Returns the number of columns, or -EINVAL naming the bad one in *bad
 * (pointing into list).
 */
int ctl_columns_parse(const char *list, const int *defaults, size_t n_defaults, int *cols,
		      const char **bad, size_t *bad_len);

enum {
	CTL_OUTPUT_RAW = 1 << 0,
	CTL_OUTPUT_NOHEADINGS = 1 << 1,
	CTL_OUTPUT_JSON = 1 << 2,
};

/* list: one line per mount, in the given order. */
int ctl_print_list(FILE *f, const CtlMount *m, size_t n, const int *cols, size_t n_cols,
		   unsigned flags);

/*
 * tree: each mount below its parent, siblings by mount point; below root_id
 * (0: from every mount whose parent is not in m). Reorders m. -ENOENT if
 * root_id is not in m.
 */
int ctl_print_tree(FILE *f, CtlMount *m, size_t n, uint64_t root_id, const int *cols,
		   size_t n_cols, unsigned flags);

/*
 * show: "Name=value" lines for the given properties (values only if
 * values_only); with CTL_OUTPUT_JSON the list layout with those columns.
 */
int ctl_print_show(FILE *f, const CtlMount *m, const int *props, size_t n_props, bool values_only,
		   unsigned flags);

/* A mount as one compact JSON object with the given columns, as the tables' JSON has it. */
void ctl_print_mount_json(FILE *f, const CtlMount *m, const int *cols, size_t n_cols);

/*
 * What changed from old to new in the properties of mask, as
 * "Options: rw,relatime -> ro,relatime, ReadOnly: no -> yes"; allocated.
 * With json, as {"Options": ["rw,relatime", "ro,relatime"], ...} instead.
 */
char *ctl_change_text(const CtlMount *old, const CtlMount *new, uint32_t mask, bool json);

/*
 * s for a terminal, allocated: every byte that could move the cursor or
 * start a control sequence - C0 (newline and tab among them), DEL, the C1
 * controls U+0080..U+009F - and every byte of invalid UTF-8 is written as
 * mountinfo writes odd bytes, a backslash and three octal digits, and so
 * is the backslash itself ("\134"); unescape_octal() undoes it. Other
 * UTF-8 stays as it is.
 */
char *ctl_escape(const char *s);

/*
 * Writes s as a JSON string (quoted, escaped): control characters, DEL and
 * the C1 controls as \u00XX; a byte of invalid UTF-8 as U+FFFD.
 */
void json_string(FILE *f, const char *s);

/*
 * What monitor says when NameOwnerChanged(name, old_owner, new_owner)
 * arrives for the daemon's bus name `watched`: NULL when there is nothing to
 * say (another name, or no change of owner).
 */
const char *owner_change_message(const char *watched, const char *name, const char *old_owner,
				 const char *new_owner);

#endif
