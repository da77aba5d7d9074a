/*
 * The kernel settings the kernel policies change, named once: the
 * policies write them through the journal, and the journal writes back
 * nothing else. A journal lives in a state directory that may be shared
 * (TIERLAB_STATE_DIR); whatever its lines say, a replay can only put
 * tiering settings back, never write a file of someone's choosing.
 */
#ifndef TL_KTIER_SETTINGS_H
#define TL_KTIER_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#define TL_KS_NUMA_BALANCING "/proc/sys/kernel/numa_balancing"
#define TL_KS_PROMOTE_RATE "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps"
#define TL_KS_DEMOTION "/sys/kernel/mm/numa/demotion_enabled"
#define TL_KS_DEBUG_NB "/sys/kernel/debug/sched/numa_balancing"
#define TL_KS_HUGEPAGES "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages"
#define TL_KS_KDAMONDS "/sys/kernel/mm/damon/admin/kdamonds"
#define TL_KS_WEIGHTS "/sys/kernel/mm/mempolicy/weighted_interleave"
#define TL_KS_WEIGHT TL_KS_WEIGHTS "/node%d"
/* 6.16's auto mode (weights from HMAT); "__auto_type" where a kernel's `#define auto` renamed the file */
#define TL_KS_WEIGHTS_AUTO TL_KS_WEIGHTS "/auto"
#define TL_KS_WEIGHTS_AUTO2 TL_KS_WEIGHTS "/__auto_type"

/* A W entry may name `path`: one of the settings above (a node's huge pages: any node number). */
bool tl_ktier_setting_known(const char *path);

/* A D entry may name `dir`: the kdamonds directory. */
bool tl_ktier_kdamonds_known(const char *dir);

/*
 * A value a setting may be given back: one line of printable text without
 * blanks, shorter than 256 bytes (what tl_journal_set reads).
 */
bool tl_ktier_value_ok(const char *value);

/*
 * For tests only (the tierlab program never calls it): the directory that
 * stands for / in the names above, so that plain files can stand for
 * /proc/sys and /sys. NULL or "" is /.
 */
void tl_ktier_settings_root(const char *dir);

#endif
