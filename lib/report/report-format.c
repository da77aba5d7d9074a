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
#include <time.h>
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

void tl_fmt_count(char *buf, size_t len, double n)
{
	if (!isfinite(n))
		snprintf(buf, len, "-");
	else if (n < 10000)
		snprintf(buf, len, "%.0f", n);
	else if (n < 1e6)
		snprintf(buf, len, "%.3gk", n / 1e3);
	else
		snprintf(buf, len, "%.3gM", n / 1e6);
}

/* The caution words, in the order they are written; report.h says what each bit means. */
static const struct {
	unsigned bit;
	const char *word, *meaning;
} cautions[] = {
	{ TL_CAUTION_FEW_RUNS, "n<3", "fewer than 3 successful runs behind the figure or its baseline" },
	{ TL_CAUTION_NOISY, "noisy", "the figure's or its baseline's sd is over 5% of the mean" },
	{ TL_CAUTION_FEW_SAMPLES, "few samples", "a hit rate from under 30 samples" },
	{ TL_CAUTION_BUSY, "busy host", "some of its runs, or its baseline's, had a 1-minute load above the CPUs "
					"online before or after them (the host was shared: tierlab show RUN, and "
					"run --quiet-host to wait for a quiet one)" },
	{ TL_CAUTION_OTHER_SESSION, "other session", "no run of its baseline is of its session: the % compares "
						     "runs of different sessions (tierlab list sessions)" },
};

const char *tl_report_caution_word(size_t k, unsigned *bit)
{
	if (k >= sizeof(cautions) / sizeof(cautions[0]))
		return NULL;
	*bit = cautions[k].bit;
	return cautions[k].word;
}

void tl_report_caution_text(unsigned caution, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(cautions) / sizeof(cautions[0]); i++)
		if ((caution & cautions[i].bit) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "", cautions[i].word);
}

/* "n<3: fewer than ...; noisy: ...": what each word of caution means. */
static void caution_meanings(unsigned caution, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(cautions) / sizeof(cautions[0]); i++)
		if ((caution & cautions[i].bit) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s: %s", used ? "; " : "", cautions[i].word,
						 cautions[i].meaning);
}

void tl_fput_wrapped(FILE *out, const char *prefix, const char *text, size_t width)
{
	size_t indent = tl_fmt_width(prefix), col = indent;
	const char *p = text;

	fputs(prefix, out);
	while (*p) {
		const char *end = strchr(p, ' ');
		size_t n = end ? (size_t)(end - p) : strlen(p), w;
		char *word = strndup(p, n);

		w = word ? tl_fmt_width(word) : n;
		if (width && col > indent && col + 1 + w > width) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += w;
		free(word);
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

char *tl_fmt_alloc(const char *f, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, f);
	r = vasprintf(&s, f, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

int tl_report_title(const struct tl_report *rep, bool markdown, char **out)
{
	char *name = tl_fmt_visible(rep->experiment, markdown);
	char *base = rep->has_baseline ? tl_fmt_visible(rep->baseline_text, markdown) : NULL;

	*out = NULL;
	if (name && (base || !rep->has_baseline)) {
		if (base)
			*out = tl_fmt_alloc("experiment %s — baseline %s%s%s", name, base,
					    rep->session_filter ? " — " : "", rep->session_filter ? rep->session_filter : "");
		else
			*out = tl_fmt_alloc("experiment %s — no baseline%s%s", name,
					    rep->session_filter ? " — " : "", rep->session_filter ? rep->session_filter : "");
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
	char samples[160] = "", n[32], busy[160] = "", load[32];
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
	if (r->has_hit_samples && r->few_samples) {
		tl_fmt_count(n, sizeof(n), r->hit_samples);
		snprintf(samples, sizeof(samples), "hit rate %.1f%% from %s %s (fewer than %d; 95%% interval %.0f-%.0f%%)",
			 100 * r->hit_rate, n, r->hit_samples == 1 ? "sample" : "samples", TL_REPORT_MIN_SAMPLES,
			 100 * r->hit_lo, 100 * r->hit_hi);
	}
	if (r->n_busy) {
		tl_fmt_sig(load, sizeof(load), r->busy_load, 3);
		snprintf(busy, sizeof(busy), "%zu of %zu runs on a busy host (1-minute load up to %s on %.0f CPUs)",
			 r->n_busy, r->n_load, load, r->busy_cpus);
	}
	if (!rate && !spread[0] && !samples[0] && !busy[0])
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
	fprintf(f, "%s%s%s%s%s%s%s%s", sep[0] ? ": " : "", rate ? why : "", rate && spread[0] ? "; " : "", spread,
		(rate || spread[0]) && samples[0] ? "; " : "", samples,
		(rate || spread[0] || samples[0]) && busy[0] ? "; " : "", busy);
	if (fclose(f)) {
		free(desc);
		return -ENOMEM;
	}
	*out = desc;
	return 0;
}

int tl_report_put_warnings(const struct tl_report *rep, bool markdown, const char *prefix, size_t width, FILE *out)
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
		tl_fput_wrapped(out, prefix, shown, width);
		free(shown);
	}
	return 0;
}

int tl_report_put_notes(const struct tl_report *rep, bool markdown, const char *prefix, size_t width, FILE *out)
{
	struct tl_report_notes notes;

	tl_report_notes(rep, &notes);
	for (size_t i = 0; i < notes.n; i++) {
		char *shown = tl_fmt_visible(notes.text[i], markdown);

		if (!shown)
			return -ENOMEM;
		tl_fput_wrapped(out, prefix, shown, width);
		free(shown);
	}
	return 0;
}

bool tl_report_has_warnings(const struct tl_report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].rate_short || rep->rows[i].spread_high || rep->rows[i].n_busy ||
		    (rep->rows[i].has_hit_samples && rep->rows[i].few_samples))
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

/* "runs of 2 sessions (3 started 2024-05-01 10:02, 5 started ...); ...": which, and how to choose one. */
static void session_note(const struct tl_report *rep, struct tl_report_notes *notes)
{
	char list[200];
	size_t used = 0;

	list[0] = '\0';
	for (size_t i = 0; i < rep->nsessions && used < sizeof(list); i++) {
		time_t t = (time_t)rep->sessions[i].started_at;
		char when[32] = "?";
		struct tm tm;

		if (rep->sessions[i].id && localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
		if (i == 3 && rep->nsessions > 4) {
			snprintf(list + used, sizeof(list) - used, ", ... %zu more", rep->nsessions - 3);
			break;
		}
		if (rep->sessions[i].id)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%lld started %s", i ? ", " : "",
						 (long long)rep->sessions[i].id, when);
		else
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%sruns stored without one",
						 i ? ", " : "");
	}
	add_note(notes, "runs of %zu sessions (%s); each %% base is against its baseline's runs of the row's own "
		 "session (--session ID: one session, --since TIME: the later ones)", rep->nsessions, list);
}

void tl_report_notes(const struct tl_report *rep, struct tl_report_notes *notes)
{
	size_t nbase = 0, base_ok = 0, orphans = 0, base_failed = 0;
	size_t no_ok = 0, bad_runs = 0, ok_no_fom = 0, simulated = 0;
	size_t own = 0, estimates = 0;
	bool inverted = false;
	unsigned caution = 0;
	char words[96], meanings[sizeof(notes->text[0]) - 100];

	notes->n = 0;
	for (size_t i = 0; i < rep->nrows; i++)
		caution |= tl_report_caution(rep, i);
	/* first: it says how to read the rows that need it most */
	if (caution) {
		tl_report_caution_text(caution, ", ", words, sizeof(words));
		caution_meanings(caution, meanings, sizeof(meanings));
		add_note(notes, "caution (%s): %s", words, meanings);
		add_note(notes, "such a %% base or hit rate may be far off: run more repetitions (or longer), on a "
				"quiet machine, before reading a difference into it");
	}
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
		own += r->base_own;
		estimates += r->simulated && r->n_estimate;
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
			 "hit rate and GiB migrated are the replay's, there is no figure of merit nor wall time "
			 "(docs/simulate.md)", simulated, PLURAL(simulated, "configuration is", "configurations are"));
	if (estimates)
		add_note(notes, "%% all-fast (model): a simulated row's estimated performance as a share of "
				"all-fast's, from the tier model given to tierlab simulate --model: the model's "
				"figure, not a measurement");
	if (rep->nsessions > 1)
		session_note(rep, notes);
	if (own)
		add_note(notes, "%zu %s %% base %s on the baseline's runs of %s own session, not on the "
			 "baseline row shown (a later session ran it again)", own, PLURAL(own, "row's", "rows'"),
			 PLURAL(own, "stands", "stand"), PLURAL(own, "its", "their"));
	if (inverted)
		add_note(notes, "lower is better for some figures of merit: their %% base is "
				"base/mean, so above 100%% is better");
	for (size_t i = 0; i < rep->nextra && notes->n < TL_REPORT_MAX_NOTES; i++)
		add_note(notes, "%s", rep->extra_notes[i]);
}
