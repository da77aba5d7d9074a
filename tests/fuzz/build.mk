# Fuzzing (tests/fuzz, docs/reliability.md). Each tests/fuzz/fuzz-NAME.c is
# one target, built two ways from the same sources:
#   $(B)/fuzz/replay-NAME  any compiler, ASan+UBSan, replay.c as main: feeds
#       it the kept inputs (tests/fuzz/regress/NAME, the seeds) in
#       `make test` (tests/cli/fuzz-replay.sh), so CI needs no clang;
#   $(B)/fuzz/fuzz-NAME    clang with libFuzzer, for `make fuzz`, which runs
#       each target FUZZ_SECONDS (FUZZ_TARGETS to choose, FUZZ_ARGS for more
#       libFuzzer options) and fails naming any crash input it finds.
# Both go under $(B)/fuzz, not $(B)/tests: tests/run.sh runs what is there.
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz-%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_SAN := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_DEFS := -DFUZZ_WORKLOADS='"$(abspath workloads)"'
FUZZ_HDR := tests/fuzz/fuzz.h
# What the targets reach: the layers up to measure/, the built-in policies the planner asks,
# and the trace loader and replay of lib/simulate.
FUZZ_LIB_SRC := $(foreach d,util axis spec plan store measure,$(wildcard lib/$(d)/*.c)) $(POLICY_SRC) \
	lib/simulate/trace.c lib/simulate/replay.c
# The runtime's option parser stands alone, as in libtiermem.so.
FUZZ_RT_SRC := lib/tiermem/options.c lib/util/units.c
FUZZ_LIBS := -lyaml -lnuma -lpfm -lsqlite3 -lm
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(B)/fuzz/replay-%)

$(B)/obj/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUZZ_SAN) $(DEPFLAGS) -c -o $@ $<
$(B)/obj/fuzz/%.o: %.c | fuzz-cc
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c -o $@ $<

$(B)/obj/asan/libtierlab.a: $(FUZZ_LIB_SRC:%.c=$(B)/obj/asan/%.o)
	rm -f $@ && ar rcs $@ $^
$(B)/obj/fuzz/libtierlab.a: $(FUZZ_LIB_SRC:%.c=$(B)/obj/fuzz/%.o)
	rm -f $@ && ar rcs $@ $^

# Per target: what it links besides its own file.
fuzz_link = $(if $(filter rt-options,$(1)),$(FUZZ_RT_SRC:%.c=$(B)/obj/$(2)/%.o) -lnuma -lm,$(B)/obj/$(2)/libtierlab.a $(FUZZ_LIBS))
fuzz_deps = $(if $(filter rt-options,$(1)),$(FUZZ_RT_SRC:%.c=$(B)/obj/$(2)/%.o),$(B)/obj/$(2)/libtierlab.a)

.SECONDEXPANSION:
$(B)/fuzz/replay-%: tests/fuzz/fuzz-%.c tests/fuzz/replay.c $(FUZZ_HDR) $$(call fuzz_deps,$$*,asan)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUZZ_SAN) $(FUZZ_DEFS) -Itests -o $@ $< tests/fuzz/replay.c $(call fuzz_link,$*,asan)
$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_HDR) $$(call fuzz_deps,$$*,fuzz) | fuzz-cc
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer $(FUZZ_DEFS) -Itests -o $@ $< $(call fuzz_link,$*,fuzz)

fuzz-cc:
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs $(FUZZ_CC) with libFuzzer (Debian: apt-get install clang)" >&2; exit 1; }

fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz-%)
	@tests/fuzz/run.sh $(B) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

TEST_BINS += $(FUZZ_REPLAY)
.PHONY: fuzz fuzz-cc
