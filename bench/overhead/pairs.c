/* N malloc/free pairs of glibc-thread's sizes (inverse square, 4..32768) over 1024 slots, one byte touched: bench/overhead/pair-instructions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#define WS 1024
#define NSIZES 8000
#define NOFF (WS * 4)
static unsigned sizes[NSIZES], offs[NOFF];
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	static void *slot[WS];
	float min_pow = powf(4, -1), max_pow = powf(32768, -1);
	srand(88);
	for (int i = 0; i < NSIZES; i++)
		sizes[i] = (unsigned)powf((max_pow - min_pow) * ((float)rand() / RAND_MAX) + min_pow, -1);
	for (int i = 0; i < NOFF; i++)
		offs[i] = rand() % WS;
	for (long i = 0; i < n; i++) {
		unsigned k = offs[i % NOFF];
		free(slot[k]);
		slot[k] = malloc(sizes[i % NSIZES]);
		if (!slot[k])
			return 1;
		*(volatile char *)slot[k] = 1;
	}
	for (int i = 0; i < WS; i++)
		free(slot[i]);
	puts("ok");
	return 0;
}
