/*
 * test_ecb.c - ECBs end to end through DOF: record layout and EPROBE,
 * predicates, clause order, exit(), ERROR on a fault with the protocol's
 * arguments, double errors, stacks, printf formats.
 */
#include "ks_test.h"

static const dtrace_rechdr_t *rec_at(const char *buf, uint64_t off)
{
	return (const dtrace_rechdr_t *)(buf + off);
}

static void trace_arg(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t acts[2];
	char buf[4096];
	dtrace_eprobedesc_t *ep;
	uint64_t n, v;
	uint32_t nm;

	(void)state;
	kt_setup();
	acts[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	acts[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_int(b, 7, 4), 0);
	kt_clause(b, 0, DOF_SECIDX_NONE, acts, 2);
	assert_int_equal(kt_enable_msg(st, b, NULL, 0, &nm), 0);
	assert_int_equal(nm, 1);
	assert_true(ks_probe_is_enabled(kt_probe[0]));
	kt_go(st);
	kt_fire(0, 0, 1234, 0);
	kt_fire(0, 0, 5678, 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	ep = calloc(1, sizeof(*ep) + 4 * sizeof(dtrace_recdesc_t));
	ep->dtepd_epid = 1;
	ep->dtepd_nrecs = 4;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_EPROBE, ep), 0);
	assert_int_equal(ep->dtepd_probeid, kt_probe[0]);
	assert_int_equal(ep->dtepd_nrecs, 2);
	assert_int_equal(ep->dtepd_uarg, 1);
	assert_int_equal(ep->dtepd_rec[0].dtrd_offset, 16);
	assert_int_equal(ep->dtepd_rec[0].dtrd_size, 8);
	assert_int_equal(ep->dtepd_rec[1].dtrd_offset, 24);
	assert_int_equal(ep->dtepd_rec[1].dtrd_size, 4);
	assert_int_equal(ep->dtepd_size, 32);
	assert_int_equal(n, 64);
	assert_int_equal(rec_at(buf, 0)->dtrh_epid, 1);
	memcpy(&v, buf + 16, 8);
	assert_int_equal(v, 1234);
	memcpy(&v, buf + 32 + 16, 8);
	assert_int_equal(v, 5678);
	assert_int_equal(*(uint32_t *)(buf + 24), 7);
	free(ep);
	ks_close(st);
}


/* A DIF object dividing 1 by %r0: faults DIVZERO at instruction 1. */
static uint32_t divzero(dofb_t *b)
{
	dif_instr_t code[] = {
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_FMT(DIF_OP_UDIV, 1, 0, 3),
		DIF_INSTR_RET(3),
	};
	uint64_t one = 1;
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 8 };

	return dofb_difo(b, code, 3, &one, 1, NULL, 0, NULL, 0, t);
}

/* dtrace:::ERROR { trace(arg1) ... trace(arg5) } as the engine does. */
static void error_clause(dofb_t *b, int faulty)
{
	dof_actdesc_t acts[5];
	uint32_t pd = dofb_probedesc(b, "dtrace", "", "", "ERROR");
	int i;

	for (i = 0; i < 5; i++)
		acts[i] = dofb_act(DTRACEACT_DIFEXPR, faulty && i == 4 ?
		    divzero(b) : dofb_difo_arg(b, (unsigned)i + 1), 0);
	dofb_ecb(b, pd, DOF_SECIDX_NONE, dofb_actions(b, acts, 5), DT_ECB_ERROR);
}

static void predicate_and_order(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a = dofb_act(DTRACEACT_DIFEXPR, 0, 0);
	char buf[4096];
	uint64_t n, off;
	int seen[3] = { 0 };

	(void)state;
	kt_setup();
	a.dofa_difo = dofb_difo_arg(b, 0);
	kt_clause(b, 1, dofb_difo_argeq(b, 0, 42), &a, 1);	/* EPID 1 */
	kt_clause(b, 1, DOF_SECIDX_NONE, NULL, 0);		/* EPID 2 */
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	kt_fire(1, 0, 41, 0);
	kt_fire(1, 0, 42, 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	/* 41: EPID 2 only; 42: EPID 1 then EPID 2 */
	for (off = 0; off < n;) {
		const dtrace_rechdr_t *h = rec_at(buf, off);

		assert_true(h->dtrh_epid == 1 || h->dtrh_epid == 2);
		seen[h->dtrh_epid]++;
		off += h->dtrh_epid == 1 ? 24 : 16;
	}
	assert_int_equal(off, n);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 2);
	assert_int_equal(rec_at(buf, 16)->dtrh_epid, 1);
	assert_int_equal(rec_at(buf, 40)->dtrh_epid, 2);
	ks_close(st);
}

static void exit_action(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a;
	dtrace_status_t s;
	char buf[4096];
	uint32_t cpu;
	uint64_t n;
	int32_t status;

	(void)state;
	kt_setup();
	a = dofb_act(DTRACEACT_EXIT, dofb_difo_int(b, 3, 4), 0);
	kt_clause(b, 2, DOF_SECIDX_NONE, &a, 1);
	dofb_ecb(b, dofb_probedesc(b, "dtrace", "", "", "END"),
	    DOF_SECIDX_NONE, DOF_SECIDX_NONE, 2);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	assert_int_equal(kt_status(st).dtst_exiting, 0);
	kt_fire(2, 0, 0, 0);
	kt_fire(2, 0, 0, 0);	/* after exit: not traced */
	s = kt_status(st);
	assert_int_equal(s.dtst_exiting, 1);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &cpu), 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	if (cpu != 0)	/* END fired on another CPU */
		n += kt_snap(st, cpu, buf + n, sizeof(buf) - n, 0, NULL);
	assert_int_equal(n, 16 + 16);
	assert_int_equal(rec_at(buf, 0)->dtrh_epid, 1);
	memcpy(&status, buf + 12, 4);
	assert_int_equal(status, 3);
	assert_int_equal(rec_at(buf, 16)->dtrh_epid, 2);
	ks_close(st);
}

static void error_probe(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[2];
	char buf[4096];
	uint64_t n, args[5];
	dtrace_status_t s;
	ks_bufstat_t bs;

	(void)state;
	kt_setup();
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, divzero(b), 0);
	error_clause(b, 0);				/* EPID 1 */
	kt_clause(b, 3, DOF_SECIDX_NONE, a, 2);		/* EPID 2 */
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	kt_fire(3, 0, 5, 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	/* only ERROR's record: the faulting clause recorded nothing */
	assert_int_equal(n, 16 + 5 * 8);
	assert_int_equal(rec_at(buf, 0)->dtrh_epid, 1);
	memcpy(args, buf + 16, sizeof(args));
	assert_int_equal(args[0], 2);		/* EPID */
	assert_int_equal(args[1], 2);		/* action #2 */
	assert_int_equal(args[2], 4);		/* DIF offset of the UDIV */
	assert_int_equal(args[3], DTRACEFLT_DIVZERO);
	assert_int_equal(args[4], 0);
	s = kt_status(st);
	assert_int_equal(s.dtst_errors, 1);
	assert_int_equal(s.dtst_dblerrors, 0);
	/* one event fired: the ERROR it caused is not a second one */
	assert_int_equal(ks_bufstat(st, 0, &bs), 0);
	assert_int_equal(bs.kbs_fires, 1);
	ks_close(st);
}

static void double_error(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a;
	char buf[4096];
	dtrace_status_t s;
	ks_bufstat_t bs;

	(void)state;
	kt_setup();
	a = dofb_act(DTRACEACT_DIFEXPR, divzero(b), 0);
	error_clause(b, 1);
	kt_clause(b, 3, divzero(b), &a, 1);	/* predicate faults */
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	kt_fire(3, 0, 0, 0);
	kt_fire(3, 0, 0, 0);
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL), 0);
	s = kt_status(st);
	assert_int_equal(s.dtst_errors, 2);
	assert_int_equal(s.dtst_dblerrors, 2);
	assert_int_equal(ks_bufstat(st, 0, &bs), 0);
	assert_int_equal(bs.kbs_errors, 2);
	ks_close(st);
}

static void stacks_and_formats(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[3];
	dtrace_eprobedesc_t *ep;
	dtrace_fmtdesc_t f;
	ks_probe_ctx_t ctx;
	uint64_t kpcs[3] = { 0x10, 0x20, 0x30 }, upcs[2] = { 0x77, 0x88 };
	uint64_t rec[1 + 4 + 1 + 3];
	char buf[4096], fmt[64];

	(void)state;
	kt_setup();
	a[0] = dofb_act(DTRACEACT_PRINTF, DOF_SECIDX_NONE, 0);
	a[0].dofa_strtab = DOFB_STRTAB;
	a[0].dofa_arg = dofb_str(b, "hello %d\n");
	a[1] = dofb_act(DTRACEACT_STACK, DOF_SECIDX_NONE, 4);
	a[2] = dofb_act(DTRACEACT_USTACK, DOF_SECIDX_NONE, 3);
	kt_clause(b, 4, DOF_SECIDX_NONE, a, 3);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	ks_probe_ctx_self(&ctx, kt_probe[4]);
	ctx.kpc_cpu = 0;
	ctx.kpc_kstack = kpcs;
	ctx.kpc_nkstack = 3;
	ctx.kpc_ustack = upcs;
	ctx.kpc_nustack = 2;
	ks_probe_fire(&ctx);
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL),
	    16 + 4 * 8 + 4 * 8);
	memcpy(rec, buf + 8, sizeof(rec));
	assert_int_equal(rec[1], 0x10);
	assert_int_equal(rec[3], 0x30);
	assert_int_equal(rec[4], 0);		/* unused frame */
	assert_int_equal(rec[5], (uint64_t)ctx.kpc_pid);
	assert_int_equal(rec[6], 0x77);
	assert_int_equal(rec[8], 0);
	ep = calloc(1, sizeof(*ep) + 3 * sizeof(dtrace_recdesc_t));
	ep->dtepd_epid = 1;
	ep->dtepd_nrecs = 3;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_EPROBE, ep), 0);
	assert_int_equal(ep->dtepd_rec[0].dtrd_action, DTRACEACT_PRINTF);
	assert_int_equal(ep->dtepd_rec[0].dtrd_size, 0);
	assert_int_not_equal(ep->dtepd_rec[0].dtrd_format, 0);
	assert_int_equal(ep->dtepd_rec[1].dtrd_arg, 4);
	assert_int_equal(ep->dtepd_rec[2].dtrd_size, 32);
	f.dtfd_format = ep->dtepd_rec[0].dtrd_format;
	f.dtfd_string = NULL;
	f.dtfd_length = 0;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_FORMAT, &f), 0);
	assert_int_equal(f.dtfd_length, 10);
	f.dtfd_string = fmt;
	f.dtfd_length = sizeof(fmt);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_FORMAT, &f), 0);
	assert_string_equal(fmt, "hello %d\n");
	free(ep);
	ks_close(st);
}

static void string_record(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a;
	char buf[4096];

	(void)state;
	kt_setup();
	dofb_option(b, DTRACEOPT_STRSIZE, 32);
	a = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_str(b, "hi there"), 0);
	kt_clause(b, 5, DOF_SECIDX_NONE, &a, 1);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	kt_fire(5, 0, 0, 0);
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL), 16 + 32);
	assert_string_equal(buf + 12, "hi there");
	assert_int_equal(buf + 12 + 31 - buf < 48, 1);
	assert_int_equal(buf[12 + 31], 0);
	assert_int_equal(ks_getopt(st, DTRACEOPT_STRSIZE), 32);
	ks_close(st);
}

/* END fires on BEGIN's CPU, so their records stay in order. */
static void begin_end_same_cpu(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	uint32_t go_cpu, stop_cpu;
	char buf[256];

	(void)state;
	kt_setup();
	dofb_ecb(b, dofb_probedesc(b, "dtrace", "", "", "BEGIN"),
	    DOF_SECIDX_NONE, DOF_SECIDX_NONE, 1);
	dofb_ecb(b, dofb_probedesc(b, "dtrace", "", "", "END"),
	    DOF_SECIDX_NONE, DOF_SECIDX_NONE, 2);
	assert_int_equal(kt_enable(st, b), 0);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_GO, &go_cpu), 0);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &stop_cpu), 0);
	assert_int_equal(go_cpu, stop_cpu);
	assert_int_equal(kt_snap(st, go_cpu, buf, sizeof(buf), 0, NULL), 32);
	assert_int_equal(rec_at(buf, 0)->dtrh_epid, 1);
	assert_int_equal(rec_at(buf, 16)->dtrh_epid, 2);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trace_arg),
		cmocka_unit_test(predicate_and_order),
		cmocka_unit_test(exit_action),
		cmocka_unit_test(error_probe),
		cmocka_unit_test(double_error),
		cmocka_unit_test(stacks_and_formats),
		cmocka_unit_test(string_record),
		cmocka_unit_test(begin_end_same_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
