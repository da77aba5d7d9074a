/*
 * Values of axes as written by users into canonical text per kind (see
 * units.h), so equal configurations compare and hash equal whatever was
 * written; what is refused is said with what is allowed.
 */
#include "axis/axis.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "util/strings.h"
#include "util/units.h"

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

static int canonical_int(const struct tl_axis_info *ai, const char *v, char **out, struct tl_error *err)
{
	char buf[32];
	long n;

	for (const char *p = v; *p; p++)
		if (!isdigit((unsigned char)*p))
			return tl_error_set(err, "'%s' is not a positive integer", v);
	n = strtol(v, NULL, 10);
	if (n <= 0 || n < ai->lo)
		return tl_error_set(err, "'%s' is not a positive integer", v);
	if (ai->hi && n > ai->hi)
		return tl_error_set(err, "'%s' is too large (at most %.0f)", v, ai->hi);
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
		t = tl_strndup_trimmed(tok, strlen(tok));
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
	if (tl_ends_with(v, ".so"))
		return set_out(out, v, err);
	for (size_t i = 0; tl_policy_names[i]; i++)
		if (!strcmp(v, tl_policy_names[i]) && strcmp(v, "static"))
			return set_out(out, v, err);
	if (tl_did_you_mean(v, tl_policy_names))
		return unknown_name(err, "policy", v, tl_policy_names);
	{
		char list[256];
		size_t n = 0;

		for (size_t i = 0; tl_policy_names[i] && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s, ", strcmp(tl_policy_names[i], "static") ?
					      tl_policy_names[i] : "static:F,...");
		return tl_error_set(err, "unknown policy '%s' (known: %sor a plugin path ending in .so)", v, list);
	}
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

/* A bare number where a unit decides what it means: refused, with the forms it could have meant. */
static int no_unit(struct tl_error *err, const char *what, const char *v)
{
	char expected[160];

	tl_units_expected(expected, sizeof(expected), what, v);
	return tl_error_set(err, "'%s' has no unit (%s)", v, expected);
}

static int canonical_size(const struct tl_axis_info *ai, const char *v, char **out, struct tl_error *err)
{
	char canon[64];
	uint64_t bytes;
	int rc = tl_parse_size(v, &bytes);

	if (rc == -ENODATA)
		return no_unit(err, "size", v);
	if (rc == -EDOM)
		return tl_error_set(err, "'%s' is not a whole number of bytes", v);
	if (rc)
		return tl_error_set(err, "'%s' is not a size (e.g. 1MiB, 32M, 4GiB, 512KiB, 1GB)", v);
	if ((double)bytes < ai->lo) {
		tl_format_size(canon, sizeof(canon), (uint64_t)ai->lo);
		return tl_error_set(err, "'%s' is too small (at least %s)", v, canon);
	}
	tl_format_size(canon, sizeof(canon), bytes);
	return set_out(out, canon, err);
}

static int canonical_rate(const struct tl_axis_info *ai, const char *v, char **out, struct tl_error *err)
{
	char canon[64], lo[32], hi[32];
	double hz;
	int rc = tl_parse_rate(v, &hz);

	if (rc == -ENODATA)
		return no_unit(err, "rate", v);
	if (rc || !(hz > 0))
		return tl_error_set(err, "'%s' is not a rate (a positive number with Hz, kHz or MHz, e.g. 10Hz)", v);
	/* %g rounds monotonically, so a rate inside the bounds prints inside them */
	if (hz < ai->lo || (ai->hi && hz > ai->hi)) {
		tl_format_rate_human(lo, sizeof(lo), ai->lo);
		tl_format_rate_human(hi, sizeof(hi), ai->hi);
		return tl_error_set(err, "'%s' is out of range (%s to %s)", v, lo, hi);
	}
	tl_format_rate(canon, sizeof(canon), hz);
	return set_out(out, canon, err);
}

static int canonical_budget(const char *v, char **out, struct tl_error *err)
{
	char canon[64];
	struct tl_budget b;
	int rc = tl_parse_budget(v, &b);

	if (rc == -ENODATA)
		return no_unit(err, "budget", v);
	if (rc == -EDOM)
		return tl_error_set(err, "'%s' is not a whole number of bytes", v);
	if (rc)
		return tl_error_set(err, "'%s' is not a budget (a size such as 4GiB, or a share of the "
				    "footprint above 0%% and up to 100%%, such as 40%%)", v);
	tl_format_budget(canon, sizeof(canon), &b);
	return set_out(out, canon, err);
}

/*
 * A parameter that is also an axis (window) takes the axis's bounds, which
 * are what it costs in the program (policies/param-bounds.h): policy_args
 * must not ask for what the axis refuses.
 */
static int param_axis_check(const char *name, const char *value, struct tl_error *err)
{
	int a = tl_axis_lookup(name);
	char *canon = NULL;
	struct tl_error one = { 0 };

	if (a < 0 || tl_axes[a].applies != TL_APPLIES_PARAM || tl_axes[a].kind != TL_KIND_INT)
		return 0;
	if (!canonical_int(&tl_axes[a], value, &canon, &one)) {
		free(canon);
		return 0;
	}
	return tl_error_set(err, "parameter %s: %s", name, one.msg);
}

/* One name=value of policy arguments, trimmed, checked, into buf at *n. */
static int canonical_arg(const char *arg, char *buf, size_t *n, struct tl_error *err)
{
	const char *eq = strchr(arg, '=');
	char *name, *value;
	int rc = 0;

	if (!eq)
		return tl_error_set(err, "'%s' is not name=value (policy arguments are name=value,...)", arg);
	name = tl_strndup_trimmed(arg, (size_t)(eq - arg));
	value = tl_strndup_trimmed(eq + 1, strlen(eq + 1));
	if (!name || !value) {
		rc = tl_error_set(err, "out of memory");
	} else if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(name)) {
		rc = tl_error_set(err, "'%s' is not a parameter name (lowercase letters, digits, _ and -)", name);
	} else if (!*value || strpbrk(value, "=, \t\n")) {
		rc = tl_error_set(err, "parameter %s: '%s' is not a value (no blanks, ',' or '=')", name, value);
	} else if (param_axis_check(name, value, err)) {
		rc = -EINVAL;
	} else {
		*n += (size_t)sprintf(buf + *n, "%s%s=%s", *n ? "," : "", name, value);
	}
	free(name);
	free(value);
	return rc;
}

static int cmp_arg(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
	int c = strncmp(x, y, nx < ny ? nx : ny);

	return c ? c : (int)nx - (int)ny;
}

/* name=value,... with names sorted, so the same parameters are one value whatever their order. */
static int canonical_args(const char *v, char **out, struct tl_error *err)
{
	char *copy = strdup(v), *buf = malloc(strlen(v) + 1), *tok, *rest;
	char **pairs = calloc(strlen(v) / 2 + 2, sizeof(*pairs));
	size_t n = 0, np = 0;
	int rc = 0;

	if (!copy || !buf || !pairs) {
		rc = tl_error_set(err, "out of memory");
		goto out;
	}
	for (rest = copy; !rc && (tok = strsep(&rest, ","));) {
		size_t at = n;

		rc = canonical_arg(tok, buf, &n, err);
		if (!rc)
			pairs[np++] = buf + at + (at ? 1 : 0);
	}
	if (rc)
		goto out;
	/* the pairs point into buf, separated by commas: sort them as strings of their own */
	for (size_t i = 0; i < np; i++)
		if ((tok = strchr(pairs[i], ',')))
			*tok = '\0';
	qsort(pairs, np, sizeof(*pairs), cmp_arg);
	for (size_t i = 1; i < np && !rc; i++)
		if (!cmp_arg(&pairs[i - 1], &pairs[i]))
			rc = tl_error_set(err, "parameter %.*s is given twice", (int)strcspn(pairs[i], "="), pairs[i]);
	if (!rc) {
		char *joined = malloc(n + 1);

		n = 0;
		for (size_t i = 0; joined && i < np; i++)
			n += (size_t)sprintf(joined + n, "%s%s", i ? "," : "", pairs[i]);
		if (joined)
			*out = joined;
		else
			rc = tl_error_set(err, "out of memory");
	}
out:
	free(pairs);
	free(buf);
	free(copy);
	return rc;
}

static int canonical_trimmed(enum tl_axis axis, const char *v, char **out, struct tl_error *err)
{
	const struct tl_axis_info *ai = &tl_axes[axis];
	const char *const *names;

	switch (ai->kind) {
	case TL_KIND_INT:
		return canonical_int(ai, v, out, err);
	case TL_KIND_SIZE:
		return canonical_size(ai, v, out, err);
	case TL_KIND_RATE:
		return canonical_rate(ai, v, out, err);
	case TL_KIND_BUDGET:
		return canonical_budget(v, out, err);
	case TL_KIND_POLICY:
		return canonical_policy(v, out, err);
	case TL_KIND_ARGS:
		return canonical_args(v, out, err);
	case TL_KIND_ALLOCATOR:
	case TL_KIND_SAMPLER:
	case TL_KIND_LOG:
		names = tl_kind_names(ai->kind);
		for (size_t i = 0; names[i]; i++)
			if (!strcmp(v, names[i]))
				return set_out(out, v, err);
		return unknown_name(err, ai->name, v, names);
	default:
		return canonical_name(ai->name, v, out, err);
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
	v = tl_strndup_trimmed(value, strlen(value));
	if (!v)
		return tl_error_set(err, "out of memory");
	rc = *v ? canonical_trimmed(axis, v, out, err) : tl_error_set(err, "empty value");
	free(v);
	return rc;
}
