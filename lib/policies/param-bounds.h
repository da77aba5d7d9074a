/*
 * Bounds of the built-in policies' parameters, each derived from what the
 * parameter costs inside the measured program: a policy's state lives in
 * the program's memory and its init runs in the program's first managed
 * malloc. Written once here; the axis table (lib/axis/axes.h: the spec,
 * sweep and TIERLAB_* variables, the runtime's and the simulator's option
 * parser), the policies' own reading of policy_args, and the trace loader
 * take them from here. Macros only: the preloaded runtime includes this.
 */
#ifndef TIERLAB_PARAM_BOUNDS_H
#define TIERLAB_PARAM_BOUNDS_H

#define TLP_STR_(x) #x
#define TLP_STR(x) TLP_STR_(x)

/*
 * window: each sample of the window is a ring slot (8 bytes) and, per tier,
 * the sentinel of one more frequency bucket (two 4-byte links each): 24
 * bytes, 16 of them written at init. 10^6 samples are 24 MB and ~25 ms of
 * set-up in the program (measured on the development VM; 10^7: 0.5 s, 10^8:
 * 1.6 GB and 2 s, 10^9 never finished), and 100 s of samples at 10 kHz,
 * far above the studied 16 and 128. window.c asserts the slot size.
 */
#define TLP_WINDOW_SLOT_BYTES 24
#define TLP_WINDOW_MAX 1000000
#define TLP_WINDOW_COST "24 bytes each in the program, 24 MB at most"
/* What the window axis, the policy's .params and the simulator take when nothing sets it (the SHAMBLES paper's). */
#define TLP_WINDOW_DEFAULT 16
/* The range as every refusal of a window says it. */
#define TLP_WINDOW_RANGE "1 to " TLP_STR(TLP_WINDOW_MAX) " (" TLP_WINDOW_COST ")"

#endif
