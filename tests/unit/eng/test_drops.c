/*
 * test_drops.c - drop and error messages (drops.c) in dtrace(1M)'s words:
 * per-CPU principal and aggregation drops (singular and plural), global
 * counters from STATUS, -x droptags, and the ERROR clause's message with
 * its address detail, predicate/action and DIF offset.
 */
#include "eng_test.h"

static char got[8][256];
static int ngot;

static void on_drop(const eng_dropdata_t *dd, void *arg)
{
	(void)arg;
	if (ngot < 8)
		snprintf(got[ngot++], sizeof (got[0]), "%s", dd->edd_msg);
}

static void on_err(const eng_errdata_t *ed, void *arg)
{
	(void)arg;
	if (ngot < 8)
		snprintf(got[ngot++], sizeof (got[0]), "%s", ed->eed_msg);
}

static eng_hdl_t *setup(void)
{
	eng_hdl_t *h = et_open();

	ngot = 0;
	eng_handle_drop(h, on_drop, NULL);
	eng_handle_err(h, on_err, NULL);
	return h;
}

static void test_cpu_drops(void **state)
{
	eng_hdl_t *h = setup();

	(void)state;
	eng_drops_cpu(h, 0, DTRACEDROP_PRINCIPAL, 1);
	eng_drops_cpu(h, 0, DTRACEDROP_PRINCIPAL, 3);
	eng_drops_cpu(h, 0, DTRACEDROP_AGGREGATION, 2);
	assert_int_equal(ngot, 3);
	assert_string_equal(got[0], "dtrace: 1 drop on CPU 0\n");
	assert_string_equal(got[1], "dtrace: 3 drops on CPU 0\n");
	assert_string_equal(got[2], "dtrace: 2 aggregation drops on CPU 0\n");
	eng_close(h);
}

static void test_droptags(void **state)
{
	eng_hdl_t *h = setup();

	(void)state;
	assert_int_equal(eng_setopt(h, "droptags", NULL), 0);
	eng_drops_cpu(h, 0, DTRACEDROP_PRINCIPAL, 1);
	assert_string_equal(got[0],
	    "dtrace: [DTRACEDROP_PRINCIPAL] 1 drop on CPU 0\n");
	eng_close(h);
}

static void test_global_counters(void **state)
{
	eng_hdl_t *h = setup();
	dtrace_status_t st;

	(void)state;
	memset(&st, 0, sizeof (st));
	st.dtst_dyndrops = 2;
	st.dtst_dyndrops_rinsing = 1;
	st.dtst_specdrops = 1;
	st.dtst_specdrops_busy = 3;
	st.dtst_specdrops_unavail = 1;
	eng_drops_status(h, &st);
	assert_int_equal(ngot, 5);
	assert_string_equal(got[0], "dtrace: 2 dynamic variable drops\n");
	assert_string_equal(got[1], "dtrace: 1 dynamic variable drop with "
	    "non-empty rinsing list\n");
	assert_string_equal(got[2], "dtrace: 1 speculative drop\n");
	assert_string_equal(got[3], "dtrace: 3 failed speculations "
	    "(available buffer(s) still busy)\n");
	assert_string_equal(got[4], "dtrace: 1 failed speculation "
	    "(no speculative buffer available)\n");
	/* the consumer remembers what it reported: only growth is new */
	h->eh_cons->ec_status = st;
	st.dtst_dyndrops = 3;
	eng_drops_status(h, &st);
	assert_int_equal(ngot, 6);
	assert_string_equal(got[5], "dtrace: 1 dynamic variable drop\n");
	eng_close(h);
}

static void test_error_clause_message(void **state)
{
	eng_hdl_t *h = setup();
	const char *err[4] = { "dtrace", "", "", "ERROR" };
	struct et_rec r[5] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 8, 0, 0, 0 }, { DTRACEACT_DIFEXPR, 8, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 8, 0, 0, 0 }, { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	struct et_rec b[1] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	dtrace_eprobedesc_t *d;
	struct et_buf buf = { .len = 0 };
	char *s;

	(void)state;
	et_epid(h, 2, 1, et_begin, b, 1, 1);
	d = et_epid(h, 1, 3, err, r, 5, DT_ECB_ERROR);
	et_fire(&buf, d);
	et_put64(&buf, d, 0, 2);		/* EPID */
	et_put64(&buf, d, 1, 1);		/* action #1 */
	et_put64(&buf, d, 2, 12);		/* DIF offset */
	et_put64(&buf, d, 3, DTRACEFLT_BADADDR);
	et_put64(&buf, d, 4, 0);
	et_fire(&buf, d);
	et_put64(&buf, d, 0, 2);
	et_put64(&buf, d, 1, 0);		/* predicate */
	et_put64(&buf, d, 2, 4);
	et_put64(&buf, d, 3, DTRACEFLT_DIVZERO);
	s = et_consume(h, &buf, 0);
	assert_string_equal(s, "");		/* nothing on the output */
	assert_int_equal(ngot, 2);
	assert_string_equal(got[0], "dtrace: error on enabled probe ID 2 "
	    "(ID 1: dtrace:::BEGIN): invalid address (0x0) in action #1 at "
	    "DIF offset 12\n");
	assert_string_equal(got[1], "dtrace: error on enabled probe ID 2 "
	    "(ID 1: dtrace:::BEGIN): divide-by-zero in predicate at DIF "
	    "offset 4\n");
	free(s);
	eng_close(h);
}

static void test_fault_texts(void **state)
{
	(void)state;
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_BADALIGN),
	    "invalid alignment");
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_ILLOP),
	    "illegal operation");
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_NOSCRATCH),
	    "out of scratch space");
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_KPRIV),
	    "invalid kernel access");
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_UPRIV),
	    "invalid user access");
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_TUPOFLOW),
	    "tuple stack overflow");
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_BADSTACK),
	    "bad stack");
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_BADSIZE),
	    "invalid size");
	assert_string_equal(eng_drops_faultstr(DTRACEFLT_BADINDEX),
	    "index out of bounds");
	assert_string_equal(eng_drops_faultstr(99), "unknown fault");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_drops),
		cmocka_unit_test(test_droptags),
		cmocka_unit_test(test_global_counters),
		cmocka_unit_test(test_error_clause_message),
		cmocka_unit_test(test_fault_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
