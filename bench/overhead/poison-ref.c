#include "poison-ref.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#define BLOCK (2UL << 20)
#define NARMED 8		/* as the fault sampler */

static struct {
	uintptr_t base;
	size_t nblocks;
	double hz;
	pthread_t thread;
	_Atomic int running;
	_Atomic long faults;
	uintptr_t armed[NARMED];
} P;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	(void)uc;
	if (a - P.base < P.nblocks * BLOCK) {
		mprotect((void *)(a & ~(BLOCK - 1)), BLOCK, PROT_READ | PROT_WRITE);
		atomic_fetch_add(&P.faults, 1);
		return;
	}
	signal(sig, SIG_DFL);	/* a real fault: die of it */
}

static void *ticker(void *arg)
{
	struct timespec ts;
	long period = (long)(1e9 / P.hz);
	size_t next = 0, slot = 0;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	while (atomic_load(&P.running)) {
		ts.tv_nsec += period;
		while (ts.tv_nsec >= 1000000000L) {
			ts.tv_nsec -= 1000000000L;
			ts.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (P.armed[slot])
			mprotect((void *)P.armed[slot], BLOCK, PROT_READ | PROT_WRITE);
		P.armed[slot] = P.base + next * BLOCK;
		mprotect((void *)P.armed[slot], BLOCK, PROT_NONE);
		slot = (slot + 1) % NARMED;
		next = (next + 1) % P.nblocks;
	}
	return NULL;
}

int poison_ref_start(void *base, size_t bytes, double hz)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	sigset_t all, old;
	int err;

	P.base = (uintptr_t)base;
	P.nblocks = bytes / BLOCK;
	P.hz = hz;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		return -1;
	atomic_store(&P.running, 1);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&P.thread, NULL, ticker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err ? -1 : 0;
}

long poison_ref_stop(void)
{
	atomic_store(&P.running, 0);
	pthread_join(P.thread, NULL);
	for (size_t i = 0; i < NARMED; i++)
		if (P.armed[i])
			mprotect((void *)P.armed[i], BLOCK, PROT_READ | PROT_WRITE);
	return atomic_load(&P.faults);
}
