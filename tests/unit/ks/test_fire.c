/*
 * test_fire.c - the provider's side of firing: providers that cannot
 * enable a probe (the message reaches ENABLE, nothing is left), the
 * enable/disable callbacks, and firings from several threads while states
 * are enabled, snapshotted and closed.
 */
#include <pthread.h>
#include "ks_test.h"

static ks_provider_id_t bad_prov;
static dtrace_id_t bad_probe;

static int bad_enable(void *a, dtrace_id_t id, void *pa)
{
	(void)a; (void)id; (void)pa;
	ks_provider_error("needs root: run as root");
	return -1;
}

static void enable_failure(void **state)
{
	static const ks_provider_ops_t ops = { .kpo_enable = bad_enable };
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	char msg[256];

	(void)state;
	kt_setup();
	assert_int_equal(ks_provider_register("badprov", &ops, NULL, &bad_prov),
	    0);
	bad_probe = ks_probe_create(bad_prov, "m", "f", "n", 0, NULL);
	kt_clause(b, 0, DOF_SECIDX_NONE, NULL, 0);
	dofb_ecb(b, dofb_probedesc(b, "badprov", "", "", ""),
	    DOF_SECIDX_NONE, DOF_SECIDX_NONE, 2);
	assert_int_equal(kt_enable_msg(st, b, msg, sizeof(msg), NULL), -1);
	assert_string_equal(msg, "badprov:m:f:n: needs root: run as root");
	/* the ktest probe enabled first was disabled again */
	assert_false(ks_probe_is_enabled(kt_probe[0]));
	assert_false(ks_probe_is_enabled(bad_probe));
	assert_int_equal(kt_enables, kt_disables);
	ks_close(st);
}

static void enable_disable_callbacks(void **state)
{
	ks_state_t *a = ks_open(), *c = ks_open();
	dofb_t *b;
	int e0 = kt_enables, d0 = kt_disables;

	(void)state;
	kt_setup();
	b = dofb_new();
	kt_clause(b, 1, DOF_SECIDX_NONE, NULL, 0);
	assert_int_equal(kt_enable(a, b), 0);
	b = dofb_new();
	kt_clause(b, 1, DOF_SECIDX_NONE, NULL, 0);
	assert_int_equal(kt_enable(c, b), 0);
	assert_int_equal(kt_enables, e0 + 1);	/* first ECB only */
	ks_close(a);
	assert_true(ks_probe_is_enabled(kt_probe[1]));
	assert_int_equal(kt_disables, d0);
	ks_close(c);
	assert_false(ks_probe_is_enabled(kt_probe[1]));
	assert_int_equal(kt_disables, d0 + 1);
}

static volatile int stop_firing;

static void *firer(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	uint64_t i = 0;

	while (!__atomic_load_n(&stop_firing, __ATOMIC_RELAXED))
		kt_fire(2, cpu % ks_ncpus(), i++, 1);
	return NULL;
}

/* States are enabled, snapshotted, stopped and closed while three threads
 * fire p2 (trace + count): nothing may crash or touch freed memory. */
static void concurrent_firing(void **state)
{
	static char buf[1 << 16];
	pthread_t t[3];
	int round, i;

	(void)state;
	kt_setup();
	stop_firing = 0;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, firer, (void *)(uintptr_t)i);
	for (round = 0; round < 30; round++) {
		ks_state_t *st = ks_open();
		dofb_t *b = dofb_new();
		dof_actdesc_t a[3];

		dofb_option(b, DTRACEOPT_BUFSIZE, 1 << 16);
		a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
		a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 1), 0);
		a[2] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
		a[2].dofa_ntuple = 1;
		kt_clause(b, 2, DOF_SECIDX_NONE, a, 3);
		assert_int_equal(kt_enable(st, b), 0);
		kt_go(st);
		for (i = 0; i < 5; i++) {
			unsigned c;

			for (c = 0; c < ks_ncpus(); c++) {
				(void)kt_snap(st, c, buf, sizeof(buf), 0, NULL);
				(void)kt_snap(st, c, buf, sizeof(buf), 1, NULL);
			}
		}
		if (round % 2 == 0) {
			uint32_t cpu;

			assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &cpu), 0);
		}
		ks_close(st);
	}
	__atomic_store_n(&stop_firing, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert_false(ks_probe_is_enabled(kt_probe[2]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(enable_failure),
		cmocka_unit_test(enable_disable_callbacks),
		cmocka_unit_test(concurrent_firing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
