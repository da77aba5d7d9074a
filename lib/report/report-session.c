/*
 * Sessions in a report (report.h, tl_report_match_sessions): a row's %
 * of baseline compares it with the baseline measured in the same
 * session, not with whichever session ran the baseline last. Runs of one
 * experiment come from every invocation that stored them; a sweep that
 * runs the baseline again replaces the baseline row's runs (the latest
 * row of a key counts), and a row stored by an earlier session would
 * otherwise be compared with runs taken on another day, under another
 * load. Its % then stands on the baseline's runs of its own sessions,
 * kept in the store as the rows the later session replaced.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

/* Adds a run's session to the report's list (kept oldest first). */
static int note_session(struct tl_report *rep, const struct tl_run_row *run)
{
	struct tl_report_session *v;
	size_t i;

	for (i = 0; i < rep->nsessions; i++)
		if (rep->sessions[i].id == run->session_id) {
			rep->sessions[i].runs++;
			return 0;
		}
	if (!(v = realloc(rep->sessions, (rep->nsessions + 1) * sizeof(*v))))
		return -ENOMEM;
	rep->sessions = v;
	for (i = rep->nsessions; i > 0 && v[i - 1].started_at > run->session_started; i--)
		v[i] = v[i - 1];
	v[i] = (struct tl_report_session){ run->session_id, run->session_started, 1 };
	rep->nsessions++;
	return 0;
}

static bool has_session(const int64_t *set, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == id)
			return true;
	return false;
}

/*
 * The sessions of a row's runs: those with a figure of merit (what its %
 * stands on), or all of them when none has one. Into set (n slots).
 */
static size_t row_sessions(const struct tl_run_row *runs, size_t n, const long *row_of, long row, int64_t *set)
{
	size_t k = 0;
	bool any_fom = false;

	for (size_t i = 0; i < n; i++)
		any_fom |= row_of[i] == row && tl_run_fom_counts(&runs[i]);
	for (size_t i = 0; i < n; i++)
		if (row_of[i] == row && (!any_fom || tl_run_fom_counts(&runs[i])) &&
		    !has_session(set, k, runs[i].session_id))
			set[k++] = runs[i].session_id;
	return k;
}

/* Keeps, per run key, the latest of the runs picked (the row that counts within those sessions). */
static void latest_per_key(const struct tl_run_row **pick, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		size_t j;

		for (j = 0; j < k; j++)
			if (!strcmp(pick[j]->run_key, pick[i]->run_key))
				break;
		if (j == k)
			pick[k++] = pick[i];
		else if (pick[i]->id > pick[j]->id)
			pick[j] = pick[i];
	}
	*n = k;
}

static void pct_from(struct tl_report_row *r, const struct tl_stats *base)
{
	double num = r->higher_is_better ? r->mean : base->mean, den = r->higher_is_better ? base->mean : r->mean;

	r->has_pct = r->n_fom && base->n && den != 0 && isfinite(100 * num / den);
	r->pct_of_baseline = r->has_pct ? (num == den ? 100 : 100 * num / den) : NAN;
}

/*
 * Row i's baseline, from the runs (current and replaced) of the baseline
 * row in the sessions set[0..ns): 0 and the statistics in r->base when
 * there are any; 1 when none; -ENOMEM.
 */
static int own_baseline(struct tl_report_row *r, long b, const struct tl_run_row *all, size_t nall,
			const long *row_of, const int64_t *set, size_t ns)
{
	const struct tl_run_row **pick = malloc((nall + 1) * sizeof(*pick));
	double *v = malloc((nall + 1) * sizeof(*v));
	size_t k = 0, m = 0;
	int ret = -ENOMEM;

	if (!pick || !v)
		goto out;
	for (size_t j = 0; j < nall; j++)
		if (row_of[j] == b && has_session(set, ns, all[j].session_id))
			pick[k++] = &all[j];
	latest_per_key(pick, &k);
	memset(&r->base, 0, sizeof(r->base));
	r->base_busy = 0;
	for (size_t j = 0; j < k; j++) {
		if (!tl_run_fom_counts(pick[j]))
			continue;
		v[m++] = pick[j]->fom;
		r->base_busy += tl_run_busy(pick[j], NULL);
	}
	ret = m ? tl_stats_summary(v, m, &r->base) : 1;
out:
	free(pick);
	free(v);
	return ret;
}

int tl_report_match_sessions(struct tl_report *rep, const struct tl_run_row *runs, size_t n,
			     const struct tl_run_row *older, size_t nolder)
{
	/* the current rows first, then the replaced ones: one array, one row index each */
	struct tl_run_row *all = malloc((n + nolder + 1) * sizeof(*all));
	long *row_of = malloc((n + nolder + 1) * sizeof(*row_of));
	int64_t *set = malloc((n + 1) * sizeof(*set)), *bset = malloc((n + 1) * sizeof(*bset));
	int ret = -ENOMEM;

	if (!all || !row_of || !set || !bset)
		goto out;
	memcpy(all, runs, n * sizeof(*all));
	if (nolder)
		memcpy(all + n, older, nolder * sizeof(*all));
	for (size_t i = 0; i < n; i++)
		if ((ret = note_session(rep, &runs[i])))
			goto out;
	ret = 0;
	/* one session and nothing replaced: every % already compares runs of that session */
	if (rep->nsessions < 2 && !nolder) {
		for (size_t i = 0; i < rep->nrows && rep->nsessions; i++) {
			struct tl_report_row *r = &rep->rows[i];

			ret = -ENOMEM;
			if (!(r->session_ids = malloc(sizeof(*r->session_ids))))
				goto out;
			r->nsessions = 1;
			r->session = r->session_ids[0] = rep->sessions[0].id;
		}
		ret = 0;
		goto out;
	}
	for (size_t i = 0; i < n + nolder; i++)
		row_of[i] = tl_report_row_of(rep, &all[i]);
	for (size_t i = 0; i < rep->nrows; i++) {
		struct tl_report_row *r = &rep->rows[i];
		size_t ns = row_sessions(runs, n, row_of, (long)i, set), nb;
		bool within = true;

		r->nsessions = 0;
		if (!(r->session_ids = malloc((ns + 1) * sizeof(*r->session_ids)))) {
			ret = -ENOMEM;
			goto out;
		}
		/* in the report's order, oldest first: the last is the row's latest */
		for (size_t k = 0; k < rep->nsessions; k++)
			if (has_session(set, ns, rep->sessions[k].id))
				r->session = r->session_ids[r->nsessions++] = rep->sessions[k].id;
		if (r->is_baseline || r->baseline < 0 || !ns)
			continue;
		/* the baseline row's own runs all of this row's sessions: nothing to change */
		nb = row_sessions(runs, n, row_of, r->baseline, bset);
		for (size_t k = 0; k < nb; k++)
			within &= has_session(set, ns, bset[k]);
		if (within)
			continue;
		ret = own_baseline(r, r->baseline, all, n + nolder, row_of, set, ns);
		if (ret < 0)
			goto out;
		if (ret == 0) {
			r->base_own = true;
			pct_from(r, &r->base);
		} else {
			r->base_other_session = true;
		}
		ret = 0;
	}
out:
	free(all);
	free(row_of);
	free(set);
	free(bset);
	if (ret == -ENOMEM)
		error("out of memory matching sessions");
	return ret;
}
