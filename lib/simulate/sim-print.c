/*
 * Printers of simulated configurations (see sim-print.h). Text is a table
 * in MiB and percent; CSV keeps the counters whole, bytes as bytes and
 * the occupancy curve as one cell of ';'-separated points.
 */
#include "simulate/sim-print.h"

#include "util/quote.h"

const char *const tl_sim_format_names[TL_SIM_FORMAT__COUNT + 1] = { "text", "csv", NULL };

void tl_sim_print_header(FILE *out, enum tl_sim_format f, const struct tl_tier_model *m)
{
	if (f == TL_SIM_CSV) {
		fprintf(out, "config,samples,samples_managed,hit_rate,mig_slow_to_fast,bytes_slow_to_fast,"
			"mig_fast_to_slow,bytes_fast_to_slow,budget_refused,fast_peak_bytes,fast_mean_bytes,occupancy,"
			"%ssamples_per_s\n", m ? "estimate," : "");
		return;
	}
	fprintf(out, "%-56s %9s %7s %10s %10s %10s %10s %8s %10s%s %12s\n", "simulated configuration", "samples",
		"hit%", "s->f", "s->f MiB", "f->s", "f->s MiB", "refused", "fast MiB", m ? "  est%fast" : "",
		"samples/s");
}

void tl_sim_print_result(FILE *out, enum tl_sim_format f, const char *label, const struct tl_sim_result *r,
			 const struct tl_tier_model *m, const struct tl_model_place *pl, double samples_per_s)
{
	double mean = 0;

	for (int i = 0; i < TL_SIM_OCC_POINTS; i++)
		mean += r->occupancy[i] / TL_SIM_OCC_POINTS;
	if (f == TL_SIM_CSV) {
		tl_quote_csv(out, label);
		fprintf(out, ",%llu,%llu,%.6f,%llu,%llu,%llu,%llu,%llu,%llu,%.0f,", (unsigned long long)r->samples,
			(unsigned long long)r->samples_managed, tl_sim_hit_rate(r),
			(unsigned long long)r->moves[TL_DIR_SLOW_TO_FAST],
			(unsigned long long)r->bytes[TL_DIR_SLOW_TO_FAST],
			(unsigned long long)r->moves[TL_DIR_FAST_TO_SLOW],
			(unsigned long long)r->bytes[TL_DIR_FAST_TO_SLOW], (unsigned long long)r->refused,
			(unsigned long long)r->fast_peak_bytes, mean);
		for (int i = 0; i < TL_SIM_OCC_POINTS; i++)
			fprintf(out, "%s%.0f", i ? ";" : "", r->occupancy[i]);
		if (m)
			fprintf(out, ",%.4f", tl_tier_model_estimate(m, r, pl));
		fprintf(out, ",%.0f\n", samples_per_s);
		return;
	}
	fprintf(out, "%-56.56s %9llu %6.1f%% %10llu %10.1f %10llu %10.1f %8llu %10.1f", label,
		(unsigned long long)r->samples, 100 * tl_sim_hit_rate(r),
		(unsigned long long)r->moves[TL_DIR_SLOW_TO_FAST], (double)r->bytes[TL_DIR_SLOW_TO_FAST] / 1048576.0,
		(unsigned long long)r->moves[TL_DIR_FAST_TO_SLOW], (double)r->bytes[TL_DIR_FAST_TO_SLOW] / 1048576.0,
		(unsigned long long)r->refused, mean / 1048576.0);
	if (m)
		fprintf(out, " %9.1f%%", 100 * tl_tier_model_estimate(m, r, pl));
	fprintf(out, " %12.3g\n", samples_per_s);
}

void tl_sim_print_calibration(FILE *out, const struct tl_tier_model *m, const struct tl_calib_point *pts,
			      const int *nruns, size_t n, const struct tl_calib_fit *fit)
{
	fprintf(out, "%-48s %5s %10s %10s %9s\n", "configuration", "runs", "measured", "model", "residual");
	for (size_t i = 0; i < n; i++) {
		double e = tl_tier_model_estimate(m, pts[i].r, &pts[i].place);

		fprintf(out, "%-48.48s %5d %9.2f%% %9.2f%% %+8.2f\n", pts[i].label, nruns[i], 100 * pts[i].measured,
			100 * e, 100 * (e - pts[i].measured));
	}
	fprintf(out, "fit: compute %.4g ns/byte, overlap %.3f, mlp %s%.4g; residual rms %.2f points, largest %.2f; "
		"held out (each configuration predicted by a fit without it): within %.2f points\n",
		m->compute_ns_per_byte, m->overlap, m->mlp > 0 ? "" : "unlimited ", m->mlp, 100 * fit->rms,
		100 * fit->max_abs, 100 * fit->held_out);
}

void tl_sim_print_moves_fit(FILE *out, size_t n, double moves, double drain_ns, const struct tl_calib_moves_fit *fit)
{
	fprintf(out, "migration: %zu runs that migrated, %.0f moves, %.1f ms of the runtime's time each on average; "
		"fit: %.1f us per move + %.3f GB/s%s; residual rms %.1f ms of drain per run, largest %.0f%% of its "
		"run's\n", n, moves, drain_ns / moves / 1e6, fit->cost_us, fit->gbs,
		fit->per_byte_only ? " (the two terms not separable here: all of it per byte)" : "", fit->rms_ms,
		100 * fit->max_rel);
}
