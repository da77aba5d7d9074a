/*
 * Panels on a page: a grid that wraps at the figure's width, each panel
 * placed by its margins in screen coordinates, so the space for tic
 * labels, titles and the shared key is reserved in inches (the printed
 * size) rather than left to gnuplot's per-panel guesses, which let the
 * key and the axis labels overlap.
 */
#include "plot/plot.h"

#include <math.h>

/* One line of TL_PLOT_FONT_PT text, in inches, with its leading. */
#define LINE_IN (TL_PLOT_FONT_PT * 1.35 / 72.0)

void tl_plot_grid_init(struct tl_plot_grid *g, const struct tl_plot_files *f, size_t npanels,
		       double panel_min_in, double panel_h_in, size_t key_lines)
{
	size_t cols;

	g->width_in = f->width_in > 0 ? f->width_in : TL_PLOT_PAGE_IN;
	cols = (size_t)floor(g->width_in / panel_min_in);
	cols = cols < 1 ? 1 : cols > npanels ? npanels : cols;
	g->cols = cols;
	g->rows = (npanels + cols - 1) / cols;
	g->top_in = 2.4 * LINE_IN + 0.05;		/* the figure's title and its caption line */
	g->key_in = key_lines ? key_lines * LINE_IN + 0.1 : 0;
	g->panel_h_in = panel_h_in;
	g->height_in = g->top_in + (double)g->rows * panel_h_in + g->key_in;
	/* a height given: the panels share what the title and key leave */
	if (f->height_in > 0) {
		g->height_in = f->height_in;
		g->panel_h_in = (f->height_in - g->top_in - g->key_in) / (double)g->rows;
	}
}

void tl_plot_grid_place(FILE *gp, const struct tl_plot_grid *g, size_t k, double left_in, double right_in,
			double top_in, double bottom_in)
{
	double cw = g->width_in / (double)g->cols;
	size_t row = k / g->cols, col = k % g->cols;
	double x0 = (double)col * cw, y0 = g->top_in + (double)row * g->panel_h_in;
	double l = (x0 + left_in) / g->width_in, r = (x0 + cw - right_in) / g->width_in;
	double t = 1 - (y0 + top_in) / g->height_in, b = 1 - (y0 + g->panel_h_in - bottom_in) / g->height_in;

	/* a panel too small for its margins still gets a sliver rather than an inverted box gnuplot refuses */
	if (r <= l + 0.02)
		r = l + 0.02;
	if (t <= b + 0.02)
		b = t - 0.02;
	fprintf(gp, "set lmargin at screen %.4f\nset rmargin at screen %.4f\nset tmargin at screen %.4f\n"
		"set bmargin at screen %.4f\n", l, r, t, b);
}

double tl_plot_line_in(void)
{
	return LINE_IN;
}
