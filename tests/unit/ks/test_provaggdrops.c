/*
 * test_provaggdrops.c - provider losses (ks_provider_drops) in a state
 * whose provider probes only aggregate: DTrace gives such ECBs no
 * principal-buffer space, so the lost events count as aggregation drops
 * (AGGSNAP's dtbd_drops, "N aggregation drops on CPU M"), never as
 * principal drops; a state that also records data keeps them principal.
 */
#include "ks_test.h"

/* Enable on st probe i: @[arg0] = count() (and trace(arg0) if rec). */
static void enable_count(ks_state_t *st, int i, int rec)
{
	dofb_t *b = dofb_new();
	dof_actdesc_t a[3];
	uint32_t k = 0;

	if (rec)
		a[k++] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	a[k++] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	a[k] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
	a[k].dofa_ntuple = 1;
	a[k].dofa_uarg = 1;
	kt_clause(b, i, DOF_SECIDX_NONE, a, k + 1);
	assert_int_equal(kt_enable(st, b), 0);
}

static void drops(ks_state_t *st, unsigned cpu, uint64_t *prin,
    uint64_t *agg)
{
	static char buf[1 << 16];

	kt_snap(st, cpu, buf, sizeof(buf), 0, prin);
	kt_snap(st, cpu, buf, sizeof(buf), 1, agg);
}

static void agg_only_state_counts_aggregation_drops(void **state)
{
	ks_state_t *st = ks_open();
	unsigned cpu = ks_ncpus() > 1 ? 1 : 0;
	uint64_t p, a;
	uint32_t x;

	(void)state;
	kt_setup();
	enable_count(st, 4, 0);
	kt_go(st);
	kt_fire(4, cpu, 7, 0);
	ks_provider_drops(cpu, 5);
	drops(st, cpu, &p, &a);
	assert_int_equal(p, 0);
	assert_int_equal(a, 5);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &x), 0);
	ks_close(st);
}

static void recording_state_counts_principal_drops(void **state)
{
	ks_state_t *st = ks_open();
	unsigned cpu = ks_ncpus() > 1 ? 1 : 0;
	uint64_t p, a;
	uint32_t x;

	(void)state;
	kt_setup();
	enable_count(st, 4, 0);
	enable_count(st, 5, 1);
	kt_go(st);
	ks_provider_drops(cpu, 3);
	drops(st, cpu, &p, &a);
	assert_int_equal(p, 3);
	assert_int_equal(a, 0);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &x), 0);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(agg_only_state_counts_aggregation_drops),
		cmocka_unit_test(recording_state_counts_principal_drops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
