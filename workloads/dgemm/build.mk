# dgemm: ACES mt-dgemm over OpenBLAS, and its unit test.
WL_OPT ?= -O3 -march=native
DGEMM_KERNEL := workloads/dgemm/dgemm-kernel.c workloads/dgemm/dgemm-coretype.c
DGEMM_SRC := workloads/dgemm/dgemm.c $(DGEMM_KERNEL)
$(B)/libexec/tierlab/dgemm: $(DGEMM_SRC) $(wildcard workloads/dgemm/*.h workloads/common/*.h) $(B)/obj/workloads/dgemm/wl-sizes.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -I$(B)/obj/workloads/dgemm -fopenmp -o $@ $(DGEMM_SRC) -lopenblas -lm
$(B)/tests/test_dgemm: tests/unit/test_dgemm.c $(DGEMM_KERNEL) $(wildcard workloads/dgemm/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -fopenmp -Iworkloads/dgemm -o $@ tests/unit/test_dgemm.c $(DGEMM_KERNEL) -lopenblas -lcmocka -lm
TARGETS += $(B)/libexec/tierlab/dgemm
TEST_BINS += $(B)/tests/test_dgemm
