/*
 * Two sets of configurations side by side: two experiments (a
 * configuration of one against the same configuration of the other), or
 * two selectors within one experiment (policy=lru against policy=window,
 * paired on every axis neither selector names). For each pair: both
 * figures of merit (mean, sd, n), their ratio B/A, and Welch's t-test
 * (unequal variances, two-sided) of whether the means differ at 95%.
 */
#ifndef TL_COMPARE_H
#define TL_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include "report/report.h"
#include "report/stats.h"

struct tl_compare_pair {
	const struct tl_report_row *a, *b;	/* borrowed from the reports */
	char *label;				/* the axes that say which configuration ("chunks=8 rate=10Hz") */
	bool has_ratio;
	double ratio;				/* b mean / a mean */
	bool tested;				/* both sides have 2+ runs and some spread */
	struct tl_welch welch;
	bool significant;			/* tested and p < 0.05 */
};

struct tl_compare {
	char *a_name, *b_name;			/* as given: experiment names or selectors */
	struct tl_compare_pair *pairs;
	size_t n;
};

/*
 * Pairs rows of a with rows of b that agree on every axis outside
 * `ignore` (axes named by the selectors; an axis one side lacks, as lru
 * lacks window, agrees), in a's row order, a row of b with each of a's it
 * agrees with. Rows with no successful figure of merit are left out.
 * Returns 0 or -ENOMEM.
 */
int tl_compare_build(const struct tl_report *a, const struct tl_report *b, const bool ignore[TL_AXIS__COUNT],
		     const char *a_name, const char *b_name, struct tl_compare *c);
void tl_compare_release(struct tl_compare *c);

/* text (a table), csv or json; 0, -EINVAL for another format, or -EIO when writing failed. */
int tl_compare_print(const struct tl_compare *c, enum tl_report_format fmt, FILE *out);

#endif
