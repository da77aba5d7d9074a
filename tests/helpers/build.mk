# Small programs the runner tests run as workloads (tests/unit/test_runner.c).
# They go to $(B)/tests-helpers/, not $(B)/tests/: tests/run.sh executes
# every file there.
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(B)/tests-helpers/%)
TEST_BINS += $(HELPER_BIN)

$(B)/tests-helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lnuma

# The runner test needs them built.
$(B)/tests/test_runner: $(HELPER_BIN)
