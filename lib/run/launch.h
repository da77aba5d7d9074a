/*
 * What a run's process is launched with besides its argv: its variables
 * (tierlab's own, the workload's env, threads, the runtime's TIERLAB_*
 * variables from the axis table, LD_PRELOAD for the runtime and the
 * allocator), the memory binding of the no-runtime policies, and the
 * resolved program path.
 */
#ifndef TL_LAUNCH_H
#define TL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>
#include "plan/plan.h"

struct tl_launch {
	char **envp;		/* NULL-terminated, owned */
	size_t n;
	char *program;		/* argv[0] resolved: a bare name in libexec if there, else PATH; relative paths against the spec's directory */
	const char *mem_nodes;	/* all-fast/all-slow, the mempolicy baselines: the nodes of the mempolicy, else NULL */
	int mem_mode;		/* its mode (MPOL_*), 0 = MPOL_BIND */
	char *mem_nodes_own;	/* what mem_nodes points to when launch composed it (fast and slow) */
	char *dir;		/* working directory, NULL = the output directory */
	/*
	 * With the spec's launch: the words before the program, NULL-terminated
	 * (mpirun ARGS -np N env LD_PRELOAD=... TIERLAB_...=...), else NULL:
	 * the launcher itself runs without tierlab's preloads and hands the
	 * runtime's variables to every rank on every node.
	 */
	char **prefix;
	size_t nprefix;
};

/*
 * Builds the environment of one run. spec_dir resolves relative program
 * paths and dirs. Returns 0, or -ENOENT with the reason in err when a part the run
 * needs is missing (runtime or allocator library not built), which makes
 * the run fail with that reason rather than run something else. footprint
 * (bytes, 0 = unknown) is what a percentage budget refers to.
 */
int tl_launch_build(const struct tl_spec *spec, const struct tl_config *c, const char *out_dir,
		    const char *spec_dir, uint64_t footprint, struct tl_launch *re, struct tl_error *err);
void tl_launch_release(struct tl_launch *re);

/*
 * The argv a run executes: the launcher's words (re->prefix), re->program,
 * then args[1..n-1]. The array is malloc'd (NULL when out of memory), its
 * strings borrowed from re and args.
 */
char **tl_launch_argv(const struct tl_launch *re, char *const *args, size_t n);

#endif
