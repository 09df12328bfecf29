/*
 * test_filter.c - predicates translated into provider filters
 * (kernel-shim/filter.c, ks_filter.h): predicates compiled by the real
 * compiler and enabled through the engine on the test provider's probes,
 * then ks_probe_filter() read and checked both by its terms and by
 * evaluating it (ks_filter_match) against the DIF emulator's answer on
 * sample firings; hand-built DIF for what the compiler does not emit; the
 * generation counter and the watcher.
 */
#include "ks_test.h"
#include "engine.h"
#include "ks_filter.h"
#include "dif.h"

static eng_hdl_t *hdl;
static int watched;

static void on_change(void)
{
	watched++;
}

static int setup(void **state)
{
	char err[256];

	(void)state;
	kt_setup();
	hdl = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));
	return hdl == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	eng_close(hdl);
	return 0;
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

/* Enable clauses (D text) in a fresh handle; its filter for probe i. */
static eng_hdl_t *enable(const char *src, int i, ks_filter_t *f)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));
	eng_prog_t *p;
	unsigned n = 0;

	assert_non_null(h);
	p = eng_compile_str(h, src, NULL, 0, NULL);
	keep(p);
	if (p == NULL)
		fail_msg("compile <%s>: %s", src, eng_errmsg(h));
	if (eng_prog_exec(h, p, &n) != 0)
		fail_msg("exec <%s>: %s", src, eng_errmsg(h));
	assert_true(n > 0);
	assert_int_equal(ks_probe_filter(kt_probe[i], f), 0);
	return h;
}

static ks_filter_t one(const char *pred)
{
	char src[512];
	ks_filter_t f;
	eng_hdl_t *h;

	/* self->x declared: a read of it before any assignment is refused */
	snprintf(src, sizeof(src), "self int x; "
	    "ktest:mod:func:p0 / %s / { trace(1); }", pred);
	h = enable(src, 0, &f);
	eng_close(h);
	return f;
}

static int m(const ks_filter_t *f, int32_t pid, int32_t tid, uint32_t cpu,
    uint64_t arg0, const char *comm)
{
	uint64_t args[DTRACE_MAXARGS] = { arg0, 0 };
	char c[16] = { 0 };

	strncpy(c, comm, 15);
	return ks_filter_match(f, pid, tid, cpu, 1000, 100, args, c);
}

static void pid_eq(void **state)
{
	ks_filter_t f = one("pid == 1234");
	const ks_filter_atom_t *a = &f.kf_terms[0].kft_atoms[0];

	(void)state;
	assert_false(f.kf_always);
	assert_int_equal(f.kf_nterms, 1);
	assert_int_equal(f.kf_terms[0].kft_natoms, 1);
	assert_int_equal(a->kfa_var, KS_FV_PID);
	assert_int_equal(a->kfa_op, KS_FOP_EQ);
	assert_int_equal(a->kfa_val, 1234);
	assert_true(m(&f, 1234, 1, 0, 0, "x"));
	assert_false(m(&f, 1235, 1234, 0, 0, "x"));
}

static void execname_eq_ne(void **state)
{
	ks_filter_t f = one("execname == \"w\"");

	(void)state;
	assert_false(f.kf_always);
	assert_int_equal(f.kf_terms[0].kft_atoms[0].kfa_var, KS_FV_EXECNAME);
	assert_string_equal(f.kf_terms[0].kft_atoms[0].kfa_str, "w");
	assert_true(m(&f, 1, 1, 0, 0, "w"));
	assert_false(m(&f, 1, 1, 0, 0, "ww"));
	f = one("execname != \"bash\"");
	assert_false(f.kf_always);
	assert_false(m(&f, 1, 1, 0, 0, "bash"));
	assert_true(m(&f, 1, 1, 0, 0, "sh"));
	/* no comm is 16 characters long: never equal */
	f = one("execname == \"abcdefghijklmnopq\"");
	assert_false(f.kf_always);
	assert_int_equal(f.kf_nterms, 0);
}

static void and_or_not(void **state)
{
	ks_filter_t f = one("arg0 != 5 && tid > 3");

	(void)state;
	assert_false(f.kf_always);
	assert_int_equal(f.kf_nterms, 1);
	assert_int_equal(f.kf_terms[0].kft_natoms, 2);
	assert_true(m(&f, 1, 4, 0, 6, "x"));
	assert_false(m(&f, 1, 4, 0, 5, "x"));
	assert_false(m(&f, 1, 3, 0, 6, "x"));
	f = one("cpu == 1 || pid == 7");
	assert_false(f.kf_always);
	assert_int_equal(f.kf_nterms, 2);
	assert_true(m(&f, 9, 9, 1, 0, "x"));
	assert_true(m(&f, 7, 9, 0, 0, "x"));
	assert_false(m(&f, 8, 9, 0, 0, "x"));
	f = one("!(pid == 7)");
	assert_false(f.kf_always);
	assert_false(m(&f, 7, 9, 0, 0, "x"));
	assert_true(m(&f, 6, 9, 0, 0, "x"));
	f = one("(pid == 7 || pid == 8) && execname == \"a\"");
	assert_false(f.kf_always);
	assert_true(m(&f, 8, 1, 0, 0, "a"));
	assert_false(m(&f, 8, 1, 0, 0, "b"));
	assert_false(m(&f, 9, 1, 0, 0, "a"));
}

static void casts_and_signs(void **state)
{
	ks_filter_t f = one("(int)arg0 < -1");

	(void)state;
	assert_false(f.kf_always);
	assert_int_equal(f.kf_terms[0].kft_atoms[0].kfa_shift, 32);
	assert_true(f.kf_terms[0].kft_atoms[0].kfa_sext);
	assert_true(m(&f, 1, 1, 0, 0xfffffffeULL, "x"));	/* (int) -2 */
	assert_false(m(&f, 1, 1, 0, 0x1fffffffeULL - 0xffffffffULL, "x"));
	assert_false(m(&f, 1, 1, 0, 0x100000000ULL, "x"));	/* (int) 0 */
	f = one("arg0 >= 10 && arg0 < 20");
	assert_true(m(&f, 1, 1, 0, 15, "x"));
	assert_false(m(&f, 1, 1, 0, (uint64_t)-15, "x"));	/* signed */
	assert_false(m(&f, 1, 1, 0, 20, "x"));
	f = one("(uint64_t)arg0 > 10");
	assert_true(m(&f, 1, 1, 0, (uint64_t)-15, "x"));	/* unsigned */
	assert_false(m(&f, 1, 1, 0, 10, "x"));
	f = one("uid == 1000 && gid == 100");
	assert_false(f.kf_always);
	assert_true(m(&f, 1, 1, 0, 0, "x"));
}

/* Predicates that must not filter: no predicate, variables, side
 * effects, loads that may fault, things filters cannot compare. */
static void untranslatable(void **state)
{
	static const char *const always[] = {
		"timestamp > 5", "self->x", "arg0", "arg1 == arg2",
		"strlen(execname) == 1", "(pid / arg0) == 1", "*(int *)arg0 == 1",
		"execname == probefunc",
	};
	ks_filter_t f;
	eng_hdl_t *h;

	(void)state;
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		f = one(always[i]);
		if (!f.kf_always)
			fail_msg("<%s> filtered", always[i]);
	}
	h = enable("ktest:mod:func:p0 { trace(1); }", 0, &f);
	assert_true(f.kf_always);
	eng_close(h);
	/* loosened: {pid == 1} or {pid != 1}, true for every pid */
	f = one("pid == 1 || arg1 == arg2");
	assert_true(m(&f, 1, 1, 0, 0, "x"));
	assert_true(m(&f, 2, 1, 0, 0, "x"));
	/* one loosened comparison keeps the other */
	f = one("pid == 3 && timestamp > 5");
	assert_false(f.kf_always);
	assert_int_equal(f.kf_terms[0].kft_natoms, 1);
	assert_true(m(&f, 3, 1, 0, 0, "x"));
}

/* Two clauses (two states, or one): the OR of both. */
static void several_ecbs(void **state)
{
	ks_filter_t f;
	eng_hdl_t *h1, *h2;

	(void)state;
	h1 = enable("ktest:mod:func:p1 /pid == 10/ { trace(1); } "
	    "ktest:mod:func:p1 /execname == \"b\"/ { trace(2); }", 1, &f);
	assert_false(f.kf_always);
	assert_int_equal(f.kf_nterms, 2);
	assert_true(m(&f, 10, 1, 0, 0, "a"));
	assert_true(m(&f, 11, 1, 0, 0, "b"));
	assert_false(m(&f, 11, 1, 0, 0, "a"));
	h2 = enable("ktest:mod:func:p1 /pid == 12/ { trace(1); }", 1, &f);
	assert_int_equal(f.kf_nterms, 3);
	assert_true(m(&f, 12, 1, 0, 0, "a"));
	eng_close(h2);
	h2 = enable("ktest:mod:func:p1 { trace(1); }", 1, &f);
	assert_true(f.kf_always);
	eng_close(h2);
	assert_int_equal(ks_probe_filter(kt_probe[1], &f), 0);
	assert_false(f.kf_always);
	assert_int_equal(f.kf_nterms, 2);
	eng_close(h1);
}

static void gen_and_watch(void **state)
{
	ks_filter_t f;
	uint64_t g0 = ks_filter_gen();
	eng_hdl_t *h;

	(void)state;
	watched = 0;
	ks_filter_watch(on_change);
	h = enable("ktest:mod:func:p2 /tid == 5/ { trace(1); }", 2, &f);
	ks_filter_watch(NULL);
	assert_true(ks_filter_gen() >= g0 + 2);	/* begin and end */
	assert_true(watched >= 2);
	assert_true((uint64_t)watched == ks_filter_gen() - g0);
	assert_true(f.kf_gen == ks_filter_gen());
	assert_false(f.kf_always);
	g0 = ks_filter_gen();
	eng_close(h);			/* ECBs gone: filters may tighten */
	assert_true(ks_filter_gen() > g0);
	assert_int_equal(ks_probe_filter(DTRACE_IDNONE, &f), -1);
	assert_true(f.kf_always);
}

/* Hand-built DIF: a loop and a store refuse, constant folding works. */
static void hand_dif(void **state)
{
	dif_instr_t loop[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 1),
		DIF_INSTR_BRANCH(DIF_OP_BA, 0),
		DIF_INSTR_RET(1),
	};
	dif_instr_t store[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 1),
		DIF_INSTR_STV(DIF_OP_STGS, 300, 1),
		DIF_INSTR_RET(1),
	};
	uint64_t ints[] = { 3, 3, 42 };
	dif_instr_t folded[] = {	/* if (3 == 3) return tid == 42 */
		DIF_INSTR_SETX(0, 1),
		DIF_INSTR_SETX(1, 2),
		DIF_INSTR_CMP(DIF_OP_CMP, 1, 2),
		DIF_INSTR_BRANCH(DIF_OP_BNE, 9),
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_TID, 1),
		DIF_INSTR_SETX(2, 2),
		DIF_INSTR_CMP(DIF_OP_CMP, 2, 1),	/* constant first */
		DIF_INSTR_BRANCH(DIF_OP_BNE, 9),
		DIF_INSTR_RET(2),
		DIF_INSTR_RET(0),
	};
	ks_difo_t d = { 0 };
	ks_filter_term_t t[KS_FILTER_MAXTERMS];

	(void)state;
	d.dtdo_buf = loop;
	d.dtdo_len = 3;
	assert_int_equal(ks_filter_pred(&d, t, KS_FILTER_MAXTERMS), -1);
	d.dtdo_buf = store;
	assert_int_equal(ks_filter_pred(&d, t, KS_FILTER_MAXTERMS), -1);
	assert_int_equal(ks_filter_pred(NULL, t, KS_FILTER_MAXTERMS), -1);
	d.dtdo_buf = folded;
	d.dtdo_len = 10;
	d.dtdo_inttab = ints;
	d.dtdo_intlen = 3;
	assert_int_equal(ks_filter_pred(&d, t, KS_FILTER_MAXTERMS), 1);
	assert_int_equal(t[0].kft_natoms, 1);
	assert_int_equal(t[0].kft_atoms[0].kfa_var, KS_FV_TID);
	assert_int_equal(t[0].kft_atoms[0].kfa_op, KS_FOP_EQ);
	assert_int_equal(t[0].kft_atoms[0].kfa_val, 42);
	/* too many terms for the room given: always */
	assert_int_equal(ks_filter_pred(&d, t, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pid_eq),
		cmocka_unit_test(execname_eq_ne),
		cmocka_unit_test(and_or_not),
		cmocka_unit_test(casts_and_signs),
		cmocka_unit_test(untranslatable),
		cmocka_unit_test(several_ecbs),
		cmocka_unit_test(gen_and_watch),
		cmocka_unit_test(hand_dif),
	};

	int rc = cmocka_run_group_tests(tests, setup, teardown);

	free_kept();
	return rc;
}
