/*
 * test_cg.c - the DIF code generator (cg.c): instruction sequences for
 * variables and tuples, forward-only branches, the register limit
 * (D_NOREG instead of miscompiling), and results checked by running the
 * generated DIF through the shim's verifier and emulator.
 */
#include "cc_test.h"
#include "dif.h"

/* Verify and run d with a zeroed firing whose args are given. */
static uint64_t run(const struct eng_difo *d, const uint64_t *args)
{
	ks_difo_t k;
	ks_mstate_t ms;
	ks_probe_ctx_t ctx;
	char err[256], scratch[4096];
	uint64_t v;

	memset(&k, 0, sizeof(k));
	k.dtdo_buf = d->dd_buf;
	k.dtdo_len = d->dd_len;
	k.dtdo_inttab = d->dd_inttab;
	k.dtdo_intlen = d->dd_intlen;
	k.dtdo_strtab = d->dd_strtab;
	k.dtdo_strlen = d->dd_strlen;
	k.dtdo_vartab = d->dd_vartab;
	k.dtdo_varlen = d->dd_varlen;
	k.dtdo_rtype = d->dd_rtype;
	if (ks_dif_verify(&k, err, sizeof(err)) != 0)
		fail_msg("verifier refused: %s", err);
	memset(&ms, 0, sizeof(ms));
	memset(&ctx, 0, sizeof(ctx));
	if (args != NULL)
		memcpy(ctx.kpc_args, args, sizeof(ctx.kpc_args));
	ms.kms_ctx = &ctx;
	ms.kms_strsize = 256;
	ms.kms_scratch = scratch;
	ms.kms_scratch_size = sizeof(scratch);
	v = ks_dif_emulate(&k, &ms);
	if (ms.kms_fault != 0)
		fail_msg("fault %u at %u", ms.kms_fault, ms.kms_fault_pc);
	return v;
}

/* Compile "BEGIN { trace(expr); }" and run the action with args. */
static uint64_t eval(eng_hdl_t *h, const char *expr, const uint64_t *args)
{
	char src[512];
	eng_prog_t *p;
	uint64_t v;

	snprintf(src, sizeof(src), "BEGIN { trace(%s); }", expr);
	p = ct_ok(h, src);
	v = run(ct_stmt(p, 0)->s_acts[0].a_difo, args);
	eng_prog_free(p);
	return v;
}

static void test_arithmetic_runs(void **state)
{
	eng_hdl_t *h = ct_open();
	uint64_t a[DTRACE_MAXARGS] = { 7, (uint64_t)-3, 100, 0 };

	(void)state;
	assert_int_equal(eval(h, "arg0 * 6 + arg2 / 7", a), 56);
	assert_int_equal((int64_t)eval(h, "(int64_t)arg1 / 2", a), -1);
	assert_int_equal(eval(h, "arg2 % arg0", a), 2);
	assert_int_equal(eval(h, "(int64_t)arg1 >> 1", a), (uint64_t)-2);
	assert_int_equal(eval(h, "(uint64_t)arg1 >> 60", a), 15);
	assert_int_equal(eval(h, "arg1 >> 60", a), UINT64_MAX);
	assert_int_equal(eval(h, "-arg0 & 0xff", a), 0xf9);
	assert_int_equal(eval(h, "~arg3", a), UINT64_MAX);
	assert_int_equal(eval(h, "(char)(arg2 + 200)", a), 44);
	assert_int_equal(eval(h, "(uint8_t)arg1", a), 253);
	eng_close(h);
}

static void test_comparisons_and_logic_run(void **state)
{
	eng_hdl_t *h = ct_open();
	uint64_t a[DTRACE_MAXARGS] = { 7, (uint64_t)-3, 100, 0 };

	(void)state;
	assert_int_equal(eval(h, "(int64_t)arg1 < 0", a), 1);
	assert_int_equal(eval(h, "arg1 < 0", a), 1);	/* int64_t: signed */
	assert_int_equal(eval(h, "(uint64_t)arg1 < 5", a), 0);
	assert_int_equal(eval(h, "(uint64_t)arg1 > 5", a), 1);
	assert_int_equal(eval(h, "arg0 == 7 && arg3 == 0", a), 1);
	assert_int_equal(eval(h, "arg3 || arg0 == 8", a), 0);
	assert_int_equal(eval(h, "arg0 ^^ arg3", a), 1);
	assert_int_equal(eval(h, "!arg3", a), 1);
	assert_int_equal(eval(h, "arg0 > 5 ? arg2 : arg0", a), 100);
	assert_int_equal(eval(h, "\"abc\" < \"abd\"", a), 1);
	assert_int_equal(eval(h, "strlen(\"hello\") + 1", a), 6);
	eng_close(h);
}

static void test_branches_only_go_forward(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { trace(arg0 && (arg1 || arg2) ? "
	    "arg3 > 2 : !arg4); }");
	const struct eng_difo *d = ct_stmt(p, 0)->s_acts[0].a_difo;

	(void)state;
	for (uint32_t i = 0; i < d->dd_len; i++) {
		int op = (int)DIF_INSTR_OP(d->dd_buf[i]);

		if (op >= DIF_OP_BA && op <= DIF_OP_BLEU)
			assert_true(DIF_INSTR_LABEL(d->dd_buf[i]) > i &&
			    DIF_INSTR_LABEL(d->dd_buf[i]) <= d->dd_len);
	}
	eng_prog_free(p);
	eng_close(h);
}

static void test_variables_use_their_opcodes(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { x = 1; self->y = x; this->z = 2; "
	    "a[x, \"k\"] = self->y; self->b[1] = a[1, \"k\"]; }");
	const struct eng_stmt *s = ct_stmt(p, 0);

	(void)state;
	assert_true(ct_has_op(s->s_acts[0].a_difo, DIF_OP_STGS));
	assert_true(ct_has_op(s->s_acts[1].a_difo, DIF_OP_LDGS));
	assert_true(ct_has_op(s->s_acts[1].a_difo, DIF_OP_STTS));
	assert_true(ct_has_op(s->s_acts[2].a_difo, DIF_OP_STLS));
	assert_true(ct_has_op(s->s_acts[3].a_difo, DIF_OP_FLUSHTS));
	assert_true(ct_has_op(s->s_acts[3].a_difo, DIF_OP_PUSHTR));
	assert_true(ct_has_op(s->s_acts[3].a_difo, DIF_OP_STGAA));
	assert_true(ct_has_op(s->s_acts[3].a_difo, DIF_OP_LDTS));
	assert_true(ct_has_op(s->s_acts[4].a_difo, DIF_OP_LDGAA));
	assert_true(ct_has_op(s->s_acts[4].a_difo, DIF_OP_STTAA));
	assert_int_equal(s->s_acts[4].a_difo->dd_varlen, 2);
	/* assignments are void: they record nothing */
	assert_int_equal(s->s_acts[0].a_difo->dd_rtype.dtdt_size, 0);
	eng_prog_free(p);
	eng_close(h);
}

static void test_register_limit_is_an_error(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	/* seven live values fit (r1-r7) ... */
	p = ct_ok(h, "BEGIN { trace(arg0 + (arg1 + (arg2 + (arg3 + (arg4 + "
	    "(arg5 + arg6)))))); }");
	eng_prog_free(p);
	/* ... eight do not: refused, never miscompiled */
	assert_string_equal(ct_err(h, "BEGIN { trace(arg0 + (arg1 + (arg2 + "
	    "(arg3 + (arg4 + (arg5 + (arg6 + arg7))))))); }", "D_NOREG"),
	    "expression too complex: insufficient registers to generate code");
	eng_close(h);
}

static void test_subroutine_arguments_nest(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	assert_int_equal(eval(h, "strlen(strjoin(\"ab\", strjoin(\"cd\", "
	    "\"e\")))", NULL), 5);
	assert_int_equal(eval(h, "index(\"hello\", \"l\") + 1", NULL), 3);
	eng_close(h);
}

static void test_if_uses_forward_branches(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { if (arg0 > 1) { x = 1; } else if "
	    "(arg1) x = 2; else { x = 3; y = 4; } }");
	const struct eng_difo *d = ct_stmt(p, 0)->s_acts[0].a_difo;

	(void)state;
	assert_true(ct_has_op(d, DIF_OP_BE));
	assert_true(ct_has_op(d, DIF_OP_BA));
	assert_int_equal(d->dd_rtype.dtdt_size, 0);
	eng_prog_free(p);
	eng_close(h);
}

static void test_if_with_actions_splits_the_clause(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN, END { x = 1; if (arg0) { trace(1); } "
	    "else { @a = count(); } trace(3); }");

	(void)state;
	assert_int_equal(p->p_nstmts, 4);
	assert_null(ct_stmt(p, 0)->s_pred);
	assert_int_equal(ct_stmt(p, 0)->s_piece, 1);
	assert_int_equal(ct_stmt(p, 0)->s_nacts, 2);	/* x = 1; flag = */
	for (int i = 1; i < 4; i++) {
		assert_non_null(ct_stmt(p, i)->s_pred);
		assert_int_equal(ct_stmt(p, i)->s_piece, 2);
		assert_int_equal(ct_stmt(p, i)->s_npd, 2);
		assert_true(ct_has_op(ct_stmt(p, i)->s_pred, DIF_OP_LDLS));
	}
	assert_int_equal(ct_stmt(p, 1)->s_acts[0].a_kind, DTRACEACT_DIFEXPR);
	assert_int_equal(ct_stmt(p, 2)->s_acts[0].a_kind, DTRACEAGG_COUNT);
	assert_int_equal(ct_stmt(p, 3)->s_nacts, 1);	/* trace */
	assert_int_equal(eng_prog_nprobes(p), 2);
	eng_prog_free(p);
	eng_close(h);
}

/* A long left-associative chain is as deep as it is long: still fine. */
static void test_long_left_chain(void **state)
{
	eng_hdl_t *h = ct_open();
	size_t n = 3000, len = 64 + n * 4;
	char *src = malloc(len), *q = src;
	eng_prog_t *p;

	(void)state;
	assert_non_null(src);
	q += sprintf(q, "BEGIN { y = 1; x = y");
	for (size_t i = 1; i < n; i++)
		q += sprintf(q, "+y");
	sprintf(q, "; trace(x); }");
	p = ct_ok(h, src);
	eng_prog_free(p);
	free(src);
	eng_close(h);
}

/* Nothing after the if: no last piece. */
static void test_if_at_end_has_no_after_piece(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { this->a = 1; if (this->a) "
	    "{ trace(1); } else { trace(2); } }");

	(void)state;
	assert_int_equal(p->p_nstmts, 3);
	assert_true(ct_has_op(ct_stmt(p, 0)->s_acts[1].a_difo, DIF_OP_STLS));
	assert_int_equal(ct_stmt(p, 2)->s_piece, 2);
	eng_prog_free(p);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic_runs),
		cmocka_unit_test(test_comparisons_and_logic_run),
		cmocka_unit_test(test_branches_only_go_forward),
		cmocka_unit_test(test_variables_use_their_opcodes),
		cmocka_unit_test(test_register_limit_is_an_error),
		cmocka_unit_test(test_subroutine_arguments_nest),
		cmocka_unit_test(test_if_uses_forward_branches),
		cmocka_unit_test(test_if_with_actions_splits_the_clause),
		cmocka_unit_test(test_if_at_end_has_no_after_piece),
		cmocka_unit_test(test_long_left_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
