/*
 * Where tierlab finds its parts. The build tree mirrors the installed
 * layout (see Makefile), so both are found relative to the running
 * executable: PREFIX/bin/tierlab -> PREFIX/lib/tierlab, PREFIX/libexec/tierlab,
 * PREFIX/share/tierlab/workloads. TIERLAB_HOME overrides PREFIX. Workload
 * descriptors are also looked up in the source tree (PREFIX/../workloads)
 * so a build runs without installing.
 *
 * Returned strings are static (computed once) unless said otherwise; NULL
 * when not found.
 */
#ifndef TL_PATHS_H
#define TL_PATHS_H

const char *tl_path_prefix(void);
const char *tl_path_libdir(void);	/* PREFIX/lib/tierlab: libtiermem.so, policies, allocators */
const char *tl_path_libexec(void);	/* PREFIX/libexec/tierlab: built-in workload programs */
const char *tl_path_workloads(void);	/* directory of workload descriptors */

/*
 * Resolves a descriptor: "<dir>/<name>.yaml" or "<dir>/<name>/workload.yaml";
 * malloc'd, or NULL (also for a name that would leave dir: "..", "a/b").
 */
char *tl_path_workload_descriptor(const char *dir, const char *name);

/* Path of a library in the tierlab lib dir ("libtiermem.so"), or NULL when not built; malloc'd. */
char *tl_path_lib(const char *name);

/* 1 when the dynamic loader's default directories hold this library (e.g. "libjemalloc.so.2"). */
int tl_path_system_lib(const char *soname);

/* Default database: $TIERLAB_DB, else TL_DB_DEFAULT (relative to the cwd). */
#define TL_DB_DEFAULT "results/tierlab.db"
const char *tl_path_default_db(void);

#endif
