# bench/fidelity: accessgen, a program with a known access distribution,
# the ground truth bench/fidelity/run and tests/cli/fidelity.sh measure
# every sampler against.
FID := $(B)/bench/fidelity

$(FID)/accessgen: bench/fidelity/accessgen.c $(LIBTIERLAB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ bench/fidelity/accessgen.c $(LIBTIERLAB) -lpthread -lm

TARGETS += $(FID)/accessgen
