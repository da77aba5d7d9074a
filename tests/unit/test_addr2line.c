/*
 * Naming call sites: a "binary+0xoff" built from a function of this very
 * test (its address less the executable's load base, as the runtime logs
 * a return address) names that function and this file; malformed call
 * sites and missing binaries are refused.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/addr2line.h"

__attribute__((noinline)) int where_the_call_is(int x);
__attribute__((noinline)) int where_the_call_is(int x)
{
	return x * 3 + 1;
}

static void test_names_a_function_of_this_test(void **state)
{
	char exe[PATH_MAX], callsite[PATH_MAX + 32], out[1024];
	Dl_info info;
	ssize_t n;

	(void)state;
	if (system("command -v addr2line >/dev/null 2>&1"))
		skip();	/* binutils not installed: nothing to name with */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_true(dladdr((void *)where_the_call_is, &info));
	/* +1: the function's first byte is "the instruction before" this return address */
	snprintf(callsite, sizeof(callsite), "%s+0x%lx", exe,
		 (unsigned long)((char *)where_the_call_is - (char *)info.dli_fbase) + 1);
	assert_int_equal(tl_addr2line(callsite, out, sizeof(out)), 0);
	if (strncmp(out, "where_the_call_is test_addr2line.c:", 35))
		fail_msg("'%s' named '%s'", callsite, out);
}

static void test_refusals(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(tl_addr2line("no offset here", out, sizeof(out)), -EINVAL);
	assert_int_equal(tl_addr2line("+0x10", out, sizeof(out)), -EINVAL);
	assert_int_equal(tl_addr2line("/bin/true+0xzz", out, sizeof(out)), -EINVAL);
	assert_int_equal(tl_addr2line(NULL, out, sizeof(out)), -EINVAL);
	assert_int_equal(tl_addr2line("/nonexistent/app+0x1234", out, sizeof(out)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_a_function_of_this_test),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
