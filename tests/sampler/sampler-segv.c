/*
 * A program sampled by the fault sampler at 10 kHz over its own blocks,
 * for tests/cli/sampler-segv.sh:
 *   sampler-segv own     its SIGSEGV handler must get exactly its own
 *                        faults (exit 0), else exit 1
 *   sampler-segv crash   a real invalid access: must die of SIGSEGV
 * Exit 77 when the sampler cannot start here.
 */
#include "harness.h"
#include "tiermem/sampler-fault.h"

#include <setjmp.h>
#include <stdio.h>

static sigjmp_buf jmp;
static uint8_t *page;
static volatile int mine, others;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si->si_addr == page + 8)
		mine++;
	else
		others++;
	siglongjmp(jmp, 1);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	struct tlrt_fault_counts c;
	volatile int tries = 0;
	volatile uint64_t sum = 0;
	char why[256] = "";

	if (argc != 2 || !h_map(4, 1))
		return 2;
	if (h_start(&rt_sampler_fault, 10000, why, sizeof(why))) {
		printf("skip: fault sampler unavailable: %s\n", why);
		return 77;
	}
	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	h_ticker_start(10000);
	if (argv[1][0] == 'o') {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, NULL);
	}
	/* 3000 ticks, and more (up to 60000) until the sampler took 100 samples: a loaded host runs this thread seldom */
	for (;;) {
		tlrt_sampler_fault_counts(&c);
		if (atomic_load(&H.ticks) >= 60000 || (atomic_load(&H.ticks) >= 3000 && c.samples > 100))
			break;
		for (size_t off = 0; off < 4 * H_BLOCK; off += 8192)
			sum += ((volatile uint8_t *)H.base)[off];
		/* crash: only once the sampler has been at it for a while */
		if ((argv[1][0] == 'o' || atomic_load(&H.ticks) >= 1000) && !sigsetjmp(jmp, 1)) {
			tries++;
			((volatile uint8_t *)page)[8] = 1;	/* the program's own fault */
		}
	}
	h_ticker_stop();
	tlrt_sampler_fault_counts(&c);
	printf("faults %d, handled as own %d, others %d; sampler: %llu samples\n", tries, mine, others,
	       (unsigned long long)c.samples);
	rt_sampler_fault.stop();
	return mine == tries && !others && c.samples > 100 ? 0 : 1;
}
