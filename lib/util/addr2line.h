/*
 * Naming a call site: "binary+0xoff" (as the runtime logs a malloc's
 * return address, docs/runtime.md) to "function file.c:line" with
 * binutils' addr2line, when the binary is still there and addr2line is
 * installed. For display only (show --allocations); nothing depends on it.
 */
#ifndef TL_ADDR2LINE_H
#define TL_ADDR2LINE_H

#include <stddef.h>

/*
 * The function and source line of the call that returns to callsite, into
 * out ("problem_alloc hpcg-problem.c:30", the file without its
 * directories), and the functions it was inlined into, innermost first
 * ("problem_alloc hpcg-problem.c:30 < level_alloc hpcg-problem.c:117"). 0; -EINVAL when callsite is not "path+0xhex"; -ENOENT when
 * the binary or addr2line is missing or it knows nothing ("??").
 */
int tl_addr2line(const char *callsite, char *out, size_t len);

#endif
