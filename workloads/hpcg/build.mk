# hpcg: HPCG 3.1 (OpenMP) and its unit test; when mpicc is found, also
# hpcg-mpi, the same sources with MPI ranks (-DHPCG_MPI, hpcg-mpi.c).
# See workloads/hpcg/hpcg.h.
WL_OPT ?= -O3 -march=native
HPCG_KERNEL := workloads/hpcg/hpcg-problem.c workloads/hpcg/hpcg-kernel.c workloads/hpcg/hpcg-cg.c workloads/hpcg/hpcg-check.c
HPCG_SRC := workloads/hpcg/hpcg.c $(HPCG_KERNEL)
$(B)/libexec/tierlab/hpcg: $(HPCG_SRC) $(wildcard workloads/hpcg/*.h workloads/common/*.h) $(B)/obj/workloads/hpcg/wl-sizes.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -I$(B)/obj/workloads/hpcg -fopenmp -o $@ $(HPCG_SRC) -lm
$(B)/tests/test_hpcg: tests/unit/test_hpcg.c $(HPCG_KERNEL) $(wildcard workloads/hpcg/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -fopenmp -Iworkloads/hpcg -o $@ tests/unit/test_hpcg.c $(HPCG_KERNEL) -lcmocka -lm
TARGETS += $(B)/libexec/tierlab/hpcg
TEST_BINS += $(B)/tests/test_hpcg

MPICC ?= $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
$(B)/libexec/tierlab/hpcg-mpi: $(HPCG_SRC) workloads/hpcg/hpcg-mpi.c $(wildcard workloads/hpcg/*.h workloads/common/*.h) $(B)/obj/workloads/hpcg-mpi/wl-sizes.h
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $(WL_OPT) -I$(B)/obj/workloads/hpcg-mpi -fopenmp -DHPCG_MPI -o $@ $(HPCG_SRC) workloads/hpcg/hpcg-mpi.c -lm
TARGETS += $(B)/libexec/tierlab/hpcg-mpi
endif
