/*
 * test_ptrace.c - the ptrace route (DTUI_ROUTE=ptrace forces it as root;
 * it is the route without privileges): exact syscall counts, return
 * values and errno, paths read while the tracee is stopped, fork/exec/exit
 * of descendants, and a clear refusal without a target.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <cmocka.h>
#include "live.h"

#define NCALLS 500
#define NPATHS 100

/* Run fn in a child traced through the ptrace route (live_spawn). */
static pid_t run_target(void (*fn)(void))
{
	return live_spawn(fn, 1);
}

static int setup(void **state)
{
	live_recs = calloc(LIVE_MAX, sizeof(*live_recs));
	if (live_recs == NULL)
		return -1;
	setenv("DTUI_ROUTE", "ptrace", 1);
	prov_set_fire_hook(live_hook);
	return prov_register_all();
}

static void test_refused_without_target(void **state)
{
	dtrace_id_t id = live_find("syscall", "", "getppid", "entry");
	char err[256] = "";

	assert_int_not_equal(id, DTRACE_IDNONE);
	assert_int_equal(ks_probe_enable(ks_probe_get(id), err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "-c or -p"));
	/* not listed, but asking for it says why it cannot work */
	ks_probe_provide(NULL);
	for (dtrace_id_t i = 1; i <= ks_probe_count(); i++) {
		dtrace_probedesc_t o;

		if (ks_probe_get(i) == NULL)
			continue;
		ks_probe_describe(ks_probe_get(i), &o);
		assert_string_not_equal(o.dtpd_provider, "sched");
		assert_string_not_equal(o.dtpd_provider, "sdt");
	}
	id = live_find("sched", "", "", "on-cpu");
	assert_int_not_equal(id, DTRACE_IDNONE);
	assert_int_equal(ks_probe_enable(ks_probe_get(id), err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "root or CAP_PERFMON"));
	assert_non_null(strstr(prov_route(), "ptrace"));
}

static void do_getppid(void)
{
	for (int i = 0; i < NCALLS; i++)
		syscall(SYS_getppid);
}

static void do_nothing(void)
{
}

static void test_syscall_count(void **state)
{
	dtrace_id_t in, out;
	pid_t pid;

	run_target(do_nothing);		/* a target is known: enabling works */
	in = live_enable("syscall", "", "getppid", "entry");
	out = live_enable("syscall", "", "getppid", "return");
	live_reset();
	pid = run_target(do_getppid);
	live_disable(in);
	live_disable(out);
	assert_int_equal(live_count(in, pid), NCALLS);
	assert_int_equal(live_count(out, pid), NCALLS);
}

static void test_paths_and_errno(void **state)
{
	live_reset();
	live_check_open_paths(run_target, "/nonexistent/dtui-pt", NPATHS, 0);
}

static void test_proc_descendants(void **state)
{
	live_reset();
	live_check_fork_exec(run_target, NULL);
}

/* i386 calls (int $0x80 from this 64-bit process), buffer below 4 GB. */
static long i386_call(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b),
	    "d"(c) : "memory", "r8", "r9", "r10", "r11");
	return r;
}

static void do_i386(void)
{
	char *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	int fd = open("/dev/null", O_WRONLY);

	if (buf == MAP_FAILED || fd < 0)
		_exit(2);
	for (int i = 0; i < NCALLS; i++)
		if (i386_call(4, fd, (long)(uintptr_t)buf, 13) != 13)	/* write */
			_exit(3);
	i386_call(102, 0, 0, 0);	/* socketcall: no x86_64 probe */
}

/* Without a seccomp filter (syscall-entry stops) i386 calls fire the
 * x86_64 probe of the same name, and one with none is a note. */
static void test_i386_mapped(void **state)
{
	dtrace_id_t in, out, st;
	int nin = 0, nout = 0;
	pid_t pid;

	live_reset();
	in = live_enable("syscall", "", "write", "entry");
	out = live_enable("syscall", "", "write", "return");
	st = live_enable("syscall", "", "stat", "entry");	/* x86_64's 4 */
	pid = run_target(do_i386);
	live_disable(in);
	live_disable(out);
	live_disable(st);
	for (int i = 0; i < live_n; i++) {
		live_rec_t *r = &live_recs[i];

		if (r->lr_pid != pid)
			continue;
		nin += r->lr_id == in && r->lr_args[2] == 13;
		nout += r->lr_id == out && r->lr_args[0] == 13;
		assert_int_not_equal(r->lr_id, st);
	}
	assert_int_equal(nin, NCALLS);
	assert_int_equal(nout, NCALLS);
	assert_non_null(strstr(prov_route(),
	    "i386 system call socketcall is not traced"));
}

static void test_sysnr_native(void **state)
{
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_X86_64, 1), 1);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_I386, 4), 1);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_I386, 195), 4);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_I386, 199), 102);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_I386, 140), 8);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_I386, 192), 9);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_I386, 422), 202);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_I386, 102), -1);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_I386, 9999), -1);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_X86_64,
	    PROV_X32_BIT | 1), 1);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_X86_64,
	    PROV_X32_BIT | 516), 20);
	assert_int_equal(prov_sysnr_native(AUDIT_ARCH_X86_64,
	    PROV_X32_BIT | 600), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_without_target),
		cmocka_unit_test(test_syscall_count),
		cmocka_unit_test(test_paths_and_errno),
		cmocka_unit_test(test_proc_descendants),
		cmocka_unit_test(test_i386_mapped),
		cmocka_unit_test(test_sysnr_native),
	};
	return cmocka_run_group_tests_name("prov_ptrace", tests, setup,
	    live_teardown);
}
