/*
 * What libfatalloc.so exports besides the malloc API. A program need not
 * link against it: look the names up with dlsym(RTLD_DEFAULT, "fat_owns")
 * to learn whether the FAT allocator serves this process.
 */
#ifndef FAT_FATALLOC_API_H
#define FAT_FATALLOC_API_H

#include "util/export.h"

/* The backing of the first pool: "hugetlb-1G", "hugetlb-2M", "thp", "4k" or "none" (no pool yet). */
TL_EXPORT const char *fat_backing_name(void);

/* 1 when p lies in one of the pools (a block fatalloc served), else 0. */
TL_EXPORT int fat_owns(const void *p);

/* A counter of the status file by name (e.g. "pools", "fallback_allocs"); -1 when unknown. */
TL_EXPORT long long fat_stat_get(const char *name);

/* Rewrites $TIERLAB_OUT/fatalloc-PID.txt now (it is also written at each new pool and at exit). */
TL_EXPORT void fat_status_write(void);

#endif
