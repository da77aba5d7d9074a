/*
 * The rules of name.h. Errors quote what was given; tl_error_set makes a
 * newline or an escape in it visible, so the message stays one line.
 */
#include "util/name.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

int tl_name_check(const char *what, const char *name, struct tl_error *err)
{
	const char *c;

	for (c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			break;
	if (!*name || *c)
		return tl_error_set(err, "%s: '%s' may only hold letters, digits and . _ -", what, name);
	if (strspn(name, ".") == strlen(name))
		return tl_error_set(err, "%s: '%s' would name a directory that is there already (use letters, "
				    "digits, . _ -, not just dots)", what, name);
	if (strlen(name) > TL_NAME_MAX)
		return tl_error_set(err, "%s: is %zu characters long; at most %d (it names a directory)", what,
				    strlen(name), TL_NAME_MAX);
	return 0;
}

int tl_relpath_check(const char *what, const char *path, struct tl_error *err)
{
	if (!*path)
		return tl_error_set(err, "%s: '' is empty", what);
	if (*path == '/')
		return tl_error_set(err, "%s: '%s' is absolute, outside the results", what, path);
	for (const char *c = path; *c; c += strcspn(c, "/"), c += *c == '/')
		if (!strncmp(c, "..", 2) && (c[2] == '/' || !c[2]))
			return tl_error_set(err, "%s: '%s' climbs out of the results with '..'", what, path);
	return 0;
}
