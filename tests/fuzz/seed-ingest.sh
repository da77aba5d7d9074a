#!/usr/bin/env bash
# Packs a run directory's tiermem-PID.counters, tiermem-PID.log and
# fatalloc-PID.txt into one input of the ingest fuzz target (see
# tests/fuzz/fuzz-ingest.c): the counters' length in 2 bytes, the
# counters, the log, "%%fat%%", the allocator's file. The committed seeds
# in tests/fuzz/seeds/ingest came from a run of memaccess at size tiny
# under policy lru with log: log and allocator: fat.
#
#   tests/fuzz/seed-ingest.sh RUN_DIR OUT_FILE [LOG_LINES]
set -eu
dir=$1 out=$2 lines=${3:-40}
counters=$(ls "$dir"/tiermem-*.counters | head -1)
n=$(stat -c %s "$counters")
[ "$n" -lt 65536 ] || { echo "counters file too large: $n" >&2; exit 1; }
{
	printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $((n >> 8)))"
	cat "$counters"
	head -n "$lines" "$dir"/tiermem-*.log 2>/dev/null || true
	printf '\n%%%%fat%%%%\n'
	cat "$dir"/fatalloc-*.txt 2>/dev/null || true
} >"$out"
