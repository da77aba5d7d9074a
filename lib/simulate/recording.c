/*
 * The facts that say what a recording is (recording.h): its delivered
 * sampling rate and whether its managed memory fits in the last-level
 * cache of the machine that recorded it.
 */
#include "simulate/recording.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"

uint64_t tl_llc_bytes(const char *root)
{
	uint64_t best = 0;
	int best_level = -1;

	for (int i = 0; i < 16; i++) {
		char path[512], text[64] = "";
		int level = -1;
		uint64_t size = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/level", root ? root : "/sys/devices/system/cpu", i);
		if (!(f = fopen(path, "r")))
			continue;
		if (fscanf(f, "%d", &level) != 1)
			level = -1;
		fclose(f);
		snprintf(path, sizeof(path), "%s/cpu0/cache/index%d/size", root ? root : "/sys/devices/system/cpu", i);
		if (!(f = fopen(path, "r")))
			continue;
		/* sysfs writes "32768K": a size with a binary suffix, as the units parser reads it */
		if (fgets(text, sizeof(text), f)) {
			text[strcspn(text, "\n")] = '\0';
			if (tl_parse_size(text, &size))
				size = 0;
		}
		fclose(f);
		if (level > best_level && size) {
			best_level = level;
			best = size;
		}
	}
	return best;
}

void tl_recording_facts(const struct tl_trace *t, uint64_t llc_bytes, struct tl_recording_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->llc_bytes = llc_bytes;
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct tl_trace_proc *p = &t->procs[i];
		double d = tl_trace_delivered_hz(p);

		f->managed_bytes += p->peak_bytes;
		if (p->p.known && p->p.rate_hz > f->asked_hz)
			f->asked_hz = p->p.rate_hz;
		if (d > 0 && (f->delivered_hz == 0 || d < f->delivered_hz))
			f->delivered_hz = d;
	}
	f->fits_llc = llc_bytes && f->managed_bytes <= llc_bytes;
	f->short_rate = f->asked_hz > 0 && f->delivered_hz < TL_RECORDING_SHORT * f->asked_hz;
}
