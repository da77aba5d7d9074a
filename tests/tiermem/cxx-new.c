/*
 * C++'s operators new and delete called by their mangled names from C
 * (linked with libstdc++), as a C++ program's `new` and `delete` call
 * them: large arrays, small blocks in a loop, the sized, nothrow and
 * aligned forms, and a nothrow request that cannot be served (NULL, as
 * without the runtime). Under libtiermem the large ones are managed,
 * whichever allocator comes next (tests/cli/tiermem-cxx.sh counts them).
 * Prints "ok" and exits 0, or says what differed and exits 1.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *_Znwm(size_t);
void *_Znam(size_t);
void *_ZnwmRKSt9nothrow_t(size_t, const void *);
void *_ZnamSt11align_val_t(size_t, size_t);
void *_ZnwmSt11align_val_t(size_t, size_t);
void _ZdlPv(void *);
void _ZdaPv(void *);
void _ZdlPvm(void *, size_t);
void _ZdaPvSt11align_val_t(void *, size_t);
void _ZdlPvmSt11align_val_t(void *, size_t, size_t);
extern const char _ZSt7nothrow[];	/* std::nothrow */

static int bad;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "cxx-new: %s\n", what);
		bad = 1;
	}
}

static void fill_check(unsigned char *p, size_t n, unsigned char v, const char *what)
{
	memset(p, v, n);
	check(p[0] == v && p[n / 2] == v && p[n - 1] == v, what);
	check(malloc_usable_size(p) >= n, "malloc_usable_size below the size asked");
}

int main(void)
{
	enum { SMALL = 20000 };
	static void *keep[64];
	static size_t keep_n[64];
	unsigned char *big, *big2, *al, *al2;
	void *p;

	big = _Znam(32u << 20);		/* new char[32 MiB] */
	fill_check(big, 32u << 20, 0x5a, "new[] of 32 MiB lost its data");
	big2 = _Znwm(8u << 20);
	fill_check(big2, 8u << 20, 0x33, "new of 8 MiB lost its data");
	al = _ZnamSt11align_val_t(4u << 20, 4096);
	check(((uintptr_t)al & 4095) == 0, "aligned new[] of 4 MiB not aligned");
	fill_check(al, 4u << 20, 0x11, "aligned new[] lost its data");
	al2 = _ZnwmSt11align_val_t(200, 256);
	check(((uintptr_t)al2 & 255) == 0, "aligned new of 200 bytes not aligned");
	fill_check(al2, 200, 0x22, "aligned new of 200 bytes lost its data");
	for (int i = 0; i < SMALL; i++) {
		size_t n = 8 + (size_t)(i * 37) % 2000;
		unsigned char *q = _Znwm(n);

		q[0] = (unsigned char)i;
		q[n - 1] = (unsigned char)i;
		if (keep[i % 64]) {
			if (i % 2)
				_ZdlPv(keep[i % 64]);
			else
				_ZdlPvm(keep[i % 64], keep_n[i % 64]);	/* sized: jemalloc uses it */
		}
		keep[i % 64] = q;
		keep_n[i % 64] = n;
	}
	for (int i = 0; i < 64; i++)
		_ZdlPv(keep[i]);
	p = _ZnwmRKSt9nothrow_t(SIZE_MAX / 4, _ZSt7nothrow);
	check(p == NULL, "nothrow new of SIZE_MAX/4 bytes did not return NULL");
	p = _ZnwmRKSt9nothrow_t(1u << 20, _ZSt7nothrow);
	check(p != NULL, "nothrow new of 1 MiB returned NULL");
	fill_check(p, 1u << 20, 0x44, "nothrow new of 1 MiB lost its data");
	_ZdlPv(p);
	check(big[12345] == 0x5a && big2[777] == 0x33 && al[4095] == 0x11, "large blocks changed meanwhile");
	_ZdlPvmSt11align_val_t(al2, 200, 256);
	_ZdaPvSt11align_val_t(al, 4096);
	_ZdlPv(big2);
	_ZdaPv(big);
	_ZdlPv(NULL);
	if (bad)
		return 1;
	puts("ok");
	return 0;
}
