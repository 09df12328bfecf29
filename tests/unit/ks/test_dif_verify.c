/*
 * test_dif_verify.c - the DIF verifier: one test per refusal (checking the
 * exact message, which names the instruction and the rule), plus objects
 * it must accept.
 */
#include "test_dif_util.h"

static void expect_refusal(tdif_t *t, const char *msg)
{
	char err[256];

	if (ks_dif_verify(&t->dp, err, sizeof (err)) == 0)
		fail_msg("accepted, expected \"%s\"", msg);
	if (strcmp(err, msg) != 0)
		fail_msg("message \"%s\", expected \"%s\"", err, msg);
}

static void expect_ok(tdif_t *t)
{
	char err[256];

	if (ks_dif_verify(&t->dp, err, sizeof (err)) != 0)
		fail_msg("refused: %s", err);
}

static void test_ks_dif_verify_accepts_minimal(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_RET(0));
	expect_ok(&t);
}

static void test_ks_dif_verify_refuses_empty(void **state)
{
	tdif_t t;

	td_init(&t);
	expect_refusal(&t, "DIF object: no instructions");
}

static void test_ks_dif_verify_refuses_bad_opcode(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_FMT(0x00, 0, 0, 0));
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF instruction 0: invalid opcode 0");
	t.text[0] = DIF_INSTR_FMT(0x50, 0, 0, 0);
	expect_refusal(&t, "DIF instruction 0: invalid opcode 0x50");
}

static void test_ks_dif_verify_refuses_bad_register(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_ADD, 8, 1, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	expect_refusal(&t, "DIF instruction 0: r1 register %r8 does not exist "
	    "(8 registers)");
	t.text[0] = DIF_INSTR_FMT(DIF_OP_ADD, 1, 9, 2);
	expect_refusal(&t, "DIF instruction 0: r2 register %r9 does not exist "
	    "(8 registers)");
	t.text[0] = DIF_INSTR_FMT(DIF_OP_ADD, 1, 1, 200);
	expect_refusal(&t, "DIF instruction 0: destination register %r200 "
	    "does not exist (8 registers)");
	t.text[0] = DIF_INSTR_NOP;
	t.text[1] = DIF_INSTR_RET(8);
	expect_refusal(&t, "DIF instruction 1: return register %r8 does not "
	    "exist (8 registers)");
}

static void test_ks_dif_verify_refuses_write_to_r0(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_ADD, 1, 2, 0));
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF instruction 0: ADD writes %r0, which is "
	    "always 0");
	t.text[0] = DIF_INSTR_SETX(td_int(&t, 1), 0);
	expect_refusal(&t, "DIF instruction 0: SETX writes %r0, which is "
	    "always 0");
	t.text[0] = DIF_INSTR_CALL(DIF_SUBR_rand, 0);
	expect_refusal(&t, "DIF instruction 0: CALL writes %r0, which is "
	    "always 0");
}

static void test_ks_dif_verify_refuses_reserved_bits(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_NOT, 1, 3, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	expect_refusal(&t, "DIF instruction 0: r2 field must be 0 (reserved), "
	    "not 3");
	t.text[0] = DIF_INSTR_FMT(DIF_OP_CMP, 1, 2, 5);
	expect_refusal(&t, "DIF instruction 0: rd field must be 0 (reserved), "
	    "not 5");
	t.text[0] = DIF_INSTR_FMT(DIF_OP_TST, 1, 2, 0);
	expect_refusal(&t, "DIF instruction 0: r2 field must be 0 (reserved), "
	    "not 2");
	t.text[0] = DIF_INSTR_NOP;
	t.text[1] = DIF_INSTR_FMT(DIF_OP_RET, 1, 0, 2);
	expect_refusal(&t, "DIF instruction 1: r1 field must be 0 (reserved), "
	    "not 1");
}

static void test_ks_dif_verify_refuses_backward_branch(void **state)
{
	tdif_t t;

	td_init(&t);
	for (int i = 0; i < 5; i++)
		td_emit(&t, DIF_INSTR_NOP);
	td_emit(&t, DIF_INSTR_BRANCH(DIF_OP_BA, 3));
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF instruction 5: branch to 3 goes backward");
	t.text[5] = DIF_INSTR_BRANCH(DIF_OP_BE, 5);
	expect_refusal(&t, "DIF instruction 5: branch to 5 goes backward");
}

static void test_ks_dif_verify_refuses_branch_past_end(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_BRANCH(DIF_OP_BNE, 2));
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF instruction 0: branch to 2 is past the last "
	    "instruction (1)");
	t.text[0] = DIF_INSTR_BRANCH(DIF_OP_BNE, 1);
	expect_ok(&t);
}

static void test_ks_dif_verify_refuses_table_indices(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_SETX(0, 1));
	td_emit(&t, DIF_INSTR_RET(1));
	expect_refusal(&t, "DIF instruction 0: integer table index 0 out of "
	    "range (0 entries)");
	t.text[0] = DIF_INSTR_SETS(1, 1);
	expect_refusal(&t, "DIF instruction 0: string table offset 1 out of "
	    "range (1 bytes)");
}

static void test_ks_dif_verify_refuses_unterminated_strtab(void **state)
{
	tdif_t t;

	td_init(&t);
	td_str(&t, "abc");
	t.dp.dtdo_strlen--;		/* drop the NUL */
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF object: string table does not end with a NUL");
}

static void test_ks_dif_verify_refuses_table_without_data(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_RET(0));
	t.dp.dtdo_intlen = 3;
	t.dp.dtdo_inttab = NULL;
	expect_refusal(&t, "DIF object: a table has a length but no data");
}

static void test_ks_dif_verify_refuses_unknown_builtin(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGS, 0x0150, 1));
	td_emit(&t, DIF_INSTR_RET(1));
	expect_refusal(&t, "DIF instruction 0: unknown built-in variable "
	    "0x150");
	t.text[0] = DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_EXECNAME, 1);
	expect_ok(&t);
	t.text[0] = DIF_INSTR_LDA(DIF_OP_LDGA, 5, 0, 1);
	expect_refusal(&t, "DIF instruction 0: unknown built-in array "
	    "variable 0x5");
	t.text[0] = DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 9, 1);
	expect_refusal(&t, "DIF instruction 0: index register %r9 does not "
	    "exist (8 registers)");
}

static void test_ks_dif_verify_refuses_store_to_builtin(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_STV(DIF_OP_STGS, DIF_VAR_PID, 1));
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF instruction 0: global variable id 0x116 is not "
	    "a user variable (ids start at 0x500)");
}

static void test_ks_dif_verify_refuses_undeclared_variable(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGS, 0x500, 1));
	td_emit(&t, DIF_INSTR_RET(1));
	expect_refusal(&t, "DIF instruction 0: global variable 0x500 is not in "
	    "the variable table");
	td_var(&t, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, 0);
	expect_refusal(&t, "DIF instruction 0: global variable 0x500 is not in "
	    "the variable table");
	t.text[0] = DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 1);
	expect_ok(&t);
	t.text[0] = DIF_INSTR_LDV(DIF_OP_LDLS, 0x500, 1);
	expect_refusal(&t, "DIF instruction 0: clause-local variable 0x500 is "
	    "not in the variable table");
}

static void test_ks_dif_verify_refuses_wrong_kind(void **state)
{
	tdif_t t;

	td_init(&t);
	td_var(&t, 0x501, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 0);
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGAA, 0x501, 1));
	td_emit(&t, DIF_INSTR_RET(1));
	expect_refusal(&t, "DIF instruction 0: global variable 0x501 is "
	    "declared as a scalar, used as an array");
	t.text[0] = DIF_INSTR_LDV(DIF_OP_LDGS, 0x501, 1);
	expect_ok(&t);
}

static void test_ks_dif_verify_refuses_unknown_subroutine(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_CALL(47, 1));
	td_emit(&t, DIF_INSTR_RET(1));
	expect_refusal(&t, "DIF instruction 0: unknown subroutine 47");
	t.text[0] = DIF_INSTR_CALL(58, 1);
	expect_refusal(&t, "DIF instruction 0: unknown subroutine 58");
}

static void test_ks_dif_verify_refuses_unavailable_subroutines(void **state)
{
	static const struct { unsigned id; const char *name; } s[] = {
		{ DIF_SUBR_mutex_owned, "mutex_owned" },
		{ DIF_SUBR_mutex_owner, "mutex_owner" },
		{ DIF_SUBR_mutex_type_adaptive, "mutex_type_adaptive" },
		{ DIF_SUBR_mutex_type_spin, "mutex_type_spin" },
		{ DIF_SUBR_rw_read_held, "rw_read_held" },
		{ DIF_SUBR_rw_write_held, "rw_write_held" },
		{ DIF_SUBR_rw_iswriter, "rw_iswriter" },
		{ DIF_SUBR_sx_shared_held, "sx_shared_held" },
		{ DIF_SUBR_sx_exclusive_held, "sx_exclusive_held" },
		{ DIF_SUBR_sx_isexclusive, "sx_isexclusive" },
		{ DIF_SUBR_msgsize, "msgsize" },
		{ DIF_SUBR_msgdsize, "msgdsize" },
		{ DIF_SUBR_ddi_pathname, "ddi_pathname" },
		{ DIF_SUBR_getf, "getf" },
	};
	char msg[128];
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_NOP);
	td_emit(&t, DIF_INSTR_RET(1));
	for (size_t i = 0; i < sizeof (s) / sizeof (s[0]); i++) {
		t.text[0] = DIF_INSTR_CALL(s[i].id, 1);
		snprintf(msg, sizeof (msg), "DIF instruction 0: subroutine %s "
		    "is not available on Linux", s[i].name);
		expect_refusal(&t, msg);
	}
	for (unsigned id = 0; id <= DIF_SUBR_MAX; id++) {
		int bad = id == 47;

		for (size_t i = 0; i < sizeof (s) / sizeof (s[0]); i++)
			bad |= s[i].id == id;
		t.text[0] = DIF_INSTR_CALL(id, 1);
		if (!bad)
			expect_ok(&t);
	}
}

static void test_ks_dif_verify_refuses_bad_tuple_type(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, 7, 0, 1));
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF instruction 0: invalid tuple type 7");
	t.text[0] = DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_STRING, 0, 1);
	expect_refusal(&t, "DIF instruction 0: PUSHTV of a string (strings are "
	    "pushed by reference)");
	t.text[0] = DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 1);
	expect_ok(&t);
}

static void test_ks_dif_verify_refuses_missing_ret(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_RET(0));
	td_emit(&t, DIF_INSTR_NOP);
	expect_refusal(&t, "DIF instruction 1: the last instruction must be "
	    "RET, not NOP");
}

static void test_ks_dif_verify_refuses_translators(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_XLATE, 0, 0, 1));
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF instruction 0: XLATE is not supported "
	    "(translators are applied by the compiler)");
	t.text[0] = DIF_INSTR_FMT(DIF_OP_XLARG, 0, 0, 1);
	expect_refusal(&t, "DIF instruction 0: XLARG is not supported "
	    "(translators are applied by the compiler)");
}

static void test_ks_dif_verify_refuses_ldta(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_LDA(DIF_OP_LDTA, 0, 0, 1));
	td_emit(&t, DIF_INSTR_RET(0));
	expect_refusal(&t, "DIF instruction 0: LDTA (thread-local built-in "
	    "arrays) is not implemented");
}

static void test_ks_dif_verify_refuses_bad_vartab(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_RET(0));
	td_var(&t, 0x100, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 0);
	expect_refusal(&t, "DIF object: variable table entry 0: id 0x100 is "
	    "below 0x500");
	t.vars[0].dtdv_id = 0x500;
	t.vars[0].dtdv_kind = 5;
	expect_refusal(&t, "DIF object: variable table entry 0: invalid kind 5");
	t.vars[0].dtdv_kind = DIFV_KIND_SCALAR;
	t.vars[0].dtdv_scope = 3;
	expect_refusal(&t, "DIF object: variable table entry 0: invalid scope "
	    "3");
	t.vars[0].dtdv_scope = DIFV_SCOPE_LOCAL;
	t.vars[0].dtdv_kind = DIFV_KIND_ARRAY;
	expect_refusal(&t, "DIF object: variable table entry 0: clause-local "
	    "arrays do not exist");
	t.vars[0].dtdv_kind = DIFV_KIND_SCALAR;
	t.vars[0].dtdv_type.dtdt_kind = 9;
	expect_refusal(&t, "DIF object: variable table entry 0 has invalid "
	    "type kind 9");
	t.vars[0].dtdv_type.dtdt_kind = DIF_TYPE_CTF;
	td_var(&t, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_LOCAL, 0);
	expect_refusal(&t, "DIF object: variable table entry 1: clause-local "
	    "variable 0x500 appears twice");
}

static void test_ks_dif_verify_refuses_bad_return_type(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_RET(0));
	t.dp.dtdo_rtype.dtdt_flags = 0x80;
	expect_refusal(&t, "DIF object: return value has unknown type flags "
	    "0x80");
}

static void test_ks_dif_nlocals_counts_slots(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_RET(0));
	assert_int_equal(ks_dif_nlocals(&t.dp), 0);
	td_var(&t, 0x502, DIFV_KIND_SCALAR, DIFV_SCOPE_LOCAL, 0);
	td_var(&t, 0x509, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 0);
	assert_int_equal(ks_dif_nlocals(&t.dp), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ks_dif_verify_accepts_minimal),
		cmocka_unit_test(test_ks_dif_verify_refuses_empty),
		cmocka_unit_test(test_ks_dif_verify_refuses_bad_opcode),
		cmocka_unit_test(test_ks_dif_verify_refuses_bad_register),
		cmocka_unit_test(test_ks_dif_verify_refuses_write_to_r0),
		cmocka_unit_test(test_ks_dif_verify_refuses_reserved_bits),
		cmocka_unit_test(test_ks_dif_verify_refuses_backward_branch),
		cmocka_unit_test(test_ks_dif_verify_refuses_branch_past_end),
		cmocka_unit_test(test_ks_dif_verify_refuses_table_indices),
		cmocka_unit_test(test_ks_dif_verify_refuses_unterminated_strtab),
		cmocka_unit_test(test_ks_dif_verify_refuses_table_without_data),
		cmocka_unit_test(test_ks_dif_verify_refuses_unknown_builtin),
		cmocka_unit_test(test_ks_dif_verify_refuses_store_to_builtin),
		cmocka_unit_test(test_ks_dif_verify_refuses_undeclared_variable),
		cmocka_unit_test(test_ks_dif_verify_refuses_wrong_kind),
		cmocka_unit_test(test_ks_dif_verify_refuses_unknown_subroutine),
		cmocka_unit_test(test_ks_dif_verify_refuses_unavailable_subroutines),
		cmocka_unit_test(test_ks_dif_verify_refuses_bad_tuple_type),
		cmocka_unit_test(test_ks_dif_verify_refuses_missing_ret),
		cmocka_unit_test(test_ks_dif_verify_refuses_translators),
		cmocka_unit_test(test_ks_dif_verify_refuses_ldta),
		cmocka_unit_test(test_ks_dif_verify_refuses_bad_vartab),
		cmocka_unit_test(test_ks_dif_verify_refuses_bad_return_type),
		cmocka_unit_test(test_ks_dif_nlocals_counts_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
