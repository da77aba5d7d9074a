/*
 * Units shared by specs, the command line and the runtime's variables.
 *
 * Sizes: a number (decimals allowed) and a unit. B is bytes; K/M/G/T and
 * KiB/MiB/GiB/TiB are binary (1024-based, as numactl and the kernel use
 * them); kB/MB/GB/TB are decimal. "231.75MiB", "32M", "4097B".
 * Rates: Hz, kHz, MHz. "10Hz", "1kHz".
 * Durations: ms, s, m, h; no unit means seconds. "90s", "10m", "90".
 * Percentages: "40%" -> 0.40 (0 < p <= 100 is the caller's to check).
 *
 * A size, rate or budget without a unit is refused: "budget: 40" was 40
 * bytes, silently, where 40 MiB or 40% was meant. Only a bare 0 is a size
 * (zero in any unit: TIERLAB_CACHE=0). tl_parse_bytes and
 * tl_parse_budget_bytes take a bare number as bytes, for the one
 * documented form that means it: the SHAMBLES_* variables (SHAMBLES's own
 * values are byte counts).
 *
 * Every parser takes the whole string (leading/trailing blanks allowed),
 * returns 0 and stores the value, or returns -EINVAL (-ENODATA for a bare
 * number where a unit is needed) and leaves *out alone. Negative values,
 * NaN, inf and overflow are rejected.
 */
#ifndef TL_UNITS_H
#define TL_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* -EDOM (not -EINVAL) when the text is a size but not a whole number of bytes ("1.5B"). */
int tl_parse_size(const char *s, uint64_t *bytes);
/* The same, a bare number being bytes (SHAMBLES_* compatibility only). */
int tl_parse_bytes(const char *s, uint64_t *bytes);
int tl_parse_rate(const char *s, double *hz);
int tl_parse_duration(const char *s, double *seconds);
int tl_parse_percent(const char *s, double *fraction);

/*
 * The sampling rates a run may ask for: below a thousandth of a hertz a
 * run never samples, above a megahertz the sampler cannot keep up (the
 * runtime refuses TIERLAB_RATE above it too).
 */
#define TL_RATE_MIN_HZ 0.001
#define TL_RATE_MAX_HZ 1e6

/* A budget is either a size or a percentage of the managed footprint (-EDOM as for sizes). */
struct tl_budget {
	int is_percent;
	uint64_t bytes;   /* when !is_percent */
	double fraction;  /* when is_percent, 0 < fraction <= 1 */
};
int tl_parse_budget(const char *s, struct tl_budget *out);
/* The same, a bare number being bytes (SHAMBLES_FAST_MEM_SIZE). */
int tl_parse_budget_bytes(const char *s, struct tl_budget *out);

/*
 * What a value without a unit (what: "size", "rate" or "budget") should
 * have looked like, with its own number, for the message that refuses it:
 * "write 40B for bytes, or 40KiB, 40MiB".
 */
int tl_units_expected(char *buf, size_t len, const char *what, const char *value);

/*
 * Canonical text, stable across versions (it feeds run keys): sizes as
 * the largest binary unit that keeps the value exact to 1/100 ("32MiB",
 * "231.75MiB", "4097B"), rates as "%gHz" ("10Hz", "1000Hz"), budgets as a
 * size or "40%". Return the length written (snprintf semantics).
 */
int tl_format_size(char *buf, size_t len, uint64_t bytes);
int tl_format_rate(char *buf, size_t len, double hz);
int tl_format_budget(char *buf, size_t len, const struct tl_budget *b);

/* Human text for reports: "1.50 GiB", "512 KiB", "3 B"; a rate in its largest unit: "0.001Hz", "1MHz". */
int tl_format_size_human(char *buf, size_t len, uint64_t bytes);
int tl_format_rate_human(char *buf, size_t len, double hz);

#endif
