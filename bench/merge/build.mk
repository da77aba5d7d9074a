# bench/merge: tierlab merge of many shards (default 100 shards of 100 runs).
$(B)/bench/merge: bench/merge/merge.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(TIERLAB_LINK) $(CORE_LIBS)

TEST_BINS += $(B)/bench/merge
