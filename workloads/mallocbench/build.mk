# mallocbench: malloc/free throughput (glibc bench-malloc-thread style).
WL_OPT ?= -O3 -march=native
MALLOCBENCH_SRC := workloads/mallocbench/mallocbench.c workloads/mallocbench/mallocbench-kernel.c
$(B)/libexec/tierlab/mallocbench: $(MALLOCBENCH_SRC) $(wildcard workloads/mallocbench/*.h workloads/common/*.h) $(B)/obj/workloads/mallocbench/wl-sizes.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -Iworkloads/common -I$(B)/obj/workloads/mallocbench -pthread -o $@ $(MALLOCBENCH_SRC) -ldl
$(B)/tests/test_mallocbench: tests/unit/test_mallocbench.c workloads/mallocbench/mallocbench-kernel.c $(wildcard workloads/mallocbench/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iworkloads/mallocbench -pthread -o $@ tests/unit/test_mallocbench.c workloads/mallocbench/mallocbench-kernel.c -lcmocka
TARGETS += $(B)/libexec/tierlab/mallocbench
TEST_BINS += $(B)/tests/test_mallocbench
