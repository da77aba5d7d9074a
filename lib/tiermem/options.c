/*
 * The runtime's variables (see options.h): the one table, and the parser
 * that turns an environment into a struct tlrt_options.
 *
 * This runs inside the first malloc() of a process, so it must not
 * allocate: values are looked up in the environment array by hand, copied
 * into fixed buffers and converted with the units parsers (which do not
 * allocate either). Only tlrt_options_nodes() calls libnuma, and the core
 * calls it at the first managed allocation, when allocating is safe.
 */
#include "tiermem/options.h"

#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/tierlab-policy.h"
#include "util/strings.h"

const struct tlrt_option_desc tlrt_option_table[TLRT_OPT__COUNT] = {
#define TLRT_OPT_ROW(id, axis, kind, applies, flags, def, var, alias, lo, hi, help) \
	[TLRT_OPT_##id] = { var, alias, TL_KIND_##kind, def, lo, hi, help },
	TLRT_OPTIONS(TLRT_OPT_ROW)
#undef TLRT_OPT_ROW
};

const char *const tlrt_sampler_names[TLRT_SAMPLER__COUNT] = {
#define TLRT_SAMPLER_NAME(id, name, ops, help) name,
	TL_SAMPLERS(TLRT_SAMPLER_NAME)
#undef TLRT_SAMPLER_NAME
};
const char *const tlrt_log_names[TLRT_LOG__COUNT] = {
#define TLRT_LOG_NAME(id, name) name,
	TL_LOGS(TLRT_LOG_NAME)
#undef TLRT_LOG_NAME
};

const char *const tlrt_mempolicy_names[TLRT_MEMPOLICY__COUNT] = {
	[TLRT_MEMPOLICY_NONE] = "none",
#define TLRT_MEMPOLICY_NAME(id, name, help) [TLRT_MEMPOLICY_##id] = name,
	TL_MEM_POLICIES(TLRT_MEMPOLICY_NAME)
#undef TLRT_MEMPOLICY_NAME
};

/* "not a sampler (fault, uffd-wp, ...)": the names of one list, for a message. */
static const char *listed(char *buf, size_t len, const char *what, const char *const *names, int n)
{
	size_t w = (size_t)snprintf(buf, len, "not a %s (", what);

	for (int i = 0; i < n && w < len; i++)
		w += (size_t)snprintf(buf + w, len - w, "%s%s", i ? ", " : "", names[i]);
	if (w < len)
		snprintf(buf + w, len - w, ")");
	return buf;
}

const char *tlrt_options_get(char *const *envp, enum tlrt_opt id, const char **var)
{
	const struct tlrt_option_desc *d = &tlrt_option_table[id];
	const char *v;

	/* TIERLAB_* wins over SHAMBLES_* when both are set */
	if ((v = tl_env_lookup(envp, d->name))) {
		if (var)
			*var = d->name;
		return v;
	}
	if (d->alias && (v = tl_env_lookup(envp, d->alias))) {
		if (var)
			*var = d->alias;
		return v;
	}
	if (var)
		*var = d->name;
	return NULL;
}

static int bad(char *why, size_t len, const char *var, const char *val, const char *what)
{
	snprintf(why, len, "%s='%s': %s", var, val, what);
	return -EINVAL;
}

/* A bare number where a unit decides what it means: refused, naming the forms it could have meant. */
static int no_unit(char *why, size_t len, const char *var, const char *val, const char *what)
{
	char expected[160];

	char msg[180];

	tl_units_expected(expected, sizeof(expected), what, val);
	snprintf(msg, sizeof(msg), "no unit (%s)", expected);
	return bad(why, len, var, val, msg);
}

/* SHAMBLES's own variables hold byte counts: there, and only there, a bare number is bytes. */
static int is_alias(enum tlrt_opt id, const char *var)
{
	const char *alias = tlrt_option_table[id].alias;

	return var && alias && !strcmp(var, alias);
}

static int copy_text(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* A decimal in [0, 1]: digits [. digits]; the caller splits the list. */
static int parse_fraction(const char *s, const char *end, double *out)
{
	double v = 0, scale = 1;
	int digits = 0, dot = 0;
	size_t n = (size_t)(end - s);

	s = tl_trim_span(s, &n);
	for (end = s + n; s < end; s++) {
		if (*s == '.' && !dot) {
			dot = 1;
		} else if (*s >= '0' && *s <= '9') {
			digits++;
			if (dot) {
				scale /= 10;
				v += (*s - '0') * scale;
			} else {
				v = v * 10 + (*s - '0');
			}
		} else {
			return -1;
		}
	}
	if (!digits || v > 1)
		return -1;
	*out = v;
	return 0;
}

static int parse_fractions(struct tlrt_options *o, const char *s)
{
	const char *p = s;

	o->nfractions = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		if (o->nfractions >= TLRT_MAX_FRACTIONS ||
		    parse_fraction(p, end, &o->fractions[o->nfractions]))
			return -1;
		o->nfractions++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	for (s = tl_skip_blanks(s); *s >= '0' && *s <= '9'; s++, digits++)
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
			return -1;
	if (!digits || *tl_skip_blanks(s))
		return -1;
	*out = v;
	return 0;
}

/* An integer bitmask as SHAMBLES takes it: decimal, or 0x hexadecimal. */
static int parse_mask(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (s += 2; *s; s++, digits++) {
			int d = (*s >= '0' && *s <= '9') ? *s - '0' :
				(*s >= 'a' && *s <= 'f') ? *s - 'a' + 10 :
				(*s >= 'A' && *s <= 'F') ? *s - 'A' + 10 : -1;
			if (d < 0 || v >> 60)
				return -1;
			v = v << 4 | (uint64_t)d;
		}
		if (!digits)
			return -1;
		*out = v;
		return 0;
	}
	return parse_uint(s, out);
}

static int parse_bool(const char *s, int *out)
{
	static const char *const yes[] = { "1", "yes", "on", "true", NULL };
	static const char *const no[] = { "0", "no", "off", "false", NULL };

	for (int i = 0; yes[i]; i++)
		if (!strcmp(s, yes[i]))
			return *out = 1, 0;
	for (int i = 0; no[i]; i++)
		if (!strcmp(s, no[i]))
			return *out = 0, 0;
	return -1;
}

static int parse_name(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int parse_nodes(struct tlrt_nodes_opt *n, const char *var, const char *val, int is_alias)
{
	n->set = 1;
	n->var = var;
	if (is_alias) {
		n->is_mask = 1;
		if (parse_mask(val, &n->mask) || !n->mask)
			return -1;
		return 0;
	}
	n->is_mask = 0;
	/* the syntax is libnuma's to judge, later; here only that it fits */
	if (!*val || copy_text(n->text, sizeof(n->text), val))
		return -1;
	return 0;
}

static uint64_t round_page(uint64_t v)
{
	return (v + TLRT_PAGE - 1) / TLRT_PAGE * TLRT_PAGE;
}

/* Within the table's bounds for option id (a bound of 0 is none)? */
static int in_bounds(enum tlrt_opt id, double v)
{
	const struct tlrt_option_desc *d = &tlrt_option_table[id];

	return v >= d->lo && (!d->hi || v <= d->hi);
}

/*
 * Any two of budget / chunks / chunk size determine the third; one alone
 * takes the default chunk size; a percentage without a footprint is
 * dynamic and needs the chunk size, not a chunk count.
 */
static int resolve_budget(struct tlrt_options *o, char *const *envp, char *why, size_t len)
{
	const char *bvar, *cvar, *svar, *fvar;
	const char *bval = tlrt_options_get(envp, TLRT_OPT_BUDGET, &bvar);
	const char *cval = tlrt_options_get(envp, TLRT_OPT_CHUNKS, &cvar);
	const char *sval = tlrt_options_get(envp, TLRT_OPT_CHUNK_SIZE, &svar);
	const char *fval = tlrt_options_get(envp, TLRT_OPT_FOOTPRINT, &fvar);
	struct tl_budget b = { 0 };
	uint64_t chunks = 0, size = 0, footprint = 0, budget = 0;
	int rc;

	if (bval && (rc = is_alias(TLRT_OPT_BUDGET, bvar) ? tl_parse_budget_bytes(bval, &b) : tl_parse_budget(bval, &b)))
		return rc == -ENODATA ? no_unit(why, len, bvar, bval, "budget")
				      : bad(why, len, bvar, bval, "not a size or percentage (e.g. 4GiB, 40%)");
	if (cval && (parse_uint(cval, &chunks) || !in_bounds(TLRT_OPT_CHUNKS, (double)chunks)))
		return bad(why, len, cvar, cval, "not a positive chunk count");
	if (sval && ((rc = is_alias(TLRT_OPT_CHUNK_SIZE, svar) ? tl_parse_bytes(sval, &size) : tl_parse_size(sval, &size)) ||
		     size == 0))
		return rc == -ENODATA ? no_unit(why, len, svar, sval, "size")
				      : bad(why, len, svar, sval, "not a positive size (e.g. 2MiB)");
	if (fval && ((rc = tl_parse_size(fval, &footprint)) || footprint == 0))
		return rc == -ENODATA ? no_unit(why, len, fvar, fval, "size")
				      : bad(why, len, fvar, fval, "not a positive size (e.g. 8GiB)");

	o->dynamic_fraction = 0;
	o->budget_chunks = TLP_UNLIMITED;
	if (bval && b.is_percent) {
		if (!footprint) {
			if (cval)
				return bad(why, len, cvar, cval,
					   "a chunk count needs a fixed budget (a size, or a percentage with TIERLAB_FOOTPRINT)");
			o->chunk_size = round_page(sval ? size : TL_UNIT);
			o->dynamic_fraction = b.fraction;
			return 0;
		}
		budget = (uint64_t)(b.fraction * (double)footprint);
		if (!budget)
			return bad(why, len, bvar, bval, "the budget is 0 bytes of TIERLAB_FOOTPRINT");
	} else if (bval) {
		budget = b.bytes;
	}

	if (bval && cval && sval) {
		if (budget / chunks != size && round_page(budget / chunks) != round_page(size))
			return bad(why, len, svar, sval, "budget, chunks and chunk size disagree (give any two)");
		o->chunk_size = round_page(size);
		o->budget_chunks = (uint32_t)chunks;
	} else if (bval && cval) {
		o->chunk_size = round_page((budget + chunks - 1) / chunks);
		o->budget_chunks = (uint32_t)chunks;
	} else if (cval) {
		o->chunk_size = round_page(sval ? size : TL_UNIT);
		o->budget_chunks = (uint32_t)chunks;
	} else {
		o->chunk_size = round_page(sval ? size : TL_UNIT);
		if (bval) {
			uint64_t n = budget / o->chunk_size;

			o->budget_chunks = n >= TLP_UNLIMITED ? TLP_UNLIMITED - 1 : (uint32_t)n;
		}
	}
	return 0;
}

static int parse_one(struct tlrt_options *o, enum tlrt_opt id, char *const *envp, char *why, size_t len)
{
	const struct tlrt_option_desc *d = &tlrt_option_table[id];
	const char *var, *val = tlrt_options_get(envp, id, &var);
	int from_alias = val && d->alias && !strcmp(var, d->alias);
	char msg[160];
	uint64_t u;
	int i;

	if (!val)
		val = d->def;
	if (!val)
		return 0;
	switch (id) {
	case TLRT_OPT_POLICY:
		if (!*val || copy_text(o->policy, sizeof(o->policy), val))
			return bad(why, len, var, val, "not a policy name or path");
		return 0;
	case TLRT_OPT_FAST_NODES:
	case TLRT_OPT_SLOW_NODES:
		if (parse_nodes(id == TLRT_OPT_FAST_NODES ? &o->fast : &o->slow, var, val, from_alias))
			return bad(why, len, var, val, from_alias ? "not a node bitmask (e.g. 0x2)"
								  : "not a node list (e.g. 1, 0-3, 1,3)");
		return 0;
	case TLRT_OPT_THRESHOLD:
		i = from_alias ? tl_parse_bytes(val, &o->threshold) : tl_parse_size(val, &o->threshold);
		if (i == -ENODATA)
			return no_unit(why, len, var, val, "size");
		if (i || !in_bounds(id, (double)o->threshold))
			return bad(why, len, var, val, "not a positive size (e.g. 1MiB, 32M)");
		return 0;
	case TLRT_OPT_RATE:
		if ((i = tl_parse_rate(val, &o->rate_hz)) == -ENODATA)
			return no_unit(why, len, var, val, "rate");
		if (i)
			return bad(why, len, var, val, "not a rate (e.g. 10Hz, 1kHz)");
		if (!in_bounds(id, o->rate_hz)) {
			char lo[32], hi[32], msg[128];

			tl_format_rate_human(lo, sizeof(lo), tlrt_option_table[id].lo);
			tl_format_rate_human(hi, sizeof(hi), tlrt_option_table[id].hi);
			snprintf(msg, sizeof(msg), "out of range (%s to %s; for no samples, sampler none)", lo, hi);
			return bad(why, len, var, val, msg);
		}
		return 0;
	case TLRT_OPT_WINDOW:
		if (parse_uint(val, &u) || !in_bounds(id, (double)u))
			return bad(why, len, var, val, "not a number of samples from " TLP_WINDOW_RANGE);
		o->window = (uint32_t)u;
		return 0;
	case TLRT_OPT_FRACTIONS:
		if (parse_fractions(o, val))
			return bad(why, len, var, val, "not a comma list of fractions in [0, 1] (e.g. 1,0.5,0)");
		return 0;
	case TLRT_OPT_SAMPLER:
		if ((i = parse_name(val, tlrt_sampler_names, TLRT_SAMPLER__COUNT)) < 0)
			return bad(why, len, var, val, listed(msg, sizeof(msg), "sampler", tlrt_sampler_names,
							       TLRT_SAMPLER__COUNT));
		o->sampler = (enum tlrt_sampler)i;
		return 0;
	case TLRT_OPT_LOG:
		if ((i = parse_name(val, tlrt_log_names, TLRT_LOG__COUNT)) < 0)
			return bad(why, len, var, val, listed(msg, sizeof(msg), "log mode", tlrt_log_names,
							       TLRT_LOG__COUNT));
		o->log = (enum tlrt_log)i;
		return 0;
	case TLRT_OPT_OUT:
		if (!*val || copy_text(o->out, sizeof(o->out), val))
			return bad(why, len, var, val, "not a directory name");
		return 0;
	case TLRT_OPT_POLICY_ARGS:
		if (copy_text(o->policy_args, sizeof(o->policy_args), val))
			return bad(why, len, var, val, "too long");
		o->have_policy_args = 1;
		return 0;
	case TLRT_OPT_MEMPOLICY:
		/* the names after "none" (unset), which is no value of the variable */
		if ((i = parse_name(val, tlrt_mempolicy_names + 1, TLRT_MEMPOLICY__COUNT - 1)) < 0)
			return bad(why, len, var, val, listed(msg, sizeof(msg), "memory policy", tlrt_mempolicy_names + 1,
							       TLRT_MEMPOLICY__COUNT - 1));
		o->mempolicy = (enum tlrt_mempolicy)(i + 1);
		return 0;
	case TLRT_OPT_STRICT:
	case TLRT_OPT_THP:
	case TLRT_OPT_VERBOSE:
		if (parse_bool(val, id == TLRT_OPT_STRICT ? &o->strict : id == TLRT_OPT_THP ? &o->thp : &o->verbose))
			return bad(why, len, var, val, "not a boolean (0 or 1)");
		return 0;
	case TLRT_OPT_CACHE:
		/* 0 (or 0%) turns the cache off, so not tl_parse_budget, which refuses a zero budget */
		o->cache_bytes = 0;
		o->cache_fraction = 0;
		if (!strchr(val, '%') && tl_parse_size(val, &o->cache_bytes) == -ENODATA)
			return no_unit(why, len, var, val, "size");
		if (strchr(val, '%') ? tl_parse_percent(val, &o->cache_fraction) || o->cache_fraction < 0
				     : tl_parse_size(val, &o->cache_bytes) != 0)
			return bad(why, len, var, val, "not a size or percentage (e.g. 256MiB, 50%, 0)");
		return 0;
	case TLRT_OPT_BUDGET:
	case TLRT_OPT_CHUNKS:
	case TLRT_OPT_CHUNK_SIZE:
	case TLRT_OPT_FOOTPRINT:
	case TLRT_OPT__COUNT:
		return 0;	/* resolved together in resolve_budget() */
	}
	return 0;
}

/*
 * A memory policy on managed memory is instead of a placement policy, and
 * takes no samples: a policy or a sampler given with it is refused, not
 * ignored (the run would not be what it says).
 */
static int mempolicy_only(struct tlrt_options *o, char *const *envp, char *why, size_t whylen)
{
	const char *mvar, *mval = tlrt_options_get(envp, TLRT_OPT_MEMPOLICY, &mvar), *svar;
	const char *sval = tlrt_options_get(envp, TLRT_OPT_SAMPLER, &svar);
	char msg[256];

	if (o->policy[0] && strcmp(o->policy, "none")) {
		snprintf(msg, sizeof(msg), "a memory policy on managed memory is instead of a placement policy, "
			 "and %s='%.60s' names one", tlrt_option_table[TLRT_OPT_POLICY].name, o->policy);
		return bad(why, whylen, mvar, mval, msg);
	}
	if (sval && o->sampler != TLRT_SAMPLER_NONE) {
		snprintf(msg, sizeof(msg), "a memory policy on managed memory takes no samples, and %s='%.40s' "
			 "names a sampler (none, or unset)", svar, sval);
		return bad(why, whylen, mvar, mval, msg);
	}
	o->sampler = TLRT_SAMPLER_NONE;
	return 0;
}

int tlrt_options_parse(struct tlrt_options *o, char *const *envp, char *why, size_t whylen)
{
	int saved = errno, ret = 0;

	memset(o, 0, sizeof(*o));
	o->thp = -1;
	if (why && whylen)
		why[0] = '\0';
	/* strict first, so a bad value elsewhere can still be fatal */
	if ((ret = parse_one(o, TLRT_OPT_STRICT, envp, why, whylen)))
		goto out;
	for (int id = 0; id < TLRT_OPT__COUNT; id++)
		if ((ret = parse_one(o, (enum tlrt_opt)id, envp, why, whylen)))
			goto out;
	if ((ret = resolve_budget(o, envp, why, whylen)))
		goto out;
	if (o->mempolicy && (ret = mempolicy_only(o, envp, why, whylen)))
		goto out;
	/* no policy, or the default "none": the program runs as it would without the runtime */
	if (!o->mempolicy && (!o->policy[0] || !strcmp(o->policy, "none"))) {
		ret = 1;
		goto out;
	}
	if (!o->fast.set || !o->slow.set) {
		const struct tlrt_option_desc *d = &tlrt_option_table[o->fast.set ? TLRT_OPT_SLOW_NODES
										 : TLRT_OPT_FAST_NODES];
		snprintf(why, whylen, "%s is not set (e.g. %s=1)", d->name, d->name);
		ret = -EINVAL;
	}
out:
	errno = saved;
	return ret;
}

int tlrt_options_nodes(const struct tlrt_nodes_opt *n, unsigned long *mask, size_t words,
		       char *why, size_t whylen)
{
	struct bitmask *bm;
	int saved = errno, ret = 0, any = 0;

	memset(mask, 0, words * sizeof(*mask));
	if (n->is_mask) {
		mask[0] = (unsigned long)n->mask;
		for (int node = 0; node < 64; node++)
			if ((n->mask >> node & 1) && (node > numa_max_node() || !numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)node)))
				goto missing;
		return 0;
	}
	bm = numa_parse_nodestring_all(n->text);
	if (!bm) {
		snprintf(why, whylen, "%s='%s': not a node list of this machine (nodes: 0-%d)",
			 n->var, n->text, numa_max_node());
		ret = -EINVAL;
		goto out;
	}
	for (unsigned long node = 0; node < bm->size && node < words * 64; node++)
		if (numa_bitmask_isbitset(bm, (unsigned)node)) {
			mask[node / 64] |= 1UL << (node % 64);
			any = 1;
		}
	numa_bitmask_free(bm);
	if (!any) {
		snprintf(why, whylen, "%s='%s': names no node", n->var, n->text);
		ret = -EINVAL;
	}
	goto out;
missing:
	snprintf(why, whylen, "%s='0x%llx': names a node this machine does not have (nodes: 0-%d)",
		 n->var, (unsigned long long)n->mask, numa_max_node());
	ret = -EINVAL;
out:
	errno = saved;
	return ret;
}
