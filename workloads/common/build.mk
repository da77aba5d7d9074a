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
