/*
 * Figures drawn with gnuplot: each figure is a gnuplot script and its data
 * file written beside the image, so a user can restyle it and run
 * `gnuplot NAME.gp` again; tierlab then runs gnuplot on them. Three kinds:
 *
 *   bars     the paper-style chart over the report model: per configuration
 *            the figure of merit (bars, 95% interval of the mean as error
 *            bars), hit rate on the second axis, % of baseline and GiB
 *            migrated under each bar, the all-fast and all-slow rows as
 *            dashed lines, one panel per value of an axis (rate by default)
 *   heatmap  one policy's % of baseline over chunks x rate
 *   timeline one run's log: samples as address-versus-time points over its
 *            managed allocations (bands named by call site), migrations
 *            marked by direction
 *
 * Library code: functions return 0 or a negative errno after one error()
 * line.
 */
#ifndef TL_PLOT_H
#define TL_PLOT_H

#include <stdbool.h>
#include <stdio.h>
#include "axis/axis.h"
#include "report/report.h"
#include "store/query.h"

/* Where a figure goes: the image (.svg or .png), and the script and data beside it. */
struct tl_plot_files {
	char *image, *script, *data;	/* paths as given (directory kept) */
	char *image_name, *data_name;	/* their last components: the script names them so it runs from its directory */
	char *dir;			/* the directory gnuplot runs in */
	bool png;
};

/*
 * From the image path: "out/fig.svg" -> out/fig.gp, out/fig.dat. The
 * extension picks the terminal (svg, or png through pngcairo); anything
 * else, or a path with a control character or bytes that are not UTF-8
 * (the script could not name it), is -EINVAL with an error line.
 */
int tl_plot_files_init(const char *image, struct tl_plot_files *f);
void tl_plot_files_release(struct tl_plot_files *f);

/* The script's first lines: terminal (size in pixels), output, no enhanced text (names hold '_'). */
void tl_plot_preamble(FILE *gp, const struct tl_plot_files *f, int width, int height);
/* x for a data file: shortest exact text, "?" (the script's missing-value mark) when not finite. */
void tl_plot_number(FILE *out, double x);

/*
 * The bar chart of rep, one panel per distinct value of `by` (the
 * workload and size join the panel when they vary). Rows whose policy is
 * all-fast or all-slow are the dashed lines of every panel of their
 * workload and size; a row without a value for `by` (the axis does not
 * apply to it, e.g. policy none and rate) is a bar in every panel.
 * -ENODATA when no row is a bar.
 */
int tl_plot_bars(const struct tl_report *rep, enum tl_axis by, const struct tl_plot_files *f, FILE *gp,
		 FILE *dat);

/*
 * The heatmap of policy's rows (base name: "static" takes every
 * "static:..."): chunks x rate cells coloured by % of baseline. -ENODATA
 * when the policy has no row with chunks, rate and a %; -EINVAL when two
 * rows fall in one cell (another axis varies: --where chooses).
 */
int tl_plot_heatmap(const struct tl_report *rep, const char *policy, const struct tl_plot_files *f,
		    FILE *gp, FILE *dat);

/*
 * The timeline of one run's log, of process pid (0: the first that
 * allocated): -ENODATA when it logged no managed allocation (not run with
 * `log: log`, or no such process).
 */
int tl_plot_timeline(struct tl_store *st, const struct tl_run_row *run, long pid, const struct tl_plot_files *f,
		     FILE *gp, FILE *dat);

/*
 * Runs `gnuplot NAME.gp` in the script's directory. -ENOENT with an error
 * line saying how to install it when gnuplot is missing; -EIO when it
 * failed (its messages went to stderr).
 */
int tl_plot_render(const struct tl_plot_files *f);

#endif
