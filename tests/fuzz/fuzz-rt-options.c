/*
 * Fuzz target: the runtime's variables (lib/tiermem/options.c), which
 * libtiermem.so parses from inside the first malloc() of other people's
 * programs. The input is an environment, one "NAME=value" a line (the
 * dictionary, tests/fuzz/rt-options.dict, holds the names). Besides the
 * sanitizers, it checks the contract of options.h: 0, 1 or -EINVAL; a
 * reason of one line on -EINVAL that fits whatever buffer it is given;
 * errno left as it was; a resolved budget in whole pages; and the node
 * sets, turned into masks, give 0 or -EINVAL with a reason.
 */
#include <errno.h>

#include "fuzz.h"
#include "tiermem/options.h"

#define MAX_VARS 64

static void check_parsed(const struct tlrt_options *o)
{
	unsigned long mask[16];
	char why[256];

	FUZZ_CHECK(o->chunk_size > 0 && o->chunk_size % TLRT_PAGE == 0);
	FUZZ_CHECK(o->nfractions <= TLRT_MAX_FRACTIONS);
	FUZZ_CHECK(o->sampler < TLRT_SAMPLER__COUNT && o->log < TLRT_LOG__COUNT);
	FUZZ_CHECK(o->dynamic_fraction >= 0 && o->dynamic_fraction <= 1);
	FUZZ_CHECK(memchr(o->policy, '\0', sizeof(o->policy)) && memchr(o->out, '\0', sizeof(o->out)));
	for (int i = 0; i < 2; i++) {
		const struct tlrt_nodes_opt *n = i ? &o->slow : &o->fast;
		int rc;

		if (!n->set)
			continue;
		errno = 1234;
		why[0] = '\0';
		rc = tlrt_options_nodes(n, mask, sizeof(mask) / sizeof(mask[0]), why, sizeof(why));
		FUZZ_CHECK(errno == 1234);
		FUZZ_CHECK(rc == 0 || (rc == -EINVAL && why[0] && !strchr(why, '\n')));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *envp[MAX_VARS + 1], *save = NULL, why[1024];
	struct tlrt_options o;
	size_t n = 0, small = size % 17;
	char *tight;
	int rc, again;

	if (!text)
		return 0;
	for (char *line = strtok_r(text, "\n", &save); line && n < MAX_VARS; line = strtok_r(NULL, "\n", &save))
		envp[n++] = line;
	envp[n] = NULL;

	errno = 4321;
	rc = tlrt_options_parse(&o, envp, why, sizeof(why));
	FUZZ_CHECK(errno == 4321);
	FUZZ_CHECK(rc == 0 || rc == 1 || rc == -EINVAL);
	if (rc == -EINVAL)
		FUZZ_CHECK(why[0] && !strchr(why, '\n'));
	if (rc == 0)
		check_parsed(&o);

	/* the same answer into a buffer just as long as `small`, at the end of its block */
	tight = malloc(small ? small : 1);
	if (tight) {
		again = tlrt_options_parse(&o, envp, small ? tight : NULL, small);
		FUZZ_CHECK(again == rc);
		if (small && rc == -EINVAL)
			FUZZ_CHECK(!strncmp(tight, why, small - 1) && !tight[strnlen(tight, small - 1)]);
		free(tight);
	}
	free(text);
	return 0;
}
