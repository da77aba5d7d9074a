# bench/simulate: samples replayed per second per configuration of a
# 60-configuration matrix (the program says how to call it).
$(B)/bench/simulate: bench/simulate/simulate.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(TIERLAB_LINK) $(CORE_LIBS)

TEST_BINS += $(B)/bench/simulate
