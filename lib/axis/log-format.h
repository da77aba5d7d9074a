/*
 * The runtime's log (TIERLAB_LOG=log, tiermem-PID.log): one record a
 * line, a letter and then tab-separated fields, written by the runtime
 * (tiermem/record.c) and read by ingest (measure/ingest.c) and the
 * replay's trace loader (simulate/trace.c). Each record is one list here,
 * X(record, field, printf conversion): the writer's formats are generated
 * from it (TL_LOG_FORMAT) and the readers index fields by its enum, so a
 * field added or moved is one row. Macros only: the runtime includes it.
 *
 * Fields are appended, never moved: a log written by an older runtime is
 * read by the same indexes, and the readers take what a short line has.
 */
#ifndef TL_LOG_FORMAT_H
#define TL_LOG_FORMAT_H

#include <inttypes.h>

/* P: what a replay needs to decide as the process did; fractions are written after the format, comma-separated or "-". */
#define TL_LOG_P(X) \
	X(P, RESERVE_BYTES, "%zu") X(P, UNITS, "%u") X(P, MAX_CHUNKS, "%u") X(P, CHUNK_SIZE, "%" PRIu64) \
	X(P, BUDGET_CHUNKS, "%u") X(P, DYNAMIC_FRACTION, "%.17g") X(P, WINDOW, "%u") X(P, RATE_HZ, "%.17g") \
	X(P, THRESHOLD, "%" PRIu64) X(P, POLICY, "%s") X(P, POLICY_ARGS, "%s") X(P, FRACTIONS, "")
/* A: an allocation the runtime manages; SITE is module+0xoffset of CALLSITE. */
#define TL_LOG_A(X) \
	X(A, T_NS, "%" PRIu64) X(A, SEQ, "%u") X(A, ADDR, "0x%" PRIxPTR) X(A, BYTES, "%" PRIu64) \
	X(A, FIRST_CHUNK, "%u") X(A, NCHUNKS, "%u") X(A, CALLSITE, "0x%" PRIxPTR) X(A, SITE, "%s+0x%" PRIxPTR)
/* F: its free. */
#define TL_LOG_F(X) X(F, T_NS, "%" PRIu64) X(F, SEQ, "%u")
/* S: a sample; CHUNK -1 outside managed memory. */
#define TL_LOG_S(X) \
	X(S, T_NS, "%" PRIu64) X(S, ADDR, "0x%" PRIxPTR) X(S, PC, "0x%" PRIxPTR) X(S, TID, "%d") \
	X(S, CHUNK, "%ld") X(S, HIT, "%d") X(S, FLAGS, "%u")
/* M: a chunk's move, T_NS when it ended, START_NS when it began; DIRECTION a name of util/direction.h. */
#define TL_LOG_M(X) \
	X(M, T_NS, "%" PRIu64) X(M, CHUNK, "%u") X(M, ADDR, "0x%" PRIxPTR) X(M, BYTES, "%" PRIu64) \
	X(M, DIRECTION, "%s") X(M, OK, "%d") X(M, START_NS, "%" PRIu64)
/* D: the runtime thread began a drain. */
#define TL_LOG_D(X) X(D, T_NS, "%" PRIu64)

/* Field indexes: 0 is the record's letter. */
#define TL_LOG_FIELD_ENUM(rec, field, conv) TL_LOG_##rec##_##field,
enum { TL_LOG_P_KIND, TL_LOG_P(TL_LOG_FIELD_ENUM) TL_LOG_P__COUNT };
enum { TL_LOG_A_KIND, TL_LOG_A(TL_LOG_FIELD_ENUM) TL_LOG_A__COUNT };
enum { TL_LOG_F_KIND, TL_LOG_F(TL_LOG_FIELD_ENUM) TL_LOG_F__COUNT };
enum { TL_LOG_S_KIND, TL_LOG_S(TL_LOG_FIELD_ENUM) TL_LOG_S__COUNT };
enum { TL_LOG_M_KIND, TL_LOG_M(TL_LOG_FIELD_ENUM) TL_LOG_M__COUNT };
enum { TL_LOG_D_KIND, TL_LOG_D(TL_LOG_FIELD_ENUM) TL_LOG_D__COUNT };
#undef TL_LOG_FIELD_ENUM

/* The most fields a record has: what a reader splits a line into. */
#define TL_LOG_MAX_FIELDS TL_LOG_P__COUNT

/* A record's printf format, its letter and a tab before each field (no newline). */
#define TL_LOG_FIELD_FORMAT(rec, field, conv) "\t" conv
#define TL_LOG_FORMAT(rec) #rec TL_LOG_##rec(TL_LOG_FIELD_FORMAT)

#endif
