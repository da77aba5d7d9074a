/*
 * The axis table and everything that interprets axis values: canonical
 * text per kind, the policy classes that decide which axes apply to a run,
 * and did-you-mean over known names. The spec, the plan, the runner, the
 * store and the report all walk tl_axes[], so an axis is added here once.
 */
#include "axis/axis.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "util/units.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* In enum tl_axis order: the names must match the enum (and the store's columns). */
const struct tl_axis_info tl_axes[] = {
	[TL_AXIS_WORKLOAD] = { "workload", TL_KIND_STRING, false, NULL, false, NULL,
			       "workload name (default: the spec's first)" },
	[TL_AXIS_SIZE] = { "size", TL_KIND_STRING, false, NULL, false, NULL,
			   "workload size preset (default: the workload's default_size)" },
	[TL_AXIS_THREADS] = { "threads", TL_KIND_INT, false, NULL, false, NULL,
			      "threads for the workload (OMP_NUM_THREADS)" },
	[TL_AXIS_ALLOCATOR] = { "allocator", TL_KIND_STRING, false, NULL, false, "system",
				"allocator: system, jemalloc, fat" },
	[TL_AXIS_POLICY] = { "policy", TL_KIND_POLICY, false, NULL, false, "none",
			     "placement policy: none, all-fast, all-slow, static:F,.., lru, window, or a .so" },
	[TL_AXIS_BUDGET] = { "budget", TL_KIND_BUDGET, true, NULL, false, NULL,
			     "fast-tier budget: a size (4GiB) or a share of the footprint (40%)" },
	[TL_AXIS_THRESHOLD] = { "threshold", TL_KIND_SIZE, false, NULL, true, "1MiB",
				"smallest allocation the runtime manages" },
	[TL_AXIS_CHUNKS] = { "chunks", TL_KIND_INT, true, NULL, false, NULL,
			     "fast-tier chunks (budget / chunk size)" },
	[TL_AXIS_RATE] = { "rate", TL_KIND_RATE, false, NULL, true, "10Hz",
			   "sampling rate (10Hz, 1kHz)" },
	[TL_AXIS_WINDOW] = { "window", TL_KIND_INT, false, "window", false, "16",
			     "window policy length, in samples" },
	[TL_AXIS_SAMPLER] = { "sampler", TL_KIND_STRING, false, NULL, true, "fault",
			      "access sampler: fault, uffd-wp, perf, damon, none" },
	[TL_AXIS_LOG] = { "log", TL_KIND_STRING, false, NULL, true, "counters",
			  "runtime logging: none, counters, log" },
};
_Static_assert(ARRAY_SIZE(tl_axes) == TL_AXIS__COUNT, "tl_axes[] must have one row per enum tl_axis");

/* The fixed policies; static:F,.. and *.so paths are the open-ended ones. */
const char *const tl_policy_names[] = { "none", "all-fast", "all-slow", "static", "lru", "window", NULL };
const char *const tl_allocator_names[] = { "system", "jemalloc", "fat", NULL };
const char *const tl_sampler_names[] = { "fault", "uffd-wp", "perf", "damon", "none", NULL };
const char *const tl_log_names[] = { "none", "counters", "log", NULL };

int tl_axis_lookup(const char *name)
{
	for (int a = 0; name && a < TL_AXIS__COUNT; a++)
		if (!strcmp(tl_axes[a].name, name))
			return a;
	return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

bool tl_policy_uses_runtime(const char *policy)
{
	return policy && strcmp(policy, "none") && strcmp(policy, "all-fast") &&
	       strcmp(policy, "all-slow");
}

bool tl_policy_is_dynamic(const char *policy)
{
	return policy && (!strcmp(policy, "lru") || !strcmp(policy, "window") || ends_with(policy, ".so"));
}

const char *tl_policy_base(const char *policy, char *buf, unsigned len)
{
	const char *colon;

	if (!len)
		return buf;
	if (!policy) {
		buf[0] = '\0';
		return buf;
	}
	/* a plugin path may hold a colon of its own; only static has variants */
	colon = strncmp(policy, "static:", 7) ? NULL : policy + 6;
	snprintf(buf, len, "%.*s", colon ? (int)(colon - policy) : (int)strlen(policy), policy);
	return buf;
}

bool tl_axis_applies(enum tl_axis axis, const char *policy)
{
	const struct tl_axis_info *ai = &tl_axes[axis];
	char base[64];

	if (!policy)
		policy = tl_axes[TL_AXIS_POLICY].def;
	if (ai->dynamic_only && !tl_policy_is_dynamic(policy))
		return false;
	if (ai->runtime_only && !tl_policy_uses_runtime(policy))
		return false;
	if (ai->only_policy && strcmp(tl_policy_base(policy, base, sizeof(base)), ai->only_policy))
		return false;
	return true;
}

/* Optimal string alignment distance (Levenshtein plus adjacent swaps), ignoring case. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	size_t *d, best;

	if (n > 64 || m > 64)
		return (size_t)-1;
	d = calloc((n + 1) * (m + 1), sizeof(*d));
	if (!d)
		return (size_t)-1;
#define D(i, j) d[(i) * (m + 1) + (j)]
	for (size_t i = 0; i <= n; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= m; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t v = D(i - 1, j) + 1;

			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < v)
				v = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	}
	best = D(n, m);
#undef D
	free(d);
	return best;
}

const char *tl_did_you_mean(const char *word, const char *const *names)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	if (!word || !*word || !names)
		return NULL;
	for (size_t i = 0; names[i]; i++) {
		size_t d = edit_distance(word, names[i]);

		/*
		 * Close enough to be a slip, not a different word: "lur" -> "lru", not
		 * "x" -> "log"; two edits only in a longer word that starts the same,
		 * so "tcmalloc" is not taken for "jemalloc".
		 */
		if (d > 2 || 2 * d > strlen(names[i]) || 2 * d > strlen(word))
			continue;
		if (d == 2 && (strlen(names[i]) < 5 || tolower((unsigned char)word[0]) !=
							      tolower((unsigned char)names[i][0])))
			continue;
		if (d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

static int set_out(char **out, const char *text, struct tl_error *err)
{
	char *s = strdup(text);

	if (!s) {
		tl_error_set(err, "out of memory");
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

/* value without its leading and trailing blanks, malloc'd; NULL when out of memory. */
static char *trimmed(const char *value)
{
	size_t n;

	while (*value == ' ' || *value == '\t')
		value++;
	n = strlen(value);
	while (n && (value[n - 1] == ' ' || value[n - 1] == '\t'))
		n--;
	return strndup(value, n);
}

static int unknown_name(struct tl_error *err, const char *what, const char *value,
			const char *const *names)
{
	const char *dym = tl_did_you_mean(value, names);
	char list[256];
	size_t n = 0;

	if (dym)
		return tl_error_set(err, "unknown %s '%s' (did you mean '%s'?)", what, value, dym);
	list[0] = '\0';
	for (size_t i = 0; names[i] && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", names[i]);
	return tl_error_set(err, "unknown %s '%s' (known: %s)", what, value, list);
}

static int canonical_int(const char *v, char **out, struct tl_error *err)
{
	char buf[16];
	long n;

	for (const char *p = v; *p; p++)
		if (!isdigit((unsigned char)*p))
			return tl_error_set(err, "'%s' is not a positive integer", v);
	n = strtol(v, NULL, 10);
	if (n <= 0)
		return tl_error_set(err, "'%s' is not a positive integer", v);
	if (n > 1000000000)
		return tl_error_set(err, "'%s' is too large (at most 1000000000)", v);
	snprintf(buf, sizeof(buf), "%ld", n);
	return set_out(out, buf, err);
}

/* A static fraction: a plain decimal in [0, 1]. */
static int parse_fraction(const char *s, double *out)
{
	const char *p = s;
	int digits = 0;

	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits || *p)
		return -EINVAL;
	*out = strtod(s, NULL);
	return *out <= 1.0 ? 0 : -ERANGE;
}

/*
 * The shortest decimal that reads back as exactly f, so two fractions that
 * differ are two policies and the runtime gets what was written. Values
 * %g prints exactly ("0.4", "0.25", "1") keep the text they had, and with
 * it their run keys. Never an exponent: the runtime reads plain decimals.
 */
static int format_fraction(char *buf, size_t len, double f)
{
	char e[64];
	int p, exp10;

	for (p = 1; p < 17; p++) {
		snprintf(buf, len, "%.*g", p, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	snprintf(buf, len, "%.*g", p, f);
	if (!strchr(buf, 'e'))
		return 0;
	/* below 1e-4 %g switches to an exponent: the same p digits, written out */
	snprintf(e, sizeof(e), "%.*e", p - 1, f);
	exp10 = atoi(strchr(e, 'e') + 1);
	if (snprintf(buf, len, "%.*f", p - 1 - exp10, f) >= (int)len)
		return -ERANGE;
	return 0;
}

#define STATIC_HELP "static:F1,F2,... (the fast-tier fraction of each large allocation, in allocation order, each 0 to 1)"

static int canonical_static(const char *fractions, char **out, struct tl_error *err)
{
	char *copy = strdup(fractions), *tok, *t = NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = 0, count = 0;

	if (!copy) {
		rc = tl_error_set(err, "out of memory");
		goto out;
	}
	for (const char *c = fractions; *c; c++)
		count += *c == ',';
	if (count >= TL_STATIC_MAX_FRACTIONS) {
		rc = tl_error_set(err, "static policy has %d fractions; at most %d (one per large allocation, "
				  "the most the runtime takes)", count + 1, TL_STATIC_MAX_FRACTIONS);
		goto out;
	}
	count = 0;
	/* strsep keeps empty fields, so "1,,0" is an error and not "1,0" */
	for (char *rest = copy; (tok = strsep(&rest, ",")) != NULL;) {
		char one[400];	/* the smallest double written out is 0. and 340 more digits */
		double f;
		int prc;

		free(t);
		t = trimmed(tok);
		if (!t) {
			rc = tl_error_set(err, "out of memory");
			goto out;
		}
		if (!*t) {
			rc = tl_error_set(err, "static policy '%s': empty fraction; expected " STATIC_HELP,
					  fractions);
			goto out;
		}
		prc = parse_fraction(t, &f);
		if (prc == -ERANGE) {
			rc = tl_error_set(err, "static fraction %s is out of range (each must be 0 to 1)", t);
			goto out;
		}
		if (prc || format_fraction(one, sizeof(one), f)) {
			rc = tl_error_set(err, "static fraction '%s' is not a number; expected " STATIC_HELP, t);
			goto out;
		}
		if (n + strlen(one) + 16 > cap) {
			char *grown;

			cap = (n + strlen(one) + 16) * 2;
			grown = realloc(buf, cap);
			if (!grown) {
				rc = tl_error_set(err, "out of memory");
				goto out;
			}
			buf = grown;
		}
		n += (size_t)sprintf(buf + n, "%s%s", count++ ? "," : "static:", one);
	}
	rc = set_out(out, buf, err);
out:
	free(t);
	free(copy);
	free(buf);
	return rc;
}

static int canonical_policy(const char *v, char **out, struct tl_error *err)
{
	if (!strncmp(v, "static", 6) && (v[6] == ':' || v[6] == '\0' || v[6] == ' ')) {
		const char *f = v + 6;

		while (*f == ' ')
			f++;
		if (*f != ':' || !f[1])
			return tl_error_set(err, "policy 'static' needs its fractions: " STATIC_HELP);
		return canonical_static(f + 1, out, err);
	}
	if (ends_with(v, ".so"))
		return set_out(out, v, err);
	for (size_t i = 0; tl_policy_names[i]; i++)
		if (!strcmp(v, tl_policy_names[i]) && strcmp(v, "static"))
			return set_out(out, v, err);
	if (tl_did_you_mean(v, tl_policy_names))
		return unknown_name(err, "policy", v, tl_policy_names);
	return tl_error_set(err, "unknown policy '%s' (known: none, all-fast, all-slow, static:F,..., lru, "
			    "window, or a plugin path ending in .so)", v);
}

/* Workload and size names end up in store columns and "k=v" descriptions. */
static int canonical_name(const char *what, const char *v, char **out, struct tl_error *err)
{
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._+-", *p))
			return tl_error_set(err, "%s name '%s' may only hold letters, digits and . _ + -",
					    what, v);
	return set_out(out, v, err);
}

static int canonical_size(const char *v, char **out, struct tl_error *err)
{
	char canon[64];
	uint64_t bytes;
	int rc = tl_parse_size(v, &bytes);

	if (rc == -EDOM)
		return tl_error_set(err, "'%s' is not a whole number of bytes", v);
	if (rc)
		return tl_error_set(err, "'%s' is not a size (e.g. 1MiB, 32M, 4GiB, 512KiB, 1GB)", v);
	tl_format_size(canon, sizeof(canon), bytes);
	return set_out(out, canon, err);
}

static int canonical_rate(const char *v, char **out, struct tl_error *err)
{
	char canon[64];
	double hz;

	if (tl_parse_rate(v, &hz) || !(hz > 0))
		return tl_error_set(err, "'%s' is not a rate (a positive number with Hz, kHz or MHz, e.g. 10Hz)", v);
	/* %g rounds monotonically, so a rate inside the bounds prints inside them */
	if (hz < TL_RATE_MIN_HZ || hz > TL_RATE_MAX_HZ)
		return tl_error_set(err, "'%s' is out of range (0.001Hz to 1MHz)", v);
	tl_format_rate(canon, sizeof(canon), hz);
	return set_out(out, canon, err);
}

static int canonical_budget(const char *v, char **out, struct tl_error *err)
{
	char canon[64];
	struct tl_budget b;
	int rc = tl_parse_budget(v, &b);

	if (rc == -EDOM)
		return tl_error_set(err, "'%s' is not a whole number of bytes", v);
	if (rc)
		return tl_error_set(err, "'%s' is not a budget (a size such as 4GiB, or a share of the "
				    "footprint above 0%% and up to 100%%, such as 40%%)", v);
	tl_format_budget(canon, sizeof(canon), &b);
	return set_out(out, canon, err);
}

static int canonical_trimmed(enum tl_axis axis, const char *v, char **out, struct tl_error *err)
{
	switch (tl_axes[axis].kind) {
	case TL_KIND_INT:
		return canonical_int(v, out, err);
	case TL_KIND_SIZE:
		return canonical_size(v, out, err);
	case TL_KIND_RATE:
		return canonical_rate(v, out, err);
	case TL_KIND_BUDGET:
		return canonical_budget(v, out, err);
	case TL_KIND_POLICY:
		return canonical_policy(v, out, err);
	case TL_KIND_STRING:
		break;
	}
	switch (axis) {
	case TL_AXIS_ALLOCATOR:
	case TL_AXIS_SAMPLER:
	case TL_AXIS_LOG: {
		const char *const *names = axis == TL_AXIS_ALLOCATOR ? tl_allocator_names :
					   axis == TL_AXIS_SAMPLER ? tl_sampler_names : tl_log_names;

		for (size_t i = 0; names[i]; i++)
			if (!strcmp(v, names[i]))
				return set_out(out, v, err);
		return unknown_name(err, tl_axes[axis].name, v, names);
	}
	default:
		return canonical_name(tl_axes[axis].name, v, out, err);
	}
}

int tl_axis_canonical(enum tl_axis axis, const char *value, char **out, struct tl_error *err)
{
	char *v;
	int rc;

	if ((unsigned)axis >= TL_AXIS__COUNT)
		return tl_error_set(err, "no such axis");
	if (!value)
		return tl_error_set(err, "empty value");
	v = trimmed(value);
	if (!v)
		return tl_error_set(err, "out of memory");
	rc = *v ? canonical_trimmed(axis, v, out, err) : tl_error_set(err, "empty value");
	free(v);
	return rc;
}
