/*
 * What the report printers share: number formatting for people and for
 * machines, making strings safe to show, the cell grid that text and
 * markdown both lay out, the title and the notes under a table. One place
 * decides how a figure of merit or a count reads, so the formats agree.
 */
#include "report/report-format.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "report/stats.h"
#include "util/error.h"
#include "util/visible.h"

void tl_fmt_sig(char *buf, size_t len, double x, int sig)
{
	char e[64];
	int exp10;

	if (!isfinite(x)) {
		snprintf(buf, len, "-");
		return;
	}
	if (x == 0) {
		snprintf(buf, len, "0");
		return;
	}
	/* The exponent after rounding: 9.9996 at 4 digits is 10.00, not 9.999 or 10.000. */
	snprintf(e, sizeof(e), "%.*e", sig - 1, x);
	exp10 = atoi(strchr(e, 'e') + 1);
	if (exp10 < -4 || exp10 >= 15)
		snprintf(buf, len, "%.*g", sig, x);
	else
		snprintf(buf, len, "%.*f", exp10 >= sig - 1 ? 0 : sig - 1 - exp10, x);
}

void tl_fmt_exact(char *buf, size_t len, double x)
{
	if (!isfinite(x)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	/* 17 digits always read back; fewer usually do and read better. */
	for (int prec = 15; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
	snprintf(buf, len, "%.17g", x);
}

char *tl_fmt_visible(const char *s, bool markdown)
{
	return tl_visible(s ? s : "-", markdown ? TL_VISIBLE_PIPES : 0);
}

void tl_json_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*s) {
		unsigned char c = *s;
		size_t l = 1;

		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (c < 0x20)
				fprintf(out, "\\u%04x", c);
			else if (c < 0x80)
				fputc(c, out);
			else if ((l = tl_utf8_len(s)))
				fwrite(s, 1, l, out);
			else {
				l = 1;
				fputs("\\ufffd", out);
			}
		}
		s += l;
	}
	fputc('"', out);
}

size_t tl_fmt_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Returns a malloc'd copy of the printf result, NULL when out of memory. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, f);
	r = vasprintf(&s, f, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

enum col_kind { COL_AXIS, COL_ACHIEVED, COL_FOM, COL_UNIT, COL_PCT, COL_STATUS, COL_HIT, COL_GIB, COL_WALL, COL_COUNTER,
		COL_RATIO, COL_TO_FAST, COL_TO_SLOW, COL_MEDIAN, COL_MIN, COL_MAX, COL_CI, COL_SOURCE };

struct col {
	enum col_kind kind;
	int axis;		/* the axis; for COL_COUNTER the event, for COL_RATIO the ratio */
	bool right;
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
		return fmt("%s (%zu/%zu)", b, c->n, c->n + c->n_missing);
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
		return fmt("%s (1)", mean);
	tl_fmt_sig(sd, sizeof(sd), r->sd, 2);
	return fmt("%s ± %s (%zu)", mean, sd, r->n_fom);
}

static char *num_cell(bool valid, double x, int sig)
{
	char b[64];

	if (!valid)
		return strdup("-");
	tl_fmt_sig(b, sizeof(b), x, sig);
	return strdup(b);
}

static char *cell(const struct tl_report *rep, size_t i, const struct col *c, bool markdown)
{
	const struct tl_report_row *r = &rep->rows[i];
	char b[64];
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
		return fmt("± %s", b);
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
		return r->has_pct ? fmt("%.1f%%", r->pct_of_baseline) : strdup("-");
	case COL_STATUS:
		return fmt("%zu/%zu/%zu/%zu", r->status_count[TL_STATUS_OK],
			   r->status_count[TL_STATUS_FAILED], r->status_count[TL_STATUS_TIMEOUT],
			   r->status_count[TL_STATUS_CRASHED]);
	case COL_HIT:
		return r->n_hit_rate ? fmt("%.1f%%", 100 * r->hit_rate) : strdup("-");
	case COL_GIB:
		return num_cell(r->n_migrated > 0, r->migrated_gib, 3);
	case COL_WALL:
		return num_cell(r->n_ok > 0, r->wall_mean, 3);
	case COL_SOURCE:
		return strdup(r->simulated ? "simulated" : "measured");
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
		h = fmt("fom (%s)", u);
		free(u);
		return h;
	case COL_UNIT: return strdup("unit");
	case COL_PCT: return strdup("% base");
	case COL_STATUS: return strdup("ok/fail/timeout/crash");
	case COL_HIT: return strdup("hit rate");
	case COL_GIB: return strdup("GiB migrated");
	case COL_WALL: return strdup("wall s");
	case COL_SOURCE: return strdup("source");
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

static size_t pick_columns(const struct tl_report *rep, struct col *cols, const char **unit)
{
	size_t n = 0;
	bool mixed;

	/* only beside simulated rows: a report of measured runs stays as it was */
	if (rep->any_simulated)
		cols[n++] = (struct col){ COL_SOURCE, 0, false };
	for (int a = 0; a < TL_AXIS__COUNT; a++) {
		if (rep->axis_varies[a])
			cols[n++] = (struct col){ COL_AXIS, a, false };
		/* the achieved rate beside the one asked */
		if (a == TL_AXIS_RATE && any_achieved(rep))
			cols[n++] = (struct col){ COL_ACHIEVED, 0, true };
	}
	cols[n++] = (struct col){ COL_FOM, 0, true };
	if (rep->show_stats) {
		cols[n++] = (struct col){ COL_MEDIAN, 0, true };
		cols[n++] = (struct col){ COL_MIN, 0, true };
		cols[n++] = (struct col){ COL_MAX, 0, true };
		cols[n++] = (struct col){ COL_CI, 0, true };
	}
	*unit = common_unit(rep, &mixed);
	if (mixed)
		cols[n++] = (struct col){ COL_UNIT, 0, false };
	/* Without a baseline the column could only hold dashes. */
	if (rep->has_baseline)
		cols[n++] = (struct col){ COL_PCT, 0, true };
	cols[n++] = (struct col){ COL_STATUS, 0, true };
	cols[n++] = (struct col){ COL_HIT, 0, true };
	cols[n++] = (struct col){ COL_GIB, 0, true };
	if (rep->show_directions) {
		cols[n++] = (struct col){ COL_TO_FAST, 0, true };
		cols[n++] = (struct col){ COL_TO_SLOW, 0, true };
	}
	cols[n++] = (struct col){ COL_WALL, 0, true };
	for (size_t e = 0; rep->has_counters && e < rep->nevents; e++)
		cols[n++] = (struct col){ COL_COUNTER, (int)e, true };
	for (size_t k = 0; rep->has_counters && k < rep->nratios; k++)
		cols[n++] = (struct col){ COL_RATIO, (int)k, true };
	return n;
}

int tl_report_table_build(const struct tl_report *rep, bool markdown, struct tl_report_table *t)
{
	struct col *cols = calloc(TL_AXIS__COUNT + 15 + rep->nevents + rep->nratios, sizeof(*cols));
	const char *unit;

	memset(t, 0, sizeof(*t));
	if (!cols)
		return -ENOMEM;
	t->ncols = pick_columns(rep, cols, &unit);
	t->nrows = rep->nrows + 1;
	t->cells = calloc(t->nrows * t->ncols, sizeof(*t->cells));
	t->right = calloc(t->ncols, sizeof(*t->right));
	t->width = calloc(t->ncols, sizeof(*t->width));
	if (!t->cells || !t->right || !t->width)
		goto oom;
	for (size_t c = 0; c < t->ncols; c++) {
		t->right[c] = cols[c].right;
		if (!(t->cells[c] = header(rep, &cols[c], unit, markdown)))
			goto oom;
	}
	for (size_t i = 0; i < rep->nrows; i++) {
		for (size_t c = 0; c < t->ncols; c++) {
			char **slot = &t->cells[(i + 1) * t->ncols + c];

			if (!(*slot = cell(rep, i, &cols[c], markdown)))
				goto oom;
		}
	}
	for (size_t i = 0; i < t->nrows * t->ncols; i++) {
		size_t w = tl_fmt_width(t->cells[i]);

		if (w > t->width[i % t->ncols])
			t->width[i % t->ncols] = w;
	}
	free(cols);
	return 0;
oom:
	free(cols);
	tl_report_table_release(t);
	return -ENOMEM;
}

void tl_report_table_release(struct tl_report_table *t)
{
	if (t->cells)
		for (size_t i = 0; i < t->nrows * t->ncols; i++)
			free(t->cells[i]);
	free(t->cells);
	free(t->right);
	free(t->width);
	memset(t, 0, sizeof(*t));
}

int tl_report_title(const struct tl_report *rep, bool markdown, char **out)
{
	char *name = tl_fmt_visible(rep->experiment, markdown);
	char *base = rep->has_baseline ? tl_fmt_visible(rep->baseline_text, markdown) : NULL;

	*out = NULL;
	if (name && (base || !rep->has_baseline)) {
		if (base)
			*out = fmt("experiment %s — baseline %s", name, base);
		else
			*out = fmt("experiment %s — no baseline", name);
	}
	free(base);
	free(name);
	return *out ? 0 : -ENOMEM;
}

int tl_report_warning(const struct tl_report *rep, size_t i, char **out)
{
	const struct tl_report_row *r = &rep->rows[i];
	char why[320], spread[160] = "", sd[32], mean[32];
	bool rate = r->rate_short && tl_rate_short(r->values[TL_AXIS_RATE], &r->achieved, why, sizeof(why));
	char *desc = NULL;
	size_t len = 0;
	const char *sep = "";
	FILE *f;

	*out = NULL;
	if (r->spread_high) {
		tl_fmt_sig(sd, sizeof(sd), r->sd, 2);
		tl_fmt_sig(mean, sizeof(mean), r->mean, 3);
		snprintf(spread, sizeof(spread), "sd %s is %.1f%% of the mean %s over %zu runs (more than %.0f%%)",
			 sd, 100 * r->sd / fabs(r->mean), mean, r->n_fom, 100 * TL_STATS_CV_WARN);
	}
	if (!rate && !spread[0])
		return 0;
	f = open_memstream(&desc, &len);
	if (!f)
		return -ENOMEM;
	for (int a = 0; a < TL_AXIS__COUNT && !rep->has_by; a++) {
		/* the rate is in the words that follow */
		if (!rep->axis_varies[a] || !r->values[a] || (rate && a == TL_AXIS_RATE))
			continue;
		fprintf(f, "%s%s=%s", sep, tl_axes[a].name, r->values[a]);
		sep = " ";
	}
	/* a group is named by its key, "-" for the runs an axis does not apply to */
	if (rep->has_by) {
		fputs(r->config_key, f);
		sep = r->config_key[0] ? " " : "";
	}
	fprintf(f, "%s%s%s%s", sep[0] ? ": " : "", rate ? why : "", rate && spread[0] ? "; " : "", spread);
	if (fclose(f)) {
		free(desc);
		return -ENOMEM;
	}
	*out = desc;
	return 0;
}

int tl_report_put_warnings(const struct tl_report *rep, bool markdown, const char *prefix, FILE *out)
{
	for (size_t i = 0; i < rep->nrows; i++) {
		char *raw, *shown;

		if (tl_report_warning(rep, i, &raw))
			return -ENOMEM;
		if (!raw)
			continue;
		shown = tl_fmt_visible(raw, markdown);
		free(raw);
		if (!shown)
			return -ENOMEM;
		fprintf(out, "%s%s\n", prefix, shown);
		free(shown);
	}
	return 0;
}

int tl_report_put_notes(const struct tl_report *rep, bool markdown, const char *prefix, FILE *out)
{
	struct tl_report_notes notes;

	tl_report_notes(rep, &notes);
	for (size_t i = 0; i < notes.n; i++) {
		char *shown = tl_fmt_visible(notes.text[i], markdown);

		if (!shown)
			return -ENOMEM;
		fprintf(out, "%s%s\n", prefix, shown);
		free(shown);
	}
	return 0;
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

bool tl_report_has_warnings(const struct tl_report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].rate_short || rep->rows[i].spread_high)
			return true;
	return false;
}

static void add_note(struct tl_report_notes *notes, const char *f, ...)
	__attribute__((format(printf, 2, 3)));
static void add_note(struct tl_report_notes *notes, const char *f, ...)
{
	va_list ap;

	if (notes->n == TL_REPORT_MAX_NOTES)
		BUG("more than %d report notes", TL_REPORT_MAX_NOTES);
	va_start(ap, f);
	vsnprintf(notes->text[notes->n++], sizeof(notes->text[0]), f, ap);
	va_end(ap);
}

#define PLURAL(n, one, many) ((n) == 1 ? (one) : (many))

void tl_report_notes(const struct tl_report *rep, struct tl_report_notes *notes)
{
	size_t nbase = 0, base_ok = 0, orphans = 0, base_failed = 0;
	size_t no_ok = 0, bad_runs = 0, ok_no_fom = 0, simulated = 0;
	bool inverted = false;

	notes->n = 0;
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct tl_report_row *r = &rep->rows[i];
		size_t total = 0;

		for (int s = 0; s < TL_STATUS__COUNT; s++)
			total += r->status_count[s];
		no_ok += !r->n_ok;
		bad_runs += total - r->n_ok;
		simulated += r->simulated;
		/* a replay has no figure of merit by nature: said once below, not as a missing result */
		if (!r->simulated)
			ok_no_fom += r->n_ok - r->n_fom;
		if (r->is_baseline) {
			nbase++;
			base_ok += r->n_fom > 0;
		} else if (r->baseline < 0) {
			orphans++;
		} else if (!rep->rows[r->baseline].n_fom) {
			base_failed++;
		}
		inverted |= r->has_pct && !r->is_baseline && !r->higher_is_better;
	}
	if (rep->has_baseline) {
		if (!nbase)
			add_note(notes, "no configuration matches the baseline %s", rep->baseline_text);
		else if (!base_ok)
			add_note(notes, "no baseline run succeeded");
		else if (base_failed)
			add_note(notes, "%zu %s a baseline without a successful run", base_failed,
				 PLURAL(base_failed, "configuration has", "configurations have"));
		if (nbase && orphans)
			add_note(notes, "%zu %s no baseline that agrees on the other axes", orphans,
				 PLURAL(orphans, "configuration has", "configurations have"));
	}
	if (no_ok)
		add_note(notes, "%zu %s no successful run", no_ok,
			 PLURAL(no_ok, "configuration has", "configurations have"));
	if (bad_runs)
		add_note(notes, "%zu %s, timed out or crashed: counted, left out of the statistics",
			 bad_runs, PLURAL(bad_runs, "run failed", "runs failed"));
	if (ok_no_fom)
		add_note(notes, "%zu successful %s no figure of merit", ok_no_fom,
			 PLURAL(ok_no_fom, "run reported", "runs reported"));
	if (simulated)
		add_note(notes, "%zu %s simulated: replayed by tierlab simulate from recorded samples, not run; "
			 "hit rate and GiB migrated are the replay's, there is no figure of merit (docs/simulate.md)",
			 simulated, PLURAL(simulated, "configuration is", "configurations are"));
	if (inverted)
		add_note(notes, "lower is better for some figures of merit: their %% base is "
				"base/mean, so above 100%% is better");
	for (size_t i = 0; i < rep->nextra && notes->n < TL_REPORT_MAX_NOTES; i++)
		add_note(notes, "%s", rep->extra_notes[i]);
}
