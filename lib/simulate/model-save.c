/*
 * Writing a tier model file (model.h): what --calibrate stores. libyaml's
 * emitter writes it, so any name or source text comes out quoted as YAML
 * needs and reads back with tl_tier_model_load.
 */
#include "simulate/model.h"

#include <errno.h>
#include <string.h>
#include <yaml.h>

struct out {
	yaml_emitter_t e;
	int bad;
};

static void ev(struct out *o, yaml_event_t *event, int ok)
{
	if (!o->bad && (!ok || !yaml_emitter_emit(&o->e, event)))
		o->bad = 1;
}

static void scalar(struct out *o, const char *text)
{
	yaml_event_t event;

	ev(o, &event,
	   yaml_scalar_event_initialize(&event, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1,
					YAML_ANY_SCALAR_STYLE));
}

static void begin_map(struct out *o, bool flow)
{
	yaml_event_t event;

	ev(o, &event, yaml_mapping_start_event_initialize(&event, NULL, NULL, 1,
							  flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

static void end_map(struct out *o)
{
	yaml_event_t event;

	ev(o, &event, yaml_mapping_end_event_initialize(&event));
}

static void pair(struct out *o, const char *key, const char *value)
{
	if (!value)
		return;
	scalar(o, key);
	scalar(o, value);
}

static void number(struct out *o, const char *key, double v)
{
	char buf[64];

	/* %.9g: the fitted figures read back as written, to the digits that matter */
	snprintf(buf, sizeof(buf), "%.9g", v);
	pair(o, key, buf);
}

static void tier(struct out *o, const char *key, const struct tl_tier_model_tier *t)
{
	scalar(o, key);
	begin_map(o, true);
	pair(o, "name", t->name);
	number(o, "latency_ns", t->latency_ns);
	number(o, "bandwidth_gbs", t->bandwidth_gbs);
	pair(o, "source", t->source);
	end_map(o);
}

static int write_cb(void *data, unsigned char *buf, size_t size)
{
	return fwrite(buf, 1, size, data) == size;
}

int tl_tier_model_save(const struct tl_tier_model *m, FILE *f, char *why, size_t whylen)
{
	struct out o = { .bad = 0 };
	yaml_event_t event;

	if (!yaml_emitter_initialize(&o.e))
		return snprintf(why, whylen, "out of memory"), -ENOMEM;
	yaml_emitter_set_output(&o.e, write_cb, f);
	yaml_emitter_set_width(&o.e, 120);
	yaml_emitter_set_unicode(&o.e, 1);
	ev(&o, &event, yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING));
	ev(&o, &event, yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 1));
	begin_map(&o, false);
	pair(&o, "name", m->name);
	pair(&o, "description", m->description);
	scalar(&o, "tiers");
	begin_map(&o, false);
	tier(&o, "fast", &m->fast);
	tier(&o, "slow", &m->slow);
	end_map(&o);
	scalar(&o, "migration");
	begin_map(&o, true);
	number(&o, "bandwidth_gbs", m->migration_gbs);
	number(&o, "cost_us", m->migration_cost_us);
	pair(&o, "source", m->migration_source);
	end_map(&o);
	if (m->calibrated) {
		scalar(&o, "workload");
		begin_map(&o, false);
		number(&o, "compute_ns_per_byte", m->compute_ns_per_byte);
		number(&o, "overlap", m->overlap);
		number(&o, "mlp", m->mlp);
		number(&o, "residual_rms", m->residual_rms);
		number(&o, "held_out", m->held_out);
		pair(&o, "source", m->workload_source);
		end_map(&o);
	}
	end_map(&o);
	ev(&o, &event, yaml_document_end_event_initialize(&event, 1));
	ev(&o, &event, yaml_stream_end_event_initialize(&event));
	if (!o.bad && !yaml_emitter_flush(&o.e))
		o.bad = 1;
	if (o.bad)
		snprintf(why, whylen, "writing the model: %s", o.e.problem ? o.e.problem : "write failed");
	yaml_emitter_delete(&o.e);
	return o.bad ? -EIO : 0;
}
