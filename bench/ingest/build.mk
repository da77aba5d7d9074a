# bench/ingest: the runtime's log and counters files into the store, in rows
# per second (the program says how to call it).
$(B)/bench/ingest: bench/ingest/ingest.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(TIERLAB_LINK) $(CORE_LIBS)

TEST_BINS += $(B)/bench/ingest
