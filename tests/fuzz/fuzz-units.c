/*
 * Fuzz target: the units parsers (lib/util/units.c), NUMA node sets
 * (lib/util/nodeset.c) and the canonical values of the axes built on them
 * (lib/axis/canonical.c), which feed run keys. The first byte picks the parser,
 * the rest is the text. Besides the sanitizers, it checks their promises:
 * a canonical text parses back to the same value and is its own canonical
 * text (else a run key would change between two runs of one spec), values
 * are finite and not negative, and a node set that tl_nodeset_check()
 * accepts is one tl_nodeset_parse() returns.
 */
#include <errno.h>
#include <math.h>
#include <numa.h>

#include "fuzz.h"
#include "axis/axis.h"
#include "util/error.h"
#include "util/nodeset.h"
#include "util/units.h"

enum { SIZE, RATE, DURATION, PERCENT, BUDGET, NODES, AXIS, NPARSERS };

static void size_round_trip(const char *s)
{
	uint64_t v, again;
	char buf[64], human[64];

	if (tl_parse_size(s, &v))
		return;
	tl_format_size(buf, sizeof(buf), v);
	FUZZ_CHECK(tl_parse_size(buf, &again) == 0 && again == v);
	tl_format_size_human(human, sizeof(human), v);
}

static void rate_round_trip(const char *s)
{
	double hz, again;
	char buf[64], buf2[64];

	if (tl_parse_rate(s, &hz))
		return;
	FUZZ_CHECK(isfinite(hz) && hz >= 0);
	tl_format_rate(buf, sizeof(buf), hz);
	FUZZ_CHECK(tl_parse_rate(buf, &again) == 0);
	tl_format_rate(buf2, sizeof(buf2), again);
	FUZZ_CHECK(!strcmp(buf, buf2));
}

static void budget_round_trip(const char *s)
{
	struct tl_budget b, again;
	char buf[64], buf2[64];

	if (tl_parse_budget(s, &b))
		return;
	FUZZ_CHECK(!b.is_percent || (b.fraction > 0 && b.fraction <= 1));
	tl_format_budget(buf, sizeof(buf), &b);
	FUZZ_CHECK(tl_parse_budget(buf, &again) == 0 && again.is_percent == b.is_percent);
	tl_format_budget(buf2, sizeof(buf2), &again);
	FUZZ_CHECK(!strcmp(buf, buf2));
	if (!b.is_percent)
		FUZZ_CHECK(again.bytes == b.bytes);
}

static void nodes(const char *s)
{
	struct bitmask *bm = tl_nodeset_parse(s), *cpus = tl_nodeset_parse_cpus(s);
	int rc = tl_nodeset_check(s);

	FUZZ_CHECK(rc == 0 || rc == 1 || rc == -EINVAL || rc == -ENOENT);
	FUZZ_CHECK((rc == 0) == (bm != NULL));
	if (bm) {
		FUZZ_CHECK(tl_nodeset_mask(bm) != 0);
		numa_bitmask_free(bm);
	}
	if (cpus)
		numa_bitmask_free(cpus);
}

/* The canonical text of a value is its own canonical text. */
static void axis_canonical(unsigned char which, const char *s)
{
	enum tl_axis a = (enum tl_axis)(which % TL_AXIS__COUNT);
	struct tl_error err = { { 0 } };
	char *canon = NULL, *again = NULL;

	if (tl_axis_canonical(a, s, &canon, &err)) {
		FUZZ_CHECK(err.msg[0] && !strchr(err.msg, '\n'));
		return;
	}
	if (tl_axis_canonical(a, canon, &again, &err))
		fprintf(stderr, "axis %s: '%s' -> '%s' is refused: %s\n", tl_axes[a].name, s, canon, err.msg);
	FUZZ_CHECK(again && !strcmp(canon, again));
	free(canon);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	double d;

	if (size < 2)
		return 0;
	text = fuzz_text(data + 2, size - 2);
	if (!text)
		return 0;
	switch (data[0] % NPARSERS) {
	case SIZE:
		size_round_trip(text);
		break;
	case RATE:
		rate_round_trip(text);
		break;
	case DURATION:
		if (!tl_parse_duration(text, &d))
			FUZZ_CHECK(isfinite(d) && d >= 0);
		break;
	case PERCENT:
		if (!tl_parse_percent(text, &d))
			FUZZ_CHECK(isfinite(d) && d >= 0);
		break;
	case BUDGET:
		budget_round_trip(text);
		break;
	case NODES:
		nodes(text);
		break;
	case AXIS:
		axis_canonical(data[1], text);
		break;
	}
	free(text);
	return 0;
}
