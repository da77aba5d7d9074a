/*
 * What a preloaded library or plugin exports. They build with
 * -fvisibility=hidden, so that their internals never bind to a program's
 * symbols of the same name; only what is marked here is seen.
 */
#ifndef TL_UTIL_EXPORT_H
#define TL_UTIL_EXPORT_H

#define TL_EXPORT __attribute__((visibility("default")))

#endif
