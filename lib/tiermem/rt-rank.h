/*
 * The MPI rank of this process, from the variable its launcher sets
 * (OpenMPI's mpirun, PMI and PMIx launchers, srun), or -1: the runtime's
 * files and tierlab-rank's (lib/measure/rank/) are named by it, since the
 * ranks of a run on several nodes share its directory and may share pids.
 * Only getenv: safe while the runtime starts.
 */
#ifndef TLRT_RANK_H
#define TLRT_RANK_H

#include <stdlib.h>

static inline int tlrt_mpi_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL };

	for (int i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long r;

		if (!v || !*v)
			continue;
		r = strtol(v, &end, 10);
		if (!*end && r >= 0 && r < (1L << 30))
			return (int)r;
	}
	return -1;
}

#endif
