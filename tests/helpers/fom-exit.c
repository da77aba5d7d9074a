/*
 * Test workload: prints progress lines and a figure of merit, then exits
 * with the given code. Usage: fom-exit FIGURE [CODE]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	printf("rate: 1.0 GF/s (warm-up)\n");
	printf("rate: 2.0 GF/s (iteration 1)\n");
	printf("final rate: %s GF/s\n", argv[1]);
	fprintf(stderr, "note: done\n");
	return argc > 2 ? atoi(argv[2]) : 0;
}
