# What the workloads share: wl-sizes turns a workload's descriptor into
# the header of its size presets ($(B)/obj/workloads/NAME/wl-sizes.h), so a
# workload's build.mk only adds -I$(B)/obj/workloads/NAME and depends on
# that header; the presets are written once, in workload.yaml.
#
# Every workload is compiled with -frecord-gcc-switches: the options (and
# what -march=native meant on the machine that built it) stay in the
# program's .GCC.command.line section, and each run's record says them
# (workload.cflags, lib/measure/program-id.c). This file is read before the
# workloads' own, so their WL_OPT ?= default does not apply over it.
WL_OPT ?= -O3 -march=native
override WL_OPT += -frecord-gcc-switches
WL_SIZES := $(B)/obj/wl-sizes

$(WL_SIZES): workloads/common/wl-sizes.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(TIERLAB_LINK) $(CORE_LIBS)

$(B)/obj/workloads/%/wl-sizes.h: workloads/%/workload.yaml $(WL_SIZES)
	@mkdir -p $(dir $@)
	$(WL_SIZES) $< >$@.tmp && mv $@.tmp $@

# A workload with no build.mk of its own is workloads/NAME/workload.yaml
# and NAME.c (with any other .c and .h beside it): one program, built
# here. A workload that needs more (a unit test of its kernel, MPI, a
# second program) writes its build.mk; one with a descriptor only
# (hpcg-mpi) runs another workload's program.
WL_OWN_BUILD := $(patsubst %/build.mk,%,$(wildcard workloads/*/build.mk))
WL_PLAIN := $(foreach d,$(filter-out $(WL_OWN_BUILD),$(patsubst %/workload.yaml,%,$(wildcard workloads/*/workload.yaml))),\
	$(if $(wildcard $(d)/$(notdir $(d)).c),$(notdir $(d))))
define wl_plain
$(B)/libexec/tierlab/$(1): $(wildcard workloads/$(1)/*.c workloads/$(1)/*.h workloads/common/*.h) $(B)/obj/workloads/$(1)/wl-sizes.h
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_CFLAGS) $$(WL_OPT) -Iworkloads/common -I$(B)/obj/workloads/$(1) -o $$@ $(wildcard workloads/$(1)/*.c)
TARGETS += $(B)/libexec/tierlab/$(1)
endef
$(foreach w,$(WL_PLAIN),$(eval $(call wl_plain,$(w))))
