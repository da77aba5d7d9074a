/*
 * Figures drawn with gnuplot: each figure is a gnuplot script and its data
 * file written beside the image, so a user can restyle it and run
 * `gnuplot NAME.gp` again; tierlab then runs gnuplot on them. Every
 * figure is laid out in inches at its printed size (TL_PLOT_FONT_PT text)
 * and draws a policy or allocator in its one style (tl_plot_style_of).
 * The kinds:
 *
 *   bars     the paper-style chart over the report model: per configuration
 *            the mean figure of merit (its 95% interval where n >= 3, the
 *            runs otherwise), hit rate on the second axis, % of baseline
 *            in the bar, the all-fast, all-slow and baseline rows as
 *            labelled lines, one panel per value of an axis (rate by
 *            default) in a grid that wraps, one key
 *   heatmap  one policy's % of baseline over chunks x rate, n and
 *            Welch's p in each cell, the cells not different hatched
 *   timeline one run's log: samples as address-versus-time points over its
 *            managed allocations (bands named by call site), migrations
 *            marked by direction; or (access map) its samples counted in
 *            an address x time grid per allocation
 *   figures  the papers': a metric against the chunk count (lines), an
 *            allocator's counters as a % of the baseline's (bars)
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

/* The image's format, from its extension: gnuplot's svg, pngcairo, pdfcairo or epscairo terminal. */
enum tl_plot_format { TL_PLOT_SVG, TL_PLOT_PNG, TL_PLOT_PDF, TL_PLOT_EPS };

/*
 * Figures are laid out in inches at the size they are printed, so that
 * their text (TL_PLOT_FONT_PT points) reads as body text beside them: a
 * column of a two-column paper, a page's text width, or a size given.
 */
#define TL_PLOT_COLUMN_IN 3.5
#define TL_PLOT_PAGE_IN 7.0
#define TL_PLOT_FONT_PT 8
/* PNG pixels per inch: sharp on a screen and in print. */
#define TL_PLOT_PNG_DPI 150

/* Where a figure goes: the image, and the script and data beside it, and its size. */
struct tl_plot_files {
	char *image, *script, *data;	/* paths as given (directory kept) */
	char *image_name, *data_name;	/* their last components: the script names them so it runs from its directory */
	char *dir;			/* the directory gnuplot runs in */
	enum tl_plot_format format;
	double width_in, height_in;	/* --size: 0 when not given (the figure chooses); height_in 0: the figure's own */
};

/*
 * From the image path: "out/fig.svg" -> out/fig.gp, out/fig.dat. The
 * extension picks the terminal (.svg, .png, .pdf, .eps); anything
 * else, or a path with a control character or bytes that are not UTF-8
 * (the script could not name it), is -EINVAL with an error line.
 */
int tl_plot_files_init(const char *image, struct tl_plot_files *f);
void tl_plot_files_release(struct tl_plot_files *f);

/*
 * --size: "column" (3.5 in wide), "page" (7 in) or WxH in inches
 * ("3.5x2.5"), into f's width_in and height_in. -EINVAL with an error
 * line on anything else, or a size under 1 in or over 40 in.
 */
int tl_plot_size_parse(const char *text, struct tl_plot_files *f);

/* The script's first lines: terminal at this size in inches, output, no enhanced text (names hold '_'). */
void tl_plot_preamble(FILE *gp, const struct tl_plot_files *f, double width_in, double height_in);

/*
 * A grid of panels that wraps at the figure's width (plot-layout.c): as
 * many columns as panels of panel_min_in fit, rows of panel_h_in under a
 * title and caption, the shared key's lines at the bottom. A height given
 * with --size is shared among the rows instead.
 */
struct tl_plot_grid {
	double width_in, height_in;
	size_t cols, rows;
	double top_in, key_in, panel_h_in;
};
void tl_plot_grid_init(struct tl_plot_grid *g, const struct tl_plot_files *f, size_t npanels,
		       double panel_min_in, double panel_h_in, size_t key_lines);
/* Panel k's plot area: its cell less these margins (inches), as gnuplot's screen margins. */
void tl_plot_grid_place(FILE *gp, const struct tl_plot_grid *g, size_t k, double left_in, double right_in,
			double top_in, double bottom_in);
/* The height of a line of text, inches. */
double tl_plot_line_in(void);

/*
 * How a policy or an allocator is drawn in every figure: its colour (a
 * "#rrggbb" of one colour-blind-safe palette), a fill pattern and a point
 * type that tell it from the others in grey print, and a dash type.
 * "static:1,0" is drawn as static; an unknown name (a plugin's path) gets
 * one of the palette's colours by its hash, the same in every figure.
 */
struct tl_plot_style {
	const char *name;
	const char *colour;
	int pattern, point, dash;
};
struct tl_plot_style tl_plot_style_of(const char *name);
/*
 * text as a gnuplot string expression of two lines: the part before its
 * first newline and the rest, each through tl_quote_gnuplot, joined by
 * "\n" (a newline in either part is shown, as everywhere, not obeyed);
 * tic: a tic's label, whose '%' gnuplot would read as a format
 * (tl_quote_gnuplot_tic).
 */
void tl_plot_two_lines(FILE *gp, const char *text, bool tic);
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
 * The SHAMBLES paper's figures (tierlab plot --figure, plot-lines.c): a
 * metric against the chunk count, a line per policy and rate (and any
 * other axis that varies): % of baseline with its 95% interval where
 * both sides have three runs or more, GiB migrated per run, or the hit
 * rate. -ENODATA when no configuration has a chunk count and the metric.
 */
enum tl_plot_metric { TL_PLOT_PCT, TL_PLOT_MIGRATED, TL_PLOT_HIT, TL_PLOT_COUNTERS };
/* "pct", "migrated", "hit", "counters": the figure, or -1. */
int tl_plot_metric_lookup(const char *name);
int tl_plot_lines(const struct tl_report *rep, enum tl_plot_metric m, const struct tl_plot_files *f, FILE *gp,
		  FILE *dat);

/*
 * The FAT paper's figure (--figure counters, plot-counters.c): each
 * allocator's counters as a % of the baseline's, a cluster per counter;
 * where no counter was counted, wall time and VmPTE (vmpte: per row, the
 * mean of its ok runs' proc.vmpte_peak, NaN when none stored it), the
 * figure saying why. Needs tl_report_load_counters. -ENODATA when no row
 * has a baseline.
 */
int tl_plot_counters(const struct tl_report *rep, const double *vmpte, const struct tl_plot_files *f, FILE *gp,
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
int tl_plot_timeline(struct tl_store *st, const struct tl_run_row *run, long pid, bool map,
		     const struct tl_plot_files *f, FILE *gp, FILE *dat);

/*
 * With map (tierlab plot --access-map): the same run's samples as an
 * address-by-time heatmap, as damo's heatmap shows DAMON's: per managed
 * allocation (a band, named as in the timeline) a grid of its offset
 * (TL_PLOT_MAP_ROWS rows) by time (TL_PLOT_MAP_COLS columns), each cell
 * coloured by the samples that fell in it (plot-accessmap.c). pts are
 * (seconds, y) pairs as the timeline places them (band i from i + 0.05
 * to i + 0.75); outside: samples in no band, counted in the caption.
 */
#define TL_PLOT_MAP_ROWS 16
#define TL_PLOT_MAP_COLS 48
int tl_plot_accessmap(FILE *gp, FILE *dat, const struct tl_plot_files *f, const char *title,
		      const char *const *bands, size_t nbands, const double *pts, size_t npts, double span,
		      size_t outside);

/*
 * Runs `gnuplot NAME.gp` in the script's directory. -ENOENT with an error
 * line saying how to install it when gnuplot is missing; -EIO when it
 * failed (its messages went to stderr).
 */
int tl_plot_render(const struct tl_plot_files *f);

#endif
