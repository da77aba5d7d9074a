# Benchmarks add themselves with a build.mk in their folder.
-include $(sort $(wildcard bench/*/build.mk))
