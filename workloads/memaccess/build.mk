# memaccess: linked-list pointer chasing over a working set (TLB/huge-page probe).
WL_OPT ?= -O3 -march=native
MEMACCESS_SRC := workloads/memaccess/memaccess.c workloads/memaccess/memaccess-kernel.c
$(B)/libexec/tierlab/memaccess: $(MEMACCESS_SRC) $(wildcard workloads/memaccess/*.h workloads/common/*.h) $(B)/obj/workloads/memaccess/wl-sizes.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -Iworkloads/common -I$(B)/obj/workloads/memaccess -o $@ $(MEMACCESS_SRC)
$(B)/tests/test_memaccess: tests/unit/test_memaccess.c workloads/memaccess/memaccess-kernel.c $(wildcard workloads/memaccess/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iworkloads/memaccess -o $@ tests/unit/test_memaccess.c workloads/memaccess/memaccess-kernel.c -lcmocka
TARGETS += $(B)/libexec/tierlab/memaccess
TEST_BINS += $(B)/tests/test_memaccess
