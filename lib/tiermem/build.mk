# libtiermem.so: the preloaded tiering runtime (lib/tiermem/*.c, including
# the samplers of lib/tiermem/sampler-*.c when present), built from PIC
# objects of its own, exporting only the malloc API and tlrt_* symbols.
TIERMEM_SRC := $(wildcard lib/tiermem/*.c)
TIERMEM_PIC := $(TIERMEM_SRC:%.c=$(B)/obj/pic/%.o) $(B)/obj/pic/lib/util/units.o
TIERMEM_SO := $(B)/lib/tierlab/libtiermem.so
TIERMEM_LIBS := -ldl -lnuma -lpthread -lm
# The core without the interposers (malloc API, madvise), for tests that call tlrt_* directly.
TIERMEM_CORE_SRC := $(filter-out lib/tiermem/override.c lib/tiermem/advise.c,$(TIERMEM_SRC)) lib/util/units.c

$(B)/obj/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(DEPFLAGS) -c -o $@ $<

$(TIERMEM_SO): $(TIERMEM_PIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -Wl,-z,defs -Wl,-soname,libtiermem.so -o $@ $(TIERMEM_PIC) $(TIERMEM_LIBS)

$(B)/tests/test_rt_options: tests/unit/test_rt_options.c lib/tiermem/options.c lib/util/units.c $(wildcard lib/tiermem/*.h) lib/util/units.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ tests/unit/test_rt_options.c lib/tiermem/options.c lib/util/units.c -lnuma -lcmocka -lm

TARGETS += $(TIERMEM_SO)
TEST_BINS += $(B)/tests/test_rt_options
