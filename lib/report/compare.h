/*
 * Two sets of configurations side by side: two experiments (a
 * configuration of one against the same configuration of the other), or
 * two selectors within one experiment (policy=lru against policy=window).
 *
 * A pair is two configurations equal on every axis but the compared ones
 * (the axes the selectors name; none between two experiments), of the same
 * workload, size, unit and direction of the figure of merit. An axis one
 * side lacks (lru has no window) keeps a pair apart unless it is the only
 * way a configuration finds a counterpart, and then only when that
 * counterpart is the one: a configuration with two candidates, or a
 * configuration that is the candidate of two, is an ambiguous pairing and
 * the comparison is refused, naming the candidates.
 *
 * For each pair: both figures of merit (mean, sd, n), their ratio B/A with
 * its 95% interval (delta method on the log ratio, tl_ratio_ci95), and
 * Welch's t-test (unequal variances, two-sided), its p adjusted over the
 * tested pairs by Holm-Bonferroni; significant when the adjusted p < 0.05.
 */
#ifndef TL_COMPARE_H
#define TL_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include "report/report.h"
#include "report/stats.h"

struct tl_compare_pair {
	const struct tl_report_row *a, *b;	/* borrowed from the reports */
	char *label;				/* the axes matched on, equal on both sides ("chunks=8 rate=10Hz"),
						 * then what one side has that the other lacks ("B window=16") */
	bool has_ratio;
	double ratio;				/* b mean / a mean */
	bool has_ratio_ci;
	double ratio_lo, ratio_hi;		/* its 95% interval */
	bool tested;				/* both sides have 2+ runs and some spread */
	struct tl_welch welch;
	double p_holm;				/* welch.p adjusted over the tested pairs; valid when tested */
	bool significant;			/* tested and p_holm < 0.05 */
	bool few_runs;				/* a side has fewer than TL_STATS_FEW_RUNS: said beside the pair */
	bool other_sessions;			/* A's and B's runs are not all of one session (tl_report_match_sessions) */
	bool busy;				/* a run of either side was taken on a busy host (tl_run_busy) */
};

struct tl_compare {
	char *a_name, *b_name;			/* as given: experiment names or selectors */
	bool compared[TL_AXIS__COUNT];		/* the axes a pair may differ on */
	struct tl_compare_pair *pairs;
	size_t n;
	size_t ntested;				/* the m of Holm's adjustment */
	size_t a_unpaired, b_unpaired;		/* rows with a figure of merit and no counterpart */
};

/*
 * Pairs rows of a with rows of b as above, in a's row order; rows with no
 * successful figure of merit are left out. Returns 0, -EINVAL after one
 * error line per ambiguous pairing (the configuration and its candidates),
 * or -ENOMEM.
 */
int tl_compare_build(const struct tl_report *a, const struct tl_report *b, const bool compared[TL_AXIS__COUNT],
		     const char *a_name, const char *b_name, struct tl_compare *c);
void tl_compare_release(struct tl_compare *c);

/* text (a table), csv or json; 0, -EINVAL for another format, or -EIO when writing failed. */
int tl_compare_print(const struct tl_compare *c, enum tl_report_format fmt, FILE *out);

#endif
