/*
 * The values a reader takes from the store, checked against what the
 * schema allows before any of them is shown as a result: a figure of
 * merit is a finite number, a hit rate a fraction from 0 to 1, a count a
 * whole number not below 0. SQLite keeps whatever a row was given (text
 * in a REAL column, a blob anywhere), and a column read as a number turns
 * text into 0: without this a text figure of merit was reported as
 * "0 ± 0", and a hit rate of 5 as 500%.
 */
#include "store/store-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/visible.h"

/* The rule's words in "its NAME is VALUE, not WHAT". */
static const char *const wanted[] = {
	[TL_CHECK_TEXT] = "text",
	[TL_CHECK_NUMBER] = "a number",
	[TL_CHECK_INTEGER] = "a whole number",
	[TL_CHECK_AMOUNT] = "a number from 0 up",
	[TL_CHECK_FRACTION] = "a fraction from 0 to 1",
	[TL_CHECK_COUNT] = "a whole number from 0 up",
	[TL_CHECK_REP] = "a whole number from 1 up",
	[TL_CHECK_EXIT] = "an exit status from 0 to 255",
	[TL_CHECK_SIGNAL] = "a signal number from 1 to 64",
	[TL_CHECK_FLAG] = "0 or 1",
};
_Static_assert(ARRAY_SIZE(wanted) == TL_CHECK_FLAG + 1, "words for every rule");

static bool in_range(enum tl_check rule, double d)
{
	switch (rule) {
	case TL_CHECK_AMOUNT:
	case TL_CHECK_COUNT:
		return d >= 0;
	case TL_CHECK_FRACTION:
		return d >= 0 && d <= 1;
	case TL_CHECK_REP:
		return d >= 1;
	case TL_CHECK_EXIT:
		return d >= 0 && d <= 255;
	case TL_CHECK_SIGNAL:
		return d >= 1 && d <= 64;
	case TL_CHECK_FLAG:
		return d == 0 || d == 1;
	default:
		return true;
	}
}

static bool whole(enum tl_check rule)
{
	return rule == TL_CHECK_INTEGER || rule == TL_CHECK_COUNT || rule == TL_CHECK_REP || rule == TL_CHECK_EXIT ||
	       rule == TL_CHECK_SIGNAL || rule == TL_CHECK_FLAG;
}

bool tl_store_value_allowed(const struct tl_value_check *c, int type, int64_t i, double d)
{
	if (type == SQLITE_NULL)
		return !c->not_null;
	if (c->rule == TL_CHECK_TEXT)
		return type == SQLITE_TEXT;
	if (type == SQLITE_INTEGER) {
		/* the common case of a log's millions of rows, without a double */
		if (c->rule == TL_CHECK_INTEGER || c->rule == TL_CHECK_NUMBER)
			return true;
		if (c->rule == TL_CHECK_COUNT)
			return i >= 0;
		return in_range(c->rule, (double)i);
	}
	if (type != SQLITE_FLOAT || whole(c->rule))
		return false;	/* text, a blob; or 1.5 where an INTEGER column would keep 2.0 as 2 */
	return isfinite(d) && in_range(c->rule, d);
}

/* Does the checked column of s hold what its rule allows? */
static bool allowed(sqlite3_stmt *s, const struct tl_value_check *c)
{
	int type = sqlite3_column_type(s, c->column);

	return tl_store_value_allowed(c, type, type == SQLITE_INTEGER ? sqlite3_column_int64(s, c->column) : 0,
				      type == SQLITE_FLOAT ? sqlite3_column_double(s, c->column) : 0);
}

/* What column i holds, for the message: "text 'abc'", "a blob of 4 bytes", "5", "NULL". */
static void describe(sqlite3_stmt *s, int i, char *buf, size_t len)
{
	switch (sqlite3_column_type(s, i)) {
	case SQLITE_NULL:
		snprintf(buf, len, "NULL");
		break;
	case SQLITE_INTEGER:
		snprintf(buf, len, "%lld", (long long)sqlite3_column_int64(s, i));
		break;
	case SQLITE_FLOAT:
		snprintf(buf, len, "%.17g", sqlite3_column_double(s, i));
		break;
	case SQLITE_TEXT: {
		char *text = tl_visible((const char *)sqlite3_column_text(s, i), 0);

		/* the start of it names it well enough; the line stays short */
		snprintf(buf, len, "text '%.40s%s'", text ? text : "?", text && strlen(text) > 40 ? "..." : "");
		free(text);
		break;
	}
	default:
		snprintf(buf, len, "a blob of %d bytes", sqlite3_column_bytes(s, i));
	}
}

int tl_store_check_values(sqlite3_stmt *s, const struct tl_value_check *checks, size_t n, char *why,
			  size_t len)
{
	char got[80];

	for (size_t k = 0; k < n; k++) {
		if (allowed(s, &checks[k]))
			continue;
		describe(s, checks[k].column, got, sizeof(got));
		snprintf(why, len, "its %s is %s, not %s", checks[k].name, got, wanted[checks[k].rule]);
		return 1;
	}
	return 0;
}
