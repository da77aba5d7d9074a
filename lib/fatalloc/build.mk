# libfatalloc.so: the FAT-style huge-page pool allocator (lib/fatalloc/*.c),
# preloaded for `allocator: fat`. PIC objects of its own (in obj/fat, apart
# from the runtime's), hidden by default: it exports only the malloc API and
# the fat_* calls marked FAT_API.
FAT_SRC := $(wildcard lib/fatalloc/*.c)
FAT_PIC := $(FAT_SRC:%.c=$(B)/obj/fat/%.o) $(B)/obj/fat/lib/util/units.o
FAT_SO := $(B)/lib/tierlab/libfatalloc.so
# The allocator without the malloc override, for tests that call fat_* directly.
FAT_CORE_SRC := $(filter-out lib/fatalloc/override.c,$(FAT_SRC)) lib/util/units.c
FAT_HDRS := $(wildcard lib/fatalloc/*.h) lib/util/units.h

$(B)/obj/fat/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec $(DEPFLAGS) -c -o $@ $<

$(FAT_SO): $(FAT_PIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -Wl,-z,defs -Wl,-soname,libfatalloc.so -o $@ $(FAT_PIC) -ldl -lpthread

TARGETS += $(FAT_SO)
