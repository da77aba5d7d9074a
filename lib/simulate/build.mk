# lib/simulate: the offline replay (tierlab simulate). Its objects join
# libtierlab.a with the runtime's option parser (lib/tiermem/options.c),
# so a replay reads TIERLAB_* variables exactly as the runtime does.
LIB_OBJ += $(patsubst %.c,$(B)/obj/%.o,$(wildcard lib/simulate/*.c) lib/tiermem/options.c)
