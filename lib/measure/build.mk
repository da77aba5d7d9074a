# lib/measure/rank: tierlab-rank, which counts perf events on one MPI rank
# (a run's launch: starts each rank through it when the spec has events:).
$(B)/libexec/tierlab/tierlab-rank: lib/measure/rank/tierlab-rank.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(TIERLAB_LINK) $(CORE_LIBS)

TARGETS += $(B)/libexec/tierlab/tierlab-rank
