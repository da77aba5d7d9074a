/* The version string, from `git describe` at build time. */
#include "util/version.h"

const char tl_version[] = TIERLAB_VERSION;
