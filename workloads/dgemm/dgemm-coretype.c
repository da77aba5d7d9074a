/*
 * Noticing that OpenBLAS picked the wrong kernels. A DYNAMIC_ARCH OpenBLAS
 * chooses its core from cpuid when it is loaded; on some virtual machines
 * it does not recognise the CPU and falls back to Prescott (SSE3), about
 * 5x slower for DGEMM than the AVX2 or AVX-512 kernels the CPU can run.
 * The core can only be chosen at load time (OPENBLAS_CORETYPE), so the fix
 * is to re-execute the program with it set, before any BLAS call; a marker
 * in the environment stops a second re-execution.
 */
#include "dgemm.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* OpenBLAS's x86-64 core names (openblas_get_corename()) and the ISA their kernels use. */
static const struct {
	const char *name;
	enum dgemm_isa isa;
} cores[] = {
	{ "Unknown", DGEMM_ISA_SSE }, { "Katmai", DGEMM_ISA_SSE }, { "Coppermine", DGEMM_ISA_SSE },
	{ "Northwood", DGEMM_ISA_SSE }, { "Prescott", DGEMM_ISA_SSE }, { "Banias", DGEMM_ISA_SSE },
	{ "Atom", DGEMM_ISA_SSE }, { "Core2", DGEMM_ISA_SSE }, { "Penryn", DGEMM_ISA_SSE },
	{ "Dunnington", DGEMM_ISA_SSE }, { "Nehalem", DGEMM_ISA_SSE }, { "Athlon", DGEMM_ISA_SSE },
	{ "Opteron", DGEMM_ISA_SSE }, { "Opteron(SSE3)", DGEMM_ISA_SSE }, { "Barcelona", DGEMM_ISA_SSE },
	{ "Nano", DGEMM_ISA_SSE }, { "Bobcat", DGEMM_ISA_SSE },
	{ "Sandybridge", DGEMM_ISA_AVX }, { "Bulldozer", DGEMM_ISA_AVX }, { "Piledriver", DGEMM_ISA_AVX },
	{ "Steamroller", DGEMM_ISA_AVX }, { "Excavator", DGEMM_ISA_AVX },
	{ "Haswell", DGEMM_ISA_AVX2 }, { "Zen", DGEMM_ISA_AVX2 },
	{ "SkylakeX", DGEMM_ISA_AVX512 }, { "Cooperlake", DGEMM_ISA_AVX512 },
	{ "SapphireRapids", DGEMM_ISA_AVX512 },
};

enum dgemm_isa dgemm_core_isa(const char *corename)
{
	for (size_t i = 0; corename && i < sizeof(cores) / sizeof(cores[0]); i++)
		if (!strcasecmp(corename, cores[i].name))
			return cores[i].isa;
	return DGEMM_ISA_UNKNOWN;
}

enum dgemm_isa dgemm_cpu_isa(void)
{
	/* libgcc's checks include the OS saving the wider registers (xgetbv). */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
		return DGEMM_ISA_AVX512;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return DGEMM_ISA_AVX2;
	if (__builtin_cpu_supports("avx"))
		return DGEMM_ISA_AVX;
	return DGEMM_ISA_SSE;
}

const char *dgemm_isa_name(enum dgemm_isa isa)
{
	switch (isa) {
	case DGEMM_ISA_SSE:
		return "SSE";
	case DGEMM_ISA_AVX:
		return "AVX";
	case DGEMM_ISA_AVX2:
		return "AVX2";
	case DGEMM_ISA_AVX512:
		return "AVX-512";
	default:
		return "unknown";
	}
}

const char *dgemm_core_fix(const char *corename, enum dgemm_isa cpu)
{
	const enum dgemm_isa core = dgemm_core_isa(corename);

	if (core == DGEMM_ISA_UNKNOWN || core >= DGEMM_ISA_AVX2 || cpu < DGEMM_ISA_AVX2)
		return NULL;
	return cpu >= DGEMM_ISA_AVX512 ? "SkylakeX" : "Haswell";
}

void dgemm_coretype_check(char **argv, int fix)
{
	const char *from = getenv(DGEMM_COREFIX_MARKER);
	/* The pretence stands for OpenBLAS's first choice only, not the one after the fix. */
	const char *pretend = from ? NULL : getenv(DGEMM_PRETEND_CORE);
	const char *core = pretend && *pretend ? pretend : openblas_get_corename();
	const char *user = getenv("OPENBLAS_CORETYPE");
	const enum dgemm_isa cpu = dgemm_cpu_isa();
	const char *want = dgemm_core_fix(core, cpu);

	if (from) {
		printf("dgemm: re-executed with OPENBLAS_CORETYPE=%s (OpenBLAS had chosen %s)\n",
		       user ? user : "(unset)", from);
		if (want)
			printf("dgemm: OpenBLAS still runs core %s on a CPU with %s; not re-running again\n",
			       core, dgemm_isa_name(cpu));
		return;
	}
	if (!want)
		return;
	if (user) {
		printf("dgemm: OpenBLAS runs core %s on a CPU with %s, as OPENBLAS_CORETYPE=%s asks\n",
		       core, dgemm_isa_name(cpu), user);
		return;
	}
	if (!fix) {
		printf("dgemm: OpenBLAS chose core %s on a CPU with %s; not re-running (--no-coretype-fix; "
		       "OPENBLAS_CORETYPE=%s would be faster)\n", core, dgemm_isa_name(cpu), want);
		return;
	}
	printf("dgemm: OpenBLAS chose core %s on a CPU with %s; re-running with OPENBLAS_CORETYPE=%s "
	       "(set OPENBLAS_CORETYPE to override)\n", core, dgemm_isa_name(cpu), want);
	fflush(stdout);
	if (setenv("OPENBLAS_CORETYPE", want, 1) || setenv(DGEMM_COREFIX_MARKER, core, 1)) {
		perror("dgemm: setenv");
		return;
	}
	execv("/proc/self/exe", argv);
	fprintf(stderr, "dgemm: cannot re-execute %s: %m; going on with core %s\n", argv[0], core);
	unsetenv("OPENBLAS_CORETYPE");
	unsetenv(DGEMM_COREFIX_MARKER);
}
