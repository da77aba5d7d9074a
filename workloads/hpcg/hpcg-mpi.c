/*
 * MPI ranks for hpcg (built only into hpcg-mpi, with -DHPCG_MPI): the
 * process grid, the halo (HPCG's SetupHalo and ExchangeHalo), the global
 * reductions of dot products, norms and times, and one verdict for all
 * ranks.
 *
 * Each rank owns one nx*ny*nz box of a npx*npy*npz process grid, so the
 * global problem grows with the ranks (HPCG's weak scaling). A row's
 * neighbours in other boxes are halo columns: grouped by owning rank in
 * ascending order and sorted by global index within a rank, numbered from
 * nrow on, so each neighbour's values land in one contiguous piece of x.
 * A rank sends a neighbour the rows that neighbour's rows reference; the
 * stencil is symmetric, so these are the rows of its own that reference
 * the neighbour, sorted the same way, and both sides agree on the order
 * without exchanging any index.
 *
 * Started without a launcher, MPI_Init makes the program a singleton: one
 * rank, and the run is the serial one with an MPI library around it.
 */
#ifdef HPCG_MPI

#include "hpcg.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NEIGHBORS 26	/* a 27-point stencil reaches the adjacent boxes only */
#define HALO_TAG 99

static int my_rank, nranks = 1;
static int grid_np[3] = { 1, 1, 1 };

/*
 * HPCG's ComputeOptimalShapeXYZ, in spirit: of the factorizations
 * npx*npy*npz = size with npx <= npy <= npz, the one with the least
 * surface between boxes (so the least halo), ties to the first found.
 * 2 ranks stack in z (1 x 1 x 2), 4 give 1 x 2 x 2, 8 give 2 x 2 x 2.
 */
static void optimal_shape(int size, int np[3])
{
	long best = -1;

	for (int a = 1; (long)a * a * a <= size; a++) {
		if (size % a)
			continue;
		for (int b = a; (long)a * b * b <= size; b++) {
			int c;
			long surface;

			if ((size / a) % b)
				continue;
			c = size / a / b;
			surface = (long)a * b + (long)b * c + (long)a * c;
			if (best < 0 || surface < best) {
				best = surface;
				np[0] = a, np[1] = b, np[2] = c;
			}
		}
	}
}

void hpcg_mpi_init(int *argc, char ***argv)
{
	int provided;

	/* Only the master thread calls MPI: OpenMP regions are compute only. */
	MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	optimal_shape(nranks, grid_np);
	if (my_rank) {
		fflush(stdout);
		if (!freopen("/dev/null", "w", stdout))
			fprintf(stderr, "hpcg-mpi: rank %d: cannot silence stdout: %s\n", my_rank,
				strerror(errno));
	}
}

/* After the barrier every rank's output is out: none exits before rank 0 has printed. */
void hpcg_mpi_finalize(void)
{
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
}

void hpcg_mpi_abort(int code)
{
	fflush(stdout);
	MPI_Abort(MPI_COMM_WORLD, code);
	exit(code);
}

int hpcg_mpi_rank(void)
{
	return my_rank;
}

int hpcg_mpi_size(void)
{
	return nranks;
}

void hpcg_mpi_grid(int np[3], int ip[3])
{
	np[0] = grid_np[0], np[1] = grid_np[1], np[2] = grid_np[2];
	/* HPCG's numbering: x fastest, then y, then z. */
	ip[2] = my_rank / (np[0] * np[1]);
	ip[1] = my_rank / np[0] % np[1];
	ip[0] = my_rank % np[0];
}

double hpcg_allreduce_sum(double v)
{
	double out;

	MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return out;
}

double hpcg_allreduce_max(double v)
{
	double out;

	/* MPI_MAX may drop a NaN; a NaN on any rank must fail every rank's check. */
	if (isnan(v))
		v = INFINITY;
	MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return out;
}

int64_t hpcg_allreduce_sum_i64(int64_t v)
{
	int64_t out;

	MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	return out;
}

const char *hpcg_mpi_agree(const char *failure, char *buf, size_t len)
{
	char why[256] = "";
	int mine = failure ? my_rank : nranks, first;

	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == nranks)
		return NULL;
	if (my_rank == first)
		snprintf(why, sizeof(why), "%s", failure);
	MPI_Bcast(why, sizeof(why), MPI_CHAR, first, MPI_COMM_WORLD);
	if (first)
		snprintf(buf, len, "rank %d: %s", first, why);
	else
		snprintf(buf, len, "%s", why);
	return buf;
}

/* One reference to another rank's point: the owner, the point, and (sends) our row. */
struct halo_ref {
	int rank;
	int32_t local;
	int64_t gid;
};

static int ref_cmp(const void *pa, const void *pb)
{
	const struct halo_ref *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->gid < b->gid ? -1 : a->gid > b->gid;
}

/* Sorts and drops duplicates; returns the new count. */
static size_t ref_unique(struct halo_ref *r, size_t n)
{
	size_t m = 0;

	qsort(r, n, sizeof(*r), ref_cmp);
	for (size_t i = 0; i < n; i++)
		if (!m || ref_cmp(&r[m - 1], &r[i]))
			r[m++] = r[i];
	return m;
}

/* The rank whose box at A's level holds global point gid. */
static int owner(const struct hpcg_geom *g, int64_t gid)
{
	int64_t gx = gid % g->gnx, gy = gid / g->gnx % g->gny, gz = gid / (g->gnx * g->gny);

	return (int)((gz / g->nz * grid_np[1] + gy / g->ny) * grid_np[0] + gx / g->nx);
}

/* Neighbour ranks and how many entries each has in a sorted, unique list. */
static int count_by_rank(const struct halo_ref *r, size_t n, int *ranks, int *counts)
{
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!k || ranks[k - 1] != r[i].rank) {
			if (k == MAX_NEIGHBORS)
				return -EPROTO;
			ranks[k] = r[i].rank;
			counts[k++] = 0;
		}
		counts[k - 1]++;
	}
	return k;
}

int hpcg_halo_setup(struct hpcg_matrix *A)
{
	struct hpcg_halo *h = &A->halo;
	const size_t slots = (size_t)A->nrow * HPCG_SLOTS;
	struct halo_ref *recv = NULL, *send = NULL, key;
	int send_ranks[MAX_NEIGHBORS], nsend_ranks;
	size_t nrecv = 0, nsend = 0, nref = 0;
	int ret = -ENOMEM;

	memset(h, 0, sizeof(*h));
	for (size_t s = 0; s < slots; s++)
		nref += A->cols[s] < 0;
	if (!nref)
		return 0;
	recv = malloc(nref * sizeof(*recv));
	send = malloc(nref * sizeof(*send));
	if (!recv || !send)
		goto out;
	for (int i = 0; i < A->nrow; i++) {
		for (int k = 0; k < HPCG_SLOTS; k++) {
			size_t s = (size_t)i * HPCG_SLOTS + k;
			int r;

			if (A->cols[s] >= 0)
				continue;
			r = owner(&A->g, A->gcols[s]);
			recv[nrecv++] = (struct halo_ref){ r, 0, A->gcols[s] };
			send[nsend++] = (struct halo_ref){ r, i, hpcg_global_row(A, i) };
		}
	}
	nrecv = ref_unique(recv, nrecv);
	nsend = ref_unique(send, nsend);
	if (nrecv > (size_t)INT32_MAX - (size_t)A->nrow) {
		ret = -EOVERFLOW;
		goto out;
	}

	h->neighbors = malloc(MAX_NEIGHBORS * sizeof(int));
	h->nrecv = malloc(MAX_NEIGHBORS * sizeof(int));
	h->nsend = malloc(MAX_NEIGHBORS * sizeof(int));
	h->send_rows = malloc(nsend * sizeof(int32_t));
	h->send_buf = malloc(nsend * sizeof(double));
	if (!h->neighbors || !h->nrecv || !h->nsend || !h->send_rows || !h->send_buf)
		goto fail;
	ret = count_by_rank(recv, nrecv, h->neighbors, h->nrecv);
	if (ret < 0)
		goto fail;
	h->nneighbors = ret;
	nsend_ranks = count_by_rank(send, nsend, send_ranks, h->nsend);
	/* A symmetric stencil: we send to exactly the ranks we receive from. */
	ret = -EPROTO;
	if (nsend_ranks != h->nneighbors ||
	    memcmp(send_ranks, h->neighbors, (size_t)h->nneighbors * sizeof(int)))
		goto fail;
	for (size_t i = 0; i < nsend; i++)
		h->send_rows[i] = send[i].local;
	h->nsend_total = (int)nsend;

	/* External columns after the local ones, in the order of the receive list. */
	for (int i = 0; i < A->nrow; i++) {
		for (int k = 0; k < HPCG_SLOTS; k++) {
			size_t s = (size_t)i * HPCG_SLOTS + k;
			const struct halo_ref *hit;

			if (A->cols[s] >= 0)
				continue;
			key = (struct halo_ref){ owner(&A->g, A->gcols[s]), 0, A->gcols[s] };
			hit = bsearch(&key, recv, nrecv, sizeof(*recv), ref_cmp);
			A->cols[s] = A->nrow + (int32_t)(hit - recv);
		}
	}
	A->ncol = A->nrow + (int)nrecv;
	ret = 0;
	goto out;

fail:
	hpcg_halo_release(A);
out:
	free(recv);
	free(send);
	return ret;
}

void hpcg_halo_release(struct hpcg_matrix *A)
{
	struct hpcg_halo *h = &A->halo;

	free(h->neighbors);
	free(h->nrecv);
	free(h->nsend);
	free(h->send_rows);
	free(h->send_buf);
	memset(h, 0, sizeof(*h));
}

void hpcg_halo_exchange(const struct hpcg_matrix *A, double *x)
{
	const struct hpcg_halo *h = &A->halo;
	MPI_Request req[2 * MAX_NEIGHBORS];
	double *in = x + A->nrow, *out = h->send_buf;
	int nreq = 0;

	if (!h->nneighbors)
		return;
	/* Receives first, so no message waits for its buffer. */
	for (int n = 0; n < h->nneighbors; n++) {
		MPI_Irecv(in, h->nrecv[n], MPI_DOUBLE, h->neighbors[n], HALO_TAG, MPI_COMM_WORLD,
			  &req[nreq++]);
		in += h->nrecv[n];
	}
	for (int i = 0; i < h->nsend_total; i++)
		out[i] = x[h->send_rows[i]];
	for (int n = 0; n < h->nneighbors; n++) {
		MPI_Isend(out, h->nsend[n], MPI_DOUBLE, h->neighbors[n], HALO_TAG, MPI_COMM_WORLD,
			  &req[nreq++]);
		out += h->nsend[n];
	}
	MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}

#endif
