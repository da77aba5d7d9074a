/*
 * The trace's own configuration (see replay-own.h): the equivalence check
 * of replay and runtime. The hooks follow one process at a time, as
 * tl_sim_replay() walks them, so a move's index restarts with each.
 */
#include "simulate/replay-own.h"

#include "simulate/setup.h"
#include "util/error.h"

struct verify_ctx {
	size_t mismatches, move_at;
	const struct tl_trace_proc *cur;
	FILE *events;
};

static void note_proc(struct verify_ctx *v, const struct tl_trace_proc *p)
{
	if (v->cur != p) {
		v->cur = p;
		v->move_at = 0;
	}
}

static void on_sample(void *ctx, const struct tl_trace_proc *p, size_t ev, int32_t chunk, int hit)
{
	struct verify_ctx *v = ctx;

	note_proc(v, p);
	if (v->events)
		fprintf(v->events, "S\t%d\t%d\n", (int)chunk, hit);
	else if ((p->chunks[ev] != chunk || p->ev[ev].hit != hit) && !v->mismatches++)
		error("pid %d: sample %zu: replay chunk %d hit %d, recorded chunk %d hit %d", p->pid, ev, chunk, hit,
		      p->chunks[ev], p->ev[ev].hit);
}

static void on_move(void *ctx, const struct tl_trace_proc *p, uint32_t chunk, enum tl_direction dir)
{
	struct verify_ctx *v = ctx;
	size_t at;

	note_proc(v, p);
	at = v->move_at++;
	if (v->events)
		fprintf(v->events, "M\t%u\t%s\n", chunk, tl_direction_name(dir));
	else if ((at >= p->nmoves || p->moves[at].chunk != chunk || p->moves[at].dir != dir) && !v->mismatches++)
		error("pid %d: migration %zu: replay chunk %u %s, recorded %s", p->pid, at + 1, chunk,
		      tl_direction_name(dir), at >= p->nmoves ? "none" : tl_direction_name(p->moves[at].dir));
}

int tl_sim_replay_own(const struct tl_trace *t, bool verify, FILE *events, struct tl_sim_result *total,
		      size_t *mismatches)
{
	struct verify_ctx v = { .events = events };
	struct tl_sim_hooks hooks = { &v, on_sample, on_move };
	char why[1024] = "";
	size_t replayed = 0;

	*total = (struct tl_sim_result){ 0 };
	*mismatches = 0;
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct tl_trace_proc *p = &t->procs[i];
		struct tl_trace one = { (struct tl_trace_proc *)p, 1 };
		struct tl_sim_config c;
		struct tl_sim_result r;
		void *dl;

		if (!p->p.known) {
			/* a fork child's log: it started from its parent's chunks and policy state, which no log holds */
			warning("pid %d: no P record (a fork child, or a log from before the runtime wrote one): not replayed",
				p->pid);
			continue;
		}
		replayed++;
		c = (struct tl_sim_config){ .chunk_size = p->p.chunk_size, .budget_chunks = p->p.budget_chunks,
					    .dynamic_fraction = p->p.dynamic_fraction, .window = p->p.window,
					    .args = p->p.args, .fractions = p->p.fractions, .nfractions = p->p.nfractions,
					    .recorded_moves = true };
		if (!(c.pol = tl_sim_policy_open(p->p.policy, &dl, why, sizeof(why))) ||
		    tl_sim_replay(&one, &c, verify || events ? &hooks : NULL, &r, why, sizeof(why)))
			return error("%s", why);
		if (verify && v.move_at != p->nmoves && !v.mismatches++)
			error("pid %d: the replay made %zu placements and migrations, the run %zu", p->pid, v.move_at,
			      p->nmoves);
		v.cur = NULL;
		tl_sim_result_add(total, &r);
	}
	*mismatches = v.mismatches;
	if (!replayed)
		return error("no process of the trace can be replayed with its own configuration");
	return 0;
}
