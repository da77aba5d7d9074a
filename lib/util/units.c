/*
 * Sizes, rates, durations, percentages and budgets (see units.h): strict
 * parsers and the canonical text that run keys are built from.
 *
 * Numbers are scanned by hand before anything converts them, because
 * strtod() alone would accept "nan", "inf", hex floats and signs, none of
 * which a spec may use. Sizes are computed in integers (a 128-bit product)
 * so "231.75MiB" is exact and "99999999999T" is an overflow, not a wrap.
 */
#include "util/units.h"
#include "util/strings.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
	const char *name;
	double mult;
};

/* A scanned decimal: integer part, and the fraction as num/den. */
struct number {
	uint64_t ip;
	uint64_t frac_num, frac_den;
	const char *start, *end;	/* the text of the number (with exponent, if any) */
	int has_exp;
	int dropped;	/* nonzero fraction digits beyond 1e-18 were left out of frac_num */
};

/*
 * digits [ '.' digits ] | '.' digits, then with allow_exp an optional
 * exponent. At least one digit; no sign. Returns the end or NULL.
 */
static const char *scan_number(const char *s, int allow_exp, struct number *n)
{
	const char *p = s;
	int digits = 0;

	memset(n, 0, sizeof(*n));
	n->frac_den = 1;
	n->start = s;
	for (; isdigit((unsigned char)*p); p++, digits++) {
		if (__builtin_mul_overflow(n->ip, 10, &n->ip) ||
		    __builtin_add_overflow(n->ip, (uint64_t)(*p - '0'), &n->ip))
			return NULL;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits++) {
			/* digits beyond 1e-18 cannot change a size and are dropped */
			if (n->frac_den < 1000000000000000000ULL) {
				n->frac_num = n->frac_num * 10 + (uint64_t)(*p - '0');
				n->frac_den *= 10;
			} else if (*p != '0') {
				n->dropped = 1;
			}
		}
	}
	if (!digits)
		return NULL;
	if (allow_exp && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;

		if (*q == '+' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			p = q;
			n->has_exp = 1;
		}
	}
	n->end = p;
	return p;
}

static int number_value(const struct number *n, double *out)
{
	char buf[128];
	size_t len = (size_t)(n->end - n->start);
	double v;

	if (!n->has_exp) {
		*out = (double)n->ip + (double)n->frac_num / (double)n->frac_den;
		return 0;
	}
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, n->start, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, NULL);
	if (errno == ERANGE || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* Finds the unit written after the number; "" matches the table's "" entry. */
static const struct unit *find_unit(const struct unit *units, const char *s)
{
	const char *end;
	size_t len;

	s = tl_skip_blanks(s);
	end = s;
	while (*end && *end != ' ' && *end != '\t')
		end++;
	len = (size_t)(end - s);
	if (*tl_skip_blanks(end))
		return NULL;
	for (; units->name; units++)
		if (strlen(units->name) == len && !strncmp(units->name, s, len))
			return units;
	return NULL;
}

static int is_zero(const struct number *n)
{
	return !n->ip && !n->frac_num && !n->dropped;
}

/*
 * Parses number + unit from units; the value in base units. A bare number
 * (units' "" entry) is -ENODATA unless bare_ok.
 */
static int parse_scaled(const char *s, const struct unit *units, int bare_ok, double *out)
{
	struct number n;
	const struct unit *u;
	const char *p;
	double v;

	if (!s)
		return -EINVAL;
	p = scan_number(tl_skip_blanks(s), 1, &n);
	if (!p || !(u = find_unit(units, p)) || number_value(&n, &v))
		return -EINVAL;
	/* zero is zero in every unit: only a bare number that is not needs one */
	if (!*u->name && !bare_ok && v != 0)
		return -ENODATA;
	v *= u->mult;
	if (!isfinite(v) || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_size(const char *s, int bare_bytes, uint64_t *bytes)
{
	static const struct unit units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { "T", 1099511627776.0 },
		{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 },
		{ "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
		{ NULL, 0 }
	};
	struct number n;
	const struct unit *u;
	const char *p;
	uint64_t mult, whole, part;
	unsigned __int128 frac;

	if (!s)
		return -EINVAL;
	p = scan_number(tl_skip_blanks(s), 0, &n);
	if (!p || !(u = find_unit(units, p)))
		return -EINVAL;
	/* "40" could be bytes or the MiB someone meant: only zero is zero in every unit */
	if (!*u->name && !bare_bytes && !is_zero(&n))
		return -ENODATA;
	mult = (uint64_t)u->mult;
	if (__builtin_mul_overflow(n.ip, mult, &whole))
		return -EINVAL;
	/*
	 * A byte is not divisible: rounding "1.5B" to 2 would run something
	 * other than what was written. A fraction needing more than 18 digits
	 * is taken as not whole (only contrived texts such as 2^-40 T are).
	 */
	frac = (unsigned __int128)n.frac_num * mult;
	if (n.dropped || frac % n.frac_den)
		return -EDOM;
	part = (uint64_t)(frac / n.frac_den);
	if (__builtin_add_overflow(whole, part, &whole))
		return -EINVAL;
	*bytes = whole;
	return 0;
}

int tl_parse_size(const char *s, uint64_t *bytes)
{
	return parse_size(s, 0, bytes);
}

int tl_parse_bytes(const char *s, uint64_t *bytes)
{
	return parse_size(s, 1, bytes);
}

int tl_parse_rate(const char *s, double *hz)
{
	static const struct unit units[] = {
		{ "", 1 }, { "Hz", 1 }, { "kHz", 1e3 }, { "MHz", 1e6 }, { NULL, 0 }
	};

	return parse_scaled(s, units, 0, hz);
}

int tl_parse_duration(const char *s, double *seconds)
{
	static const struct unit units[] = {
		{ "", 1 }, { "ms", 1e-3 }, { "s", 1 }, { "m", 60 }, { "h", 3600 }, { NULL, 0 }
	};

	/* a bare number of seconds is documented (timeout: 90) and kept */
	return parse_scaled(s, units, 1, seconds);
}

int tl_parse_percent(const char *s, double *fraction)
{
	static const struct unit units[] = { { "%", 1 }, { NULL, 0 } };
	double v;

	/* divided rather than scaled by 0.01, so "40%" is exactly 40 / 100 */
	if (parse_scaled(s, units, 0, &v))
		return -EINVAL;
	*fraction = v / 100;
	return 0;
}

static int parse_budget(const char *s, int bare_bytes, struct tl_budget *out)
{
	struct tl_budget b = { 0 };

	if (!s)
		return -EINVAL;
	if (strchr(s, '%')) {
		if (tl_parse_percent(s, &b.fraction) || !(b.fraction > 0) || b.fraction > 1)
			return -EINVAL;
		b.is_percent = 1;
	} else {
		int rc = parse_size(s, bare_bytes, &b.bytes);

		if (rc)
			return rc;
		if (b.bytes == 0)
			return -EINVAL;
	}
	*out = b;
	return 0;
}

int tl_parse_budget(const char *s, struct tl_budget *out)
{
	return parse_budget(s, 0, out);
}

int tl_parse_budget_bytes(const char *s, struct tl_budget *out)
{
	return parse_budget(s, 1, out);
}

static const char *const binary_units[] = { "B", "KiB", "MiB", "GiB", "TiB" };

int tl_format_size(char *buf, size_t len, uint64_t bytes)
{
	for (int i = 4; i > 0; i--) {
		uint64_t u = 1ULL << (10 * i);
		uint64_t whole = bytes / u, cents;

		/* exact to 1/100 of the unit, so the text parses back to the same bytes */
		if (!whole || ((unsigned __int128)bytes * 100) % u)
			continue;
		cents = (uint64_t)(((unsigned __int128)(bytes % u) * 100) / u);
		if (!cents)
			return snprintf(buf, len, "%llu%s", (unsigned long long)whole, binary_units[i]);
		if (cents % 10 == 0)
			return snprintf(buf, len, "%llu.%llu%s", (unsigned long long)whole,
					(unsigned long long)(cents / 10), binary_units[i]);
		return snprintf(buf, len, "%llu.%02llu%s", (unsigned long long)whole,
				(unsigned long long)cents, binary_units[i]);
	}
	return snprintf(buf, len, "%lluB", (unsigned long long)bytes);
}

int tl_format_rate(char *buf, size_t len, double hz)
{
	return snprintf(buf, len, "%gHz", hz);
}

int tl_format_rate_human(char *buf, size_t len, double hz)
{
	if (hz >= 1e6)
		return snprintf(buf, len, "%gMHz", hz / 1e6);
	if (hz >= 1e3)
		return snprintf(buf, len, "%gkHz", hz / 1e3);
	return snprintf(buf, len, "%gHz", hz);
}

int tl_format_budget(char *buf, size_t len, const struct tl_budget *b)
{
	if (b->is_percent)
		return snprintf(buf, len, "%g%%", b->fraction * 100);
	return tl_format_size(buf, len, b->bytes);
}

int tl_format_size_human(char *buf, size_t len, uint64_t bytes)
{
	int i = 0;
	double v = (double)bytes;

	while (i < 4 && bytes >= (1ULL << (10 * (i + 1))))
		i++;
	if (!i)
		return snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	v /= (double)(1ULL << (10 * i));
	if (bytes % (1ULL << (10 * i)) == 0)
		return snprintf(buf, len, "%.0f %s", v, binary_units[i]);
	return snprintf(buf, len, "%.2f %s", v, binary_units[i]);
}

int tl_units_expected(char *buf, size_t len, const char *what, const char *value)
{
	char num[32];
	const char *v = tl_skip_blanks(value ? value : "");
	size_t n = strcspn(v, " \t");

	/* the number as written, so the examples read as what was meant */
	snprintf(num, sizeof(num), "%.*s", (int)(n < sizeof(num) - 1 ? n : sizeof(num) - 1), v);
	if (!strcmp(what, "rate"))
		return snprintf(buf, len, "write %sHz or %skHz", num, num);
	if (!strcmp(what, "budget"))
		return snprintf(buf, len, "write %s%% of the footprint, or a size: %sMiB, %sGiB, %sB for bytes", num, num,
				num, num);
	return snprintf(buf, len, "write %sB for bytes, or %sKiB, %sMiB", num, num, num);
}
