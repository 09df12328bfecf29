/*
 * test_locals.c - clause-local (this->) variables live for one probe
 * firing: every clause of the state that runs for the firing shares them,
 * and they are zero again at the start of the next firing.
 */
#include "ks_test.h"

#define X_ID	(DIF_VAR_OTHER_UBASE + 1)	/* this->x, slot 1 */
#define REC	24

static dtrace_difv_t local_var(void)
{
	dtrace_difv_t v;

	memset(&v, 0, sizeof(v));
	v.dtdv_name = 0;
	v.dtdv_id = X_ID;
	v.dtdv_kind = DIFV_KIND_SCALAR;
	v.dtdv_scope = DIFV_SCOPE_LOCAL;
	v.dtdv_type.dtdt_kind = DIF_TYPE_CTF;
	v.dtdv_type.dtdt_size = 8;
	return v;
}

static dtrace_diftype_t int8_type(void)
{
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 8 };

	return t;
}

/* DIF: this->x = argN; return this->x. */
static uint32_t store_difo(dofb_t *b, unsigned n)
{
	dif_instr_t code[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0 + n, 1),
		DIF_INSTR_STV(DIF_OP_STLS, X_ID, 1),
		DIF_INSTR_RET(1),
	};
	dtrace_difv_t v = local_var();

	return dofb_difo(b, code, 3, NULL, 0, "x", 2, &v, 1, int8_type());
}

/* DIF: return this->x. */
static uint32_t load_difo(dofb_t *b)
{
	dif_instr_t code[] = {
		DIF_INSTR_LDV(DIF_OP_LDLS, X_ID, 1),
		DIF_INSTR_RET(1),
	};
	dtrace_difv_t v = local_var();

	return dofb_difo(b, code, 2, NULL, 0, "x", 2, &v, 1, int8_type());
}

/* p0 { trace(this->x) } p0 { trace(this->x = arg0) } p0 { trace(this->x) }
 * p1 { trace(this->x) } p1 { trace(this->x = arg1) } */
static ks_state_t *locals_state(void)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a;

	kt_setup();
	a = dofb_act(DTRACEACT_DIFEXPR, load_difo(b), 0);
	kt_clause(b, 0, DOF_SECIDX_NONE, &a, 1);		/* EPID 1 */
	a = dofb_act(DTRACEACT_DIFEXPR, store_difo(b, 0), 0);
	kt_clause(b, 0, DOF_SECIDX_NONE, &a, 1);		/* EPID 2 */
	a = dofb_act(DTRACEACT_DIFEXPR, load_difo(b), 0);
	kt_clause(b, 0, DOF_SECIDX_NONE, &a, 1);		/* EPID 3 */
	a = dofb_act(DTRACEACT_DIFEXPR, load_difo(b), 0);
	kt_clause(b, 1, DOF_SECIDX_NONE, &a, 1);		/* EPID 4 */
	a = dofb_act(DTRACEACT_DIFEXPR, store_difo(b, 1), 0);
	kt_clause(b, 1, DOF_SECIDX_NONE, &a, 1);		/* EPID 5 */
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	return st;
}

/* The 8-byte values of the records in buf[0, n), in order. */
static int values(const char *buf, uint64_t n, uint64_t *out, int max)
{
	uint64_t off;
	int k = 0;

	for (off = 0; off + REC <= n && k < max; off += REC)
		memcpy(&out[k++], buf + off + 16, 8);
	return k;
}

static void shared_within_firing(void **state)
{
	ks_state_t *st = locals_state();
	char buf[1024];
	uint64_t v[16], n;

	(void)state;
	kt_fire(0, 0, 42, 0);
	kt_fire(0, 0, 7, 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	assert_int_equal(values(buf, n, v, 16), 6);
	assert_int_equal(v[0], 0);	/* zero before the first store */
	assert_int_equal(v[1], 42);
	assert_int_equal(v[2], 42);	/* the next clause sees it */
	assert_int_equal(v[3], 0);	/* a new firing starts at zero */
	assert_int_equal(v[4], 7);
	assert_int_equal(v[5], 7);
	ks_close(st);
}

static void zero_on_other_probe(void **state)
{
	ks_state_t *st = locals_state();
	char buf[1024];
	uint64_t v[16], n;

	(void)state;
	kt_fire(0, 0, 42, 0);
	kt_fire(1, 0, 0, 9);
	kt_fire(1, 0, 0, 11);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	assert_int_equal(values(buf, n, v, 16), 7);
	assert_int_equal(v[2], 42);
	assert_int_equal(v[3], 0);	/* p1 does not see p0's value */
	assert_int_equal(v[4], 9);
	assert_int_equal(v[5], 0);	/* nor its own previous firing's */
	assert_int_equal(v[6], 11);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shared_within_firing),
		cmocka_unit_test(zero_on_other_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
