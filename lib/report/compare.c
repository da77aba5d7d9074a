/*
 * The comparison model (see compare.h): which configurations pair, the
 * ratio's interval, Welch's test and Holm's adjustment over the pairs.
 * The test is Welch's: it needs no equal variances, which repetitions of
 * two configurations on a shared machine seldom have; with n < 2 on a
 * side, or no spread on both, nothing can be said and the printers say so
 * (compare-print.c).
 */
#include "report/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

enum match { MATCH_NONE, MATCH_LOOSE, MATCH_EXACT };

static bool same_value(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/*
 * EXACT: equal on every axis not compared (unset on both counts as
 * equal); LOOSE: the same but for axes one side lacks; NONE otherwise, or
 * when the figures are not of one workload, size, unit and direction
 * (those never pair, whatever the selectors name).
 */
static enum match match(const struct tl_report_row *a, const struct tl_report_row *b,
			const bool compared[TL_AXIS__COUNT])
{
	bool loose = false;

	if (!same_value(a->values[TL_AXIS_WORKLOAD], b->values[TL_AXIS_WORKLOAD]) ||
	    !same_value(a->values[TL_AXIS_SIZE], b->values[TL_AXIS_SIZE]) || !same_value(a->fom_unit, b->fom_unit) ||
	    a->higher_is_better != b->higher_is_better || a->simulated != b->simulated)
		return MATCH_NONE;
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++) {
		const char *va = a->values[ax], *vb = b->values[ax];

		if (compared[ax] || (!va && !vb))
			continue;
		if (va && vb && strcmp(va, vb))
			return MATCH_NONE;
		loose |= !va || !vb;
	}
	return loose ? MATCH_LOOSE : MATCH_EXACT;
}

/* One configuration compared with itself (two selectors that both match it) is no pair. */
static bool same_configuration(const struct tl_report *a, const struct tl_report_row *ra, const struct tl_report *b,
			       const struct tl_report_row *rb)
{
	return !strcmp(a->experiment, b->experiment) && !strcmp(ra->config_key, rb->config_key);
}

/* "chunks=8 rate=10Hz", then what one side has that the other lacks ("B window=16"). */
static char *pair_label(const struct tl_report_row *a, const struct tl_report_row *b,
			const bool compared[TL_AXIS__COUNT])
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	const char *sep = "";

	if (!f)
		return NULL;
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (!compared[ax] && a->values[ax] && b->values[ax]) {
			fprintf(f, "%s%s=%s", sep, tl_axes[ax].name, a->values[ax]);
			sep = " ";
		}
	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (!compared[ax] && !a->values[ax] != !b->values[ax]) {
			fprintf(f, "%s%s %s=%s", sep, a->values[ax] ? "A" : "B", tl_axes[ax].name,
				a->values[ax] ? a->values[ax] : b->values[ax]);
			sep = " ";
		}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

/* The row by the axes it has outside the compared ones: how an error names it. */
static void describe(FILE *f, const struct tl_report_row *r, const bool axes[TL_AXIS__COUNT])
{
	const char *sep = "";

	for (int ax = 0; ax < TL_AXIS__COUNT; ax++)
		if (axes[ax] && r->values[ax]) {
			fprintf(f, "%s%s=%s", sep, tl_axes[ax].name, r->values[ax]);
			sep = " ";
		}
	if (!*sep)
		fputs(r->config_key, f);
}

/*
 * "error: workload=hpcg chunks=8 rate=10Hz of A ('policy=lru') has 2
 * counterparts in B: window=16, window=128; ...": the one row, then each
 * candidate by the axes on which the candidates differ.
 */
static void ambiguous(const struct tl_compare *c, bool one_is_a, const struct tl_report_row *one,
		      const struct tl_report_row *const *cand, size_t ncand)
{
	bool outside[TL_AXIS__COUNT], differ[TL_AXIS__COUNT] = { false };
	char *msg = NULL;
	size_t len = 0;
	FILE *f;

	for (int ax = 0; ax < TL_AXIS__COUNT; ax++) {
		outside[ax] = !c->compared[ax];
		for (size_t k = 1; k < ncand; k++)
			differ[ax] |= !same_value(cand[0]->values[ax], cand[k]->values[ax]);
	}
	if (!(f = open_memstream(&msg, &len))) {
		error("ambiguous pairing (and out of memory describing it)");
		return;
	}
	describe(f, one, outside);
	fprintf(f, " of %s ('%s') %s %zu configurations of %s: ", one_is_a ? "A" : "B",
		one_is_a ? c->a_name : c->b_name, one_is_a ? "pairs with" : "is the counterpart of", ncand,
		one_is_a ? "B" : "A");
	for (size_t k = 0; k < ncand; k++) {
		fputs(k ? ", " : "", f);
		describe(f, cand[k], differ);
	}
	fputs("; name the axis in a selector to choose one", f);
	if (fclose(f)) {
		free(msg);
		error("ambiguous pairing (and out of memory describing it)");
		return;
	}
	error("ambiguous pairing: %s", msg);
	free(msg);
}

/* The rows of `in` that `one` matches best (exact before loose), into cand; their count. */
static size_t candidates(const struct tl_report *of, const struct tl_report_row *one, const struct tl_report *in,
			 const bool compared[TL_AXIS__COUNT], bool one_is_a, const struct tl_report_row **cand)
{
	enum match best = MATCH_LOOSE;
	size_t n = 0;

	for (size_t j = 0; j < in->nrows; j++) {
		const struct tl_report_row *r = &in->rows[j];
		enum match m;

		if (!r->n_fom || same_configuration(of, one, in, r))
			continue;
		m = one_is_a ? match(one, r, compared) : match(r, one, compared);
		if (m < best)
			continue;
		if (m > best) {
			best = m;
			n = 0;
		}
		cand[n++] = r;
	}
	return n;
}

static struct tl_stats stats_of(const struct tl_report_row *r)
{
	return (struct tl_stats){ .n = r->n_fom, .mean = r->mean, .sd = r->sd };
}

static int add_pair(struct tl_compare *c, const struct tl_report_row *ra, const struct tl_report_row *rb)
{
	struct tl_compare_pair *p = realloc(c->pairs, (c->n + 1) * sizeof(*p));
	struct tl_stats sa = stats_of(ra), sb = stats_of(rb);

	if (!p)
		return -ENOMEM;
	c->pairs = p;
	p = &c->pairs[c->n];
	memset(p, 0, sizeof(*p));
	p->a = ra;
	p->b = rb;
	if (!(p->label = pair_label(ra, rb, c->compared)))
		return -ENOMEM;
	c->n++;
	p->has_ratio = ra->mean != 0 && isfinite(rb->mean / ra->mean);
	p->ratio = p->has_ratio ? rb->mean / ra->mean : NAN;
	p->has_ratio_ci = tl_ratio_ci95(&sa, &sb, &p->ratio_lo, &p->ratio_hi);
	p->tested = tl_welch_test(&sa, &sb, &p->welch);
	p->few_runs = ra->n_fom < TL_STATS_FEW_RUNS || rb->n_fom < TL_STATS_FEW_RUNS;
	/* a difference between runs of two sessions may be the host's, not the axes' */
	p->other_sessions = !(ra->nsessions == 1 && rb->nsessions == 1 && ra->session == rb->session);
	p->busy = ra->n_busy || rb->n_busy;
	return 0;
}

/* Holm-Bonferroni over the pairs tested: m is how many the table shows with a p. */
static int adjust(struct tl_compare *c)
{
	double *p = malloc((c->n + 1) * sizeof(*p));
	long m;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		p[i] = c->pairs[i].tested ? c->pairs[i].welch.p : NAN;
	m = tl_holm(p, c->n, p);
	for (size_t i = 0; i < c->n && m >= 0; i++) {
		c->pairs[i].p_holm = p[i];
		c->pairs[i].significant = c->pairs[i].tested && p[i] < 0.05;
	}
	free(p);
	if (m < 0)
		return (int)m;
	c->ntested = (size_t)m;
	return 0;
}

int tl_compare_build(const struct tl_report *a, const struct tl_report *b, const bool compared[TL_AXIS__COUNT],
		     const char *a_name, const char *b_name, struct tl_compare *c)
{
	const struct tl_report_row **cand = calloc(a->nrows + b->nrows + 1, sizeof(*cand));
	long *partner = calloc(a->nrows + 1, sizeof(*partner));
	int ret = -ENOMEM;

	memset(c, 0, sizeof(*c));
	memcpy(c->compared, compared, sizeof(c->compared));
	if (!cand || !partner || !(c->a_name = strdup(a_name)) || !(c->b_name = strdup(b_name)))
		goto fail;
	ret = 0;
	for (size_t i = 0; i < a->nrows; i++) {
		const struct tl_report_row *ra = &a->rows[i];
		size_t k = ra->n_fom ? candidates(a, ra, b, compared, true, cand) : 0;

		partner[i] = k == 1 ? cand[0] - b->rows : -1;
		if (k > 1) {
			ambiguous(c, true, ra, cand, k);
			ret = -EINVAL;
		}
	}
	/* the other way round: a configuration of B is the counterpart of one of A at most */
	for (size_t j = 0; j < b->nrows && !ret; j++) {
		size_t k = 0;

		for (size_t i = 0; i < a->nrows; i++)
			if (partner[i] == (long)j)
				cand[k++] = &a->rows[i];
		if (k > 1) {
			ambiguous(c, false, &b->rows[j], cand, k);
			ret = -EINVAL;
		}
	}
	for (size_t i = 0; i < a->nrows && !ret; i++) {
		if (partner[i] >= 0)
			ret = add_pair(c, &a->rows[i], &b->rows[partner[i]]);
		else
			c->a_unpaired += a->rows[i].n_fom > 0;
	}
	c->b_unpaired = 0;
	for (size_t j = 0; j < b->nrows; j++)
		c->b_unpaired += b->rows[j].n_fom > 0;
	c->b_unpaired -= c->n;
	ret = ret ?: adjust(c);
	if (ret)
		goto fail;
	free(partner);
	free(cand);
	return 0;
fail:
	if (ret == -ENOMEM)
		error("out of memory comparing");
	free(partner);
	free(cand);
	tl_compare_release(c);
	return ret;
}

void tl_compare_release(struct tl_compare *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->pairs[i].label);
	free(c->pairs);
	free(c->a_name);
	free(c->b_name);
	memset(c, 0, sizeof(*c));
}
