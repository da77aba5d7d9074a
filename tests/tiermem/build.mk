# Programs and plugins the runtime's tests use (run by tests/cli/tiermem-*.sh
# and the cmocka binary test_rt_core). Helpers live in $(B)/tests/tiermem/,
# a directory, so tests/run.sh does not run them on their own.
TMT := $(B)/tests/tiermem
TIERMEM_TEST_POLICY := $(TMT)/policy-test.so

$(TIERMEM_TEST_POLICY): tests/tiermem/policy-test.c lib/policies/tierlab-policy.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -fvisibility=hidden -o $@ $<

# early-wrap.so needs early-alloc.so (found beside it): loaded after
# libnuma, early-alloc.so is initialised before it.
$(TMT)/early-alloc.so: tests/tiermem/early-alloc.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -Wl,-soname,early-alloc.so -o $@ $<
$(TMT)/early-wrap.so: tests/tiermem/early-wrap.c $(TMT)/early-alloc.so
	$(CC) $(ALL_CFLAGS) -shared -fPIC -o $@ $< -Wl,--no-as-needed $(TMT)/early-alloc.so -Wl,-rpath,'$$ORIGIN'

$(TMT)/stress: tests/tiermem/stress.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -pthread -o $@ $< -ldl -lm

$(TMT)/daemon: tests/tiermem/daemon.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $<

$(TMT)/advise: tests/tiermem/advise.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $<

# C++'s operators called from C (-lstdc++ for their definitions and std::nothrow)
$(TMT)/cxx-new: tests/tiermem/cxx-new.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lstdc++

# its dlsym is the one a preloaded libtiermem calls
$(TMT)/boot-dlsym: tests/tiermem/boot-dlsym.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wl,--export-dynamic-symbol=dlsym -o $@ $< -ldl

$(TMT)/counters-dump: tests/tiermem/counters-dump.c lib/tiermem/rt-stats.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $<

# The core linked directly (no interposer): plain, ASan+UBSan and TSan.
TIERMEM_CORE_DEPS := tests/tiermem/core-test.c $(TIERMEM_CORE_SRC) $(wildcard lib/tiermem/*.h) lib/util/units.h
$(B)/tests/test_rt_core: $(TIERMEM_CORE_DEPS) $(TIERMEM_TEST_POLICY)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DTEST_POLICY='"$(abspath $(TIERMEM_TEST_POLICY))"' -pthread -o $@ tests/tiermem/core-test.c $(TIERMEM_CORE_SRC) -ldl -lnuma -lpfm -lcmocka -lm
$(TMT)/core-asan: $(TIERMEM_CORE_DEPS) $(TIERMEM_TEST_POLICY)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -DTEST_POLICY='"$(abspath $(TIERMEM_TEST_POLICY))"' -pthread -o $@ tests/tiermem/core-test.c $(TIERMEM_CORE_SRC) -ldl -lnuma -lpfm -lcmocka -lm
$(TMT)/core-tsan: $(TIERMEM_CORE_DEPS) $(TIERMEM_TEST_POLICY)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O1 -fsanitize=thread -DTEST_POLICY='"$(abspath $(TIERMEM_TEST_POLICY))"' -pthread -o $@ tests/tiermem/core-test.c $(TIERMEM_CORE_SRC) -ldl -lnuma -lpfm -lcmocka -lm

TEST_BINS += $(TIERMEM_TEST_POLICY) $(TMT)/early-wrap.so $(TMT)/boot-dlsym $(TMT)/stress $(TMT)/daemon $(TMT)/advise $(TMT)/cxx-new $(TMT)/counters-dump $(TMT)/core-asan $(TMT)/core-tsan
TEST_BINS += $(B)/tests/test_rt_core
