/*
 * wl-sizes: a workload descriptor's name, description and size presets as
 * a C header, so a workload program's -h and --size say exactly what
 * workload.yaml says (they are written once, there). Reads the descriptor with tierlab's
 * own parser; built and run by the build (workloads/common/build.mk).
 *
 *   wl-sizes workloads/NAME/workload.yaml > wl-sizes.h
 */
#include <stdio.h>
#include "spec/spec.h"

/* s as a C string literal. */
static void literal(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

int main(int argc, char **argv)
{
	struct tl_workload wl = { 0 };
	struct tl_error err;

	if (argc != 2) {
		fprintf(stderr, "usage: wl-sizes WORKLOAD.yaml\n");
		return 2;
	}
	if (tl_workload_load(argv[1], &wl, &err)) {
		fprintf(stderr, "wl-sizes: %s\n", err.msg);
		return 1;
	}
	printf("/* Generated from %s by wl-sizes: the descriptor is the source. */\n", argv[1]);
	printf("#define WL_NAME ");
	literal(wl.name);
	printf("\n#define WL_DESCRIPTION ");
	literal(wl.description ? wl.description : "");
	printf("\n#define WL_DEFAULT_SIZE ");
	literal(wl.default_size ? wl.default_size : "");
	printf("\n/* what a workload's struct wl_cmd takes from its descriptor */\n");
	printf("#define WL_DESCRIPTOR .prog = WL_NAME, .summary = WL_DESCRIPTION, .sizes = wl_sizes");
	printf("\nstatic const struct wl_size wl_sizes[] = {\n");
	for (size_t i = 0; i < wl.nsizes; i++) {
		printf("\t{ ");
		literal(wl.sizes[i].name);
		printf(", (const char *const[]){ ");
		for (size_t a = 0; a < wl.sizes[i].args.n; a++) {
			literal(wl.sizes[i].args.v[a]);
			printf(", ");
		}
		printf("NULL } },\n");
	}
	printf("\t{ NULL, NULL },\n};\n");
	tl_workload_release(&wl);
	return 0;
}
