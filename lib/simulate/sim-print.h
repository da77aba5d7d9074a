/*
 * The printers of tierlab simulate: one row per replayed configuration,
 * as a text table or CSV, over the replay's result and, with a tier
 * model, its estimate; and a calibration's fits against what was
 * measured.
 */
#ifndef TL_SIMULATE_SIM_PRINT_H
#define TL_SIMULATE_SIM_PRINT_H

#include <stdio.h>

#include "simulate/calibrate.h"
#include "simulate/calibrate-moves.h"
#include "simulate/model.h"
#include "simulate/replay.h"

enum tl_sim_format { TL_SIM_TEXT, TL_SIM_CSV, TL_SIM_FORMAT__COUNT };

/* The formats' names, by enum tl_sim_format, NULL-terminated (--format). */
extern const char *const tl_sim_format_names[TL_SIM_FORMAT__COUNT + 1];

/* The header; with a model (not NULL) it has the estimate's column. */
void tl_sim_print_header(FILE *out, enum tl_sim_format f, const struct tl_tier_model *m);

/*
 * One configuration's row: label, r, the estimate when m is not NULL (pl:
 * where its unmanaged memory is), and the replay's speed (0: unknown).
 */
void tl_sim_print_result(FILE *out, enum tl_sim_format f, const char *label, const struct tl_sim_result *r,
			 const struct tl_tier_model *m, const struct tl_model_place *pl, double samples_per_s);

/*
 * The calibration's n points (nruns[i]: the measured runs behind point
 * i) against m's estimates after the fit, and the fit's figures.
 */
void tl_sim_print_calibration(FILE *out, const struct tl_tier_model *m, const struct tl_calib_point *pts,
			      const int *nruns, size_t n, const struct tl_calib_fit *fit);

/* The migration figures fitted from n runs that made `moves` moves in drain_ns of the runtime's time. */
void tl_sim_print_moves_fit(FILE *out, size_t n, double moves, double drain_ns, const struct tl_calib_moves_fit *fit);

#endif
