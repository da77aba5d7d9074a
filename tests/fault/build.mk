# The fault-injection shim (tests/fault/fault-inject.c), preloaded into
# tierlab by tests/fault/sweep.sh (tests/cli/fault-inject-*.sh). In
# $(B)/tests/fault/, a directory,
# so tests/run.sh does not run it as a test.
FAULT_SHIM := $(B)/tests/fault/fault-inject.so

$(FAULT_SHIM): tests/fault/fault-inject.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -o $@ $< -ldl

TEST_BINS += $(FAULT_SHIM)
