/*
 * test_aggplan.c - which probes a provider may count in the kernel
 * (kernel-shim/aggplan.c, ks_probe_aggplan in ks_filter.h): clauses
 * compiled by the real compiler and enabled through the engine on the
 * test provider's probes, then the plan read: kap_ok, the variables
 * (kap_vars, kap_args) for aggregation-only clauses, kap_ok 0 for
 * anything a counted firing could not reproduce, for a second ECB that
 * is not aggregation-only, and while an ENABLE is in progress.
 */
#include "ks_test.h"
#include "engine.h"
#include "ks_filter.h"

#define V(x)	(1u << KS_FV_##x)

/* Programs stay until the end of the test (the engine may describe
 * their records after the handle is gone). */
static eng_prog_t *kept[64];
static int nkept;

static int setup(void **state)
{
	(void)state;
	kt_setup();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	while (nkept > 0)
		eng_prog_free(kept[--nkept]);
	return 0;
}

/* Enable src in a fresh handle (closed by the caller). */
static eng_hdl_t *enable(const char *src)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));
	eng_prog_t *p;
	unsigned n = 0;

	assert_non_null(h);
	p = eng_compile_str(h, src, NULL, 0, NULL);
	if (p == NULL)
		fail_msg("compile <%s>: %s", src, eng_errmsg(h));
	if (nkept < (int)(sizeof(kept) / sizeof(kept[0])))
		kept[nkept++] = p;
	if (eng_prog_exec(h, p, &n) != 0)
		fail_msg("exec <%s>: %s", src, eng_errmsg(h));
	assert_true(n > 0);
	return h;
}

/* The plan of ktest probe p0 with body (predicate and actions) on it. */
static ks_aggplan_t plan_of(const char *body)
{
	char src[512];
	ks_aggplan_t pl;
	eng_hdl_t *h;
	const char *decl = strchr(body, ';');

	/* "int x; { ... }": declarations first */
	if (body[0] != '/' && body[0] != '{' && decl != NULL)
		snprintf(src, sizeof(src), "%.*s\nktest:mod:func:p0 %s",
		    (int)(decl - body + 1), body, decl + 1);
	else
		snprintf(src, sizeof(src), "ktest:mod:func:p0 %s", body);
	h = enable(src);
	assert_int_equal(ks_probe_aggplan(kt_probe[0], &pl), 0);
	assert_int_equal(pl.kap_gen, ks_filter_gen());
	eng_close(h);
	return pl;
}

static void expect_ok(const char *body, unsigned vars, uint32_t args)
{
	ks_aggplan_t pl = plan_of(body);

	if (!pl.kap_ok)
		fail_msg("<%s>: not aggregation-only", body);
	if (pl.kap_vars != vars || pl.kap_args != args)
		fail_msg("<%s>: vars %#x args %#x, want %#x %#x", body,
		    pl.kap_vars, (unsigned)pl.kap_args, vars, (unsigned)args);
}

/* copyinstr(argN) alone: keyed on the string (kap_strs). */
static void expect_strs(const char *body, unsigned vars, uint32_t args,
    uint32_t strs)
{
	ks_aggplan_t pl = plan_of(body);

	expect_ok(body, vars | V(USTR), args);
	if (pl.kap_strs != strs)
		fail_msg("<%s>: strs %#x, want %#x", body,
		    (unsigned)pl.kap_strs, (unsigned)strs);
}

static void copyinstr_of_an_argument(void **state)
{
	(void)state;
	expect_strs("{ @[copyinstr(arg0)] = count(); }", V(ARG), 0x1, 0x1);
	expect_strs("/execname == \"w\"/ { @[copyinstr(arg1)] = count(); }",
	    V(ARG) | V(EXECNAME), 0x2, 0x2);
	expect_strs("/copyinstr(arg2) != \"x\"/ { @[basename(copyinstr(arg0))]"
	    " = sum(arg1); }", V(ARG), 0x7, 0x5);
	expect_ok("{ @[execname] = count(); }", V(EXECNAME), 0);
}

static void expect_not(const char *body)
{
	ks_aggplan_t pl = plan_of(body);

	assert_int_equal(pl.kap_strs, 0);

	if (pl.kap_ok)
		fail_msg("<%s>: aggregation-only, vars %#x", body,
		    pl.kap_vars);
	assert_int_equal(pl.kap_vars, 0);
	assert_int_equal(pl.kap_args, 0);
}

static void counts_by_execname(void **state)
{
	(void)state;
	expect_ok("{ @[execname] = count(); }", V(EXECNAME), 0);
	expect_ok("{ @ = count(); }", 0, 0);
	expect_ok("{ @[execname, probefunc, probename] = count(); }",
	    V(EXECNAME), 0);
}

static void predicate_and_sum(void **state)
{
	(void)state;
	expect_ok("/pid == 3/ { @[arg1] = sum(arg2); }", V(PID) | V(ARG),
	    0x6);
	expect_ok("/execname == \"sh\" && uid != 0/ { @[gid] = avg(tid); }",
	    V(EXECNAME) | V(UID) | V(GID) | V(TID), 0);
	expect_ok("/arg3 > 10 || cpu == 1/ { @ = stddev(arg0 / arg4); }",
	    V(ARG), 0x19);
	expect_ok("/errno != 0/ { @[execname, errno] = count(); }",
	    V(EXECNAME) | V(ERRNO), 0);
}

static void histograms(void **state)
{
	(void)state;
	expect_ok("{ @ = quantize(arg0); }", V(ARG), 0x1);
	expect_ok("{ @[pid] = lquantize(arg1, 0, 100, 10, arg5); }",
	    V(PID) | V(ARG), 0x22);
	expect_ok("{ @ = llquantize(arg2, 10, 0, 6, 20); }", V(ARG), 0x4);
	expect_ok("{ @a = count(); @b[arg1] = min(arg0); @c = max(arg9); }",
	    V(ARG), 0x203);
}

static void clause_locals(void **state)
{
	(void)state;
	expect_ok("{ this->x = arg0 * 2; @[this->x] = max(this->x); }",
	    V(ARG), 0x1);
	expect_ok("{ this->s = execname; @[this->s] = count(); }",
	    V(EXECNAME), 0);
	expect_ok("{ this->s = arg0 > 1 ? \"big\" : \"small\"; "
	    "@[this->s] = count(); }", V(ARG), 0x1);
	expect_ok("{ if (arg0 > 3) { @a = count(); } else { @b[arg2] = "
	    "count(); } }", V(ARG), 0x5);
	expect_ok("{ @[(int)arg1, (unsigned char)arg0] = count(); }",
	    V(ARG), 0x3);
	expect_ok("{ this->x = arg7; }", V(ARG), 0x80);	/* records nothing */
}

static void not_counted(void **state)
{
	(void)state;
	expect_not("{ @[timestamp] = count(); }");
	expect_not("{ @ = sum(vtimestamp); }");
	expect_not("/walltimestamp > 0/ { @ = count(); }");
	expect_not("{ self->x = 1; @ = count(); }");
	expect_not("{ x = 1; @ = count(); }");
	expect_not("int x; { @ = sum(x); }");
	expect_not("{ a[pid] = 1; @ = count(); }");
	expect_not("{ printf(\"%d\\n\", arg0); @ = count(); }");
	expect_not("{ trace(arg0); @ = count(); }");
	expect_not("{ @[copyinstr(arg0 + 1)] = count(); }");
	expect_not("{ @[copyinstr(arg0, 8)] = count(); }");
	expect_not("{ @[copyinstr(arg0 | arg1)] = count(); }");
	expect_not("{ @[copyinstr(~arg0)] = count(); }");
	expect_not("{ this->p = arg0; @[copyinstr(this->p)] = count(); }");
	expect_not("{ @[copyinstr(arg0 > 1 ? arg0 : arg1)] = count(); }");
	expect_not("{ @[stringof(arg0)] = count(); }");
	expect_not("{ @[*(int *)arg0] = count(); }");
	expect_not("{ @[stack()] = count(); }");
	expect_not("{ @[ustack()] = count(); }");
	expect_not("{ @[ppid] = count(); }");
	expect_not("{ @[strjoin(execname, stringof(arg0))] = count(); }");
	expect_not("{ @[rand()] = count(); }");
	expect_not("{ @[strtok(execname, \"x\")] = count(); }");
	expect_not("/progenyof(1)/ { @ = count(); }");
	expect_not("{ @[inet_ntoa((ipaddr_t *)arg0)] = count(); }");
	expect_not("{ @[uregs[0]] = count(); }");
	expect_not("{ this->s = stringof(arg0); @[this->s] = count(); }");
	expect_not("/execname == stringof(arg1)/ { @ = count(); }");
	expect_not("{ }");
}

/* Every ECB on the probe counts, in every consumer. */
/* Subroutines that are functions of integers and fixed text. */
static void pure_subroutines(void **state)
{
	(void)state;
	expect_ok("{ @[strjoin(execname, \"x\")] = count(); }",
	    V(EXECNAME), 0);
	expect_ok("{ @[htons(arg0), ntohl(arg1)] = sum(htonll(arg2)); }",
	    V(ARG), 0x7);
	expect_ok("{ @[substr(probefunc, 1, 2), lltostr(pid)] = count(); }",
	    V(PID), 0);
	expect_ok("/strlen(execname) > 3 && index(execname, \"a\") < 0/ "
	    "{ @[toupper(basename(execname))] = count(); }", V(EXECNAME), 0);
	expect_ok("{ this->s = strjoin(execname, lltostr(arg3)); "
	    "@[strchr(this->s, 'x')] = max(strtoll(this->s)); }",
	    V(EXECNAME) | V(ARG), 0x8);
}

static void second_ecb(void **state)
{
	eng_hdl_t *a, *b;
	ks_aggplan_t pl;

	(void)state;
	a = enable("ktest:mod:func:p1 { @[pid] = count(); }");
	assert_int_equal(ks_probe_aggplan(kt_probe[1], &pl), 0);
	assert_true(pl.kap_ok);
	assert_int_equal(pl.kap_vars, V(PID));
	b = enable("ktest:mod:func:p1 /arg0 == 1/ { @[uid] = sum(arg1); }");
	assert_int_equal(ks_probe_aggplan(kt_probe[1], &pl), 0);
	assert_true(pl.kap_ok);
	assert_int_equal(pl.kap_vars, V(PID) | V(UID) | V(ARG));
	assert_int_equal(pl.kap_args, 0x3);
	eng_close(b);
	b = enable("ktest:mod:func:p1 { trace(1); }");
	assert_int_equal(ks_probe_aggplan(kt_probe[1], &pl), 0);
	assert_false(pl.kap_ok);
	eng_close(b);
	assert_int_equal(ks_probe_aggplan(kt_probe[1], &pl), 0);
	assert_true(pl.kap_ok);
	assert_int_equal(pl.kap_vars, V(PID));
	eng_close(a);
	assert_int_equal(ks_probe_aggplan(kt_probe[1], &pl), 0);
	assert_false(pl.kap_ok);	/* nothing enabled */
}

static void enable_in_progress(void **state)
{
	eng_hdl_t *h;
	ks_aggplan_t pl;
	uint64_t g;

	(void)state;
	h = enable("ktest:mod:func:p2 { @[arg0] = count(); }");
	assert_int_equal(ks_probe_aggplan(kt_probe[2], &pl), 0);
	assert_true(pl.kap_ok);
	g = pl.kap_gen;
	ks_filter_begin();
	assert_int_equal(ks_probe_aggplan(kt_probe[2], &pl), 0);
	assert_false(pl.kap_ok);
	assert_true(pl.kap_gen > g);
	ks_filter_end();
	assert_int_equal(ks_probe_aggplan(kt_probe[2], &pl), 0);
	assert_true(pl.kap_ok);
	assert_int_equal(pl.kap_args, 0x1);
	eng_close(h);
}

static void no_such_probe(void **state)
{
	ks_aggplan_t pl;

	(void)state;
	pl.kap_ok = 1;
	assert_int_equal(ks_probe_aggplan(DTRACE_IDNONE, &pl), -1);
	assert_false(pl.kap_ok);
	assert_int_equal(ks_probe_aggplan(0xfffffff, &pl), -1);
	assert_false(pl.kap_ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_by_execname),
		cmocka_unit_test(predicate_and_sum),
		cmocka_unit_test(histograms),
		cmocka_unit_test(clause_locals),
		cmocka_unit_test(not_counted),
		cmocka_unit_test(copyinstr_of_an_argument),
		cmocka_unit_test(pure_subroutines),
		cmocka_unit_test(second_ecb),
		cmocka_unit_test(enable_in_progress),
		cmocka_unit_test(no_such_probe),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
