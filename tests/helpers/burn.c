/* Test workload: burns SECONDS of CPU time in user space. Usage: burn SECONDS */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double want = argc > 1 ? atof(argv[1]) : 0.3, used = 0;
	volatile unsigned long x = 0;

	while (used < want) {
		struct timespec ts;

		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		used = ts.tv_sec + ts.tv_nsec / 1e9;
	}
	return 0;
}
