/*
 * The access map: where in each managed allocation the samples fell, and
 * when, as a heatmap (what damo's heatmap gives DAMON users). A point
 * per sample, as the timeline draws, hides density: ten thousand samples
 * on one hot array are one smear. Here each allocation's band is a grid
 * of offset by time, each cell coloured by its count of samples, on a
 * log scale when counts span more than a decade.
 */
#include "plot/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "util/error.h"
#include "util/quote.h"

int tl_plot_accessmap(FILE *gp, FILE *dat, const struct tl_plot_files *f, const char *title,
		      const char *const *bands, size_t nbands, const double *pts, size_t npts, double span,
		      size_t outside)
{
	const size_t rows = TL_PLOT_MAP_ROWS, cols = TL_PLOT_MAP_COLS;
	size_t *grid = calloc(nbands * rows * cols + 1, sizeof(*grid)), most = 0;
	double width = f->width_in > 0 ? f->width_in : TL_PLOT_PAGE_IN, line = tl_plot_line_in();
	double height = f->height_in > 0 ? f->height_in : 1.4 + 0.55 * (double)(nbands < 2 ? 2 : nbands);
	double dt;
	bool narrow = width < 5;	/* a column: the caption on two lines */
	char caption[256];

	if (!grid)
		return -ENOMEM;
	span = span > 0 ? span : 1e-3;
	dt = span / (double)cols;
	for (size_t k = 0; k < npts; k++) {
		double t = pts[2 * k], y = pts[2 * k + 1];
		size_t band = (size_t)floor(y), c, r;
		double frac = (y - (double)band - 0.05) / 0.7;

		if (band >= nbands)
			continue;
		c = (size_t)fmin(fmax(t / dt, 0), (double)cols - 1);
		r = (size_t)fmin(fmax(frac * (double)rows, 0), (double)rows - 1);
		grid[(band * rows + r) * cols + c]++;
	}
	/* the samples: a cell per line, empty cells left out (white, the background) */
	/* after the timeline's three blocks (samples, migrations, allocations): index 3 */
	fputs("\n\n# access map: x_center y_center x_half y_half samples (band i spans y i to i + 0.8, offset 0 at the "
	      "bottom)\n", dat);
	for (size_t b = 0; b < nbands; b++)
		for (size_t r = 0; r < rows; r++)
			for (size_t c = 0; c < cols; c++) {
				size_t v = grid[(b * rows + r) * cols + c];

				if (!v)
					continue;
				most = v > most ? v : most;
				tl_plot_number(dat, ((double)c + 0.5) * dt);
				fputc(' ', dat);
				tl_plot_number(dat, (double)b + 0.8 * ((double)r + 0.5) / (double)rows);
				fputc(' ', dat);
				tl_plot_number(dat, dt / 2);
				fputc(' ', dat);
				tl_plot_number(dat, 0.4 / (double)rows);
				fprintf(dat, " %zu\n", v);
			}
	free(grid);
	if (!most)
		fputs("0 0 0 0 0\n", dat);	/* an empty block would make gnuplot warn; a zero-size cell draws nothing */
	tl_plot_preamble(gp, f, width, height);
	fputs("set label 2 ", gp);
	tl_quote_gnuplot(gp, title);
	fprintf(gp, " at screen 0.5, screen %.4f center\n", 1 - 1.1 * line / height);
	snprintf(caption, sizeof(caption),
		 "%zu samples in %zu allocations (offset 0 at a band's foot),%s%zu x %zu cells each; %zu outside not shown",
		 npts, nbands, narrow ? "\n" : " ", cols, rows, outside);
	fputs("set label 1 ", gp);
	tl_plot_two_lines(gp, caption, false);
	fprintf(gp, " at screen 0.5, screen %.4f center\n", 1 - (narrow ? 2.75 : 2.2) * line / height);
	fprintf(gp, "set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
		1 - ((narrow ? 4 : 3) * line + 0.05) / height, (2.8 * line + 0.1) / height);
	fprintf(gp, "set xlabel \"seconds since the first allocation\"\nset xrange [0:%g]\nset yrange [-0.1:%g]\n",
		span, (double)nbands - 0.1);
	/* each band: its name in the middle, offset 0 at its foot */
	fputs("set ytics scale 0 (", gp);
	for (size_t b = 0; b < nbands; b++) {
		fputs(b ? ", " : "", gp);
		tl_plot_two_lines(gp, bands[b], true);
		fprintf(gp, " %g", (double)b + 0.4);
	}
	fputs(")\n", gp);
	/* light for one sample, dark for many: cubehelix-like, monotone in lightness, readable in grey */
	fputs("set palette defined (0 \"#fde0c5\", 1 \"#f59e72\", 2 \"#c2185b\", 3 \"#3b0f70\")\n", gp);
	if (most >= 10)
		fprintf(gp, "set logscale cb\nset cbrange [1:%zu]\n", most);
	else
		fprintf(gp, "set cbrange [0:%zu]\n", most ? most : 1);
	fputs("set cblabel \"samples per cell\"\nset style fill solid 1.0 noborder\nunset key\nset grid noxtics noytics\n", gp);
	fputs("plot data index 3 using 1:2:3:4:5 with boxxyerror fc palette", gp);
	/* the bands' frames, so an allocation with no sample still shows where it is */
	for (size_t b = 0; b < nbands; b++)
		fprintf(gp, ", \\\n     [0:%g] %g with lines lc rgb \"#bbbbbb\" notitle, [0:%g] %g with lines lc rgb "
			"\"#bbbbbb\" notitle", span, (double)b, span, (double)b + 0.8);
	fputc('\n', gp);
	return 0;
}
