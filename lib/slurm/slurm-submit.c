/*
 * Talking to Slurm through its commands, as a user would: sbatch with the
 * script on its standard input (--parsable prints the job id), squeue for
 * what is pending or running. No accounting database is needed: what has
 * finished is read from the shards, not from sacct.
 */
#include "slurm/slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Runs argv with input on its stdin; its stdout and stderr together into
 * *out (malloc'd, NUL-terminated, read whole: squeue lists one line per
 * array task). Returns its exit status (127: it could not be run), or
 * -errno with *out NULL.
 */
static int capture(char *const *argv, const char *input, char **out)
{
	int in[2], res[2], status;
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	pid_t pid;
	ssize_t got;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	if (pipe2(in, O_CLOEXEC)) {
		free(buf);
		return -errno;
	}
	if (pipe2(res, O_CLOEXEC)) {
		int e = errno;

		close(in[0]);
		close(in[1]);
		free(buf);
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(in[0]);
		close(in[1]);
		close(res[0]);
		close(res[1]);
		free(buf);
		return -e;
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(res[1], 1);
		dup2(res[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(res[1]);
	/* a script is a few KiB per thousand runs; sbatch reads it all before it answers */
	signal(SIGPIPE, SIG_IGN);
	for (size_t len = input ? strlen(input) : 0, off = 0; off < len; off += (size_t)got)
		if ((got = write(in[1], input + off, len - off)) <= 0)
			break;
	close(in[1]);
	for (;;) {
		if (n + 1 == cap) {
			char *grown = realloc(buf, cap * 2);

			if (!grown)
				break;	/* what fits is enough to say why; the rest is drained below */
			buf = grown;
			cap *= 2;
		}
		got = read(res[0], buf + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	for (char sink[4096]; read(res[0], sink, sizeof(sink)) > 0;)
		;
	buf[n] = '\0';
	close(res[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			free(buf);
			return -errno;
		}
	}
	*out = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tl_slurm_submit(const char *script, const char *const *extra, char *id, size_t idlen, char *why,
		    size_t whylen)
{
	const char *argv[32] = { "sbatch", "--parsable" };
	char *out, *semi;
	size_t n = 2;
	int rc;

	for (size_t i = 0; extra && extra[i] && n < 30; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	rc = capture((char *const *)argv, script, &out);
	if (rc < 0) {
		snprintf(why, whylen, "cannot run sbatch: %s", strerror(-rc));
		return rc;
	}
	if (rc) {
		/* sbatch says why on stderr: "sbatch: error: Batch job submission failed: ..." */
		snprintf(why, whylen, "sbatch %s: %.*s", rc == 127 ? "is not installed (no Slurm here)" : "failed",
			 (int)strcspn(out, "\n") ?: 1, out[0] ? out : "?");
		free(out);
		return -EIO;
	}
	out[strcspn(out, "\n")] = '\0';
	/* "JOBID" or "JOBID;CLUSTER" */
	semi = strchr(out, ';');
	if (semi)
		*semi = '\0';
	if (!out[0] || strspn(out, "0123456789") != strlen(out)) {
		snprintf(why, whylen, "sbatch printed no job id: '%.200s'", out);
		free(out);
		return -EIO;
	}
	snprintf(id, idlen, "%s", out);
	free(out);
	return 0;
}

int tl_slurm_queue(const char *array_id, const char *merge_id, struct tl_slurm_queue *q, char *why,
		   size_t whylen)
{
	char ids[128], *out, *save = NULL;
	/* -r: one line per array task; no header; "JOBID STATE" with JOBID as ARRAY_TASK */
	char *argv[] = { "squeue", "-h", "-r", "-j", ids, "-o", "%i %T", NULL };
	size_t alen = strlen(array_id);
	int rc;

	memset(q, 0, sizeof(*q));
	snprintf(ids, sizeof(ids), "%s%s%s", array_id, merge_id ? "," : "", merge_id ? merge_id : "");
	rc = capture(argv, NULL, &out);
	if (rc < 0) {
		snprintf(why, whylen, "cannot run squeue: %s", strerror(-rc));
		return rc;
	}
	/* squeue refuses ids it no longer knows ("Invalid job id specified"): none is queued */
	if (rc && strstr(out, "Invalid job id")) {
		free(out);
		return 0;
	}
	if (rc) {
		snprintf(why, whylen, "squeue %s: %.*s", rc == 127 ? "is not installed (no Slurm here)" : "failed",
			 (int)strcspn(out, "\n") ?: 1, out[0] ? out : "?");
		free(out);
		return -EIO;
	}
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *state = strchr(line, ' ');

		if (!state)
			continue;
		*state++ = '\0';
		if (merge_id && !strcmp(line, merge_id)) {
			snprintf(q->merge_state, sizeof(q->merge_state), "%s", state);
			continue;
		}
		if (strncmp(line, array_id, alen) || line[alen] != '_')
			continue;
		if (!strcmp(state, "PENDING"))
			q->pending++;
		else if (!strcmp(state, "RUNNING") || !strcmp(state, "COMPLETING"))
			q->running++;
		else
			q->other++;
	}
	free(out);
	return 0;
}

char *tl_slurm_shard_dir(const char *db, const char *experiment)
{
	const char *slash = strrchr(db, '/');
	char *out;

	if (asprintf(&out, "%.*s%sshards/%s", slash ? (int)(slash - db) : 0, db, slash ? "/" : "",
		     experiment) < 0)
		return NULL;
	return out;
}
