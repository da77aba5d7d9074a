# Fault injection, the new database's scenario: every call tierlab makes
# at the I/O points failed in turn (malloc's sampled), each run checked
# (tests/fault/sweep.sh says what; fault-inject-resume.sh is the other
# scenario, a test of its own so that both run side by side).
export FAULT_SCENARIOS=new
. "$(dirname "$0")/../fault/sweep.sh"
