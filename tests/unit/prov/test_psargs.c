/*
 * test_psargs.c - the arguments of a process (curpsinfo->pr_psargs and
 * pr_argc) as the providers hand them to the shim: joining the BPF argv
 * record, and (root only) what exec-success of a real "/bin/echo a b c"
 * carries after the process has exited, and what a syscall probe of an
 * exec'd process carries when no proc probe turned the capture on (its
 * own arguments from /proc, not its parent's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <fcntl.h>
#include <cmocka.h>
#include "live.h"

#define RECLEN (8 * PROV_ARGV_PTRS + PROV_ARGV_STRS * PROV_ARGV_LEN)

/* An argv record with n pointers and the given strings. */
static void make_rec(uint8_t *rec, int n, const char *const *strs)
{
	memset(rec, 0, RECLEN);
	for (int i = 0; i < n && i < PROV_ARGV_PTRS; i++) {
		uint64_t ptr = 0x1000 + (uint64_t)i;

		memcpy(rec + 8 * i, &ptr, 8);
		if (i < PROV_ARGV_STRS)
			snprintf((char *)rec + 8 * PROV_ARGV_PTRS +
			    i * PROV_ARGV_LEN, PROV_ARGV_LEN, "%s", strs[i]);
	}
}

static void test_join_simple(void **state)
{
	static const char *const a[] = { "/bin/echo", "a", "b", "c" };
	uint8_t rec[RECLEN];
	char out[80];

	make_rec(rec, 4, a);
	assert_int_equal(prov_psargs_join(rec, RECLEN, out, sizeof(out)), 4);
	assert_string_equal(out, "/bin/echo a b c");
}

static void test_join_more_than_kept(void **state)
{
	static const char *const a[] = { "x", "1", "2", "3", "4", "5", "6",
	    "7", "8" };
	uint8_t rec[RECLEN];
	char out[80];

	make_rec(rec, 9, a);
	assert_int_equal(prov_psargs_join(rec, RECLEN, out, sizeof(out)), 9);
	assert_string_equal(out, "x 1 2 3 4 5");
}

static void test_join_cut_at_80(void **state)
{
	static const char *const a[] = {
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" };
	uint8_t rec[RECLEN];
	char out[80];

	make_rec(rec, 2, a);
	assert_int_equal(prov_psargs_join(rec, RECLEN, out, sizeof(out)), 2);
	assert_int_equal(strlen(out), 79);
	assert_memory_equal(out, a[0], 47);
}

static void test_join_short_record(void **state)
{
	uint8_t rec[16] = { 1 };
	char out[80];

	assert_int_equal(prov_psargs_join(rec, sizeof(rec), out, sizeof(out)),
	    0);
	assert_string_equal(out, "");
}

static void do_echo(void)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd >= 0)
		dup2(fd, 1);
	execl("/bin/echo", "/bin/echo", "a", "b", "c", (char *)NULL);
	_exit(98);
}

static void do_sleep(void)
{
	execl("/bin/sleep", "/bin/sleep", "0.2", (char *)NULL);
	_exit(98);
}

/* Runs before any proc probe is enabled in this process. */
static void test_syscall_after_exec_psargs(void **state)
{
	dtrace_id_t a, b;
	pid_t pid;
	int seen = 0;

	live_require();
	live_reset();
	a = live_enable("syscall", "", "nanosleep", "entry");
	b = live_enable("syscall", "", "clock_nanosleep", "entry");
	pid = live_run(do_sleep);
	live_disable(a);
	live_disable(b);
	for (int i = 0; i < live_n; i++) {
		live_rec_t *r = &live_recs[i];

		if ((r->lr_id != a && r->lr_id != b) || r->lr_pid != pid)
			continue;
		assert_string_equal(r->lr_exec, "sleep");
		assert_string_equal(r->lr_psargs, "/bin/sleep 0.2");
		assert_int_equal(r->lr_argc, 2);
		seen++;
	}
	assert_true(seen >= 1);
}

static void test_exec_success_psargs(void **state)
{
	dtrace_id_t ex;
	pid_t pid;
	int seen = 0;

	live_require();
	live_reset();
	ex = live_enable("proc", "", "", "exec-success");
	pid = live_run(do_echo);
	live_disable(ex);
	for (int i = 0; i < live_n; i++) {
		live_rec_t *r = &live_recs[i];

		if (r->lr_id != ex || r->lr_pid != pid)
			continue;
		assert_string_equal(r->lr_exec, "echo");
		assert_string_equal(r->lr_psargs, "/bin/echo a b c");
		assert_int_equal(r->lr_argc, 4);
		seen++;
	}
	assert_int_equal(seen, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_simple),
		cmocka_unit_test(test_join_more_than_kept),
		cmocka_unit_test(test_join_cut_at_80),
		cmocka_unit_test(test_join_short_record),
		cmocka_unit_test(test_syscall_after_exec_psargs),
		cmocka_unit_test(test_exec_success_psargs),
	};

	return cmocka_run_group_tests(tests, live_setup, live_teardown);
}
