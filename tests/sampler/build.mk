# The samplers' tests: cmocka binaries that link the sampler objects
# directly with a fake runtime (tests/sampler/harness.h), helper programs
# the shell tests run, and bench/sampler (the fault sampler's cost). The
# perf sampler's units have tests of their own (test_perf_*), one of them
# on a ring recorded by perf-ring-record (the fixture in this directory).
SAMPLER_SRC := $(wildcard lib/tiermem/sampler-fault.c lib/tiermem/sampler-uffd-wp.c \
	lib/tiermem/sampler-none.c lib/tiermem/sampler-uffd.c lib/tiermem/sampler-perf.c \
	lib/tiermem/perf-ring.c lib/tiermem/perf-spe.c lib/tiermem/perf-pmu.c \
	lib/tiermem/sampler-damon.c lib/tiermem/damon-sysfs.c lib/tiermem/damon-pick.c lib/tiermem/keepfd.c)
SAMPLER_HDR := lib/tiermem/rt-sampler.h lib/tiermem/keepfd.h $(wildcard lib/tiermem/sampler-*.h lib/tiermem/perf-*.h lib/tiermem/damon*.h tests/sampler/*.h)
SAMPLER_LIBS := -lpfm -lnuma -lpthread -lm
SAMPLER_DEFS := -DPERF_FIXTURE='"$(abspath tests/sampler/perf-ring-pagefaults.bin)"'
SAMPLER_TESTS := $(patsubst tests/sampler/%.c,$(B)/tests/%,$(wildcard tests/sampler/test_*.c))
SAMPLER_HELPERS := $(patsubst tests/sampler/%.c,$(B)/tests-helpers/%,$(wildcard tests/sampler/sampler-*.c))
SAMPLER_BENCH := $(B)/bench/sampler

$(B)/tests/test_sampler_%: tests/sampler/test_sampler_%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAMPLER_DEFS) -Itests -o $@ $< $(SAMPLER_SRC) -lcmocka $(SAMPLER_LIBS) -ldl

$(B)/tests/test_perf_%: tests/sampler/test_perf_%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAMPLER_DEFS) -Itests -o $@ $< $(SAMPLER_SRC) -lcmocka $(SAMPLER_LIBS) -ldl

$(B)/tests-helpers/sampler-%: tests/sampler/sampler-%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(SAMPLER_SRC) $(SAMPLER_LIBS)

# Writes tests/sampler/perf-ring-pagefaults.bin again (by hand, not by the tests).
$(B)/tests-helpers/perf-ring-record: tests/sampler/perf-ring-record.c lib/tiermem/perf-ring.c $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/sampler -o $@ $< lib/tiermem/perf-ring.c

$(SAMPLER_BENCH): bench/sampler/sampler.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(SAMPLER_SRC) $(SAMPLER_LIBS)

$(B)/bench/sampler-mechanisms: bench/sampler/mechanisms.c lib/tiermem/sampler-uffd.c $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< lib/tiermem/sampler-uffd.c -lpthread

TEST_BINS += $(SAMPLER_TESTS) $(SAMPLER_HELPERS) $(B)/tests-helpers/perf-ring-record
TEST_BINS += $(SAMPLER_BENCH) $(B)/bench/sampler-mechanisms

# The same tests built with ASan+UBSan and with TSan, run by
# tests/cli/sampler-sanitize.sh. Sanitizers replace malloc, so, as with the
# core (tests/tiermem/build.mk), the sampler sources are compiled into each
# test directly. They live in $(B)/tests-helpers/ so tests/run.sh does not
# also run them as unit tests.
SAN_ASAN := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
SAN_TSAN := -O1 -fno-omit-frame-pointer -fsanitize=thread
SAMPLER_SAN_TESTS := $(foreach s,asan tsan,$(patsubst tests/sampler/%.c,$(B)/tests-helpers/%-$(s),$(wildcard tests/sampler/test_*.c)))
SAMPLER_SAN_HELPERS := $(foreach s,asan tsan,$(patsubst tests/sampler/%.c,$(B)/tests-helpers/%-$(s),$(wildcard tests/sampler/sampler-*.c)))

$(filter %-asan,$(SAMPLER_SAN_TESTS)): $(B)/tests-helpers/%-asan: tests/sampler/%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_ASAN) $(SAMPLER_DEFS) -Itests -o $@ $< $(SAMPLER_SRC) -lcmocka $(SAMPLER_LIBS) -ldl
$(filter %-tsan,$(SAMPLER_SAN_TESTS)): $(B)/tests-helpers/%-tsan: tests/sampler/%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_TSAN) $(SAMPLER_DEFS) -Itests -o $@ $< $(SAMPLER_SRC) -lcmocka $(SAMPLER_LIBS) -ldl
$(filter %-asan,$(SAMPLER_SAN_HELPERS)): $(B)/tests-helpers/%-asan: tests/sampler/%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_ASAN) -Itests -o $@ $< $(SAMPLER_SRC) $(SAMPLER_LIBS)
$(filter %-tsan,$(SAMPLER_SAN_HELPERS)): $(B)/tests-helpers/%-tsan: tests/sampler/%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_TSAN) -Itests -o $@ $< $(SAMPLER_SRC) $(SAMPLER_LIBS)

TEST_BINS += $(SAMPLER_SAN_TESTS) $(SAMPLER_SAN_HELPERS)
