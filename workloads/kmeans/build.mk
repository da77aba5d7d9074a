# kmeans: Phoenix-style k-means (pthreads). See workloads/kmeans/kmeans.h.
WL_OPT ?= -O3 -march=native
KMEANS_SRC := workloads/kmeans/kmeans.c workloads/kmeans/kmeans-kernel.c
$(B)/libexec/tierlab/kmeans: $(KMEANS_SRC) $(wildcard workloads/kmeans/*.h workloads/common/*.h) $(B)/obj/workloads/kmeans/wl-sizes.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -Iworkloads/common -I$(B)/obj/workloads/kmeans -pthread -o $@ $(KMEANS_SRC)
$(B)/tests/test_kmeans: tests/unit/test_kmeans.c workloads/kmeans/kmeans-kernel.c $(wildcard workloads/kmeans/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WL_OPT) -Iworkloads/kmeans -pthread -o $@ tests/unit/test_kmeans.c workloads/kmeans/kmeans-kernel.c -lcmocka
TARGETS += $(B)/libexec/tierlab/kmeans
TEST_BINS += $(B)/tests/test_kmeans
