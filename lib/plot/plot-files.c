/*
 * What every figure shares: where its three files go, the script's
 * preamble, and running gnuplot on the script. The
 * script names its data and image by their last path component and runs in
 * their directory, so the three files can move together.
 */
#include "plot/plot.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report/report-format.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/visible.h"

extern char **environ;

static char *with_ext(const char *path, size_t stem, const char *ext)
{
	char *s = malloc(stem + strlen(ext) + 1);

	if (s) {
		memcpy(s, path, stem);
		strcpy(s + stem, ext);
	}
	return s;
}

static char *last_part(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strdup(slash ? slash + 1 : path);
}

/* The extensions, in the order of enum tl_plot_format. */
static const char *const extensions[] = { ".svg", ".png", ".pdf", ".eps" };

static int format_of(const char *dot)
{
	for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++)
		if (!strcmp(dot, extensions[i]))
			return (int)i;
	return -1;
}

int tl_plot_size_parse(const char *text, struct tl_plot_files *f)
{
	char *end;
	double w, h = 0;

	if (!strcmp(text, "column") || !strcmp(text, "page")) {
		f->width_in = *text == 'c' ? TL_PLOT_COLUMN_IN : TL_PLOT_PAGE_IN;
		f->height_in = 0;
		return 0;
	}
	w = strtod(text, &end);
	if (end != text && (*end == 'x' || *end == 'X')) {
		const char *hs = end + 1;

		h = strtod(hs, &end);
		if (end == hs)
			h = -1;
	}
	/* under an inch no axis and title fit; over 40 in is a typo (a poster is 33 in wide) */
	if (*end || !(w >= 1 && w <= 40) || !(h >= 1 && h <= 40)) {
		error("--size '%s': expected column (3.5 in wide), page (7 in) or WxH in inches, each 1 to 40 "
		      "(3.5x2.5)", text);
		return -EINVAL;
	}
	f->width_in = w;
	f->height_in = h;
	return 0;
}

int tl_plot_files_init(const char *image, struct tl_plot_files *f)
{
	const char *dot = strrchr(image, '.'), *slash = strrchr(image, '/');
	char *copy, *shown;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	shown = tl_visible(image, 0);
	if (!shown) {
		error("out of memory");
		return -ENOMEM;
	}
	/* the script names the image and data as text: one the script would show otherwise, it cannot name */
	if (strcmp(shown, image))
		rc = error("image '%s': the name holds a control character or bytes that are not UTF-8", shown);
	else if (!dot || (slash && dot < slash) || format_of(dot) < 0)
		rc = error("image '%s': the name must end in .svg, .png, .pdf or .eps", image);
	free(shown);
	if (rc)
		return -EINVAL;
	f->format = (enum tl_plot_format)format_of(dot);
	f->image = strdup(image);
	f->script = with_ext(image, dot - image, ".gp");
	f->data = with_ext(image, dot - image, ".dat");
	f->image_name = last_part(image);
	copy = strdup(image);
	f->dir = copy ? strdup(dirname(copy)) : NULL;
	free(copy);
	if (!f->image || !f->script || !f->data || !f->image_name || !f->dir ||
	    !(f->data_name = last_part(f->data))) {
		tl_plot_files_release(f);
		error("out of memory");
		return -ENOMEM;
	}
	return 0;
}

void tl_plot_files_release(struct tl_plot_files *f)
{
	free(f->image);
	free(f->script);
	free(f->data);
	free(f->image_name);
	free(f->data_name);
	free(f->dir);
	memset(f, 0, sizeof(*f));
}

void tl_plot_number(FILE *out, double x)
{
	char b[64];

	tl_fmt_exact(b, sizeof(b), x);
	fputs(isfinite(x) && *b ? b : "?", out);
}

void tl_plot_preamble(FILE *gp, const struct tl_plot_files *f, double width_in, double height_in)
{
	/*
	 * pngcairo sizes text as if for a 96 dpi screen (measured: a 10 pt
	 * digit is 13.7 px high, not 10), lines and points for 72 dpi; these
	 * scales keep each at its printed size at TL_PLOT_PNG_DPI
	 */
	double scale = TL_PLOT_PNG_DPI / 72.0, text = TL_PLOT_PNG_DPI / 96.0;

	fprintf(gp, "# made by tierlab plot; run `gnuplot %s` in this directory to draw it again\n",
		strrchr(f->script, '/') ? strrchr(f->script, '/') + 1 : f->script);
	fprintf(gp, "# %.2f x %.2f in, text %d pt\n", width_in, height_in, TL_PLOT_FONT_PT);
	switch (f->format) {
	case TL_PLOT_PNG:
		fprintf(gp, "set terminal pngcairo size %d,%d noenhanced font \"sans,%d\" fontscale %.4f linewidth %.4f "
			"pointscale %.4f\n", (int)(width_in * TL_PLOT_PNG_DPI + 0.5), (int)(height_in * TL_PLOT_PNG_DPI + 0.5),
			TL_PLOT_FONT_PT, text, scale, scale);
		break;
	case TL_PLOT_PDF:
	case TL_PLOT_EPS:
		fprintf(gp, "set terminal %s size %.2fin,%.2fin noenhanced font \"sans,%d\"\n",
			f->format == TL_PLOT_PDF ? "pdfcairo" : "epscairo", width_in, height_in, TL_PLOT_FONT_PT);
		break;
	default:
		/* 72 units an inch, as a point: the font's size is the printed one */
		fprintf(gp, "set terminal svg size %d,%d dynamic noenhanced font \"sans,%d\"\n",
			(int)(width_in * 72 + 0.5), (int)(height_in * 72 + 0.5), TL_PLOT_FONT_PT);
	}
	fputs("set style textbox opaque noborder\n", gp);
	fputs("set output ", gp);
	tl_quote_gnuplot(gp, f->image_name);
	fputs("\nset datafile missing \"?\"\n", gp);
	fputs("data = ", gp);
	tl_quote_gnuplot(gp, f->data_name);
	fputc('\n', gp);
}

void tl_plot_two_lines(FILE *gp, const char *text, bool tic)
{
	void (*quote)(FILE *, const char *) = tic ? tl_quote_gnuplot_tic : tl_quote_gnuplot;
	const char *nl = strchr(text, '\n');
	char *head;

	if (!nl || !(head = strndup(text, (size_t)(nl - text)))) {
		quote(gp, text);
		return;
	}
	quote(gp, head);
	fputs(" . \"\\n\" . ", gp);
	quote(gp, nl + 1);
	free(head);
}

int tl_plot_render(const struct tl_plot_files *f)
{
	const char *script = strrchr(f->script, '/') ? strrchr(f->script, '/') + 1 : f->script;
	char *argv[] = { "gnuplot", (char *)script, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc, status;

	if ((rc = posix_spawn_file_actions_init(&fa))) {
		error("out of memory");
		return -rc;
	}
	rc = posix_spawn_file_actions_addchdir_np(&fa, f->dir);
	if (!rc)
		rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT) {
		error("gnuplot not found: install it (Debian: apt-get install gnuplot-nox); "
		      "the script is written: gnuplot %s", f->script);
		return -ENOENT;
	}
	if (rc) {
		error("cannot run gnuplot: %s", strerror(rc));
		return -rc;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = errno;
			error("waiting for gnuplot: %s", strerror(rc));
			return -rc;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		error("gnuplot failed on '%s' (its messages are above)", f->script);
		return -EIO;
	}
	return 0;
}
