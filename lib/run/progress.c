/*
 * The progress line of `tierlab run` and `tierlab sweep` (see progress.h).
 * What a spec or a workload wrote (axis values, units, a run's error) is
 * printed made visible (util/visible.h): an escape sequence in a unit must
 * not redraw the terminal.
 */
#include "run/progress.h"
#include "util/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/visible.h"

void tl_format_duration(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}

static void status_line(struct tl_progress *p)
{
	char eta[32] = "?";

	if (!p->tty)
		return;
	if (p->timed)
		tl_format_duration(eta, sizeof(eta), p->busy / p->timed * (p->total - p->done));
	fprintf(stderr, "\r\033[K[%zu/%zu] ETA %s  %s", p->done + 1, p->total, eta, p->current);
	fflush(stderr);
}

static void clear_line(struct tl_progress *p)
{
	if (p->tty)
		fprintf(stderr, "\r\033[K");
}

void tl_progress_start(struct tl_progress *p, size_t total, bool tty)
{
	memset(p, 0, sizeof(*p));
	p->total = total;
	p->tty = tty;
	p->t0 = tl_mono_s();
}

/* "KEY  DESCRIPTION", made visible, into p->current. */
static void set_current(struct tl_progress *p, const char *key, const char *desc)
{
	char *shown = tl_visible(desc, 0);

	snprintf(p->current, sizeof(p->current), "%s  %s", key, shown ? shown : "?");
	free(shown);
}

void tl_progress_skip(struct tl_progress *p, const char *key, const char *desc)
{
	clear_line(p);
	p->done++;
	set_current(p, key, desc);
	fprintf(stderr, "[%zu/%zu] skip     %s (stored ok)\n", p->done, p->total, p->current);
}

void tl_progress_begin(struct tl_progress *p, const char *key, const char *desc)
{
	set_current(p, key, desc);
	p->run_t0 = tl_mono_s();
	status_line(p);
}

void tl_progress_end(struct tl_progress *p, const struct tl_run_result *res, bool has_fom,
		     double fom, const char *unit)
{
	char value[64];

	p->busy += tl_mono_s() - p->run_t0;
	p->timed++;
	clear_line(p);
	p->done++;
	if (has_fom)
		snprintf(value, sizeof(value), "%.4g ", fom);
	fprintf(stderr, "[%zu/%zu] %-8s %s  %s", p->done, p->total, tl_status_names[res->status], p->current,
		has_fom ? value : "");
	tl_fput_visible(has_fom ? unit : res->error, 0, stderr);
	fprintf(stderr, " (%.1fs)\n", res->wall);
}

void tl_progress_finish(struct tl_progress *p)
{
	clear_line(p);
	fflush(stderr);
}
