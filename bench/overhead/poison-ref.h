/*
 * The reference the fault sampler is measured against: the poison
 * sampler of the SHAMBLES paper as DESIGN.md measured it on this machine
 * kind, done inside the program itself. A thread makes one 2 MiB block
 * PROT_NONE per tick (up to 8 at once, the oldest made readable again);
 * the program's first access faults, and a SIGSEGV handler on the
 * faulting thread itself restores the block. No thread is woken and no
 * page moves, but a system call touching a poisoned block would fail
 * with EFAULT: fine for a loop that makes none, not for a runtime inside
 * other people's programs.
 */
#ifndef BENCH_POISON_REF_H
#define BENCH_POISON_REF_H

#include <stddef.h>

/* 0, or -1 with errno. */
int poison_ref_start(void *base, size_t bytes, double hz);
/* Stops the thread, restores every block; returns the faults taken. */
long poison_ref_stop(void);

#endif
