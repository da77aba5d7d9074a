/*
 * The number of elements of an array (not of a pointer: the compiler
 * refuses one).
 */
#ifndef TL_ARRAY_H
#define TL_ARRAY_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + \
	0 * sizeof(char[1 - 2 * __builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))]))

#endif
