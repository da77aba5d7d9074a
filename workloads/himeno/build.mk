# himeno: the Himeno benchmark (OpenMP) and its unit test.
WL_OPT ?= -O3 -march=native
HIMENO_KERNEL := workloads/himeno/himeno-kernel.c workloads/himeno/himeno-check.c
HIMENO_SRC := workloads/himeno/himeno.c $(HIMENO_KERNEL)
$(B)/libexec/tierlab/himeno: $(HIMENO_SRC) $(wildcard workloads/himeno/*.h workloads/common/*.h) $(B)/obj/workloads/himeno/wl-sizes.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -I$(B)/obj/workloads/himeno -fopenmp -o $@ $(HIMENO_SRC) -lm
$(B)/tests/test_himeno: tests/unit/test_himeno.c $(HIMENO_KERNEL) $(wildcard workloads/himeno/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -fopenmp -Iworkloads/himeno -o $@ tests/unit/test_himeno.c $(HIMENO_KERNEL) -lcmocka -lm
TARGETS += $(B)/libexec/tierlab/himeno
TEST_BINS += $(B)/tests/test_himeno
