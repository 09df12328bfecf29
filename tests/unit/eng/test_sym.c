/*
 * test_sym.c - addresses to text (sym.c): user addresses of this very
 * process resolve through /proc/self/maps and the ELF symbol table to
 * object`symbol(+0xoff) with the object's basename; unknown addresses
 * fall back to 0x...; kernel addresses use /proc/kallsyms when readable.
 * eng_sym_norm: the symbol's start and the object's base for keys.
 * Over many short-lived processes the table keeps the symbols of at
 * most ENG_SYM_KEEP_GONE processes gone, the most recently looked up.
 */
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
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

/* Rereading the mappings (a live process) keeps lookups right, with the
 * symbols already loaded carried over. */
static void test_reread_keeps_symbols(void **state)
{
	eng_hdl_t *h = et_open();
	uint64_t a = (uint64_t)(uintptr_t)&test_sym_target;
	char buf[512];

	(void)state;
	eng_sym_text(h, getpid(), a + 2, ENG_SYM_OFF, buf, sizeof (buf));
	assert_string_equal(buf, "test_sym`test_sym_target+0x2");
	for (int i = 0; i < 3; i++) {
		eng_sym_touch(h, getpid(), 1);
		eng_sym_text(h, getpid(), a + 2, ENG_SYM_OFF, buf,
		    sizeof (buf));
		assert_string_equal(buf, "test_sym`test_sym_target+0x2");
		assert_int_equal(eng_sym_norm(h, getpid(), a + 2,
		    ENG_SYM_NAME), a);
	}
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
		print_message("skipped: /proc/kallsyms hides addresses here\n");
		skip();
	}
	eng_sym_text(h, 0, addr + 4, ENG_SYM_OFF, buf, sizeof (buf));
	snprintf(want, sizeof (want), "vmlinux`schedule+0x4");
	assert_string_equal(buf, want);
	eng_close(h);
}

static void test_norm_user(void **state)
{
	eng_hdl_t *h = et_open();
	uint64_t a = (uint64_t)(uintptr_t)&test_sym_target;
	uint64_t m = eng_sym_norm(h, getpid(), a, ENG_SYM_MOD);
	char buf[512];

	(void)state;
	assert_int_equal(eng_sym_norm(h, getpid(), a + 3, ENG_SYM_NAME), a);
	assert_int_equal(eng_sym_norm(h, getpid(), a + 3, ENG_SYM_OFF), a + 3);
	/* the object's base: the same for all its addresses, and it
	 * resolves to the object itself */
	assert_int_equal(eng_sym_norm(h, getpid(),
	    (uint64_t)(uintptr_t)&test_norm_user, ENG_SYM_MOD), m);
	assert_true(m <= a);
	eng_sym_text(h, getpid(), m, ENG_SYM_MOD, buf, sizeof (buf));
	assert_string_equal(buf, "test_sym");
	/* unknown stays */
	assert_int_equal(eng_sym_norm(h, getpid(), 0x10, ENG_SYM_NAME), 0x10);
	assert_int_equal(eng_sym_norm(h, getpid(), 0x10, ENG_SYM_MOD), 0x10);
	eng_close(h);
}

static void test_norm_kernel(void **state)
{
	eng_hdl_t *h = et_open();
	FILE *fp = fopen("/proc/kallsyms", "r");
	unsigned long long addr = 0, other = 0, a;
	char type, name[256], mod[64], buf[512];

	(void)state;
	while (fp != NULL && fscanf(fp, "%llx %c %255s%63[^\n]", &a, &type,
	    name, mod) >= 3) {
		if (a == 0 || (type != 'T' && type != 't'))
			continue;
		if (strcmp(name, "schedule") == 0)
			addr = a;
		else if (strcmp(name, "do_exit") == 0)
			other = a;
	}
	if (fp != NULL)
		fclose(fp);
	if (addr == 0 || other == 0) {
		eng_close(h);
		print_message("skipped: /proc/kallsyms hides addresses here\n");
		skip();
	}
	assert_int_equal(eng_sym_norm(h, 0, addr + 4, ENG_SYM_NAME), addr);
	uint64_t m = eng_sym_norm(h, 0, addr + 4, ENG_SYM_MOD);
	assert_int_equal(eng_sym_norm(h, 0, other, ENG_SYM_MOD), m);
	eng_sym_text(h, 0, m, ENG_SYM_MOD, buf, sizeof (buf));
	assert_string_equal(buf, "vmlinux");
	eng_close(h);
}

/* A child that waits to be killed; its address of test_sym_target
 * resolves (the same file, mapped alike). */
static void lookup_in_child(eng_hdl_t *h, uint64_t a, char *buf, size_t len)
{
	int fds[2];
	char c;
	pid_t kid;

	assert_int_equal(pipe(fds), 0);
	if ((kid = fork()) == 0) {
		close(fds[0]);
		(void)!write(fds[1], "r", 1);
		pause();
		_exit(0);
	}
	assert_true(kid > 0);
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);	/* it runs */
	close(fds[0]);
	eng_sym_text(h, kid, a, ENG_SYM_NAME, buf, len);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
}

static void test_gone_pruned(void **state)
{
	eng_hdl_t *h = et_open();
	uint64_t a = (uint64_t)(uintptr_t)&test_sym_target;
	char buf[512];
	size_t most = 0;

	(void)state;
	eng_sym_text(h, getpid(), a, ENG_SYM_NAME, buf, sizeof (buf));
	lookup_in_child(h, a, buf, sizeof (buf));
	assert_string_equal(buf, "test_sym`test_sym_target");
	for (int i = 0; i < 6 * ENG_SYM_KEEP_GONE; i++) {
		lookup_in_child(h, a, buf, sizeof (buf));
		assert_string_equal(buf, "test_sym`test_sym_target");
		if (eng_sym_nprocs(h) > most)
			most = eng_sym_nprocs(h);
	}
	/* the table doubles at most from what it keeps: this process and
	 * ENG_SYM_KEEP_GONE gone, then pruned back */
	assert_true(most <= 3 * (ENG_SYM_KEEP_GONE + 1));
	assert_true(eng_sym_nprocs(h) <= 3 * (ENG_SYM_KEEP_GONE + 1));
	/* a live process keeps its symbols however long ago it was looked
	 * up */
	eng_sym_text(h, getpid(), a + 1, ENG_SYM_OFF, buf, sizeof (buf));
	assert_string_equal(buf, "test_sym`test_sym_target+0x1");
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_symbol_and_offset),
		cmocka_unit_test(test_libc_symbol),
		cmocka_unit_test(test_reread_keeps_symbols),
		cmocka_unit_test(test_unknown_address),
		cmocka_unit_test(test_kernel_symbol),
		cmocka_unit_test(test_norm_user),
		cmocka_unit_test(test_norm_kernel),
		cmocka_unit_test(test_gone_pruned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
