# bench/overhead: the runtime's sampling cost on DGEMM and a streaming
# kernel. The top Makefile includes bench/build.mk but not bench/*/build.mk,
# so bench/overhead/run builds these with
#     make -f Makefile -f bench/overhead/build.mk <targets>
# (and they join `make all` as soon as some bench/build.mk includes this).
OVH := $(B)/bench/overhead

$(OVH)/stream: bench/overhead/stream.c bench/overhead/poison-ref.c bench/overhead/poison-ref.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ bench/overhead/stream.c bench/overhead/poison-ref.c -lpthread

$(OVH)/gaps: bench/overhead/gaps.c bench/overhead/poison-ref.c bench/overhead/poison-ref.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ bench/overhead/gaps.c bench/overhead/poison-ref.c -lpthread

$(OVH)/policy-observe.so: bench/overhead/policy-observe.c lib/policies/tierlab-policy.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -fvisibility=hidden -o $@ $<

$(OVH)/flush-floor.so: bench/overhead/flush-floor.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -fvisibility=hidden -o $@ $< -lpthread

$(OVH)/arm-cost: bench/overhead/arm-cost.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lpthread

TEST_BINS += $(OVH)/stream $(OVH)/gaps $(OVH)/policy-observe.so $(OVH)/flush-floor.so $(OVH)/arm-cost
