/*
 * test_sym.c - addresses to text (sym.c): user addresses of this very
 * process resolve through /proc/self/maps and the ELF symbol table to
 * object`symbol(+0xoff) with the object's basename; unknown addresses
 * fall back to 0x...; kernel addresses use /proc/kallsyms when readable.
 */
#include <unistd.h>
#include "eng_test.h"

/* A function with a known name to look up (not static: in .symtab),
 * long enough that its address + 1 is still inside it. */
int test_sym_target(int n);
int test_sym_target(int n)
{
	volatile int x = 0;

	for (int i = 0; i < n; i++)
		x += i * n;
	return x;
}

static void test_user_symbol_and_offset(void **state)
{
	eng_hdl_t *h = et_open();
	uint64_t a = (uint64_t)(uintptr_t)&test_sym_target;
	char buf[512];

	(void)state;
	eng_sym_text(h, getpid(), a, ENG_SYM_NAME, buf, sizeof (buf));
	assert_string_equal(buf, "test_sym`test_sym_target");
	eng_sym_text(h, getpid(), a + 1, ENG_SYM_OFF, buf, sizeof (buf));
	assert_string_equal(buf, "test_sym`test_sym_target+0x1");
	eng_sym_text(h, getpid(), a, ENG_SYM_MOD, buf, sizeof (buf));
	assert_string_equal(buf, "test_sym");
	eng_close(h);
}

static void test_libc_symbol(void **state)
{
	eng_hdl_t *h = et_open();
	uint64_t a = (uint64_t)(uintptr_t)&getpid;
	char buf[512];

	(void)state;
	eng_sym_text(h, getpid(), a, ENG_SYM_NAME, buf, sizeof (buf));
	assert_non_null(strstr(buf, "libc"));
	assert_non_null(strstr(buf, "getpid"));
	eng_close(h);
}

static void test_unknown_address(void **state)
{
	eng_hdl_t *h = et_open();
	char buf[64];

	(void)state;
	eng_sym_text(h, getpid(), 0x10, ENG_SYM_OFF, buf, sizeof (buf));
	assert_string_equal(buf, "0x10");
	eng_sym_text(h, 999999999, 0x1234, ENG_SYM_NAME, buf, sizeof (buf));
	assert_string_equal(buf, "0x1234");
	eng_close(h);
}

static void test_kernel_symbol(void **state)
{
	eng_hdl_t *h = et_open();
	FILE *fp = fopen("/proc/kallsyms", "r");
	unsigned long long addr = 0;
	char type, name[256], buf[512], want[300];

	(void)state;
	while (fp != NULL && fscanf(fp, "%llx %c %255s%*[^\n]", &addr, &type,
	    name) == 3)
		if (addr != 0 && (type == 'T' || type == 't') &&
		    strcmp(name, "schedule") == 0)
			break;
	if (fp != NULL)
		fclose(fp);
	if (addr == 0 || strcmp(name, "schedule") != 0) {
		eng_close(h);
		skip();			/* kallsyms hides addresses here */
	}
	eng_sym_text(h, 0, addr + 4, ENG_SYM_OFF, buf, sizeof (buf));
	snprintf(want, sizeof (want), "vmlinux`schedule+0x4");
	assert_string_equal(buf, want);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_symbol_and_offset),
		cmocka_unit_test(test_libc_symbol),
		cmocka_unit_test(test_unknown_address),
		cmocka_unit_test(test_kernel_symbol),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
