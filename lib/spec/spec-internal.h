/*
 * Shared by the spec parser's files (spec.c, spec-workload.c,
 * spec-matrix.c, spec-launch.c, spec-slurm.c); not a public contract. They
 * read the file with the YAML toolkit (yaml.h) and report the first
 * problem as one "FILE:LINE:COL: field: message" line.
 */
#ifndef TL_SPEC_INTERNAL_H
#define TL_SPEC_INTERNAL_H

#include <stdbool.h>
#include "spec/spec.h"
#include "spec/yaml.h"

/*
 * Workloads (spec-workload.c). A spec's `workload:` map (mode SPEC: size
 * and threads go to *size and *threads for the spec's defaults), an item
 * of `workloads:` (LIST: size becomes that workload's default_size), or a
 * descriptor file's root (DESCRIPTOR).
 */
enum tl_wl_mode { TL_WL_SPEC, TL_WL_LIST, TL_WL_DESCRIPTOR };
int tl_spec_parse_workload(struct tl_yaml *y, yaml_node_t *map, const char *field, enum tl_wl_mode mode,
			   const char *workloads_dir, struct tl_workload *wl, char **size, char **threads);
/* Does the workload have a size preset of this name? */
bool tl_workload_has_size(const struct tl_workload *wl, const char *size);
/* "tiny, small, medium" into buf. */
void tl_workload_size_names(const struct tl_workload *wl, char *buf, size_t len);

/*
 * Axis values (spec-matrix.c): one value node (a scalar, or for policies
 * {static: [F, ...]}) canonicalised, and checked against the spec's
 * workloads for the workload and size axes.
 */
int tl_spec_axis_value(struct tl_yaml *y, const struct tl_spec *spec, yaml_node_t *n, enum tl_axis axis,
		       const char *field, char **out);
/* matrix: (after the workloads are known) and baseline: (after the matrix). */
int tl_spec_parse_matrix(struct tl_yaml *y, yaml_node_t *map, struct tl_spec *spec);
int tl_spec_parse_selector(struct tl_yaml *y, yaml_node_t *map, const char *field, struct tl_spec *spec,
			   struct tl_selector *sel);
/*
 * Every parameter in policy_args (the default and the matrix's values) is
 * one some policy of the spec takes (a built-in declares it, or a plugin
 * takes whatever it is given); the others are refused with did-you-mean.
 */
int tl_spec_check_policy_args(struct tl_yaml *y, const struct tl_spec *spec);
/* Names of the axes from tl_axes[], NULL-terminated, for did-you-mean. */
const char *const *tl_spec_axis_names(void);

/* launch: (spec-launch.c) into spec->launch. */
int tl_spec_parse_launch(struct tl_yaml *y, yaml_node_t *n, struct tl_spec *spec);
/* slurm: (spec-slurm.c) into spec->slurm. */
int tl_spec_parse_slurm(struct tl_yaml *y, yaml_node_t *n, struct tl_spec *spec);

#endif
