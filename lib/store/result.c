/*
 * The record types' helpers (see result.h): names of their enums as the
 * store writes them, and the growable lists measurement modules append to.
 */
#include "store/result.h"
#include "util/strings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Must match enum tl_run_status. */
const char *const tl_status_names[TL_STATUS__COUNT] = {
	[TL_STATUS_OK] = "ok",
	[TL_STATUS_FAILED] = "failed",
	[TL_STATUS_TIMEOUT] = "timeout",
	[TL_STATUS_CRASHED] = "crashed",
};

/* Room for one more element in a list of `size`-byte elements; the new slot, or NULL. */
static void *grow(void **v, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		void *p = realloc(*v, ncap * size);

		if (!p)
			return NULL;
		*v = p;
		*cap = ncap;
	}
	return (char *)*v + (*n)++ * size;
}

#define PUSH(list) ((__typeof__((list).v))grow((void **)&(list).v, &(list).n, &(list).cap, sizeof(*(list).v)))

int tl_env_put(struct tl_env *env, const char *key, const char *value)
{
	struct tl_env_entry *v;
	bool oom = false;
	char *val = tl_strdup_or_null(value, &oom), *k;

	if (oom)
		return -ENOMEM;
	for (size_t i = 0; i < env->n; i++)
		if (!strcmp(env->v[i].key, key)) {
			free(env->v[i].value);
			env->v[i].value = val;
			return 0;
		}
	k = strdup(key);
	v = k ? realloc(env->v, (env->n + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(k);
		free(val);
		return -ENOMEM;
	}
	env->v = v;
	env->v[env->n].key = k;
	env->v[env->n].value = val;
	env->n++;
	return 0;
}

const char *tl_env_get(const struct tl_env *env, const char *key)
{
	for (size_t i = 0; i < env->n; i++)
		if (!strcmp(env->v[i].key, key))
			return env->v[i].value;
	return NULL;
}

void tl_env_release(struct tl_env *env)
{
	for (size_t i = 0; i < env->n; i++) {
		free(env->v[i].key);
		free(env->v[i].value);
	}
	free(env->v);
	env->v = NULL;
	env->n = 0;
}

int tl_record_add_metric(struct tl_run_record *r, const char *name, double value, const char *unit)
{
	bool oom = false;
	char *n = tl_strdup_or_null(name, &oom), *u = tl_strdup_or_null(unit, &oom);
	struct tl_metric *m = oom ? NULL : PUSH(r->metrics);

	if (!m) {
		free(n);
		free(u);
		return -ENOMEM;
	}
	*m = (struct tl_metric){ n, value, u };
	return 0;
}

int tl_record_add_counter(struct tl_run_record *r, const struct tl_counter_row *row)
{
	struct tl_counter_row c = *row;
	bool oom = false;
	struct tl_counter_row *slot;

	c.event = tl_strdup_or_null(row->event, &oom);
	c.encoding = tl_strdup_or_null(row->encoding, &oom);
	c.reason = tl_strdup_or_null(row->reason, &oom);
	slot = oom ? NULL : PUSH(r->counters);
	if (!slot) {
		free(c.event);
		free(c.encoding);
		free(c.reason);
		return -ENOMEM;
	}
	*slot = c;
	return 0;
}

int tl_record_add_proc_stat(struct tl_run_record *r, int pid, const char *name, uint64_t value)
{
	struct tl_proc_stat *s = PUSH(r->proc_stats);

	if (!s)
		return -ENOMEM;
	*s = (struct tl_proc_stat){ pid, name, value };
	return 0;
}

int tl_record_add_alloc(struct tl_run_record *r, const struct tl_alloc_row *row)
{
	bool oom = false;
	char *callsite = tl_strdup_or_null(row->callsite, &oom);
	struct tl_alloc_row *a = oom ? NULL : PUSH(r->allocations);

	if (!a) {
		free(callsite);
		return -ENOMEM;
	}
	*a = *row;
	a->callsite = callsite;
	return 0;
}

int tl_record_add_sample(struct tl_run_record *r, const struct tl_sample_row *row)
{
	struct tl_sample_row *s = PUSH(r->samples);

	if (!s)
		return -ENOMEM;
	*s = *row;
	return 0;
}

int tl_record_add_migration(struct tl_run_record *r, const struct tl_migration_row *row)
{
	struct tl_migration_row *m = PUSH(r->migrations);

	if (!m)
		return -ENOMEM;
	*m = *row;
	return 0;
}

void tl_metrics_free(struct tl_metric *m, size_t n)
{
	if (!m)
		return;
	for (size_t i = 0; i < n; i++) {
		free((char *)m[i].name);
		free((char *)m[i].unit);
	}
	free(m);
}

void tl_record_release(struct tl_run_record *r)
{
	tl_metrics_free(r->metrics.v, r->metrics.n);
	for (size_t i = 0; i < r->counters.n; i++) {
		free(r->counters.v[i].event);
		free(r->counters.v[i].encoding);
		free(r->counters.v[i].reason);
	}
	free(r->counters.v);
	free(r->proc_stats.v);
	for (size_t i = 0; i < r->allocations.n; i++)
		free(r->allocations.v[i].callsite);
	free(r->allocations.v);
	free(r->samples.v);
	free(r->migrations.v);
	tl_env_release(&r->env);
	memset(&r->metrics, 0, sizeof(r->metrics));
	memset(&r->counters, 0, sizeof(r->counters));
	memset(&r->proc_stats, 0, sizeof(r->proc_stats));
	memset(&r->allocations, 0, sizeof(r->allocations));
	memset(&r->samples, 0, sizeof(r->samples));
	memset(&r->migrations, 0, sizeof(r->migrations));
}
