# Static programs for the multi-node guest (tests/guest/run-in-guest.sh):
# the guest's initramfs has no loader or libraries. They go to $(B)/guest/,
# not $(B)/tests/ (tests/run.sh executes every file there); the shell tests
# tests/cli/probe-guest.sh and guest-move.sh run them in the guest.
GUEST_BINS := $(B)/guest/move-check $(B)/guest/probe-driver
TEST_BINS += $(GUEST_BINS)

$(B)/guest/move-check: tests/guest/move-check.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -static -o $@ $< -lnuma

# The probe library linked statically, with what it needs from libtierlab.
$(B)/guest/probe-driver: tests/guest/probe-driver.c $(LIBTIERLAB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -static -o $@ $< $(LIBTIERLAB) $(CORE_LIBS) -lpthread -ldl

# The tiering runtime's core (lib/tiermem without the interposer, and
# without policy-load.c: the guest has no dlopen, the program loads LRU from
# libpolicies.a itself) linked statically; tests/cli/tiermem-guest.sh.
GUEST_TIERMEM_SRC := $(filter-out lib/tiermem/policy-load.c,$(TIERMEM_CORE_SRC))
$(B)/guest/tiermem-guest: tests/guest/tiermem-guest.c $(GUEST_TIERMEM_SRC) $(wildcard lib/tiermem/*.h) lib/util/units.h $(POLICY_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -static -pthread -o $@ tests/guest/tiermem-guest.c $(GUEST_TIERMEM_SRC) $(POLICY_LIB) -lnuma -lm
GUEST_BINS += $(B)/guest/tiermem-guest
TEST_BINS += $(B)/guest/tiermem-guest
