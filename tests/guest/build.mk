# Programs for the multi-node guest (tests/guest/run-in-guest.sh), static
# since the guest's initramfs has no loader or libraries unless a test puts
# them there (hotcold below). They go to $(B)/guest/, not $(B)/tests/
# (tests/run.sh executes every file there); the shell tests
# tests/cli/probe-guest.sh, tiermem-guest.sh and tierlab-guest.sh run them.
GUEST_BINS := $(B)/guest/move-check $(B)/guest/probe-driver
TEST_BINS += $(GUEST_BINS)

$(B)/guest/move-check: tests/guest/move-check.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -static -o $@ $< -lnuma

# The probe library linked statically, with what it needs from libtierlab.
$(B)/guest/probe-driver: tests/guest/probe-driver.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -static -o $@ $< $(TIERLAB_LINK) $(CORE_LIBS) -lpthread -ldl

# The tiering runtime's core (lib/tiermem without the interposer, and
# without policy-load.c: the guest has no dlopen, the program loads LRU from
# libpolicies.a itself) linked statically, with libtierlab's vmstat reader;
# tests/cli/tiermem-guest.sh.
GUEST_TIERMEM_SRC := $(filter-out lib/tiermem/policy-load.c,$(TIERMEM_CORE_SRC))
$(B)/guest/tiermem-guest: tests/guest/tiermem-guest.c $(GUEST_TIERMEM_SRC) $(wildcard lib/tiermem/*.h) lib/util/units.h $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -static -pthread -o $@ tests/guest/tiermem-guest.c $(GUEST_TIERMEM_SRC) $(TIERLAB_LINK) $(CORE_LIBS) -ldl
GUEST_BINS += $(B)/guest/tiermem-guest
TEST_BINS += $(B)/guest/tiermem-guest

# The hot/cold program of tests/cli/tierlab-guest.sh: a tierlab workload
# under LD_PRELOAD, so dynamically linked (the test copies the loader and
# libraries into the guest).
$(B)/guest/hotcold: tests/guest/hotcold.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lnuma
TEST_BINS += $(B)/guest/hotcold

# The damon sampler against the guest's kdamond; tests/cli/damon-guest.sh.
$(B)/guest/damon-guest: tests/guest/damon-guest.c $(GUEST_TIERMEM_SRC) $(wildcard lib/tiermem/*.h) lib/util/units.h $(POLICY_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -static -pthread -o $@ tests/guest/damon-guest.c $(GUEST_TIERMEM_SRC) $(POLICY_LIB) -lnuma -lpfm -lm
GUEST_BINS += $(B)/guest/damon-guest
TEST_BINS += $(B)/guest/damon-guest

# memaccess without -march=native (the guest's emulated CPU lacks what this
# machine's has), for libfatalloc on 1 GiB pages; tests/cli/fat-guest.sh.
$(B)/guest/memaccess: $(MEMACCESS_SRC) $(wildcard workloads/memaccess/*.h workloads/common/*.h) $(B)/obj/workloads/memaccess/wl-sizes.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O2 -Iworkloads/common -I$(B)/obj/workloads/memaccess -o $@ $(MEMACCESS_SRC)
TEST_BINS += $(B)/guest/memaccess

# The placement program of tests/cli/mempolicy-guest.sh: a tierlab workload
# (dynamically linked, as hotcold) that reports which node each page is on.
$(B)/guest/placement: tests/guest/placement.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lnuma
TEST_BINS += $(B)/guest/placement
