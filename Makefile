# tierlab — build, test, demo, install.
#
# The build tree mirrors the installed layout so the program finds its parts
# the same way in both: $(B)/bin/tierlab, $(B)/lib/tierlab/*.so (runtime,
# policies, allocators), $(B)/libexec/tierlab/* (workload programs),
# $(B)/share/tierlab/workloads/*.yaml (workload descriptors).
#
# Parts other than the core (workloads, runtime, policies, allocators,
# benchmarks) add themselves through a build.mk fragment in their folder,
# so adding one never edits this file.

PREFIX  ?= /usr/local
B       ?= build
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=gnu11 -Wall -Wextra -Werror
VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
ALL_CFLAGS = $(WARN) $(CFLAGS) -Ilib -D_GNU_SOURCE -DTIERLAB_VERSION='"$(VERSION)"'
CORE_LIBS := -lyaml -lnuma -lpfm -lsqlite3 -lm

# The library behind the tierlab program, one folder per layer (see
# docs/architecture.md); lib/tiermem, lib/policies and lib/fatalloc build
# their own products through their build.mk.
LIB_DIRS := util axis spec plan store measure ktier run report plot probe slurm
LIB_SRC := $(foreach d,$(LIB_DIRS),$(wildcard lib/$(d)/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
CMD_SRC := $(wildcard cmd/*.c)
CMD_OBJ := $(CMD_SRC:%.c=$(B)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

TIERLAB := $(B)/bin/tierlab
LIBTIERLAB := $(B)/obj/libtierlab.a
# What links against the library: it plans with what the built-in policies
# declare, so libpolicies.a (lib/policies/build.mk builds it) comes with
# it. Named here, before the fragments: bench/build.mk is read before
# lib/policies/build.mk, and a prerequisite is expanded when it is read.
POLICY_LIB := $(B)/obj/libpolicies.a
TIERLAB_LINK = $(LIBTIERLAB) $(POLICY_LIB)

# Fragments append to these: TARGETS is the tool (what `make install`
# installs: runtime, policies, allocators, workloads), TEST_BINS the
# tests, sanitizer builds, guest programs and benchmarks.
TARGETS   :=
TEST_BINS :=

all: tierlab-core
	@:

-include $(sort $(wildcard lib/*/build.mk workloads/*/build.mk bench/build.mk tests/*/build.mk))

tierlab-core: tool $(UNIT_BIN) $(TEST_BINS)

# The tool alone: what an installation needs (every workload: dgemm links
# OpenBLAS, scripts/deps.sh tool).
tool: $(TIERLAB) $(TARGETS)

# What the demo needs of it: the program, the runtime and the policy
# plugins, and the programs of the workloads experiments/demo.yaml names
# (its `- {name: NAME, ...}` items; cli/demo checks they are all of them),
# not the other workloads, allocators or tierlab-rank.
DEMO_WORKLOADS := $(shell sed -n 's/^ *- *{ *name: *\([A-Za-z0-9_-]*\).*/\1/p' experiments/demo.yaml)
demo-tool: $(TIERLAB) $(TIERMEM_SO) $(POLICY_SOS) $(DEMO_WORKLOADS:%=$(B)/libexec/tierlab/%)

all: tierlab-core

# Dependencies under both names of an object: the tests call make with B
# absolute (make install B=$$PWD/build), the build with B relative; a .d
# naming one only left the other blind to header changes.
DEPFLAGS = -MMD -MP -MT '$(abspath $@)' -MT '$(patsubst $(CURDIR)/%,%,$(abspath $@))'

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(LIBTIERLAB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(TIERLAB): $(CMD_OBJ) $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(CMD_OBJ) $(TIERLAB_LINK) $(CORE_LIBS)

$(B)/tests/%: tests/unit/%.c $(TIERLAB_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(TIERLAB_LINK) $(CORE_LIBS) -lcmocka

# The version is compiled into version.o; rebuild it when HEAD moves (the
# reflog grows). Not on .git/index: git rewrites it when it only refreshes
# its stat cache (git describe --dirty does), and a test's `make install`
# then relinked every program under the tests running beside it.
$(B)/obj/lib/util/version.o: $(wildcard .git/HEAD .git/logs/HEAD)

deps:
	@scripts/deps.sh all

# The tests install what they need (QEMU, Open MPI, Slurm, valgrind, ...)
# before building; the demo only what building and running it needs.
# tests/run.sh runs them side by side, twice as many as the CPUs
# (TEST_JOBS=N, or TIERLAB_TEST_JOBS, sets how many; 1: one at a time),
# those marked serial alone after; TEST_ARGS goes to it too (-x -guest).
test: deps
	@$(MAKE) --no-print-directory all
	@tests/run.sh $(if $(TEST_JOBS),-j $(TEST_JOBS)) $(TEST_ARGS) $(B)

# The demo installs and builds only what it runs, the build on every CPU
# (a bare Debian 12 to the report in under 2 minutes: issue 30).
demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory -j$$(nproc) demo-tool
	@scripts/demo.sh $(B)

# The gallery: every kind of figure, drawn from a fixture database of known
# rows (tests/plot/make-gallery.sh), page and column wide, as PNG and PDF
# into docs/img (the scripts and data stay in a scratch directory). The
# PDFs' creation date is fixed (the same length, so their offsets hold):
# drawing them again changes no file unless a figure changed.
figures: $(TIERLAB)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	tests/plot/make-gallery.sh $(TIERLAB) "$$tmp/gallery.db" && \
	tests/plot/gallery.sh $(TIERLAB) "$$tmp/gallery.db" "$$tmp/img" png pdf && \
	sed -i 's|/CreationDate (D:[0-9]\{14\}Z)|/CreationDate (D:20231114221320Z)|' "$$tmp"/img/*.pdf && \
	cp "$$tmp"/img/*.png "$$tmp"/img/*.pdf docs/img/ && ls "$$tmp"/img/*.png "$$tmp"/img/*.pdf | sed 's|.*/|docs/img/|'

install: tool
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/tierlab \
		$(DESTDIR)$(PREFIX)/libexec/tierlab $(DESTDIR)$(PREFIX)/share/tierlab/workloads
	install -m 755 $(TIERLAB) $(DESTDIR)$(PREFIX)/bin/tierlab
	for f in $(wildcard $(B)/lib/tierlab/*); do install -m 755 $$f $(DESTDIR)$(PREFIX)/lib/tierlab/; done
	for f in $(wildcard $(B)/libexec/tierlab/*); do install -m 755 $$f $(DESTDIR)$(PREFIX)/libexec/tierlab/; done
	for f in $(wildcard workloads/*/workload.yaml); do \
		install -m 644 $$f $(DESTDIR)$(PREFIX)/share/tierlab/workloads/$$(basename $$(dirname $$f)).yaml; done

clean:
	rm -rf $(B)

.PHONY: all tierlab-core tool demo-tool deps test demo figures install clean

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
