/*
 * test_bpf_sys.c - the syscall provider on raw_syscalls
 * (providers/bpf/bpf_sys.c): names to numbers, a kernel filter on a return
 * argument on either route (the installed program compares the return
 * value as D sees it, and counts exactly), and a probe's count that
 * enabling other
 * syscall probes (and a second clause on it) while it runs neither loses
 * nor doubles.  The live tests run as root through the engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <sys/utsname.h>
#include "bpf_filter.h"
#include "engine.h"

static void names_to_numbers(void **state)
{
	(void)state;
#if defined(__x86_64__)
	assert_int_equal(prov_bpf_sys_nr("read"), 0);
	assert_int_equal(prov_bpf_sys_nr("getppid"), 110);
	assert_int_equal(prov_bpf_sys_nr("newstat"), 4);	/* alias */
	assert_int_equal(prov_bpf_sys_nr("umount"), 166);
	assert_int_equal(prov_bpf_sys_nr("openat2"), 437);
	assert_int_equal(prov_bpf_sys_nr("mseal"), 462);	/* newer */
	assert_int_equal(prov_bpf_sys_nr("no_such_call"), -1);
	assert_int_equal(prov_bpf_sys_nr("uprobe"), -1);	/* not sure */
#else
	assert_int_equal(prov_bpf_sys_nr("read"), -1);
#endif
}

/* Every syscalls:sys_enter_* event of this kernel: no number claimed
 * twice (a wrong alias would fire one probe for another's calls), and
 * at most a few left to their own tracepoints. */
static char bynr[1024][64];
static int nevents, nunmapped, ndup;

static void one_event(void *arg, const char *sys, const char *event)
{
	int nr;

	(void)arg;
	(void)sys;
	if (strncmp(event, "sys_enter_", 10) != 0)
		return;
	nevents++;
	nr = prov_bpf_sys_nr(event + 10);
	if (nr < 0) {
		nunmapped++;
		return;
	}
	assert_true(nr < 1024);
	if (bynr[nr][0] != '\0') {
		print_message("%s and %s are both %d\n", bynr[nr], event + 10,
		    nr);
		ndup++;
	}
	snprintf(bynr[nr], sizeof(bynr[nr]), "%s", event + 10);
}

static void no_number_twice(void **state)
{
	(void)state;
	if (geteuid() != 0 || prov_tracefs_root() == NULL) {
		printf("skipped: needs root and tracefs\n");
		skip();
	}
	assert_int_equal(prov_tracefs_each("syscalls", one_event, NULL), 0);
	print_message("%d syscalls, %d without a number\n", nevents,
	    nunmapped);
	assert_true(nevents > 100);
	assert_int_equal(ndup, 0);
#if defined(__x86_64__)
	assert_true(nunmapped <= 8);
#endif
}

/* The errno prologue: r1 in [-4095, -1] becomes -1. */
static void errret_stream(void **state)
{
	static struct bpf_insn p[PROV_BPF_FMAX];
	ks_filter_t f;
	prov_bpf_argmap_t am;
	int n;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.kf_nterms = 1;
	f.kf_terms[0].kft_natoms = 1;
	f.kf_terms[0].kft_atoms[0].kfa_var = KS_FV_ARG;
	f.kf_terms[0].kft_atoms[0].kfa_op = KS_FOP_EQ;
	f.kf_terms[0].kft_atoms[0].kfa_val = (uint64_t)-1;
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		am.pba_off[i] = -1;
	am.pba_off[0] = 16;
	am.pba_size[0] = 8;
	am.pba_signed[0] = PROV_BPF_ERRRET;
	n = prov_bpf_filter_emit(p, &f, PROV_FV_ALL, &am);
	assert_true(n > 6);
	assert_int_equal(p[1].code, BPF_LDX | BPF_MEM | BPF_DW);
	assert_int_equal(p[1].off, 16);
	assert_int_equal(p[2].code, BPF_JMP | BPF_JSGE | BPF_K);
	assert_int_equal(p[3].code, BPF_JMP | BPF_JSLT | BPF_K);
	assert_int_equal(p[3].imm, -4095);
	assert_int_equal(p[4].imm, -1);
}

static void need_root(void)
{
	if (geteuid() != 0) {
		printf("skipped: loading BPF needs root\n");
		skip();
	}
}

static eng_prog_t *kept[64];
static int nkept;

static void exec_src(eng_hdl_t *h, const char *src)
{
	eng_prog_t *p = eng_compile_str(h, src, NULL, 0, NULL);
	unsigned n = 0;

	if (p != NULL && nkept < 64)
		kept[nkept++] = p;
	if (p == NULL || eng_prog_exec(h, p, &n) != 0)
		fail_msg("<%s>: %s", src, eng_errmsg(h));
}

/* Drops the engine reported: events lost when the rings overflow (on a
 * loaded machine), which the exact counts below allow for. */
static uint64_t ndrops;

static void on_drop(const eng_dropdata_t *dd, void *arg)
{
	(void)arg;
	ndrops += dd->edd_drops;
}

static eng_hdl_t *start(const char *src)
{
	char err[256];
	eng_hdl_t *h;

	need_root();
	h = eng_open(0, err, sizeof(err));
	assert_non_null(h);
	ndrops = 0;
	assert_int_equal(eng_handle_drop(h, on_drop, NULL), 0);
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	exec_src(h, src);
	if (eng_go(h) != 0) {
		printf("skipped: %s\n", eng_errmsg(h));
		eng_close(h);
		skip();
	}
	return h;
}

/* Stop h and return its aggregations as printed (free it). */
static char *finish(eng_hdl_t *h)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	(void)eng_status(h);
	assert_int_equal(eng_stop(h), 0);
	(void)eng_status(h);
	fp = open_memstream(&text, &len);
	assert_int_equal(eng_agg_snap(h), 0);
	assert_int_equal(eng_agg_print(h, fp), 0);
	fclose(fp);
	return text;
}

/* Does some slot's installed program hold the errno prologue on the
 * return value followed by a comparison with -1? */
static int find_errret_filter(void)
{
	static struct bpf_insn p[PROV_BPF_FMAX + 512];

	for (int s = 0; s < 4096; s++) {
		int n = prov_bpf_filter_prog(s, p, PROV_BPF_FMAX + 512);

		for (int i = 0; i + 6 < n; i++)
			if (p[i].code == (BPF_LDX | BPF_MEM | BPF_DW) &&
			    p[i].off == 16 && p[i + 1].code ==
			    (BPF_JMP | BPF_JSGE | BPF_K) &&
			    p[i + 2].imm == -4095 &&
			    p[i + 4].code == (BPF_LD | BPF_DW | BPF_IMM) &&
			    p[i + 4].imm == -1 && p[i + 5].imm == -1)
				return 1;
	}
	return 0;
}

/* Does some slot's installed program call BPF helper fn? */
static int calls_helper(int fn)
{
	static struct bpf_insn p[PROV_BPF_FMAX + 512];

	for (int s = 0; s < 4096; s++) {
		int n = prov_bpf_filter_prog(s, p, PROV_BPF_FMAX + 512);

		for (int i = 0; i < n; i++)
			if (p[i].code == (BPF_JMP | BPF_CALL) && p[i].imm == fn)
				return 1;
	}
	return 0;
}

/* The raw route's 32-bit check: on Linux 6 and later (this machine's
 * kind) the verifier takes the direct load from
 * bpf_get_current_task_btf(); older kernels may use the helper read. */
static void check_compat_form(void)
{
	struct utsname u;

	if (calls_helper(BPF_FUNC_get_current_task_btf))
		return;
	if (uname(&u) == 0 && atoi(u.release) >= 6)
		fail_msg("raw bodies do not use get_current_task_btf on %s",
		    u.release);
	assert_true(calls_helper(BPF_FUNC_probe_read_kernel));
}

/* n counted of want: exact, or (drops reported) nothing doubled and the
 * rest accounted for as drops. */
static int exact(long n, long want)
{
	return n == want || (ndrops > 0 && n < want &&
	    n + (long)ndrops >= want);
}

/* /arg0 == -1/ on openat:return: filtered in the kernel, exact count;
 * raw: after 20-odd probes (then on the raw route, else its own). */
static void return_arg_filter(int raw)
{
	char src[256], *text, *nl;
	eng_hdl_t *h;
	int fd, e, n;

	snprintf(src, sizeof(src), "syscall::openat:return /tid == %d && "
	    "arg0 == -1/ { @fail[errno] = count(); }", (int)gettid());
	if (raw) {
		h = start("syscall::get*:entry /pid == 1/ { @x = count(); }");
		assert_true(prov_bpf_sys_busy());
		check_compat_form();
		exec_src(h, src);
	} else {
		h = start(src);
	}
	if (!find_errret_filter())
		fail_msg("no kernel filter compares openat's return value");
	for (int i = 0; i < 300; i++) {
		fd = open("/nonexistent/dtui-bpf-sys", O_RDONLY);
		assert_int_equal(fd, -1);
	}
	for (int i = 0; i < 100; i++) {
		fd = open("/dev/null", O_RDONLY);
		assert_true(fd >= 0);
		close(fd);
	}
	text = finish(h);
	nl = strchr(text, '\n');
	if (sscanf(text, "%d %d", &e, &n) != 2 || e != ENOENT ||
	    !exact(n, 300) ||
	    (nl != NULL && strpbrk(nl, "0123456789") != NULL))
		fail_msg("want errno 2 counted 300 times: <%s>", text);
	free(text);
	eng_close(h);
}

static void return_filter_own(void **state)
{
	(void)state;
	return_arg_filter(0);
}

static void return_filter_raw(void **state)
{
	(void)state;
	return_arg_filter(1);
}

#define CALLS 20000

/* CALLS getppid calls with getuid between them, then getuid calls
 * until the parent closes its end of wfd (its new probes are on by
 * then, however long their ENABLE took on a busy machine). */
static void child_calls(int wfd)
{
	char c;

	if (read(wfd, &c, 1) != 1)
		_exit(2);
	for (int i = 0; i < CALLS; i++) {
		syscall(SYS_getppid);
		if (i % 100 == 99) {
			syscall(SYS_getuid);
			usleep(1000);
		}
	}
	fcntl(wfd, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 10000 && read(wfd, &c, 1) < 0 && errno == EAGAIN;
	    i++) {
		syscall(SYS_getuid);
		usleep(1000);
	}
	_exit(0);
}

/* A probe counting a child's calls while other syscall probes, and a
 * second clause on the same probe, are enabled: exactly CALLS. */
static void enable_while_counting(void **state)
{
	char src[256], *text;
	int go[2], st;
	eng_hdl_t *h;
	pid_t pid;

	(void)state;
	need_root();
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		child_calls(go[0]);
	}
	close(go[0]);
	snprintf(src, sizeof(src), "syscall::getppid:entry /pid == %d/ "
	    "{ @a = count(); }", (int)pid);
	h = start(src);
	assert_int_equal(write(go[1], "g", 1), 1);
	usleep(20000);
	snprintf(src, sizeof(src), "syscall::get*:entry,syscall::get*:return "
	    "/pid == %d/ { @b[probefunc] = count(); }", (int)pid);
	exec_src(h, src);
	usleep(20000);
	close(go[1]);			/* the child may stop */
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	text = finish(h);
	if (!exact(strtol(text, NULL, 10), CALLS))	/* @a prints first */
		fail_msg("getppid not counted %d times: <%s>", CALLS, text);
	if (strstr(text, "getuid") == NULL)
		fail_msg("the probes enabled later saw nothing: <%s>", text);
	free(text);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_to_numbers),
		cmocka_unit_test(no_number_twice),
		cmocka_unit_test(errret_stream),
		cmocka_unit_test(return_filter_own),
		cmocka_unit_test(return_filter_raw),
		cmocka_unit_test(enable_while_counting),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	while (nkept > 0)
		eng_prog_free(kept[--nkept]);
	return rc;
}
