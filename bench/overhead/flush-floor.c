/*
 * flush-floor.so: what a full TLB flush of the program per tick costs it,
 * with nothing else of a sampler. Preloaded with FLUSH_FLOOR_HZ set, it
 * starts one thread that, at that rate, drops two pages 64 MiB apart of a
 * private mapping of its own: the kernel flushes the range between them,
 * more than 33 pages, which x86 turns into a full flush of the address
 * space on every CPU running the program (an IPI to each), as arming all
 * managed memory does. bench/overhead/run --flush-floor runs it beside the
 * sampler: the part of the sampler's cost that any first-access sampler,
 * SHAMBLES's kernel one included, pays.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define SPAN (64UL << 20)

static void *flusher(void *arg)
{
	long period_ns = 1000000000L / (long)(intptr_t)arg;
	char *p = mmap(NULL, SPAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec t;

	if (p == MAP_FAILED)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &t);
	for (;;) {
		p[0] = 1;
		p[SPAN - 4096] = 1;
		madvise(p, SPAN, MADV_DONTNEED);
		t.tv_nsec += period_ns;
		while (t.tv_nsec >= 1000000000L) {
			t.tv_nsec -= 1000000000L;
			t.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	}
	return NULL;
}

__attribute__((constructor)) static void flush_floor_start(void)
{
	const char *v = getenv("FLUSH_FLOOR_HZ");
	long hz = v ? atol(v) : 0;
	sigset_t all, old;
	pthread_t t;

	if (hz <= 0)
		return;
	/* no signal of the program lands on this thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_create(&t, NULL, flusher, (void *)(intptr_t)hz))
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
