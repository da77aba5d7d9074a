/*
 * static: allocation i (in allocation order) wants the first
 * floor(fractions[i] * nchunks) of its chunks in the fast tier (rounded
 * down, so a fraction never takes more fast memory than it names; a
 * tolerance of 1e-9 chunk keeps 0.7 * 10 at 7 despite binary fractions).
 * Allocations beyond the list want none. Samples change nothing. The
 * budget caps the rest: the placement engine (placement.h) stops promoting
 * when the fast tier is full and follows budget changes.
 */
#include "policies/placement.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct static_state {
	struct tlp_place pl;
	uint32_t nfractions;
	double *fractions;		/* our copy: the caller's array need not outlive init */
	size_t fractions_len;
};

/* One line on stderr without stdio's buffers (we may run inside malloc). */
static void say(const char *msg, uint32_t i, double f)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "tierlab: policy 'static': %s (fraction %u is %g)\n", msg, i + 1, f);

	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		return;
}

static void *static_init(const struct tlp_params *p)
{
	struct static_state *s;

	for (uint32_t i = 0; i < p->nfractions; i++) {
		double f = p->fractions[i];

		if (!(f >= 0.0 && f <= 1.0)) {
			say("fractions must be in [0, 1]", i, f);
			return NULL;
		}
	}
	s = p->alloc(sizeof(*s));
	if (!s)
		return NULL;
	s->nfractions = p->fractions ? p->nfractions : 0;
	s->fractions_len = sizeof(double) * (s->nfractions ? s->nfractions : 1);
	s->fractions = p->alloc(s->fractions_len);
	if (!s->fractions)
		goto free_state;
	if (s->nfractions)
		memcpy(s->fractions, p->fractions, sizeof(double) * s->nfractions);
	if (tlp_place_init(&s->pl, p))
		goto free_fractions;
	return s;
free_fractions:
	p->free(s->fractions, s->fractions_len);
free_state:
	p->free(s, sizeof(*s));
	return NULL;
}

static uint32_t wanted(const struct static_state *s, const struct tlp_alloc *a)
{
	double n;

	if (a->seq >= s->nfractions)
		return 0;
	n = floor(s->fractions[a->seq] * (double)a->nchunks + 1e-9);
	return n >= (double)a->nchunks ? a->nchunks : (uint32_t)n;
}

static void static_on_alloc(void *st, const struct tlp_alloc *a, struct tlp_decisions *out)
{
	struct static_state *s = st;

	tlp_place_alloc(&s->pl, a, wanted(s, a), out);
}

static void static_on_free(void *st, const struct tlp_alloc *a)
{
	struct static_state *s = st;

	tlp_place_free(&s->pl, a);
}

static void static_on_sample(void *st, uint32_t chunk, struct tlp_decisions *out)
{
	(void)st, (void)chunk, (void)out;
}

static void static_on_budget(void *st, uint32_t budget, struct tlp_decisions *out)
{
	struct static_state *s = st;

	tlp_place_budget(&s->pl, budget, out);
}

static void static_fini(void *st)
{
	struct static_state *s = st;
	void (*release)(void *, size_t) = s->pl.free;

	tlp_place_release(&s->pl);
	release(s->fractions, s->fractions_len);
	release(s, sizeof(*s));
}

static const struct tlp_policy static_policy = {
	.size = sizeof(struct tlp_policy),
	.abi_version = TLP_ABI_VERSION,
	.name = "static",
	.init = static_init,
	.on_alloc = static_on_alloc,
	.on_free = static_on_free,
	.on_sample = static_on_sample,
	.on_budget = static_on_budget,
	.fini = static_fini,
	.flags = 0,
};

TLP_POLICY_ENTRY(static, static_policy)
