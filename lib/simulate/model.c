/*
 * The tier model's equations (model.h, docs/simulate.md "The tier
 * model"): one interval's time from its traffic by tier, and a replay's
 * run time and estimate as sums over its intervals. Reading model files
 * is model-load.c's.
 */
#include "simulate/model.h"

#include <math.h>

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static double min2(double a, double b)
{
	return a < b ? a : b;
}

double tl_tier_model_time(const struct tl_tier_model *m, const struct tl_model_traffic *x)
{
	/* bandwidth in GB/s is bytes per ns: these are ns */
	double bw = max2((x->fast + x->moved) / m->fast.bandwidth_gbs, (x->slow + x->moved) / m->slow.bandwidth_gbs);
	/* the program's own accesses wait on latency; migration streams, so it is not in this bound */
	double lat = m->mlp > 0 ? (x->fast * m->fast.latency_ns + x->slow * m->slow.latency_ns) / (TL_MODEL_LINE * m->mlp)
				: 0;
	double mem = max2(bw, lat) * 1e-9, c = x->compute_s;

	return max2(c, mem) + (1 - m->overlap) * min2(c, mem);
}

double tl_tier_model_per_byte(const struct tl_tier_model *m, bool fast)
{
	struct tl_model_traffic x = { .fast = fast ? 1 : 0, .slow = fast ? 0 : 1,
				      .compute_s = m->compute_ns_per_byte * 1e-9 };

	return tl_tier_model_time(m, &x);
}

/* Interval i's traffic under placement pl: bytes = beta * interval seconds, split as model.h says. */
static void split(const struct tl_tier_model *m, const struct tl_sim_interval *iv, double bytes, double f_default,
		  const struct tl_model_place *pl, struct tl_model_traffic *x)
{
	uint64_t n = iv->fast + iv->slow + iv->outside;
	/* samples outside this configuration's managed memory are on the unmanaged memory's tier */
	double out_fast = pl->unmanaged_fast ? (double)iv->outside : 0;
	double f = n ? ((double)iv->fast + out_fast) / (double)n : f_default;
	double u = pl->unmanaged_share, managed = (1 - u) * bytes;

	x->fast = managed * f + (pl->unmanaged_fast ? u * bytes : 0);
	x->slow = managed * (1 - f) + (pl->unmanaged_fast ? 0 : u * bytes);
	x->moved = iv->moved_bytes;
	x->compute_s = m->compute_ns_per_byte * 1e-9 * bytes;
}

static double sum_time(const struct tl_tier_model *m, const struct tl_sim_result *r, const struct tl_model_place *pl,
		       bool all_fast)
{
	/* beta: the recording ran all-slow, so its length is the model's all-slow time */
	double beta = 1 / tl_tier_model_per_byte(m, false), bytes = beta * r->interval_s, t = 0;
	uint64_t fast = 0, n = 0;
	double f_default;

	for (int i = 0; i < TL_SIM_INTERVALS; i++) {
		fast += r->iv[i].fast + (pl->unmanaged_fast ? r->iv[i].outside : 0);
		n += r->iv[i].fast + r->iv[i].slow + r->iv[i].outside;
	}
	/* an interval without samples: the run's overall split */
	f_default = n ? (double)fast / (double)n : (pl->unmanaged_fast ? 1 : 0);
	for (int i = 0; i < TL_SIM_INTERVALS; i++) {
		struct tl_model_traffic x;

		if (all_fast)
			x = (struct tl_model_traffic){ .fast = bytes, .compute_s = m->compute_ns_per_byte * 1e-9 * bytes };
		else
			split(m, &r->iv[i], bytes, f_default, pl, &x);
		t += tl_tier_model_time(m, &x);
	}
	return t;
}

double tl_tier_model_run_time(const struct tl_tier_model *m, const struct tl_sim_result *r,
			      const struct tl_model_place *pl)
{
	return sum_time(m, r, pl, false);
}

double tl_tier_model_estimate(const struct tl_tier_model *m, const struct tl_sim_result *r,
			      const struct tl_model_place *pl)
{
	double t = sum_time(m, r, pl, false);

	return t > 0 ? sum_time(m, r, pl, true) / t : 0;
}

double tl_tier_model_pace(void *ctx, const struct tl_sim_interval *iv, double interval_s)
{
	const struct tl_model_pacer *p = ctx;
	struct tl_model_traffic x;
	double t;

	if (!(interval_s > 0))
		return 1;
	split(p->m, iv, interval_s / tl_tier_model_per_byte(p->m, false), 0, &p->place, &x);
	t = tl_tier_model_time(p->m, &x);
	return t > 0 ? t / interval_s : 1;
}
