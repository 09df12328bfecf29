/*
 * test_disable.c - DTRACEIOC_DISABLE: one enabling's ECBs stop firing at
 * once, its provider sources are released, other enablings go on, and the
 * descriptions of what it recorded stay valid.
 */
#include <errno.h>
#include "ks_test.h"

#define REC 24	/* rechdr (12) padded to 16, arg0 (8): one trace(arg0) */

/* Enable trace(arg0) on ktest probe i; returns the enabling's id. */
static uint32_t enable_trace(ks_state_t *st, int i)
{
	dofb_t *b = dofb_new();
	dof_actdesc_t a[1];
	dtrace_enable_arg_t ea;
	size_t size;
	void *img;

	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	kt_clause(b, i, DOF_SECIDX_NONE, a, 1);
	img = dofb_finish(b, &size);
	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = img;
	ea.dtea_size = size;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_ENABLE, &ea), 0);
	free(img);
	dofb_free(b);
	return ea.dtea_enabling;
}

/* Number of records in CPU 0's principal buffer now. */
static uint64_t records(ks_state_t *st)
{
	static char buf[4096];

	return kt_snap(st, 0, buf, sizeof(buf), 0, NULL) / REC;
}

static void test_ks_disable_stops_one_enabling(void **state)
{
	ks_state_t *st = ks_open();
	dtrace_eprobedesc_t ed;
	uint32_t first, second;
	int disables;

	(void)state;
	kt_setup();
	first = enable_trace(st, 2);
	second = enable_trace(st, 3);
	assert_int_not_equal(first, second);
	kt_go(st);
	kt_fire(2, 0, 1, 0);
	kt_fire(3, 0, 2, 0);
	assert_int_equal(records(st), 2);

	disables = kt_disables;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_DISABLE, &first), 0);
	assert_int_equal(kt_disables, disables + 1);	/* p2's source */
	kt_fire(2, 0, 3, 0);			/* no longer traced */
	kt_fire(3, 0, 4, 0);			/* still traced */
	assert_int_equal(records(st), 1);

	/* the disabled ECB is still described for its old records */
	memset(&ed, 0, sizeof(ed));
	ed.dtepd_epid = 1;
	ed.dtepd_nrecs = 1;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_EPROBE, &ed), 0);
	assert_int_equal(ed.dtepd_probeid, kt_probe[2]);

	/* twice, or an id never given: ENOENT */
	assert_int_equal(ks_ioctl(st, DTRACEIOC_DISABLE, &first), -1);
	assert_int_equal(errno, ENOENT);
	first = 999;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_DISABLE, &first), -1);
	ks_close(st);		/* no double release (ASan, counts) */
}

static void test_ks_disable_before_go(void **state)
{
	ks_state_t *st = ks_open();
	uint32_t id;

	(void)state;
	kt_setup();
	id = enable_trace(st, 4);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_DISABLE, &id), 0);
	kt_go(st);
	kt_fire(4, 0, 1, 0);
	assert_int_equal(records(st), 0);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ks_disable_stops_one_enabling),
		cmocka_unit_test(test_ks_disable_before_go),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
