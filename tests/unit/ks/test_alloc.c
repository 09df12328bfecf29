/*
 * test_alloc.c - every allocation failure on the way through a session
 * (open, ENABLE of a DOF with traces, strings, aggregations and a
 * speculation, GO, firings, snapshots, STOP, close) fails cleanly: an
 * error return, nothing left enabled, no crash and (under ASan) no leak.
 */
#include "ks_test.h"
#include "ks_impl.h"

static void *image(size_t *sizep)
{
	dofb_t *b = dofb_new();
	dof_actdesc_t a[6];
	void *img;

	dofb_option(b, DTRACEOPT_BUFSIZE, 4096);
	dofb_option(b, DTRACEOPT_AGGSIZE, 4096);
	dofb_option(b, DTRACEOPT_NSPEC, 2);
	dofb_option(b, DTRACEOPT_STRSIZE, 32);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_str(b, "s"), 0);
	a[2] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 1), 0);
	a[3] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
	a[3].dofa_ntuple = 1;
	a[4] = dofb_act(DTRACEACT_PRINTF, DOF_SECIDX_NONE, dofb_str(b, "%d"));
	a[4].dofa_strtab = DOFB_STRTAB;
	a[5] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	kt_clause(b, 3, dofb_difo_argeq(b, 1, 1), a, 6);
	a[0] = dofb_act(DTRACEACT_SPECULATE, dofb_difo_int(b, 1, 8), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	kt_clause(b, 4, DOF_SECIDX_NONE, a, 2);
	dofb_ecb(b, dofb_probedesc(b, "dtrace", "", "", "END"),
	    DOF_SECIDX_NONE, DOF_SECIDX_NONE, 3);
	img = dofb_finish(b, sizep);
	dofb_free(b);
	return img;
}

/* One session; 0 if it went all the way through. */
static int session(const void *img, size_t size)
{
	static char buf[8192];
	dtrace_enable_arg_t ea;
	ks_state_t *st = ks_open();
	uint32_t cpu;
	int rc = -1;

	if (st == NULL)
		return -1;
	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = img;
	ea.dtea_size = size;
	if (ks_ioctl(st, DTRACEIOC_ENABLE, &ea) != 0) {
		assert_true(strlen(ea.dtea_errmsg) > 0);
		goto out;
	}
	if (ks_ioctl(st, DTRACEIOC_GO, &cpu) != 0)
		goto out;
	kt_fire(3, 0, 7, 1);
	kt_fire(4, 0, 8, 1);
	(void)kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	(void)kt_snap(st, 0, buf, sizeof(buf), 1, NULL);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &cpu), 0);
	rc = 0;
out:
	ks_close(st);
	assert_false(ks_probe_is_enabled(kt_probe[3]));
	assert_false(ks_probe_is_enabled(kt_probe[4]));
	return rc;
}

static void every_failure(void **state)
{
	size_t size;
	void *img;
	unsigned long n;
	int failed = 0;

	(void)state;
	kt_setup();
	img = image(&size);
	assert_int_equal(session(img, size), 0);
	for (n = 1; n < 10000; n++) {
		int rc;

		ks_alloc_fail_nth(n);
		rc = session(img, size);
		if (ks_alloc_fail_pending() != 0) {	/* not reached: done */
			ks_alloc_fail_nth(0);
			assert_int_equal(rc, 0);
			break;
		}
		failed += rc != 0;
	}
	ks_alloc_fail_nth(0);
	assert_true(n > 10);		/* the session allocates */
	assert_true(failed > 10);	/* and failures were seen */
	assert_int_equal(session(img, size), 0);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
