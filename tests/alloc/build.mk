# The allocator tests: the suite every allocator runs ($(B)/tests/alloc/suite,
# run by tests/cli/alloc-suite.sh under glibc, jemalloc and libfatalloc),
# helpers for pool exhaustion (fill) and for reuse and giving back (reuse),
# and libfatalloc's own logic linked directly
# (test_fatalloc, run by tests/run.sh; and its ASan+UBSan and TSan builds,
# run by alloc-suite.sh). Helpers sit in $(B)/tests/alloc/, a directory,
# so tests/run.sh does not run them on their own.
FAT_T := $(B)/tests/alloc
FAT_UNIT_DEPS := tests/alloc/test_fatalloc.c $(FAT_CORE_SRC) $(FAT_HDRS)
FAT_UNIT_BUILD = $(CC) $(ALL_CFLAGS) -pthread -o $@ tests/alloc/test_fatalloc.c $(FAT_CORE_SRC) -ldl -lcmocka

$(FAT_T)/suite: tests/alloc/suite.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -pthread -o $@ $< -ldl -lcmocka

$(FAT_T)/fill: tests/alloc/fill.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -ldl

$(FAT_T)/reuse: tests/alloc/reuse.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -pthread -o $@ $< -ldl

$(B)/tests/test_fatalloc: $(FAT_UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(FAT_UNIT_BUILD)

$(FAT_T)/fat-asan: $(FAT_UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(FAT_UNIT_BUILD) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined

$(FAT_T)/fat-tsan: $(FAT_UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(FAT_UNIT_BUILD) -O1 -fsanitize=thread

TEST_BINS += $(FAT_T)/suite $(FAT_T)/fill $(FAT_T)/reuse $(FAT_T)/fat-asan $(FAT_T)/fat-tsan
TEST_BINS += $(B)/tests/test_fatalloc
