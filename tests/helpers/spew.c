/* Test workload: writes LINES numbered lines to stdout and to stderr. Usage: spew LINES */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;

	for (long i = 1; i <= n; i++) {
		printf("line %ld of output, padded to be a little longer\n", i);
		fprintf(stderr, "err %ld\n", i);
	}
	return 0;
}
