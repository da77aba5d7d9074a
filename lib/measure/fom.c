/*
 * Figure-of-merit extraction (see fom.h): the first
 * capture group of the last match of a POSIX extended regex, in the run's
 * stdout.txt or in the newest file matching a glob. Workloads print
 * progress lines before their final figure, hence the last match. Files
 * are streamed line by line, and only their last FOM_WINDOW bytes are read:
 * a workload that logs gigabytes must not make tierlab load them.
 */
#include "measure/fom.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FOM_WINDOW (64L << 20)

/* The newest (by mtime) regular file matching `pattern`, malloc'd in *path. */
static int newest_match(const char *base, const char *pattern, char **path, struct tl_error *err)
{
	char full[PATH_MAX];
	struct timespec best = { 0, 0 };
	glob_t g;
	int rc;

	if (pattern[0] == '/')
		snprintf(full, sizeof(full), "%s", pattern);
	else if (snprintf(full, sizeof(full), "%s/%s", base, pattern) >= (int)sizeof(full))
		return -ENAMETOOLONG;
	rc = glob(full, 0, NULL, &g);
	if (rc == GLOB_NOSPACE)
		return -ENOMEM;
	*path = NULL;
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
		struct stat st;

		if (stat(g.gl_pathv[i], &st) || !S_ISREG(st.st_mode))
			continue;
		if (*path && (st.st_mtim.tv_sec < best.tv_sec ||
			      (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec < best.tv_nsec)))
			continue;
		free(*path);
		*path = strdup(g.gl_pathv[i]);
		if (!*path) {
			globfree(&g);
			return -ENOMEM;
		}
		best = st.st_mtim;
	}
	if (rc == 0)
		globfree(&g);
	if (!*path) {
		tl_error_set(err, "no file matches '%s' in %s", pattern, base);
		return -ENOENT;
	}
	return 0;
}

/* Copies the capture of the last match in `line` into *last; 1 when there was one. */
static int last_match_in_line(const regex_t *re, const char *line, char **last, size_t *cap)
{
	regmatch_t m[2];
	const char *p = line;
	int found = 0, flags = 0;

	while (regexec(re, p, 2, m, flags) == 0) {
		size_t len = m[1].rm_so < 0 ? 0 : (size_t)(m[1].rm_eo - m[1].rm_so);

		if (len + 1 > *cap) {
			char *grown = realloc(*last, len + 1);

			if (!grown)
				return -ENOMEM;
			*last = grown;
			*cap = len + 1;
		}
		memcpy(*last, p + (m[1].rm_so < 0 ? 0 : m[1].rm_so), len);
		(*last)[len] = '\0';
		found = 1;
		if (m[0].rm_eo == 0) {	/* an empty match: step over one character */
			if (!*p)
				break;
			p++;
		} else {
			p += m[0].rm_eo;
		}
		flags = REG_NOTBOL;
	}
	return found;
}

/*
 * What rank 0 printed on a line its launcher labelled, or NULL for another
 * rank's line: OpenMPI's mpirun --tag-output writes "[JOB,RANK]<stdout>:",
 * srun --label "RANK: " (padded with spaces to the widest rank).
 */
static const char *rank0_text(const char *line, const char *launcher)
{
	const char *p = line;

	if (!strcmp(launcher, "srun")) {
		p += strspn(p, " ");
		return !strncmp(p, "0: ", 3) ? p + 3 : NULL;
	}
	if (*p++ != '[')
		return NULL;
	p += strspn(p, "0123456789");
	return strncmp(p, ",0]<stdout>:", 12) ? NULL : p + 12;
}

/*
 * The capture of the last match in the file at `path`, malloc'd in
 * *capture (NULL: none); with launcher, in rank 0's lines only.
 */
static int scan_file(const regex_t *re, const char *path, char **capture, struct tl_error *err,
		     const char *shown, const char *launcher)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t linecap = 0, cap = 0;
	struct stat st;
	int rc = 0;

	*capture = NULL;
	if (!f) {
		rc = -errno;
		tl_error_set(err, "cannot open '%s': %s", shown, strerror(errno));
		return rc;
	}
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > FOM_WINDOW) {
		fseeko(f, st.st_size - FOM_WINDOW, SEEK_SET);
		if (getline(&line, &linecap, f) < 0)	/* a partial line: not the workload's words */
			goto out;
	}
	while (getline(&line, &linecap, f) >= 0) {
		const char *text = launcher ? rank0_text(line, launcher) : line;
		int found = text ? last_match_in_line(re, text, capture, &cap) : 0;

		if (found < 0) {
			rc = found;
			tl_error_set(err, "out of memory");
			break;
		}
	}
	if (!rc && ferror(f)) {
		rc = -EIO;
		tl_error_set(err, "cannot read '%s': %s", shown, strerror(errno));
	}
out:
	free(line);
	fclose(f);
	if (rc) {
		free(*capture);
		*capture = NULL;
	}
	return rc;
}

int tl_fom_extract(const char *out_dir, const char *dir, const char *file_glob,
		   const char *regex, double *value, struct tl_error *err)
{
	return tl_fom_extract_ranked(out_dir, dir, file_glob, regex, NULL, value, err);
}

int tl_fom_extract_ranked(const char *out_dir, const char *dir, const char *file_glob, const char *regex,
			  const char *launcher, double *value, struct tl_error *err)
{
	const char *base = dir ? dir : out_dir;
	char stdout_path[PATH_MAX], errbuf[256];
	char *path = NULL, *capture = NULL, *end;
	const char *shown;
	regex_t re;
	double v;
	int rc;

	rc = regcomp(&re, regex, REG_EXTENDED | REG_NEWLINE);
	if (rc) {
		regerror(rc, &re, errbuf, sizeof(errbuf));
		tl_error_set(err, "bad regex /%s/: %s", regex, errbuf);
		return -EINVAL;
	}
	if (re.re_nsub < 1) {
		tl_error_set(err, "regex /%s/ has no capture group for the figure", regex);
		rc = -EINVAL;
		goto out_regfree;
	}
	if (file_glob) {
		rc = newest_match(base, file_glob, &path, err);
		if (rc)
			goto out_regfree;
		/* Name the file as the user wrote its pattern: relative to base. */
		shown = path;
		if (!strncmp(path, base, strlen(base)) && path[strlen(base)] == '/')
			shown = path + strlen(base) + 1;
	} else {
		snprintf(stdout_path, sizeof(stdout_path), "%s/stdout.txt", out_dir);
		shown = "stdout.txt";
	}
	/* a file the program wrote is its own; its stdout holds every rank's lines */
	rc = scan_file(&re, path ? path : stdout_path, &capture, err, shown, path ? NULL : launcher);
	if (rc)
		goto out_free;
	if (!capture) {
		tl_error_set(err, "no match for /%s/ in %s%s", regex, shown,
			     launcher && !path ? " (in rank 0's lines)" : "");
		rc = -ENOENT;
		goto out_free;
	}
	v = strtod(capture, &end);
	if (end == capture || *end || !isfinite(v)) {
		tl_error_set(err, "'%s' matched by /%s/ in %s is not a number", capture, regex, shown);
		rc = -ENOENT;
		goto out_free;
	}
	*value = v;
out_free:
	free(capture);
	free(path);
out_regfree:
	regfree(&re);
	return rc;
}
