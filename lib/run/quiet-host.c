/*
 * The quiet-host guard (see quiet-host.h).
 */
#include "run/quiet-host.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "measure/environment.h"
#include "util/units.h"

/* The kernel recomputes the load averages every 5 s: polling faster reads the same number. */
#define POLL_S 5.0

int tl_quiet_host_parse(const char *text, struct tl_quiet_host *q, struct tl_error *err)
{
	const char *colon = strchr(text, ':');
	char load[64], *end;

	q->wait_s = TL_QUIET_WAIT_S;
	snprintf(load, sizeof(load), "%.*s", colon ? (int)(colon - text) : (int)strlen(text), text);
	q->load = strtod(load, &end);
	if (!load[0] || *end || !(q->load > 0) || !isfinite(q->load))
		return tl_error_set(err, "--quiet-host: '%s': LOAD is a 1-minute load average above 0 (2, 0.5), "
				    "then :WAIT if you like (2:10m)", text);
	if (colon && (tl_parse_duration(colon + 1, &q->wait_s) || !(q->wait_s >= 0)))
		return tl_error_set(err, "--quiet-host: '%s': WAIT is a duration (90s, 10m)", text);
	return 0;
}

static double host_now(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double host_load1(void *arg)
{
	struct tl_host_load l;

	(void)arg;
	tl_host_load_read(&l);
	return l.load[0];
}

static void host_sleep(double s, void *arg)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	(void)arg;
	nanosleep(&ts, NULL);	/* a signal ends it early: the caller looks at its stop flag */
}

void tl_quiet_host_wait(const struct tl_quiet_host *q, const struct tl_quiet_ops *ops,
			const volatile sig_atomic_t *stop, FILE *say, struct tl_quiet_result *out)
{
	static const struct tl_quiet_ops host = { host_now, host_load1, host_sleep, NULL };
	double start, left;
	bool said = false;

	if (!ops)
		ops = &host;
	memset(out, 0, sizeof(*out));
	start = ops->now(ops->arg);
	for (;;) {
		out->load = ops->load1(ops->arg);
		out->waited_s = ops->now(ops->arg) - start;
		if (isnan(out->load) || out->load < q->load)
			break;
		if (stop && *stop) {
			out->stopped = true;
			break;
		}
		left = q->wait_s - out->waited_s;
		if (left <= 0) {
			out->gave_up = true;
			break;
		}
		if (say && !said)
			fprintf(say, "waiting for a quiet host: 1-minute load %.2f, until it is below %g (at most %.0f s)\n",
				out->load, q->load, q->wait_s);
		said = true;
		ops->sleep(left < POLL_S ? left : POLL_S, ops->arg);
	}
	if (say && out->gave_up)
		fprintf(say, "warning: the host is still busy after %.0f s (1-minute load %.2f, not below %g): running "
			"anyway, and the run's record says so\n", out->waited_s, out->load, q->load);
	else if (say && said && !out->stopped)
		fprintf(say, "the host is quiet after %.0f s (1-minute load %.2f)\n", out->waited_s, out->load);
}

void tl_quiet_result_text(const struct tl_quiet_host *q, const struct tl_quiet_result *r, char *buf, size_t len)
{
	if (isnan(r->load))
		snprintf(buf, len, "load unreadable: not waited for");
	else if (r->gave_up)
		snprintf(buf, len, "gave up after %.0f s: load %.2f, not below %g", r->waited_s, r->load, q->load);
	else
		snprintf(buf, len, "load %.2f below %g after %.0f s", r->load, q->load, r->waited_s);
}
