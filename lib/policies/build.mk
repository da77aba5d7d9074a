# The built-in policies (lib/policies/*.c), two ways from the same sources:
#   $(B)/lib/tierlab/policy-<name>.so  plugins, PIC, -fvisibility=hidden,
#       -DTLP_PLUGIN: the one exported symbol is tierlab_policy();
#   $(B)/obj/libpolicies.a  every policy with its own entry tlp_policy_<id>()
#       plus the name table (builtin.c), for tests and the offline replay.
# The example policy of docs/policies.md is cut out of the doc and built as
# a plugin too, so the doc cannot drift from code that compiles and works.
POLICIES := all-fast all-slow static lru window
POLICY_SRC := $(wildcard lib/policies/*.c)
POLICY_HDR := $(wildcard lib/policies/*.h) lib/policies/tierlab-policy.h
POLICY_SOS := $(POLICIES:%=$(B)/lib/tierlab/policy-%.so)
POLICY_LIB := $(B)/obj/libpolicies.a
POLICY_DOC_SO := $(B)/obj/policies-doc/policy-first-touch.so

$(B)/obj/plugin/lib/policies/%.o: lib/policies/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -DTLP_PLUGIN -MMD -MP -c -o $@ $<

$(POLICY_SOS): $(B)/lib/tierlab/policy-%.so: $(B)/obj/plugin/lib/policies/%.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fPIC -Wl,-z,defs -o $@ $(filter %.o,$^) -lm

# the placement engine behind all-fast and static
$(B)/lib/tierlab/policy-all-fast.so $(B)/lib/tierlab/policy-static.so: $(B)/obj/plugin/lib/policies/placement.o

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
