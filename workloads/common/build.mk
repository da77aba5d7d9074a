# What the workloads share: wl-sizes turns a workload's descriptor into
# the header of its size presets ($(B)/obj/workloads/NAME/wl-sizes.h), so a
# workload's build.mk only adds -I$(B)/obj/workloads/NAME and depends on
# that header; the presets are written once, in workload.yaml.
WL_SIZES := $(B)/obj/wl-sizes

$(WL_SIZES): workloads/common/wl-sizes.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(TIERLAB_LINK) $(CORE_LIBS)

$(B)/obj/workloads/%/wl-sizes.h: workloads/%/workload.yaml $(WL_SIZES)
	@mkdir -p $(dir $@)
	$(WL_SIZES) $< >$@.tmp && mv $@.tmp $@
