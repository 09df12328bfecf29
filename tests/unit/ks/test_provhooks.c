/*
 * test_provhooks.c - the shim's optional provider hooks (ks_provider.h):
 * ks_probe_wants_stack and ks_probe_wants (per-probe counts of enabled
 * ECBs that need call chains: stack actions and keys,
 * stackdepth/ustackdepth/caller/ucaller loads; or uregs[]: a source
 * running without them is restarted for the first; or the memory at
 * argN: copyin/copyinstr with argN loaded), ks_wants_vtime and
 * its watcher (vtimestamp loads in any probe's ECBs) and
 * ks_provider_drops (provider losses as principal drops on a CPU of every
 * active state).
 */
#include "ks_test.h"

/* A DIF object loading built-in variable var: "rd = var". */
static uint32_t ldgs(dofb_t *b, uint32_t var)
{
	dif_instr_t code[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, var, 1),
		DIF_INSTR_RET(1),
	};
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 8 };

	return dofb_difo(b, code, 2, NULL, 0, NULL, 0, NULL, 0, t);
}

/* Enable on st probe i: trace(var) (var 0: trace(arg0)), or with pred, a
 * predicate loading var and trace(arg0). */
static void enable_var(ks_state_t *st, int i, uint32_t var, int pred)
{
	dofb_t *b = dofb_new();
	dof_actdesc_t a;
	uint32_t p = DOF_SECIDX_NONE;

	if (pred)
		p = ldgs(b, var);
	a = dofb_act(DTRACEACT_DIFEXPR, var == 0 || pred ?
	    dofb_difo_arg(b, 0) : ldgs(b, var), 0);
	kt_clause(b, i, p, &a, 1);
	assert_int_equal(kt_enable(st, b), 0);
}

static void wants_stack_vars(void **state)
{
	static const uint32_t yes[] = { DIF_VAR_STACKDEPTH,
	    DIF_VAR_USTACKDEPTH, DIF_VAR_CALLER, DIF_VAR_UCALLER };

	(void)state;
	kt_setup();
	for (int k = 0; k < 4; k++) {
		for (int pred = 0; pred < 2; pred++) {
			ks_state_t *st = ks_open();

			enable_var(st, 0, yes[k], pred);
			assert_true(ks_probe_wants_stack(kt_probe[0]));
			ks_close(st);
			assert_false(ks_probe_wants_stack(kt_probe[0]));
		}
	}
	ks_state_t *st = ks_open();

	enable_var(st, 0, DIF_VAR_PID, 0);
	enable_var(st, 0, DIF_VAR_PID, 1);
	enable_var(st, 0, 0, 0);
	assert_false(ks_probe_wants_stack(kt_probe[0]));
	ks_close(st);
}

/* stack(), ustack() and jstack() as actions or aggregation keys. */
static void wants_stack_actions(void **state)
{
	static const uint32_t kinds[] = { DTRACEACT_STACK, DTRACEACT_USTACK,
	    DTRACEACT_JSTACK };

	(void)state;
	kt_setup();
	for (int k = 0; k < 3; k++) {
		for (int key = 0; key < 2; key++) {
			ks_state_t *st = ks_open();
			dofb_t *b = dofb_new();
			dof_actdesc_t a[2];

			a[0] = dofb_act(kinds[k], DOF_SECIDX_NONE, 4);
			a[1] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
			a[1].dofa_ntuple = 1;
			kt_clause(b, 1, DOF_SECIDX_NONE, a, key ? 2 : 1);
			assert_int_equal(kt_enable(st, b), 0);
			assert_true(ks_probe_wants_stack(kt_probe[1]));
			ks_close(st);
			assert_false(ks_probe_wants_stack(kt_probe[1]));
		}
	}
	assert_false(ks_probe_wants_stack(DTRACE_IDNONE));
	assert_false(ks_probe_wants_stack(999999));
}

/* A second state wanting stacks on a probe enabled without them restarts
 * its source once; later ECBs change nothing. */
static void wants_stack_restart(void **state)
{
	ks_state_t *a = ks_open(), *c = ks_open(), *d = ks_open();
	int e0, d0;

	(void)state;
	kt_setup();
	e0 = kt_enables;
	d0 = kt_disables;
	enable_var(a, 2, 0, 0);
	assert_int_equal(kt_enables, e0 + 1);
	assert_false(ks_probe_wants_stack(kt_probe[2]));
	enable_var(c, 2, DIF_VAR_CALLER, 0);
	assert_true(ks_probe_wants_stack(kt_probe[2]));
	assert_int_equal(kt_disables, d0 + 1);
	assert_int_equal(kt_enables, e0 + 2);
	enable_var(d, 2, DIF_VAR_UCALLER, 1);
	assert_int_equal(kt_enables, e0 + 2);
	ks_close(c);
	assert_true(ks_probe_wants_stack(kt_probe[2]));
	ks_close(d);
	assert_false(ks_probe_wants_stack(kt_probe[2]));
	assert_true(ks_probe_is_enabled(kt_probe[2]));
	ks_close(a);
	assert_false(ks_probe_is_enabled(kt_probe[2]));
	assert_int_equal(kt_disables, d0 + 2);
}

/* Enable on st probe i: trace(uregs[0]). */
static void enable_uregs(ks_state_t *st, int i)
{
	dif_instr_t code[] = {
		DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_UREGS, 0, 1),
		DIF_INSTR_RET(1),
	};
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 8 };
	dofb_t *b = dofb_new();
	dof_actdesc_t a;

	a = dofb_act(DTRACEACT_DIFEXPR, dofb_difo(b, code, 2, NULL, 0, NULL,
	    0, NULL, 0, t), 0);
	kt_clause(b, i, DOF_SECIDX_NONE, &a, 1);
	assert_int_equal(kt_enable(st, b), 0);
}

/* uregs[] is asked for per probe (KS_WANT_UREGS), apart from stacks,
 * and restarts a source running without it. */
static void wants_uregs(void **state)
{
	ks_state_t *a = ks_open(), *c = ks_open();
	int e0, d0;

	(void)state;
	kt_setup();
	e0 = kt_enables;
	d0 = kt_disables;
	enable_var(a, 2, DIF_VAR_CALLER, 0);
	assert_int_equal(ks_probe_wants(kt_probe[2]), KS_WANT_STACK);
	enable_uregs(c, 2);
	assert_int_equal(ks_probe_wants(kt_probe[2]),
	    KS_WANT_STACK | KS_WANT_UREGS);
	assert_int_equal(kt_disables, d0 + 1);	/* restarted for uregs */
	assert_int_equal(kt_enables, e0 + 2);
	assert_int_equal(ks_probe_wants(kt_probe[1]), 0);
	ks_close(a);
	assert_int_equal(ks_probe_wants(kt_probe[2]), KS_WANT_UREGS);
	assert_false(ks_probe_wants_stack(kt_probe[2]));
	ks_close(c);
	assert_int_equal(ks_probe_wants(kt_probe[2]), 0);
	assert_int_equal(ks_probe_wants(DTRACE_IDNONE), 0);
}

/* Enable on st probe i: trace(copyinstr(argN)) (copyin: 1), or with
 * copy 0 trace(argN) alone. */
static void enable_ustr(ks_state_t *st, int i, int argn, int copy)
{
	dif_instr_t code[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0 + (uint32_t)argn, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1),
		DIF_INSTR_CALL(DIF_SUBR_copyinstr, 2),
		DIF_INSTR_RET(copy ? 2 : 1),
	};
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 8 };
	dofb_t *b = dofb_new();
	dof_actdesc_t a;

	if (copy) {
		t.dtdt_kind = DIF_TYPE_STRING;
		t.dtdt_size = 256;
	} else {
		code[1] = DIF_INSTR_RET(1);
	}
	a = dofb_act(DTRACEACT_DIFEXPR, dofb_difo(b, code, copy ? 4 : 2,
	    NULL, 0, NULL, 0, NULL, 0, t), 0);
	kt_clause(b, i, DOF_SECIDX_NONE, &a, 1);
	assert_int_equal(kt_enable(st, b), 0);
}

/* The arguments whose user memory ECBs read (KS_WANT_UARG): loaded by a
 * clause that calls copyinstr; an argument only traced is not one; arg0
 * loaded at all (KS_WANT_ARG0). */
static void wants_uargs(void **state)
{
	ks_state_t *a = ks_open(), *c = ks_open();

	(void)state;
	kt_setup();
	enable_ustr(a, 2, 3, 0);
	assert_int_equal(ks_probe_wants(kt_probe[2]), 0);
	enable_ustr(c, 2, 1, 1);
	assert_int_equal(ks_probe_wants(kt_probe[2]), KS_WANT_UARG(1));
	ks_close(c);
	assert_int_equal(ks_probe_wants(kt_probe[2]), 0);
	ks_close(a);
	a = ks_open();
	enable_ustr(a, 2, 0, 0);	/* arg0 loaded (KS_WANT_ARG0) */
	assert_int_equal(ks_probe_wants(kt_probe[2]), KS_WANT_ARG0);
	ks_close(a);
	assert_int_equal(ks_probe_wants(kt_probe[2]), 0);
}

static int vt_calls, vt_last;

static void vt_watch(void)
{
	vt_calls++;
	vt_last = ks_wants_vtime();
}

/* vtimestamp anywhere turns ks_wants_vtime on; the watcher hears the
 * first ECB come (before its probe starts) and the last one go, and the
 * probe's source is not restarted for it. */
static void wants_vtime(void **state)
{
	ks_state_t *a = ks_open(), *c = ks_open(), *d = ks_open();
	int e0;

	(void)state;
	kt_setup();
	ks_vtime_watch(vt_watch);
	vt_calls = 0;
	assert_false(ks_wants_vtime());
	enable_var(a, 0, 0, 0);
	e0 = kt_enables;
	assert_int_equal(vt_calls, 0);
	enable_var(c, 0, DIF_VAR_VTIMESTAMP, 0);
	assert_true(ks_wants_vtime());
	assert_int_equal(vt_calls, 1);
	assert_int_equal(vt_last, 1);
	assert_int_equal(kt_enables, e0);	/* no restart */
	/* a's trace(arg0) loads arg0: nothing else is asked for */
	assert_int_equal(ks_probe_wants(kt_probe[0]), KS_WANT_ARG0);
	enable_var(d, 1, DIF_VAR_VTIMESTAMP, 1);
	assert_int_equal(vt_calls, 1);
	ks_close(c);
	assert_true(ks_wants_vtime());
	ks_close(d);
	assert_false(ks_wants_vtime());
	assert_int_equal(vt_calls, 2);
	assert_int_equal(vt_last, 0);
	ks_close(a);
	assert_int_equal(vt_calls, 2);
	ks_vtime_watch(NULL);
}

static uint64_t totdrops(ks_state_t *st, unsigned cpu)
{
	ks_bufstat_t bs;

	assert_int_equal(ks_bufstat(st, cpu, &bs), 0);
	return bs.kbs_drops;
}

/* Provider drops land on the CPU's principal buffer of active states
 * only: reported by the next snapshot and in the totals. */
static void provider_drops(void **state)
{
	ks_state_t *a = ks_open(), *idle = ks_open();
	unsigned n = ks_ncpus(), cpu = n > 1 ? 1 : 0;
	static char buf[1 << 16];
	uint64_t drops;
	uint32_t x;

	(void)state;
	kt_setup();
	enable_var(a, 3, 0, 0);
	enable_var(idle, 3, 0, 0);
	kt_go(a);
	ks_provider_drops(cpu, 5);
	ks_provider_drops(cpu + n, 2);	/* CPU ids wrap to the slots */
	kt_snap(a, cpu, buf, sizeof(buf), 0, &drops);
	assert_int_equal(drops, 7);
	kt_snap(a, cpu, buf, sizeof(buf), 0, &drops);
	assert_int_equal(drops, 0);
	assert_int_equal(totdrops(a, cpu), 7);
	if (n > 1)
		assert_int_equal(totdrops(a, 0), 0);
	assert_int_equal(totdrops(idle, cpu), 0);	/* never went */
	assert_int_equal(ks_ioctl(a, DTRACEIOC_STOP, &x), 0);
	ks_provider_drops(cpu, 3);			/* stopped: none */
	assert_int_equal(totdrops(a, cpu), 7);
	ks_close(idle);
	ks_close(a);
	ks_provider_drops(cpu, 1);			/* no state at all */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wants_stack_vars),
		cmocka_unit_test(wants_stack_actions),
		cmocka_unit_test(wants_stack_restart),
		cmocka_unit_test(wants_uregs),
		cmocka_unit_test(wants_uargs),
		cmocka_unit_test(wants_vtime),
		cmocka_unit_test(provider_drops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
