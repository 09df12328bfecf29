/*
 * test_spec.c - speculations: speculation() ids and "unavailable" drops,
 * speculate() into per-CPU speculation buffers (full: specdrops), commit
 * into the principal buffer, discard, busy drops until the next clean.
 */
#include "ks_test.h"

#define REC	24

/* Values recorded at offset 16 by EPID epid in buf[0, n). */
static int values_of(const char *buf, uint64_t n, dtrace_epid_t epid,
    uint64_t *out, int max)
{
	uint64_t off;
	int k = 0;

	for (off = 0; off < n;) {
		dtrace_epid_t e;

		memcpy(&e, buf + off, 4);
		if (e == epid && k < max) {
			if (epid == 1) {
				uint32_t v;

				memcpy(&v, buf + off + 12, 4);
				out[k++] = v;
			} else {
				memcpy(&out[k++], buf + off + 16, 8);
			}
		}
		off += e == 1 ? 16 : e == 2 ? REC : 16;
	}
	return k;
}

static void speculation_lifecycle(void **state)
{
	ks_state_t *st = kt_spec_state(2, 2 * REC + 8, 0);
	char buf[1024];
	uint64_t v[16], n;
	dtrace_status_t s;

	(void)state;
	kt_fire(0, 0, 0, 0);
	kt_fire(0, 0, 0, 0);
	kt_fire(0, 0, 0, 0);	/* none left: 0, unavailable */
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	assert_int_equal(values_of(buf, n, 1, v, 16), 3);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2);
	assert_int_equal(v[2], 0);

	kt_fire(1, 0, 1, 100);
	kt_fire(1, 0, 1, 101);
	kt_fire(1, 0, 1, 102);	/* speculation 1 is full */
	kt_fire(1, 0, 2, 200);
	kt_fire(1, 0, 0, 300);	/* speculate(0): nothing */
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL), 0);

	kt_fire(2, 0, 1, 0);	/* commit(1) */
	kt_fire(1, 0, 1, 103);	/* busy until cleaned */
	kt_fire(3, 0, 2, 0);	/* discard(2) */
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	assert_int_equal(values_of(buf, n, 2, v, 16), 2);
	assert_int_equal(v[0], 100);
	assert_int_equal(v[1], 101);

	s = kt_status(st);	/* cleans: both free again */
	assert_int_equal(s.dtst_specdrops_unavail, 1);
	assert_int_equal(s.dtst_specdrops, 1);
	assert_int_equal(s.dtst_specdrops_busy, 1);
	kt_fire(0, 0, 0, 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	assert_int_equal(values_of(buf, n, 1, v, 16), 1);
	assert_int_equal(v[0], 1);
	/* discarded data never shows up */
	kt_fire(2, 0, 2, 0);
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL), 0);
	ks_close(st);
}

static void commit_other_cpu(void **state)
{
	ks_state_t *st;
	char buf[1024];
	uint64_t v[4], n;

	(void)state;
	if (ks_ncpus() < 2) {
		print_message("skipped: needs two CPUs\n");
		skip();
	}
	st = kt_spec_state(2, 2 * REC + 8, 0);
	kt_fire(0, 0, 0, 0);
	kt_fire(1, 1, 1, 7);	/* speculated on CPU 1 */
	kt_fire(2, 0, 1, 0);	/* committed from CPU 0 */
	n = kt_snap(st, 1, buf, sizeof(buf), 0, NULL);
	assert_int_equal(values_of(buf, n, 2, v, 4), 1);
	assert_int_equal(v[0], 7);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(speculation_lifecycle),
		cmocka_unit_test(commit_other_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
