/*
 * libfatalloc's variables: the one table (fatalloc.h) and its parser.
 *
 * It runs inside the first pool reservation, that is inside a malloc, so
 * it must not allocate: values are looked up in the environment array by
 * hand (getenv is not safe that early in every libc) and sizes go through
 * tl_parse_size, which does not allocate either. Warnings are formatted
 * into a stack buffer and written with write(2).
 */
#include "fatalloc/fatalloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/units.h"

const struct fat_option_desc fat_option_table[FAT_OPT__COUNT] = {
#define FAT_OPT_ROW(id, var, def, help) { var, def, help },
	FAT_OPTIONS(FAT_OPT_ROW)
#undef FAT_OPT_ROW
};

const char *const fat_backing_names[FAT_BACKING__COUNT] = {
	"none", "hugetlb-1G", "hugetlb-2M", "thp", "4k"
};

struct fat_options fat_opt;

static const char *env_lookup(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

static void warn(enum fat_opt id, const char *val, const char *why)
{
	char buf[384];
	int n = snprintf(buf, sizeof(buf), "fatalloc: %s='%.100s': %s; using %s\n",
			 fat_option_table[id].var, val, why, fat_option_table[id].def);

	if (n > 0)
		(void)!write(2, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static bool parse_count(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

static void set_defaults(struct fat_options *o)
{
	memset(o, 0, sizeof(*o));
	o->pool_size = (size_t)1 << 30;
	o->max_pools = 16;
	o->first = FAT_BACKING_HUGETLB_1G;
	o->trim = (size_t)64 << 20;
}

/* "40" could be bytes or the MiB someone meant: refused, naming both (a bare 0 is a size). */
static void warn_no_unit(enum fat_opt id, const char *v)
{
	char expected[160], msg[180];

	tl_units_expected(expected, sizeof(expected), "size", v);
	snprintf(msg, sizeof(msg), "no unit (%s)", expected);
	warn(id, v, msg);
}

void fat_options_load(char *const *envp, struct fat_options *o)
{
	const char *v;
	uint64_t size;
	unsigned long n;

	set_defaults(o);
	if ((v = env_lookup(envp, fat_option_table[FAT_OPT_POOL].var)) && *v) {
		/* 2 MiB granules: the smallest huge page, and what THP needs aligned */
		if (tl_parse_size(v, &size) == -ENODATA)
			warn_no_unit(FAT_OPT_POOL, v);
		else if (tl_parse_size(v, &size) || size < ((uint64_t)2 << 20) || size > ((uint64_t)1 << 46))
			warn(FAT_OPT_POOL, v, "not a size from 2M to 64T");
		else
			o->pool_size = (size_t)((size + (2u << 20) - 1) & ~(uint64_t)((2u << 20) - 1));
	}
	if ((v = env_lookup(envp, fat_option_table[FAT_OPT_MAX_POOLS].var)) && *v) {
		if (!parse_count(v, FAT_POOLS_LIMIT, &n) || !n)
			warn(FAT_OPT_MAX_POOLS, v, "not a count from 1 to 256");
		else
			o->max_pools = (unsigned)n;
	}
	if ((v = env_lookup(envp, fat_option_table[FAT_OPT_BACKING].var)) && *v) {
		int found = -1;

		if (!strcmp(v, "auto"))
			found = FAT_BACKING_HUGETLB_1G;
		for (int b = FAT_BACKING_HUGETLB_1G; b < FAT_BACKING__COUNT && found < 0; b++)
			if (!strcmp(v, fat_backing_names[b]))
				found = b;
		if (found < 0)
			warn(FAT_OPT_BACKING, v, "not one of auto, hugetlb-1G, hugetlb-2M, thp, 4k");
		else
			o->first = (enum fat_backing)found;
	}
	if ((v = env_lookup(envp, fat_option_table[FAT_OPT_TRIM].var)) && *v) {
		if (!strcmp(v, "off"))
			o->trim = SIZE_MAX;
		else if (tl_parse_size(v, &size) == -ENODATA)
			warn_no_unit(FAT_OPT_TRIM, v);
		else if (tl_parse_size(v, &size) || size > ((uint64_t)1 << 46))
			warn(FAT_OPT_TRIM, v, "not a size to 64T, or off");
		else
			o->trim = (size_t)size;
	}
	if ((v = env_lookup(envp, fat_option_table[FAT_OPT_VERBOSE].var)) && *v) {
		if (strcmp(v, "0") && strcmp(v, "1"))
			warn(FAT_OPT_VERBOSE, v, "not 0 or 1");
		else
			o->verbose = *v == '1';
	}
	if ((v = env_lookup(envp, fat_option_table[FAT_OPT_OUT].var)) && *v) {
		if (strlen(v) >= sizeof(o->out) - 64)
			warn(FAT_OPT_OUT, "(long path)", "too long, no status file");
		else
			strcpy(o->out, v);
	}
}
