# The built-in policies (lib/policies/*.c), two ways from the same sources:
#   $(B)/lib/tierlab/policy-<name>.so  plugins, PIC, -fvisibility=hidden,
#       -DTLP_PLUGIN: the one exported symbol is tierlab_policy();
#   $(B)/obj/libpolicies.a  every policy with its own entry tlp_policy_<id>()
#       plus the table of built-ins (builtin.c), for the tierlab program,
#       tests and the offline replay.
# A policy is a file that ends in TLP_POLICY_ENTRY(...); each plugin gets
# the placement engine (placement.c) beside it, whether it uses it or not.
# The example policy of docs/policies.md is cut out of the doc and built as
# a plugin too, so the doc cannot drift from code that compiles and works.
POLICY_SRC := $(wildcard lib/policies/*.c)
POLICIES := $(patsubst lib/policies/%.c,%,$(shell grep -l '^TLP_POLICY_ENTRY' $(POLICY_SRC)))
POLICY_HDR := $(wildcard lib/policies/*.h) lib/policies/tierlab-policy.h
POLICY_SOS := $(POLICIES:%=$(B)/lib/tierlab/policy-%.so)
POLICY_DOC_SO := $(B)/obj/policies-doc/policy-first-touch.so

$(B)/obj/plugin/lib/policies/%.o: lib/policies/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -DTLP_PLUGIN $(DEPFLAGS) -c -o $@ $<

$(POLICY_SOS): $(B)/lib/tierlab/policy-%.so: $(B)/obj/plugin/lib/policies/%.o $(B)/obj/plugin/lib/policies/placement.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -Wl,-z,defs -o $@ $(filter %.o,$^) -lm

$(POLICY_LIB): $(POLICY_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/policies-doc/first-touch.c: docs/policies.md
	@mkdir -p $(dir $@)
	awk '/<!-- example: first-touch.c -->/ { on = 1; next } on && /^```c/ { next } on && /^```/ { exit } on' $< >$@
	@test -s $@ || { echo "docs/policies.md: no example block" >&2; rm -f $@; exit 1; }

$(POLICY_DOC_SO): $(B)/obj/policies-doc/first-touch.c lib/policies/tierlab-policy.h
	$(CC) $(ALL_CFLAGS) -shared -fPIC -fvisibility=hidden -Wl,-z,defs -o $@ $<

$(B)/tests/test_policies: tests/unit/test_policies.c $(POLICY_LIB) $(POLICY_HDR) $(POLICY_SOS) $(POLICY_DOC_SO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ tests/unit/test_policies.c $(POLICY_LIB) -lcmocka -ldl -lm

TARGETS += $(POLICY_SOS) $(POLICY_LIB)
TEST_BINS += $(B)/tests/test_policies
