/*
 * k-means in the manner of the Phoenix benchmark: integer points on a grid,
 * integer means (the truncated average of the members, as Phoenix computes
 * them), iterate until no point changes cluster. Split from the program so
 * the unit tests link the kernel and the validators without main().
 *
 * Ownership: struct km_problem does not own its arrays; the caller
 * allocates points (n*d ints, ONE block), means (c*d ints, ONE block) and
 * assign (n ints) and frees them.
 */
#ifndef KMEANS_H
#define KMEANS_H

#include <stddef.h>
#include <stdint.h>

struct km_problem {
	long n;         /* points */
	int d;          /* dimensions */
	int c;          /* clusters */
	int *points;    /* n*d, row-major: point i is points[i*d .. i*d+d-1] */
	int *means;     /* c*d, row-major */
	int *assign;    /* n, cluster of each point; -1 before the first pass */
};

struct km_result {
	int iterations;   /* passes run, the last one (if converged) changed nothing */
	int converged;    /* 1 when the last pass changed no point's cluster */
	double seconds;   /* wall time of all passes (assignment + mean update) */
};

/* splitmix64: small, fast and good enough to make a reproducible input. */
static inline uint64_t km_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Largest grid for d dimensions that keeps the fast kernel's partial
 * scores |m|^2 - 2 p.m inside 32-bit integers: 3 d (grid-1)^2 < 2^31.
 * (km_run is exact beyond it too, on a slow 64-bit path.)
 */
long km_max_grid(int d);

/* count values uniform in [0, grid) from the generator state (Phoenix's generate_points). */
void km_generate(int *v, size_t count, int grid, uint64_t *state);

/*
 * Run to convergence or max_iter passes with nthreads threads (>= 1).
 * Each pass assigns every point to its nearest mean (lowest index on a
 * tie, as Phoenix) and then sets each non-empty cluster's mean to the
 * truncated average of its members; empty clusters keep their mean.
 * Returns 0, or -ENOMEM / -EAGAIN (thread creation) with the problem
 * left in a valid but unfinished state.
 */
int km_run(struct km_problem *pb, int nthreads, int max_iter, struct km_result *res);

/* Squared distance between point p and mean m, exact in 64 bits. */
int64_t km_sq_dist(const int *p, const int *m, int d);

/*
 * Validators, written the plain way (no shared code with the fast kernel).
 * Each returns NULL when the property holds, else a message (a static
 * buffer, valid until the next call) naming the first offending point or
 * cluster.
 *   km_check_assignment: every point's cluster is one of its nearest means.
 *   km_check_means: each non-empty cluster's mean is the truncated average
 *   of its members; every assign[] value is a cluster index.
 */
const char *km_check_assignment(const struct km_problem *pb);
const char *km_check_means(const struct km_problem *pb);

#endif
