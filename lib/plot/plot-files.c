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
	else if (!dot || (slash && dot < slash) || (strcmp(dot, ".svg") && strcmp(dot, ".png")))
		rc = error("image '%s': the name must end in .svg or .png", image);
	free(shown);
	if (rc)
		return -EINVAL;
	f->png = !strcmp(dot, ".png");
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

void tl_plot_preamble(FILE *gp, const struct tl_plot_files *f, int width, int height)
{
	fprintf(gp, "# made by tierlab plot; run `gnuplot %s` in this directory to draw it again\n",
		strrchr(f->script, '/') ? strrchr(f->script, '/') + 1 : f->script);
	if (f->png)
		fprintf(gp, "set terminal pngcairo size %d,%d noenhanced font \"sans,9\"\n", width, height);
	else
		fprintf(gp, "set terminal svg size %d,%d dynamic noenhanced font \"sans,9\"\n", width, height);
	fputs("set output ", gp);
	tl_quote_gnuplot(gp, f->image_name);
	fputs("\nset datafile missing \"?\"\n", gp);
	fputs("data = ", gp);
	tl_quote_gnuplot(gp, f->data_name);
	fputc('\n', gp);
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
