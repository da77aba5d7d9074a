/*
 * Feeds files to a fuzz target without libFuzzer, so the kept inputs
 * (tests/fuzz/regress/TARGET/, the seeds) run in `make test` with any
 * compiler: `replay-TARGET FILE|DIR...`. Every file of a directory is one
 * input. Prints how many ran; a crash or a failed FUZZ_CHECK aborts.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (cap - len < 65536) {
			uint8_t *grown = realloc(buf, cap = cap * 2 + 65536);

			if (!grown) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = grown;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int bad = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct dirent **names;
		struct stat st;
		int n;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			bad = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= replay_file(argv[i]) != 0;
			count++;
			continue;
		}
		n = scandir(argv[i], &names, NULL, by_name);
		for (int j = 0; j < n; j++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[i], names[j]->d_name);
			if (names[j]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
				bad |= replay_file(path) != 0;
				count++;
			}
			free(names[j]);
		}
		free(n >= 0 ? names : NULL);
	}
	printf("replayed %zu inputs\n", count);
	return bad;
}
