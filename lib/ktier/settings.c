/*
 * The kernel settings a journal may name (settings.h). Exact names, but
 * for the fast node's huge pages, whose node number varies.
 */
#include "ktier/settings.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static char root[4096];

static const char *const known[] = {
	TL_KS_NUMA_BALANCING,
	TL_KS_PROMOTE_RATE,
	TL_KS_DEMOTION,
	TL_KS_DEBUG_NB "/scan_delay_ms",
	TL_KS_DEBUG_NB "/scan_period_min_ms",
	TL_KS_DEBUG_NB "/scan_period_max_ms",
	TL_KS_DEBUG_NB "/hot_threshold_ms",
	TL_KS_HUGEPAGES,
	TL_KS_WEIGHT,
	TL_KS_WEIGHTS_AUTO,
	TL_KS_WEIGHTS_AUTO2,
};

void tl_ktier_settings_root(const char *dir)
{
	snprintf(root, sizeof(root), "%s", dir ? dir : "");
}

/* path without the root; NULL when it is not under it */
static const char *under_root(const char *path)
{
	size_t n = strlen(root);

	if (!path || strncmp(path, root, n) || (n && path[n] != '/'))
		return NULL;
	return path + n;
}

/* Does `s` match `pattern`, whose %d stands for a decimal number (digits, no sign, below 2^31)? */
static bool matches(const char *pattern, const char *s)
{
	const char *d = strstr(pattern, "%d");
	size_t lead = d ? (size_t)(d - pattern) : strlen(pattern), digits = 0;

	if (!d)
		return !strcmp(pattern, s);
	if (strncmp(pattern, s, lead))
		return false;
	s += lead;
	while (isdigit((unsigned char)s[digits]))
		digits++;
	if (!digits || digits > 9 || (digits > 1 && s[0] == '0'))
		return false;
	return !strcmp(d + 2, s + digits);
}

bool tl_ktier_setting_known(const char *path)
{
	const char *p = under_root(path);

	for (size_t i = 0; p && i < sizeof(known) / sizeof(known[0]); i++)
		if (matches(known[i], p))
			return true;
	return false;
}

bool tl_ktier_kdamonds_known(const char *dir)
{
	const char *p = under_root(dir);

	return p && !strcmp(p, TL_KS_KDAMONDS);
}

bool tl_ktier_value_ok(const char *value)
{
	size_t n = 0;

	for (; value[n]; n++)
		if (!isgraph((unsigned char)value[n]))
			return false;
	return n && n < 256;
}
