# Fault injection, the --resume scenario (a database with the first run
# stored): every call tierlab makes at the I/O points failed in turn
# (malloc's sampled), each run checked (tests/fault/sweep.sh says what;
# fault-inject-new.sh is the other scenario).
export FAULT_SCENARIOS=resume
. "$(dirname "$0")/../fault/sweep.sh"
