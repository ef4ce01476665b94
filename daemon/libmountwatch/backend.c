/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The list of backends, in the order Backend=auto tries them: the one
 * with the most exact events and the cheapest loss recovery first; and
 * what the backends share (path_has_prefix()).
 */
#include "backend.h"
#include "util.h"

const BackendOps *const backend_table[] = {
	&backend_watchqueue_ops,
	&backend_fanotify_ops,
	&backend_mountinfo_ops,
	NULL,
};

bool path_has_prefix(const char *path, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0) {
		*rest = path;
		return path[0] == '/';
	}
	if (strncmp(path, prefix, n) != 0 || (path[n] != '/' && path[n] != 0))
		return false;
	*rest = path + n;
	return true;
}

const BackendOps *backend_find(const char *name)
{
	for (size_t i = 0; backend_table[i]; i++)
		if (streq_ptr(backend_table[i]->name, name))
			return backend_table[i];
	return NULL;
}
