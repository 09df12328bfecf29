/*
 * test_tpfilter.c - kernel filters of tracepoints several probes share
 * and of probes that fire as another thread (providers/bpf/bpf_fmerge.c,
 * tp.c, tprows.c): the merge of per-probe filters by its terms, and as
 * root the program installed on sched_switch for sched:::on-cpu and
 * off-cpu clauses compiled by the real compiler.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "bpf_filter.h"
#include "engine.h"

static ks_filter_t term1(ks_filter_atom_t a)
{
	ks_filter_t f;

	memset(&f, 0, sizeof(f));
	f.kf_nterms = 1;
	f.kf_terms[0].kft_natoms = 1;
	f.kf_terms[0].kft_atoms[0] = a;
	return f;
}

static ks_filter_atom_t atom(int var, int arg, uint64_t val, const char *s)
{
	ks_filter_atom_t a;

	memset(&a, 0, sizeof(a));
	a.kfa_var = (uint8_t)var;
	a.kfa_arg = (uint8_t)arg;
	a.kfa_op = KS_FOP_EQ;
	a.kfa_val = val;
	if (s != NULL)
		strncpy(a.kfa_str, s, 15);
	return a;
}

/* on-cpu (tid, execname from the record) and off-cpu (the task's) */
static void fprobes(prov_bpf_fprobe_t p[2])
{
	memset(p, 0, 2 * sizeof(*p));
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < DTRACE_MAXARGS; k++)
			p[i].pbp_am.pba_off[k] = -1;
	p[0].pbp_vars = PROV_FV(KS_FV_TID) | PROV_FV(KS_FV_EXECNAME) |
	    PROV_FV(KS_FV_ARG);
	p[0].pbp_tid_off = 56;
	p[0].pbp_comm_off = 40;
	p[0].pbp_idle = 1;
	p[0].pbp_hasam = 1;
	p[0].pbp_am.pba_off[0] = 24;		/* prev_pid */
	p[0].pbp_am.pba_size[0] = 4;
	p[0].pbp_am.pba_signed[0] = 1;
	p[1].pbp_vars = PROV_FV_ALL;
	p[1].pbp_hasam = 1;
	p[1].pbp_am.pba_off[0] = 56;		/* next_pid */
	p[1].pbp_am.pba_size[0] = 4;
	p[1].pbp_am.pba_signed[0] = 1;
}

static void merge_rewrites(void **state)
{
	prov_bpf_fprobe_t p[2];
	prov_bpf_argmap_t am;
	ks_filter_t f[2], out;
	const ks_filter_atom_t *a;

	(void)state;
	fprobes(p);
	f[0] = term1(atom(KS_FV_TID, 0, 42, NULL));
	f[1] = term1(atom(KS_FV_ARG, 0, 42, NULL));
	assert_int_equal(prov_bpf_filter_merge(p, f, 2, &out, &am), 0);
	assert_int_equal(out.kf_nterms, 2);
	/* on-cpu's tid and off-cpu's arg0 are the same field: one slot */
	for (int t = 0; t < 2; t++) {
		a = &out.kf_terms[t].kft_atoms[0];
		assert_int_equal(a->kfa_var, KS_FV_ARG);
		assert_int_equal(am.pba_off[a->kfa_arg], 56);
	}
	assert_int_equal(am.pba_off[1], -1);
	/* on-cpu's execname: the record's next_comm */
	f[0] = term1(atom(KS_FV_EXECNAME, 0, 0, "sleeps"));
	f[1] = term1(atom(KS_FV_EXECNAME, 0, 0, "sleeps"));
	assert_int_equal(prov_bpf_filter_merge(p, f, 2, &out, &am), 0);
	assert_int_equal(out.kf_terms[0].kft_atoms[0].kfa_arg, 40);
	assert_int_equal(out.kf_terms[1].kft_atoms[0].kfa_arg, 0);
}

static void merge_loosens(void **state)
{
	prov_bpf_fprobe_t p[2];
	prov_bpf_argmap_t am;
	ks_filter_t f[2], out;

	(void)state;
	fprobes(p);
	/* on-cpu's pid is not in the record: that term is always true */
	f[0] = term1(atom(KS_FV_PID, 0, 42, NULL));
	f[1] = term1(atom(KS_FV_PID, 0, 42, NULL));
	assert_int_equal(prov_bpf_filter_merge(p, f, 2, &out, &am), -1);
	assert_true(out.kf_always);
	/* thread 0 is "sched" to the probe, "swapper/N" to the kernel */
	f[0] = term1(atom(KS_FV_EXECNAME, 0, 0, "sched"));
	f[1] = term1(atom(KS_FV_TID, 0, 7, NULL));
	assert_int_equal(prov_bpf_filter_merge(p, f, 2, &out, &am), -1);
	f[0].kf_terms[0].kft_atoms[0].kfa_op = KS_FOP_NE;
	strcpy(f[0].kf_terms[0].kft_atoms[0].kfa_str, "swapper/0");
	assert_int_equal(prov_bpf_filter_merge(p, f, 2, &out, &am), -1);
	/* one probe without a filter: none at all */
	f[0] = term1(atom(KS_FV_TID, 0, 42, NULL));
	f[1].kf_always = 1;
	assert_int_equal(prov_bpf_filter_merge(p, f, 2, &out, &am), -1);
	/* a probe no firing satisfies adds no term */
	memset(&f[1], 0, sizeof(f[1]));
	assert_int_equal(prov_bpf_filter_merge(p, f, 2, &out, &am), 0);
	assert_int_equal(out.kf_nterms, 1);
}

/* As root: instructions on sched_switch for these clauses (-1: none). */
static int installed(const char *src)
{
	static struct bpf_insn prog[PROV_BPF_FMAX + 1024];
	char err[256];
	eng_hdl_t *h = eng_open(0, err, sizeof(err));
	eng_prog_t *p;
	unsigned n = 0;
	int att, len;

	assert_non_null(h);
	p = eng_compile_str(h, src, NULL, 0, NULL);
	if (p == NULL)
		fail_msg("compile <%s>: %s", src, eng_errmsg(h));
	if (eng_prog_exec(h, p, &n) != 0)
		fail_msg("exec <%s>: %s", src, eng_errmsg(h));
	att = prov_tp_attachment("sched", "sched_switch");
	len = att >= 0 ? prov_bpf_filter_prog(att, prog,
	    (int)(sizeof(prog) / sizeof(prog[0]))) : -1;
	eng_close(h);
	eng_prog_free(p);
	return len;
}

static void live_sched(void **state)
{
	int plain, one, both, loose;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: tracepoints and BPF need root\n");
		skip();
	}
	plain = installed("sched:::on-cpu { }");
	if (plain <= 0) {
		printf("no BPF route for sched_switch here\n");
		skip();
	}
	one = installed("sched:::on-cpu /execname == \"nosuch\"/ { }");
	both = installed("sched:::on-cpu /tid == 1/ { } "
	    "sched:::off-cpu /pid == 1/ { }");
	loose = installed("sched:::on-cpu /pid == 1/ { } "
	    "sched:::off-cpu /pid == 1/ { }");
	assert_true(one > plain);
	assert_true(both > plain);
	assert_int_equal(loose, plain);	/* on-cpu's pid: not filtered */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_rewrites),
		cmocka_unit_test(merge_loosens),
		cmocka_unit_test(live_sched),
	};
	return cmocka_run_group_tests_name("prov_tpfilter", tests, NULL,
	    NULL);
}
