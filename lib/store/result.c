/*
 * Names of the run record's enums, as the store writes them.
 */
#include "store/result.h"

/* Must match enum tl_run_status. */
const char *const tl_status_names[TL_STATUS__COUNT] = {
	[TL_STATUS_OK] = "ok",
	[TL_STATUS_FAILED] = "failed",
	[TL_STATUS_TIMEOUT] = "timeout",
	[TL_STATUS_CRASHED] = "crashed",
};
