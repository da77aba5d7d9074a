# The samplers' tests: cmocka binaries that link the sampler objects
# directly with a fake runtime (tests/sampler/harness.h), helper programs
# the shell tests run, and bench/sampler (the fault sampler's cost).
SAMPLER_SRC := $(wildcard lib/tiermem/sampler-fault.c lib/tiermem/sampler-uffd-wp.c \
	lib/tiermem/sampler-none.c lib/tiermem/sampler-uffd.c lib/tiermem/sampler-damon.c lib/tiermem/damon-*.c)
SAMPLER_HDR := lib/tiermem/rt-sampler.h $(wildcard lib/tiermem/sampler-*.h) tests/sampler/harness.h
SAMPLER_TESTS := $(patsubst tests/sampler/%.c,$(B)/tests/%,$(wildcard tests/sampler/test_*.c))
SAMPLER_HELPERS := $(patsubst tests/sampler/%.c,$(B)/tests-helpers/%,$(wildcard tests/sampler/sampler-*.c))
SAMPLER_BENCH := $(B)/bench/sampler

$(B)/tests/test_sampler_%: tests/sampler/test_sampler_%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(SAMPLER_SRC) -lcmocka -lpthread -ldl -lm

$(B)/tests-helpers/sampler-%: tests/sampler/sampler-%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(SAMPLER_SRC) -lpthread

$(SAMPLER_BENCH): bench/sampler/sampler.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(SAMPLER_SRC) -lpthread

TEST_BINS += $(SAMPLER_TESTS) $(SAMPLER_HELPERS)
TARGETS += $(SAMPLER_BENCH)

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
	$(CC) $(ALL_CFLAGS) $(SAN_ASAN) -Itests -o $@ $< $(SAMPLER_SRC) -lcmocka -lpthread -ldl -lm
$(filter %-tsan,$(SAMPLER_SAN_TESTS)): $(B)/tests-helpers/%-tsan: tests/sampler/%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_TSAN) -Itests -o $@ $< $(SAMPLER_SRC) -lcmocka -lpthread -ldl -lm
$(filter %-asan,$(SAMPLER_SAN_HELPERS)): $(B)/tests-helpers/%-asan: tests/sampler/%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_ASAN) -Itests -o $@ $< $(SAMPLER_SRC) -lpthread
$(filter %-tsan,$(SAMPLER_SAN_HELPERS)): $(B)/tests-helpers/%-tsan: tests/sampler/%.c $(SAMPLER_SRC) $(SAMPLER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_TSAN) -Itests -o $@ $< $(SAMPLER_SRC) -lpthread

TARGETS += $(SAMPLER_SAN_TESTS) $(SAMPLER_SAN_HELPERS)
