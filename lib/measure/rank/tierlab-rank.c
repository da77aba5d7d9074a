/*
 * tierlab-rank: counts perf events on one MPI rank, as tierlab counts a
 * run it starts itself. A launcher (srun, mpirun) starts the ranks, so
 * tierlab's counters, opened on the launcher, do not see them (srun's
 * ranks are children of slurmstepd, on other nodes too). With a spec's
 * `events:` and `launch:`, each rank runs as
 *
 *     tierlab-rank OUT_DIR EVENTS PROGRAM [ARGS...]
 *
 * which forks the program corked, opens the counters on it (enable on
 * exec, inherited by its threads and children), lets it run, forwards
 * SIGINT, SIGTERM and SIGHUP to it, and after it ended writes
 * OUT_DIR/perf-rankR-PID.txt (R from the launcher's rank variable;
 * perf-PID.txt without one): one line per event, tab-separated,
 * "event status value enabled_ns running_ns reason". It exits as the
 * program did. Ingest (lib/measure/ingest.c) sums the ranks' values into
 * the run's counters.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "measure/counters.h"
#include "tiermem/rt-rank.h"

static volatile pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* The counts, one event a line; the reason made one field (no tab or newline in it). */
static void write_counts(const char *dir, const struct tl_counter_set *set, pid_t pid)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int rank = tlrt_mpi_rank();
	FILE *f;

	if (rank >= 0)
		snprintf(path, sizeof(path), "%s/perf-rank%d-%d.txt", dir && *dir ? dir : ".", rank, (int)pid);
	else
		snprintf(path, sizeof(path), "%s/perf-%d.txt", dir && *dir ? dir : ".", (int)pid);
	/* whole or not at all: ingest never reads half a file */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "tierlab-rank: cannot write '%s': %s\n", tmp, strerror(errno));
		return;
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct tl_counter *c = &set->v[i];
		char reason[256] = "";

		if (c->status == TL_COUNTER_NOT_RUN)
			continue;
		snprintf(reason, sizeof(reason), "%s", c->reason ? c->reason : "");
		for (char *p = reason; *p; p++)
			if (*p == '\t' || *p == '\n')
				*p = ' ';
		fprintf(f, "%s\t%s\t%.17g\t%llu\t%llu\t%s\n", c->event, tl_counter_status_names[c->status],
			c->status == TL_COUNTER_OK ? c->value : 0.0, (unsigned long long)c->enabled_ns,
			(unsigned long long)c->running_ns, reason);
	}
	if (fclose(f) || rename(tmp, path))
		fprintf(stderr, "tierlab-rank: cannot write '%s': %s\n", path, strerror(errno));
}

int main(int argc, char **argv)
{
	struct tl_counter_set set;
	struct sigaction sa = { .sa_handler = forward };
	int cork[2], status;
	char go = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: tierlab-rank OUT_DIR EVENTS PROGRAM [ARGS...]\n");
		return 2;
	}
	tl_counters_init(&set);
	set.quiet = true;	/* tierlab said it once already, for the run */
	if (tl_counters_parse(&set, argv[2]))
		return 2;
	if (pipe(cork)) {
		perror("tierlab-rank: pipe");
		return 127;
	}
	child = fork();
	if (child < 0) {
		perror("tierlab-rank: fork");
		return 127;
	}
	if (child == 0) {
		close(cork[1]);
		if (read(cork[0], &go, 1) != 1)
			_exit(127);
		close(cork[0]);
		execvp(argv[3], argv + 3);
		fprintf(stderr, "tierlab-rank: cannot run '%s': %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	close(cork[0]);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	tl_counters_open(&set, child);
	if (write(cork[1], &go, 1) != 1)
		kill(child, SIGKILL);
	close(cork[1]);
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("tierlab-rank: waitpid");
			return 127;
		}
	}
	tl_counters_read(&set);
	write_counts(argv[1], &set, child);
	tl_counters_release(&set);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
