/*
 * test_bpf_filter.c - predicate filters as BPF (providers/bpf/bpf_filter.c):
 * the instruction stream's shape, and as root the programs themselves,
 * loaded as raw tracepoint programs (same helpers, 8-byte context reads)
 * in front of a body that returns 7, run with BPF_PROG_TEST_RUN in this
 * process: 7 when the filter holds for us, 0 when it does not.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "bpf_filter.h"
#include "engine.h"

static struct bpf_insn prog[PROV_BPF_FMAX + 8];

static ks_filter_atom_t atom(int var, int op, uint64_t val)
{
	ks_filter_atom_t a = { .kfa_var = (uint8_t)var, .kfa_op = (uint8_t)op,
	    .kfa_val = val };

	return a;
}

/* A filter of one term of the given atoms. */
static ks_filter_t term(int n, const ks_filter_atom_t *a)
{
	ks_filter_t f;

	memset(&f, 0, sizeof(f));
	f.kf_nterms = 1;
	f.kf_terms[0].kft_natoms = n;
	memcpy(f.kf_terms[0].kft_atoms, a, (size_t)n * sizeof(*a));
	return f;
}

static void stream_shape(void **state)
{
	ks_filter_atom_t a = atom(KS_FV_PID, KS_FOP_EQ, 42);
	ks_filter_t f = term(1, &a);
	prov_bpf_argmap_t am;
	int n;

	(void)state;
	n = prov_bpf_filter_emit(prog, &f, PROV_FV_ALL, NULL);
	assert_true(n > 4);
	assert_int_equal(prog[0].code, BPF_ALU64 | BPF_MOV | BPF_X);
	assert_int_equal(prog[0].dst_reg, 6);
	assert_int_equal(prog[1].code, BPF_JMP | BPF_CALL);
	assert_int_equal(prog[1].imm, BPF_FUNC_get_current_pid_tgid);
	/* ends: r0 = 0; exit; r1 = r6 */
	assert_int_equal(prog[n - 2].code, BPF_JMP | BPF_EXIT);
	assert_int_equal(prog[n - 1].dst_reg, 1);
	assert_int_equal(prog[n - 1].src_reg, 6);
	/* nothing to filter: always, no term, an argument not mapped */
	f.kf_always = 1;
	assert_int_equal(prov_bpf_filter_emit(prog, &f, PROV_FV_ALL, NULL), 0);
	a = atom(KS_FV_ARG, KS_FOP_EQ, 1);
	f = term(1, &a);
	assert_int_equal(prov_bpf_filter_emit(prog, &f, PROV_FV_ALL, NULL), 0);
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		am.pba_off[i] = -1;
	am.pba_off[0] = 16;
	am.pba_size[0] = 8;
	am.pba_signed[0] = 0;
	n = prov_bpf_filter_emit(prog, &f, PROV_FV_ALL, &am);
	assert_true(n > 0);
	assert_int_equal(prog[1].code, BPF_LDX | BPF_MEM | BPF_DW);
	assert_int_equal(prog[1].off, 16);
	f.kf_nterms = 0;
	assert_int_equal(prov_bpf_filter_emit(prog, &f, PROV_FV_ALL, &am), 0);
}

static int loadfd(int n)
{
	union bpf_attr at;

	prog[n] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
	    .dst_reg = 0, .imm = 7 };
	prog[n + 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	memset(&at, 0, sizeof(at));
	at.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	at.insns = (uint64_t)(uintptr_t)prog;
	at.insn_cnt = (uint32_t)n + 2;
	at.license = (uint64_t)(uintptr_t)"GPL";
	return (int)syscall(SYS_bpf, BPF_PROG_LOAD, &at, sizeof(at));
}

/* What failed with errno: -1 (the caller skips) when the kernel lacks
 * it or refuses it to us, saying so; any other error fails the test. */
static int unsupported(const char *what)
{
	int e = errno;

	if (e != EPERM && e != EOPNOTSUPP && e != 524 /* ENOTSUPP */)
		fail_msg("%s failed: %s", what, strerror(e));
	print_message("skipped: %s unavailable here: %s\n", what,
	    strerror(e));
	return -1;
}

/* Run f (args: the raw tracepoint context) here; the program's return
 * value, or -1 to skip. */
static int run(const ks_filter_t *f, const prov_bpf_argmap_t *am,
    const uint64_t *ctx)
{
	union bpf_attr at;
	uint64_t args[12] = { 0 };
	int n = prov_bpf_filter_emit(prog, f, PROV_FV_ALL, am), fd;

	assert_true(n > 0);
	fd = loadfd(n);
	if (fd < 0) {
		assert_int_not_equal(errno, EINVAL);	/* verifier: a bug */
		return unsupported("loading a raw tracepoint program");
	}
	if (ctx != NULL)
		memcpy(args, ctx, sizeof(args));
	memset(&at, 0, sizeof(at));
	at.test.prog_fd = (uint32_t)fd;
	at.test.ctx_in = (uint64_t)(uintptr_t)args;
	at.test.ctx_size_in = sizeof(args);
	if (syscall(SYS_bpf, BPF_PROG_TEST_RUN, &at, sizeof(at)) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return unsupported("BPF_PROG_TEST_RUN");
	}
	close(fd);
	return (int)at.test.retval;
}

#define RUN(f, am, ctx, want) do {					\
	int r_ = run(f, am, ctx);					\
	if (r_ < 0)							\
		skip();							\
	assert_int_equal(r_, want);					\
} while (0)

static void need_root(void)
{
	if (geteuid() != 0) {
		printf("skipped: loading BPF needs root\n");
		skip();
	}
}

static void run_process_vars(void **state)
{
	ks_filter_atom_t a[2];
	ks_filter_t f;

	(void)state;
	need_root();
	a[0] = atom(KS_FV_PID, KS_FOP_EQ, (uint64_t)getpid());
	f = term(1, a);
	RUN(&f, NULL, NULL, 7);
	a[0].kfa_val++;
	f = term(1, a);
	RUN(&f, NULL, NULL, 0);
	a[0] = atom(KS_FV_TID, KS_FOP_EQ, (uint64_t)syscall(SYS_gettid));
	a[1] = atom(KS_FV_UID, KS_FOP_EQ, (uint64_t)getuid());
	f = term(2, a);
	RUN(&f, NULL, NULL, 7);
	a[1].kfa_op = KS_FOP_NE;
	f = term(2, a);
	RUN(&f, NULL, NULL, 0);
	a[0] = atom(KS_FV_GID, KS_FOP_EQ, (uint64_t)getgid());
	a[1] = atom(KS_FV_CPU, KS_FOP_LT, 4096);
	f = term(2, a);
	RUN(&f, NULL, NULL, 7);
	a[1].kfa_op = KS_FOP_GE;
	f = term(2, a);
	RUN(&f, NULL, NULL, 0);
}

static void run_execname(void **state)
{
	ks_filter_atom_t a = atom(KS_FV_EXECNAME, KS_FOP_EQ, 0);
	char comm[16] = { 0 };
	ks_filter_t f;

	(void)state;
	need_root();
	assert_int_equal(prctl(PR_SET_NAME, "fltr_test_name"), 0);
	prctl(PR_GET_NAME, comm);
	memcpy(a.kfa_str, comm, 16);
	f = term(1, &a);
	RUN(&f, NULL, NULL, 7);
	a.kfa_op = KS_FOP_NE;
	f = term(1, &a);
	RUN(&f, NULL, NULL, 0);
	a.kfa_str[14] = 'X';			/* differs in the second word */
	f = term(1, &a);
	RUN(&f, NULL, NULL, 7);
	a.kfa_op = KS_FOP_EQ;
	f = term(1, &a);
	RUN(&f, NULL, NULL, 0);
	memset(a.kfa_str, 0, 16);
	strcpy(a.kfa_str, "fltr");		/* a prefix is not equal */
	f = term(1, &a);
	RUN(&f, NULL, NULL, 0);
}

static void run_args_terms(void **state)
{
	uint64_t ctx[12] = { 0, 55, (uint64_t)-3, 0xfffffffeULL };
	prov_bpf_argmap_t am;
	ks_filter_atom_t a[2];
	ks_filter_t f;

	(void)state;
	need_root();
	for (int i = 0; i < DTRACE_MAXARGS; i++) {
		am.pba_off[i] = (int16_t)(8 + 8 * i);	/* ctx[1 + i] */
		am.pba_size[i] = 8;
		am.pba_signed[i] = 0;
	}
	a[0] = atom(KS_FV_ARG, KS_FOP_EQ, 55);
	f = term(1, a);
	RUN(&f, &am, ctx, 7);
	a[0].kfa_val = 56;
	f = term(1, a);
	RUN(&f, &am, ctx, 0);
	a[0] = atom(KS_FV_ARG, KS_FOP_LT, 0);	/* arg1 = -3 signed */
	a[0].kfa_arg = 1;
	f = term(1, a);
	RUN(&f, &am, ctx, 7);
	a[0].kfa_unsigned = 1;			/* unsigned: not below 0 */
	f = term(1, a);
	RUN(&f, &am, ctx, 0);
	a[0] = atom(KS_FV_ARG, KS_FOP_EQ, (uint64_t)-2);	/* (int)arg2 */
	a[0].kfa_arg = 2;
	a[0].kfa_shift = 32;
	a[0].kfa_sext = 1;
	f = term(1, a);
	RUN(&f, &am, ctx, 7);
	/* two terms: the second holds */
	a[0] = atom(KS_FV_PID, KS_FOP_EQ, (uint64_t)getpid() + 1);
	a[1] = atom(KS_FV_ARG, KS_FOP_GT, 50);
	f = term(1, a);
	f.kf_nterms = 2;
	f.kf_terms[1].kft_natoms = 1;
	f.kf_terms[1].kft_atoms[0] = a[1];
	RUN(&f, &am, ctx, 7);
	f.kf_terms[1].kft_atoms[0].kfa_val = 60;
	RUN(&f, &am, ctx, 0);
}

/* Programs stay until the end: the engine may still describe their
 * records after a handle is gone, so they are freed after every test. */
static eng_prog_t *kept[512];
static int nkept;

static void keep(eng_prog_t *p)
{
	if (p != NULL && nkept < (int)(sizeof(kept) / sizeof(kept[0])))
		kept[nkept++] = p;
}

static void free_kept(void)
{
	while (nkept > 0)
		eng_prog_free(kept[--nkept]);
}

/* Compile and enable src on h; fails the test if it cannot. */
static void exec_src(eng_hdl_t *h, const char *src)
{
	eng_prog_t *p = eng_compile_str(h, src, NULL, 0, NULL);
	unsigned n = 0;

	keep(p);
	if (p == NULL || eng_prog_exec(h, p, &n) != 0)
		fail_msg("<%s>: %s", src, eng_errmsg(h));
}

/* A clause enabled while tracing (as the TUI does) on a probe whose
 * kernel filter drops everything so far still sees every event: the
 * filter is replaced before the new ECB can fire.  outer: inside another
 * ENABLE all along (ks_filter_begin), so the probe, which has ECBs, must
 * stay unfiltered ("always"), never held like a probe without any. */
static void new_clause(int outer)
{
	char err[256], src[256], *text = NULL;
	size_t len = 0;
	eng_hdl_t *h;
	FILE *fp;

	need_root();
	h = eng_open(0, err, sizeof(err));
	assert_non_null(h);
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	exec_src(h, "syscall::getppid:entry /pid == 1/ { @a = count(); }");
	if (eng_go(h) != 0) {
		printf("skipped: %s\n", eng_errmsg(h));
		eng_close(h);
		skip();
	}
	for (int i = 0; i < 500; i++)
		syscall(SYS_getppid);
	usleep(300000);			/* drained before the new clause */
	if (outer)
		ks_filter_begin();
	snprintf(src, sizeof(src), "syscall::getppid:entry /pid == %d/ "
	    "{ @b = count(); }", (int)getpid());
	exec_src(h, src);
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	if (outer) {
		usleep(300000);		/* drained inside the ENABLE */
		ks_filter_end();
	}
	assert_int_equal(eng_stop(h), 0);
	fp = open_memstream(&text, &len);
	assert_int_equal(eng_agg_snap(h), 0);
	assert_int_equal(eng_agg_print(h, fp), 0);
	fclose(fp);
	if (strstr(text, "1000") == NULL)
		fail_msg("the new clause counted not 1000: <%s>", text);
	free(text);
	eng_close(h);
}

static void live_new_clause(void **state)
{
	(void)state;
	new_clause(0);
}

static void live_new_clause_in_enable(void **state)
{
	(void)state;
	new_clause(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stream_shape),
		cmocka_unit_test(run_process_vars),
		cmocka_unit_test(run_execname),
		cmocka_unit_test(run_args_terms),
		cmocka_unit_test(live_new_clause),
		cmocka_unit_test(live_new_clause_in_enable),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	free_kept();
	return rc;
}
