# bench/fidelity: accessgen, a program with a known access distribution,
# the ground truth bench/fidelity/run and tests/cli/fidelity.sh measure
# every sampler against.
FID := $(B)/bench/fidelity

$(FID)/accessgen: bench/fidelity/accessgen.c $(LIBTIERLAB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ bench/fidelity/accessgen.c $(LIBTIERLAB) -lpthread -lm

# ideal: the hit rate an ideal sampler gives through the same policy (replayed with lib/simulate)
$(FID)/ideal: bench/fidelity/ideal.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ bench/fidelity/ideal.c $(TIERLAB_LINK) $(CORE_LIBS)

TEST_BINS += $(FID)/accessgen $(FID)/ideal
