/*
 * The cell grid that text and markdown both lay out: which columns, their
 * headers and cells. Every column has a name (report --columns); the text
 * table fits TL_REPORT_TEXT_COLUMNS by leaving out, in a fixed order, the
 * columns that say least (report --wide keeps them all), so that a
 * terminal never wraps a figure mid-number.
 */
#include "report/report-format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

enum col_kind { COL_AXIS, COL_ACHIEVED, COL_FOM, COL_UNIT, COL_PCT, COL_STATUS, COL_HIT, COL_GIB, COL_WALL, COL_COUNTER,
		COL_RATIO, COL_TO_FAST, COL_TO_SLOW, COL_MEDIAN, COL_MIN, COL_MAX, COL_CI, COL_SOURCE, COL_CAUTION,
		COL_MODEL };

/* The names report --columns takes for the columns that are not axes, by kind; counters stands for all of them. */
static const char *const kind_names[] = {
	[COL_ACHIEVED] = "achieved", [COL_FOM] = "fom", [COL_UNIT] = "unit", [COL_PCT] = "pct",
	[COL_STATUS] = "status", [COL_HIT] = "hit", [COL_GIB] = "gib", [COL_WALL] = "wall",
	[COL_COUNTER] = "counters", [COL_TO_FAST] = "to-fast", [COL_TO_SLOW] = "to-slow", [COL_MEDIAN] = "median",
	[COL_MIN] = "min", [COL_MAX] = "max", [COL_CI] = "ci95", [COL_SOURCE] = "source", [COL_CAUTION] = "caution",
	[COL_MODEL] = "model",
};
/* The order columns are named in --columns' help and errors. */
static const enum col_kind named_kinds[] = { COL_SOURCE, COL_ACHIEVED, COL_FOM, COL_MEDIAN, COL_MIN, COL_MAX, COL_CI,
					     COL_UNIT, COL_PCT, COL_MODEL, COL_CAUTION, COL_STATUS, COL_HIT, COL_GIB,
					     COL_TO_FAST, COL_TO_SLOW, COL_WALL, COL_COUNTER };

/*
 * When a text table is too wide, columns go in this order, lowest first;
 * KEEP never goes: what the row is and its figures, and what was asked for
 * (--stats, --directions, --counters, --by).
 */
enum { DROP_REDUNDANT, DROP_IMPLIED, DROP_WALL, DROP_ACHIEVED, DROP_STATUS, DROP_GIB, KEEP };

struct col {
	enum col_kind kind;
	int axis;		/* the axis; for COL_COUNTER the event, for COL_RATIO the ratio */
	bool right;
	int drop;		/* the order it is left out in (KEEP: never) */
};

/* An event's cell: its mean, "(n/m)" after it when some ok runs could not count it, else why none could. */
static char *counter_cell(const struct tl_report *rep, size_t i, size_t e, bool markdown)
{
	const struct tl_report_counter *c = &rep->counters[i * rep->nevents + e];
	char b[64];

	if (!c->n)
		return c->n_missing ? tl_fmt_visible(c->missing, markdown) : strdup("-");
	tl_fmt_sig(b, sizeof(b), c->mean, 4);
	if (c->n_missing)
		return tl_fmt_alloc("%s (%zu/%zu)", b, c->n, c->n + c->n_missing);
	return strdup(b);
}

static char *fom_cell(const struct tl_report_row *r)
{
	char mean[64], sd[64];

	if (!r->n_fom)
		return strdup("-");
	tl_fmt_sig(mean, sizeof(mean), r->mean, 4);
	/* With one run there is no spread to show; "± 0" would claim one was measured. */
	if (r->n_fom == 1)
		return tl_fmt_alloc("%s (1)", mean);
	tl_fmt_sig(sd, sizeof(sd), r->sd, 2);
	return tl_fmt_alloc("%s ± %s (%zu)", mean, sd, r->n_fom);
}

static char *num_cell(bool valid, double x, int sig)
{
	char b[64];

	if (!valid)
		return strdup("-");
	tl_fmt_sig(b, sizeof(b), x, sig);
	return strdup(b);
}

/* "44.0% (612)": the samples it stands on beside it, when every run stored their count. */
static char *hit_cell(const struct tl_report_row *r)
{
	char n[32];

	if (!r->n_hit_rate)
		return strdup("-");
	if (!r->has_hit_samples)
		return tl_fmt_alloc("%.1f%%", 100 * r->hit_rate);
	tl_fmt_count(n, sizeof(n), r->hit_samples);
	return tl_fmt_alloc("%.1f%% (%s)", 100 * r->hit_rate, n);
}

static char *cell(const struct tl_report *rep, size_t i, const struct col *c, bool markdown)
{
	const struct tl_report_row *r = &rep->rows[i];
	char b[96];
	double v;

	switch (c->kind) {
	case COL_COUNTER:
		return counter_cell(rep, i, (size_t)c->axis, markdown);
	case COL_MEDIAN:
		return num_cell(r->n_fom > 0, r->median, 4);
	case COL_MIN:
		return num_cell(r->n_fom > 0, r->min, 4);
	case COL_MAX:
		return num_cell(r->n_fom > 0, r->max, 4);
	case COL_CI:
		if (r->n_fom < 2 || !isfinite(r->ci95))
			return strdup("-");
		tl_fmt_sig(b, sizeof(b), r->ci95, 2);
		return tl_fmt_alloc("± %s", b);
	case COL_TO_FAST:
		return num_cell(r->n_directions > 0, r->to_fast_gib, 3);
	case COL_TO_SLOW:
		return num_cell(r->n_directions > 0, r->to_slow_gib, 3);
	case COL_RATIO:
		return tl_report_ratio_value(rep, i, (size_t)c->axis, &v) ? num_cell(true, v, 4) : strdup("-");
	case COL_AXIS:
		return tl_fmt_visible(r->values[c->axis], markdown);
	case COL_ACHIEVED:
		return num_cell(r->n_achieved > 0, r->achieved.samples_hz, 3);
	case COL_FOM:
		return fom_cell(r);
	case COL_UNIT:
		return tl_fmt_visible(r->fom_unit, markdown);
	case COL_PCT:
		return r->has_pct ? tl_fmt_alloc("%.1f%%", r->pct_of_baseline) : strdup("-");
	case COL_STATUS:
		return tl_fmt_alloc("%zu/%zu/%zu/%zu", r->status_count[TL_STATUS_OK],
				    r->status_count[TL_STATUS_FAILED], r->status_count[TL_STATUS_TIMEOUT],
				    r->status_count[TL_STATUS_CRASHED]);
	case COL_HIT:
		return hit_cell(r);
	case COL_GIB:
		return num_cell(r->n_migrated > 0, r->migrated_gib, 3);
	case COL_WALL:
		/* a replay's time is how long the replay took, not a run's */
		return num_cell(r->n_ok > 0 && !r->simulated, r->wall_mean, 3);
	case COL_MODEL:
		return r->n_estimate ? tl_fmt_alloc("%.1f%%", 100 * r->estimate) : strdup("-");
	case COL_SOURCE:
		return strdup(r->simulated ? "simulated" : "measured");
	case COL_CAUTION:
		tl_report_caution_text(tl_report_caution(rep, i), ", ", b, sizeof(b));
		return strdup(b[0] ? b : "-");
	}
	return NULL;
}

/* The one unit every row shares, or NULL; *mixed when rows disagree. */
static const char *common_unit(const struct tl_report *rep, bool *mixed)
{
	const char *unit = NULL;

	*mixed = false;
	for (size_t i = 0; i < rep->nrows; i++) {
		const char *u = rep->rows[i].fom_unit;

		if (!u)
			continue;
		if (unit && strcmp(unit, u))
			*mixed = true;
		if (!unit)
			unit = u;
	}
	return *mixed ? NULL : unit;
}

static char *header(const struct tl_report *rep, const struct col *c, const char *unit, bool markdown)
{
	char *u, *h;

	switch (c->kind) {
	case COL_COUNTER: return tl_fmt_visible(rep->events[c->axis], markdown);
	case COL_MEDIAN: return strdup("median");
	case COL_MIN: return strdup("min");
	case COL_MAX: return strdup("max");
	case COL_CI: return strdup("95% CI");
	case COL_TO_FAST: return strdup("GiB to fast");
	case COL_TO_SLOW: return strdup("GiB to slow");
	case COL_RATIO: return strdup(rep->ratios[c->axis].name);
	case COL_AXIS: return strdup(tl_axes[c->axis].name);
	case COL_ACHIEVED: return strdup("achieved Hz");
	case COL_FOM:
		if (!unit)
			return strdup("fom");
		if (!(u = tl_fmt_visible(unit, markdown)))
			return NULL;
		h = tl_fmt_alloc("fom (%s)", u);
		free(u);
		return h;
	case COL_UNIT: return strdup("unit");
	case COL_PCT: return strdup("% base");
	case COL_STATUS: return strdup("ok/fail/timeout/crash");
	case COL_HIT: return strdup("hit (samples)");
	case COL_GIB: return strdup("GiB migrated");
	case COL_WALL: return strdup("wall s");
	case COL_SOURCE: return strdup("source");
	case COL_CAUTION: return strdup("caution");
	case COL_MODEL: return strdup("% all-fast (model)");
	}
	return NULL;
}

static bool any_achieved(const struct tl_report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].n_achieved)
			return true;
	return false;
}

static bool any_estimate(const struct tl_report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].n_estimate)
			return true;
	return false;
}

static bool any_caution(const struct tl_report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (tl_report_caution(rep, i))
			return true;
	return false;
}

/* Did every run of every row succeed? Then ok/fail/timeout/crash repeats the (n) of the figure. */
static bool all_ok(const struct tl_report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++)
		for (int s = 0; s < TL_STATUS__COUNT; s++)
			if (s != TL_STATUS_OK && rep->rows[i].status_count[s])
				return false;
	return true;
}

/*
 * An axis set in some rows and unset in others, with one value wherever
 * set (budget 40% under lru, "-" under all-fast): it follows the policy
 * and tells the rows nothing apart.
 */
static bool implied(const struct tl_report *rep, int a)
{
	const char *seen = NULL;
	bool unset = false;

	if (a == TL_AXIS_WORKLOAD || a == TL_AXIS_SIZE || rep->has_by)
		return false;
	for (size_t i = 0; i < rep->nrows; i++) {
		const char *v = rep->rows[i].values[a];

		unset |= !v;
		if (v && seen && strcmp(v, seen))
			return false;
		seen = v ? v : seen;
	}
	return unset && seen;
}

/* Every column the report has, in table order (--wide), with the order they are left out in. */
static size_t all_columns(const struct tl_report *rep, struct col *cols)
{
	size_t n = 0;
	bool mixed;

	/* only beside simulated rows: a report of measured runs stays as it was */
	if (rep->any_simulated)
		cols[n++] = (struct col){ COL_SOURCE, 0, false, KEEP };
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		int drop = implied(rep, a) ? DROP_IMPLIED : KEEP;

		if (rep->axis_varies[a])
			cols[n++] = (struct col){ COL_AXIS, a, false, drop };
		/* the achieved rate beside the one asked, and only there: pooled over rates it means nothing */
		if (a == TL_AXIS_RATE && rep->axis_varies[a] && any_achieved(rep))
			cols[n++] = (struct col){ COL_ACHIEVED, 0, true, drop == KEEP ? DROP_ACHIEVED : drop };
	}
	cols[n++] = (struct col){ COL_FOM, 0, true, KEEP };
	if (rep->show_stats) {
		cols[n++] = (struct col){ COL_MEDIAN, 0, true, KEEP };
		cols[n++] = (struct col){ COL_MIN, 0, true, KEEP };
		cols[n++] = (struct col){ COL_MAX, 0, true, KEEP };
		cols[n++] = (struct col){ COL_CI, 0, true, KEEP };
	}
	common_unit(rep, &mixed);
	if (mixed)
		cols[n++] = (struct col){ COL_UNIT, 0, false, KEEP };
	/* Without a baseline the column could only hold dashes. */
	if (rep->has_baseline)
		cols[n++] = (struct col){ COL_PCT, 0, true, KEEP };
	/* a replay's estimate, apart from the measured % base: the model's figure, not a measurement */
	if (any_estimate(rep))
		cols[n++] = (struct col){ COL_MODEL, 0, true, KEEP };
	if (any_caution(rep))
		cols[n++] = (struct col){ COL_CAUTION, 0, false, KEEP };
	cols[n++] = (struct col){ COL_STATUS, 0, true, all_ok(rep) ? DROP_REDUNDANT : DROP_STATUS };
	cols[n++] = (struct col){ COL_HIT, 0, true, KEEP };
	cols[n++] = (struct col){ COL_GIB, 0, true, DROP_GIB };
	if (rep->show_directions) {
		cols[n++] = (struct col){ COL_TO_FAST, 0, true, KEEP };
		cols[n++] = (struct col){ COL_TO_SLOW, 0, true, KEEP };
	}
	cols[n++] = (struct col){ COL_WALL, 0, true, DROP_WALL };
	for (size_t e = 0; rep->has_counters && e < rep->nevents; e++)
		cols[n++] = (struct col){ COL_COUNTER, (int)e, true, KEEP };
	for (size_t k = 0; rep->has_counters && k < rep->nratios; k++)
		cols[n++] = (struct col){ COL_RATIO, (int)k, true, KEEP };
	return n;
}

static const char *col_name(const struct col *c)
{
	return c->kind == COL_AXIS ? tl_axes[c->axis].name : c->kind == COL_RATIO ? "counters" : kind_names[c->kind];
}

/* --columns: the report's columns of these names, in the order named (counters: every event and ratio). */
static size_t chosen_columns(const struct tl_report *rep, const struct col *all, size_t nall, struct col *cols)
{
	size_t n = 0;

	for (size_t k = 0; k < rep->ncolumns; k++) {
		int a = tl_axis_lookup(rep->columns[k]);

		for (size_t j = 0; j < nall; j++)
			if (!strcmp(col_name(&all[j]), rep->columns[k]))
				cols[n++] = all[j];
		/* an axis asked for is shown even where it does not vary */
		if (a >= 0 && !rep->axis_varies[a])
			cols[n++] = (struct col){ COL_AXIS, a, false, KEEP };
	}
	return n;
}

/* Text without --wide: leave out columns, lowest drop order first, until the table fits. */
static size_t fit(const struct tl_report_table *t, const struct col *cols, bool *out, size_t width)
{
	size_t total = 0, shown = t->ncols, gone = 0;

	for (size_t c = 0; c < t->ncols; c++)
		total += t->width[c] + (c ? 2 : 0);
	for (int drop = 0; drop < KEEP && total > width; drop++)
		/* the rightmost first: a table keeps its left, where the rows are named */
		for (size_t c = t->ncols; c-- > 0 && total > width;)
			if (cols[c].drop == drop && !out[c] && shown > 1) {
				out[c] = true;
				total -= t->width[c] + 2;
				shown--;
				gone++;
			}
	return gone;
}

static int fill(const struct tl_report *rep, bool markdown, const struct col *cols, size_t ncols,
		struct tl_report_table *t)
{
	const char *unit;
	bool mixed;

	unit = common_unit(rep, &mixed);
	t->ncols = ncols;
	t->nrows = rep->nrows + 1;
	t->cells = calloc(t->nrows * t->ncols + 1, sizeof(*t->cells));
	t->right = calloc(t->ncols + 1, sizeof(*t->right));
	t->width = calloc(t->ncols + 1, sizeof(*t->width));
	if (!t->cells || !t->right || !t->width)
		return -ENOMEM;
	for (size_t c = 0; c < t->ncols; c++) {
		t->right[c] = cols[c].right;
		if (!(t->cells[c] = header(rep, &cols[c], unit, markdown)))
			return -ENOMEM;
	}
	for (size_t i = 0; i < rep->nrows; i++)
		for (size_t c = 0; c < t->ncols; c++)
			if (!(t->cells[(i + 1) * t->ncols + c] = cell(rep, i, &cols[c], markdown)))
				return -ENOMEM;
	for (size_t i = 0; i < t->nrows * t->ncols; i++) {
		size_t w = tl_fmt_width(t->cells[i]);

		if (w > t->width[i % t->ncols])
			t->width[i % t->ncols] = w;
	}
	return 0;
}

/* "budget, threshold, wall s": the headers of the columns left out. */
static int left_out_text(const struct tl_report_table *t, const bool *out, char **text)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	const char *sep = "";

	if (!f)
		return -ENOMEM;
	for (size_t c = 0; c < t->ncols; c++)
		if (out[c]) {
			fprintf(f, "%s%s", sep, t->cells[c]);
			sep = ", ";
		}
	if (fclose(f)) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

int tl_report_table_build(const struct tl_report *rep, bool markdown, struct tl_report_table *t)
{
	size_t max = TL_AXIS__COUNT + 16 + rep->nevents + rep->nratios + rep->ncolumns;
	struct col *all = calloc(max, sizeof(*all)), *cols = calloc(max, sizeof(*cols));
	bool *out = NULL;
	size_t nall, ncols;
	int ret = -ENOMEM;

	memset(t, 0, sizeof(*t));
	if (!all || !cols)
		goto fail;
	nall = all_columns(rep, all);
	ncols = rep->ncolumns ? chosen_columns(rep, all, nall, cols) : nall;
	if (!rep->ncolumns)
		memcpy(cols, all, nall * sizeof(*all));
	if ((ret = fill(rep, markdown, cols, ncols, t)))
		goto fail;
	/* only the text table fits a terminal; markdown is rendered, CSV and JSON are for programs */
	if (!markdown && !rep->show_wide && !rep->ncolumns) {
		char *left = NULL;
		size_t k = 0;

		ret = -ENOMEM;
		if (!(out = calloc(ncols + 1, sizeof(*out))))
			goto fail;
		if (fit(t, cols, out, TL_REPORT_TEXT_COLUMNS)) {
			if (left_out_text(t, out, &left))
				goto fail;
			for (size_t c = 0; c < ncols; c++)
				if (!out[c])
					cols[k++] = cols[c];
			tl_report_table_release(t);
			t->left_out = left;
			if ((ret = fill(rep, markdown, cols, k, t)))
				goto fail;
		}
	}
	free(out);
	free(cols);
	free(all);
	return 0;
fail:
	free(out);
	free(cols);
	free(all);
	tl_report_table_release(t);
	return ret;
}

void tl_report_table_release(struct tl_report_table *t)
{
	if (t->cells)
		for (size_t i = 0; i < t->nrows * t->ncols; i++)
			free(t->cells[i]);
	free(t->cells);
	free(t->right);
	free(t->width);
	free(t->left_out);
	memset(t, 0, sizeof(*t));
}

int tl_report_choose_columns(struct tl_report *rep, const char *list, struct tl_error *err)
{
	char *copy = strdup(list), *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (char *name = strtok_r(copy, ",", &save); name && !ret; name = strtok_r(NULL, ",", &save)) {
		bool known = tl_axis_lookup(name) >= 0;
		char **v;

		for (size_t k = 0; k < sizeof(named_kinds) / sizeof(named_kinds[0]) && !known; k++)
			known = !strcmp(name, kind_names[named_kinds[k]]);
		if (!known) {
			ret = tl_error_set(err, "unknown column '%s' (an axis, or %s)", name, tl_report_column_list());
			break;
		}
		if (!(v = realloc(rep->columns, (rep->ncolumns + 1) * sizeof(*v))) || !(v[rep->ncolumns] = strdup(name))) {
			if (v)
				rep->columns = v;
			ret = -ENOMEM;
			break;
		}
		rep->columns = v;
		rep->ncolumns++;
	}
	free(copy);
	if (!ret && !rep->ncolumns)
		ret = tl_error_set(err, "no column named (an axis, or %s)", tl_report_column_list());
	return ret;
}

const char *tl_report_column_list(void)
{
	static char list[256];

	if (!list[0])
		for (size_t k = 0; k < sizeof(named_kinds) / sizeof(named_kinds[0]); k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "",
				 kind_names[named_kinds[k]]);
	return list;
}

int tl_report_layout(const struct tl_report *rep, bool markdown, char **title, struct tl_report_table *t)
{
	if (tl_report_title(rep, markdown, title))
		return -ENOMEM;
	if (tl_report_table_build(rep, markdown, t)) {
		free(*title);
		*title = NULL;
		return -ENOMEM;
	}
	return 0;
}

void tl_report_layout_release(char *title, struct tl_report_table *t)
{
	tl_report_table_release(t);
	free(title);
}
