/*
 * Allocation stress for libtiermem under LD_PRELOAD (tests/cli/tiermem-
 * stress.sh): threads allocate random sizes across the threshold, realloc
 * up and down across it, ask for aligned blocks, calloc (also into reused
 * memory), check malloc_usable_size, errno and every block's data pattern
 * after every move; one more thread feeds the runtime samples of live
 * blocks (through tlrt_deliver when the runtime exports it) so chunks
 * migrate under the program's feet; then a fork whose child checks and
 * rewrites the inherited blocks. Exits 0 only when every check held.
 *
 *   stress [threads] [iterations] [max-size]
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 24

struct rt_sample_abi {		/* struct rt_sample, as the runtime takes it */
	uint64_t t_ns;
	uintptr_t addr, pc;
	pid_t tid;
	uint32_t flags;
};

struct block {
	unsigned char *_Atomic p;
	size_t n;
	unsigned char seed;
};

static int nthreads = 4, iters = 300;
static size_t max_size = 6u << 20;
static struct block blocks[16][SLOTS];
static atomic_int failures, done;
static void (*deliver)(const struct rt_sample_abi *);

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "stress: " __VA_ARGS__); fputc('\n', stderr); atomic_fetch_add(&failures, 1); } } while (0)

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Log-uniform from 1 byte to max_size: most sizes small, many across the threshold. */
static size_t rand_size(uint64_t *s)
{
	double f = (double)(rnd(s) % 10000) / 10000.0;
	size_t n = (size_t)exp(f * log((double)max_size));

	return n ? n : 1;
}

/* The pattern: byte i of a block is (seed + i * 7) mod 251, sparse for big blocks. */
static void fill(unsigned char *p, size_t n, unsigned char seed)
{
	size_t step = n > (1u << 16) ? 4093 : 1;

	for (size_t i = 0; i < n; i += step)
		p[i] = (unsigned char)((seed + i * 7) % 251);
	if (n)
		p[n - 1] = (unsigned char)((seed + (n - 1) * 7) % 251);
}

/* The bytes fill(p, filled, seed) wrote below `n`. */
static int intact_part(const unsigned char *p, size_t n, size_t filled, unsigned char seed)
{
	size_t step = filled > (1u << 16) ? 4093 : 1;

	for (size_t i = 0; i < n && i < filled; i += step)
		if (p[i] != (unsigned char)((seed + i * 7) % 251))
			return 0;
	return !filled || filled > n || p[filled - 1] == (unsigned char)((seed + (filled - 1) * 7) % 251);
}

static int intact(const unsigned char *p, size_t n, unsigned char seed)
{
	return intact_part(p, n, n, seed);
}

static void *alloc_some(uint64_t *s, size_t n, int *kind)
{
	static const size_t aligns[] = { 16, 64, 4096, 1u << 16, 2u << 20, 4u << 20 };
	size_t al = aligns[rnd(s) % 6];
	void *p = NULL;
	int err, saved;

	*kind = (int)(rnd(s) % 7);
	errno = saved = 1000 + (int)(rnd(s) % 100);
	switch (*kind) {
	case 0: p = malloc(n); break;
	case 1: p = calloc(1, n); break;
	case 2:
		err = posix_memalign(&p, al, n);
		CHECK(err == 0, "posix_memalign(%zu, %zu) = %d", al, n, err);
		break;
	case 3: p = aligned_alloc(al, (n + al - 1) / al * al); break;
	case 4: p = memalign(al, n); break;
	case 5: p = valloc(n); al = 4096; break;
	default: p = malloc(n); break;
	}
	CHECK(p, "allocation of %zu bytes (kind %d) failed", n, *kind);
	if (!p)
		return NULL;
	CHECK(errno == saved, "errno changed by a successful allocation (kind %d, %zu bytes): %d", *kind, n, errno);
	if (*kind >= 2 && *kind <= 5)
		CHECK((uintptr_t)p % al == 0, "%p not aligned to %zu (kind %d, %zu bytes)", p, al, *kind, n);
	CHECK(malloc_usable_size(p) >= n, "malloc_usable_size %zu < %zu", malloc_usable_size(p), n);
	if (*kind == 1) {
		size_t step = n > (1u << 16) ? 511 : 1;

		for (size_t i = 0; i < n; i += step)
			if (((unsigned char *)p)[i]) {
				CHECK(0, "calloc(%zu) not zero at %zu", n, i);
				break;
			}
	}
	return p;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg, kind;
	uint64_t s = 0x9e3779b97f4a7c15ULL * (uint64_t)(id + 1);
	struct block *b = blocks[id];

	for (int it = 0; it < iters; it++) {
		struct block *x = &b[rnd(&s) % SLOTS];
		unsigned char *p = atomic_load(&x->p);
		int op = (int)(rnd(&s) % 4);

		if (p) {
			CHECK(intact(p, x->n, x->seed), "block %p (%zu bytes) corrupted", (void *)p, x->n);
			if (op == 0) {
				/* realloc to a new random size: up or down, often across the threshold */
				size_t n = rand_size(&s), keep = n < x->n ? n : x->n;
				unsigned char *q;
				int saved = errno = 77;

				atomic_store(&x->p, NULL);
				q = realloc(p, n);
				CHECK(q, "realloc(%zu -> %zu) failed", x->n, n);
				if (!q)
					continue;
				CHECK(errno == saved, "errno changed by realloc: %d", errno);
				CHECK(intact_part(q, keep, x->n, x->seed), "realloc(%zu -> %zu) lost data", x->n, n);
				x->n = n;
				fill(q, n, x->seed);
				atomic_store(&x->p, q);
				continue;
			}
			atomic_store(&x->p, NULL);
			errno = 55;
			free(p);
			CHECK(errno == 55, "errno changed by free: %d", errno);
			if (op == 1) {
				/* calloc into just-freed (dirty) memory must still be zero */
				unsigned char *c = calloc(x->n, 1);

				CHECK(c, "calloc(%zu) failed", x->n);
				if (c) {
					size_t step = x->n > (1u << 16) ? 509 : 1;

					for (size_t i = 0; i < x->n; i += step)
						if (c[i]) {
							CHECK(0, "calloc of reused memory (%zu bytes) not zero at %zu", x->n, i);
							break;
						}
					free(c);
				}
			}
			continue;
		}
		x->n = rand_size(&s);
		x->seed = (unsigned char)rnd(&s);
		p = alloc_some(&s, x->n, &kind);
		if (!p)
			continue;
		fill(p, x->n, x->seed);
		atomic_store(&x->p, p);
	}
	return NULL;
}

/* Samples of live blocks, as a sampler would deliver them, so chunks migrate meanwhile. */
static void *sampler(void *arg)
{
	uint64_t s = 12345;
	struct rt_sample_abi smp = { 0 };

	(void)arg;
	while (!atomic_load(&done)) {
		struct block *x = &blocks[rnd(&s) % (unsigned)nthreads][rnd(&s) % SLOTS];
		unsigned char *p = atomic_load(&x->p);

		if (p && x->n) {
			smp.addr = (uintptr_t)p + rnd(&s) % x->n;
			smp.t_ns = (uint64_t)time(NULL) * 1000000000ULL;
			deliver(&smp);
		}
		if (rnd(&s) % 8 == 0)
			usleep(200);
	}
	return NULL;
}

static int check_fork(void)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int bad = 0;

		/* the child reads and writes what it inherited, and allocates anew */
		for (int t = 0; t < nthreads; t++)
			for (int i = 0; i < SLOTS; i++) {
				struct block *x = &blocks[t][i];

				if (!x->p)
					continue;
				bad += !intact(x->p, x->n, x->seed);
				fill(x->p, x->n, (unsigned char)(x->seed + 1));
				bad += !intact(x->p, x->n, (unsigned char)(x->seed + 1));
			}
		{
			unsigned char *q = malloc(3u << 20);

			if (!q)
				_exit(3);
			fill(q, 3u << 20, 9);
			bad += !intact(q, 3u << 20, 9);
			q = realloc(q, 5u << 20);
			bad += !q || !intact(q, 3u << 20, 9);
			free(q);
		}
		_exit(bad ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	/* the parent's blocks are untouched by the child's writes */
	for (int t = 0; t < nthreads; t++)
		for (int i = 0; i < SLOTS; i++) {
			struct block *x = &blocks[t][i];

			if (x->p)
				CHECK(intact(x->p, x->n, x->seed), "parent block changed by the child");
		}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	pthread_t th[16], smp;
	int rc;

	if (argc > 1)
		nthreads = atoi(argv[1]);
	if (argc > 2)
		iters = atoi(argv[2]);
	if (argc > 3)
		max_size = (size_t)atol(argv[3]);
	if (nthreads < 1 || nthreads > 16)
		nthreads = 4;
	deliver = (void (*)(const struct rt_sample_abi *))dlsym(RTLD_DEFAULT, "tlrt_deliver");
	if (deliver)
		pthread_create(&smp, NULL, sampler, NULL);
	for (int t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	atomic_store(&done, 1);
	if (deliver)
		pthread_join(smp, NULL);

	rc = check_fork();
	CHECK(rc == 0, "fork child found damaged memory (status %d)", rc);
	for (int t = 0; t < nthreads; t++)
		for (int i = 0; i < SLOTS; i++) {
			struct block *x = &blocks[t][i];

			if (x->p)
				CHECK(intact(x->p, x->n, x->seed), "block corrupted at the end");
			free(x->p);
		}
	/* bad arguments answer as glibc does (volatile: the compiler must not see the sizes) */
	volatile size_t big = SIZE_MAX / 2, huge = SIZE_MAX - 4096;
	errno = 0;
	CHECK(calloc(big, 4) == NULL && errno == ENOMEM, "calloc overflow: errno %d", errno);
	errno = 0;
	CHECK(reallocarray(NULL, big, 4) == NULL && errno == ENOMEM, "reallocarray overflow");
	{
		void *p = (void *)1;

		CHECK(posix_memalign(&p, 24, 4u << 20) == EINVAL && p == (void *)1, "posix_memalign(24) not EINVAL");
		/* valgrind reports an absurd size as an error of its own: skip it there */
		errno = 0;
		if (!getenv("STRESS_UNDER_VALGRIND"))
			CHECK(malloc(huge) == NULL && errno == ENOMEM, "malloc(huge) not ENOMEM");
		p = malloc(2u << 20);
		CHECK(p && realloc(p, 0) == NULL, "realloc(p, 0) did not return NULL");
		free(NULL);
	}
	printf("stress: %d threads x %d iterations, samples %s, %d failures\n", nthreads, iters,
	       deliver ? "injected" : "not injected (no runtime)", atomic_load(&failures));
	return atomic_load(&failures) ? 1 : 0;
}
