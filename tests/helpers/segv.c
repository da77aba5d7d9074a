/* Test workload: dies of SIGSEGV. */
#include <stdio.h>

int main(void)
{
	volatile int *p = NULL;

	puts("about to crash");
	fflush(stdout);
	*p = 1;
	return 0;
}
