#ifndef TL_VERSION_H
#define TL_VERSION_H
extern const char tl_version[];
#endif
