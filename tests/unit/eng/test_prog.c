/*
 * test_prog.c - programs after compilation and probes (prog.c): probe
 * matching counts, -l mode, eng_count_matches on partial text, probe
 * walking and argument descriptions, ENABLE with the engine's ERROR
 * clause, the refusal of a description that matches nothing, and each
 * clause's predicate text.
 */
#include "cc_test.h"

static int count_cb(const dtrace_probedesc_t *pd, void *arg)
{
	(*(int *)arg)++;
	return strcmp(pd->dtpd_name, "END") == 0;	/* stop after END */
}

static void test_count_matches(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	assert_int_equal(eng_count_matches(h, "BEGIN"), 1);
	assert_int_equal(eng_count_matches(h, "dtrace:::"), 3);
	assert_int_equal(eng_count_matches(h, "dtrace:::B*, END /x > 1/ { "),
	    2);
	assert_int_equal(eng_count_matches(h, "nosuch:::"), 0);
	assert_int_equal(eng_count_matches(h, "a:b:c:d:e"), -1);
	eng_close(h);
}

static void test_list_mode_compiles_descriptions_only(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_cargs_t a = { 0, NULL, NULL, ENG_SPEC_PROVIDER, 0 };
	eng_prog_t *p = eng_compile_str(h, "dtrace", NULL, ENG_C_LIST |
	    ENG_C_PROBESPEC, &a);

	(void)state;
	assert_non_null(p);
	assert_int_equal(eng_prog_nprobes(p), 3);
	assert_string_equal(ct_stmt(p, 0)->s_pd[0].dtpd_provider, "dtrace");
	assert_null(eng_prog_dof(p, NULL));
	eng_prog_free(p);
	eng_close(h);
}

static void test_probe_walk_and_info(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_probeinfo_t pi;
	int n = 0;

	(void)state;
	assert_int_equal(eng_probe_iter(h, "dtrace:::", count_cb, &n), 2);
	assert_int_equal(n, 2);
	assert_int_equal(eng_probe_iter(h, ":::ERROR", NULL, NULL), 1);
	assert_int_equal(eng_probe_info(h, 1, &pi), 0);
	assert_string_equal(pi.epi_desc.dtpd_name, "BEGIN");
	assert_int_equal(eng_probe_info(h, 3, &pi), 0);
	assert_string_equal(pi.epi_desc.dtpd_name, "ERROR");
	assert_int_equal(pi.epi_nargs, 6);	/* arg0 .. arg5 */
	assert_int_equal(eng_probe_info(h, 99999, &pi), -1);
	eng_close(h);
}

static void test_exec_enables_error_clause_once(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { trace(1); }");
	eng_prog_t *q = ct_ok(h, "END { trace(2); }");
	unsigned n = 0;

	(void)state;
	assert_int_equal(eng_prog_exec(h, p, &n), 0);
	assert_int_equal(n, 1);
	assert_non_null(h->eh_cc->cc_errprog);
	assert_int_equal(ct_stmt(h->eh_cc->cc_errprog, 0)->s_id, DT_ECB_ERROR);
	assert_int_equal(ct_stmt(h->eh_cc->cc_errprog, 0)->s_nacts, 5);
	assert_int_equal(eng_prog_exec(h, q, &n), 0);
	assert_int_equal(n, 1);
	eng_prog_free(p);
	eng_prog_free(q);
	eng_close(h);
}

static void test_descriptions_must_match(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	p = eng_compile_str(h, "nosuch:::probe { }", NULL, 0, NULL);
	assert_null(p);
	assert_string_equal(eng_diag(h)->ed_tag, "D_PDESC_ZERO");
	assert_string_equal(eng_errmsg(h), "invalid probe specifier "
	    "nosuch:::probe { }: probe description nosuch:::probe does not "
	    "match any probes");
	p = eng_compile_str(h, "nosuch:::probe { }", NULL, ENG_C_ZDEFS, NULL);
	assert_non_null(p);
	assert_int_equal(eng_prog_nprobes(p), 0);
	eng_prog_free(p);
	eng_close(h);
}

static void test_errtags_in_messages(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	assert_int_equal(eng_setopt(h, "errtags", NULL), 0);
	p = eng_compile_str(h, "BEGIN\n{\n\tx = ;\n}", "t.d", 0, NULL);
	assert_null(p);
	assert_string_equal(eng_errmsg(h), "failed to compile script t.d: "
	    "[D_SYNTAX] line 3: syntax error near \";\"");
	assert_int_equal(eng_diag(h)->ed_column, 6);
	eng_close(h);
}

static void test_failed_compile_leaves_no_identifiers(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;

	(void)state;
	ct_err(h, "BEGIN { @a = count(); g = 1; trace(nosuch); }",
	    "D_IDENT_UNDEF");
	/* @a is not a count() aggregation, g does not exist */
	p = ct_ok(h, "BEGIN { @a = sum(1); }");
	eng_prog_free(p);
	ct_err(h, "BEGIN { trace(g); }", "D_IDENT_UNDEF");
	eng_close(h);
}

static void test_compile_file_skips_interpreter_line(void **state)
{
	eng_hdl_t *h = ct_open();
	char text[] = "#!/usr/sbin/dtrace -qs\nBEGIN\n{\n\ttrace(q);\n}\n";
	FILE *fp = fmemopen(text, strlen(text), "r");
	eng_prog_t *p;

	(void)state;
	assert_non_null(fp);
	p = eng_compile_file(h, fp, "s.d", 0, NULL);
	fclose(fp);
	assert_null(p);
	assert_string_equal(eng_errmsg(h), "failed to compile script s.d: "
	    "line 4: failed to resolve q: Unknown variable name");
	eng_close(h);
}

/* The enablings pane shows each clause's predicate as written, its
 * blanks squeezed (a '/' inside it, a division, kept); none for a clause
 * without one or an id not the program's. */
static void test_clause_predicate_text(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = eng_compile_str(h, "int i;\nBEGIN /i < 7/ { i++; }\n"
	    "END\n/ i / 2 ==\n\t0 /\n{ exit(0); }\nBEGIN { i = 1; }\n", NULL,
	    0, NULL);

	(void)state;
	assert_non_null(p);
	assert_string_equal(eng_prog_clause_pred(p, ct_stmt(p, 0)->s_id),
	    "/i < 7/");
	assert_string_equal(eng_prog_clause_pred(p, ct_stmt(p, 1)->s_id),
	    "/i / 2 == 0/");
	assert_null(eng_prog_clause_pred(p, ct_stmt(p, 2)->s_id));
	assert_null(eng_prog_clause_pred(p, 999999));
	eng_prog_free(p);
	eng_close(h);
}

static void test_cpp_runs_with_definitions(void **state)
{
	eng_hdl_t *h = ct_open();
	const char *cpp[] = { "-DVAL=41", NULL };
	eng_cargs_t a = { 0, NULL, cpp, 0, 0 };
	eng_prog_t *p;

	(void)state;
	p = eng_compile_str(h, "#define PLUS1(x) ((x) + 1)\nBEGIN { trace("
	    "PLUS1(VAL)); }", "c.d", ENG_C_CPP, &a);
	if (p == NULL) {
		print_message("skipped: the C preprocessor did not run: %s\n",
		    eng_errmsg(h));
		eng_close(h);
		skip();
	}
	assert_int_equal(ct_const(ct_stmt(p, 0)->s_acts[0].a_difo), 42);
	eng_prog_free(p);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_matches),
		cmocka_unit_test(test_list_mode_compiles_descriptions_only),
		cmocka_unit_test(test_probe_walk_and_info),
		cmocka_unit_test(test_exec_enables_error_clause_once),
		cmocka_unit_test(test_descriptions_must_match),
		cmocka_unit_test(test_errtags_in_messages),
		cmocka_unit_test(test_failed_compile_leaves_no_identifiers),
		cmocka_unit_test(test_compile_file_skips_interpreter_line),
		cmocka_unit_test(test_cpp_runs_with_definitions),
		cmocka_unit_test(test_clause_predicate_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
