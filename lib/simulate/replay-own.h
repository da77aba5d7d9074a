/*
 * A trace replayed with its own configuration: each process under the
 * policy and parameters its log's P record names, its moves taking the
 * times the run logged (tierlab simulate RUN, --verify, --events).
 */
#ifndef TL_SIMULATE_REPLAY_OWN_H
#define TL_SIMULATE_REPLAY_OWN_H

#include <stdbool.h>
#include <stdio.h>

#include "simulate/replay.h"

/*
 * Replays every process of t that has a P record (the others are warned
 * about and left out) and sums their results into *total (zeroed first).
 * With verify, every sample's chunk and hit and every placement and
 * migration is compared, in order, with what the run logged: *mismatches
 * counts the differences, the first reported with error(). With events
 * (not NULL), what the replay decides goes there as the log's columns
 * ("S chunk hit", "M chunk direction") instead of being compared.
 * 0, or -1 after error() (a policy that does not load, or no process to
 * replay).
 */
int tl_sim_replay_own(const struct tl_trace *t, bool verify, FILE *events, struct tl_sim_result *total,
		      size_t *mismatches);

#endif
