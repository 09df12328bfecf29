/*
 * test_bpf_tls.c - the value a kernel clause's quantize()/lquantize()
 * keys on (providers/bpf/bpf_tls.c, prov_bpf_tls_bucket, which the
 * emitted BPF computes the same way; tst.tls_kernel.sh runs the BPF):
 * for every value tried, the key's value falls in the same bucket as the
 * value itself, so the shim's replay builds the same distribution.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "bpf_tls.h"
#include "ks_impl.h"

/* Values around every power of two, both signs, and the extremes. */
static int values(int64_t *v)
{
	int n = 0;

	v[n++] = 0;
	v[n++] = INT64_MIN;
	v[n++] = INT64_MAX;
	for (int k = 0; k < 63; k++) {
		int64_t p = (int64_t)1 << k;

		v[n++] = p;
		v[n++] = p - 1;
		v[n++] = p + 1;
		v[n++] = -p;
		v[n++] = -p + 1;
		v[n++] = -p - 1;
	}
	return n;
}

static void quantize_same_bucket(void **state)
{
	int64_t v[3 + 63 * 6];
	int n = values(v);

	(void)state;
	for (int i = 0; i < n; i++) {
		int64_t k = prov_bpf_tls_bucket(DTRACEAGG_QUANTIZE, 0, v[i]);

		if (ks_agg_quantize_bucket(k) != ks_agg_quantize_bucket(v[i]))
			fail_msg("%lld keyed as %lld", (long long)v[i],
			    (long long)k);
	}
	assert_int_equal(prov_bpf_tls_bucket(DTRACEAGG_QUANTIZE, 0, 1000),
	    512);
	assert_int_equal(prov_bpf_tls_bucket(DTRACEAGG_QUANTIZE, 0, -3), -2);
}

/* lquantize's bucket as DTrace numbers them: 0 below base, 1 + the
 * level, levels + 1 at and above the top, of the value's low 32 bits
 * (DTrace's lquantize reads an int32_t, as agg.c does). */
static int64_t lbucket(int64_t base, int64_t levels, int64_t step,
    int64_t v)
{
	v = (int32_t)v;
	if (v < base)
		return 0;
	if (v >= base + levels * step)
		return levels + 1;
	return 1 + (v - base) / step;
}

static void lquantize_same_bucket(void **state)
{
	static const int64_t p[][3] = { { 0, 100, 10 }, { -50, 7, 13 },
		{ 1000, 1, 1 }, { INT32_MIN, 65535, 65535 } };
	int64_t v[3 + 63 * 6];
	int n = values(v);

	(void)state;
	for (size_t j = 0; j < sizeof(p) / sizeof(p[0]); j++) {
		uint64_t arg = (uint64_t)p[j][2] << DTRACE_LQUANTIZE_STEPSHIFT |
		    (uint64_t)p[j][1] << DTRACE_LQUANTIZE_LEVELSHIFT |
		    (uint32_t)p[j][0];

		for (int i = 0; i < n; i++) {
			int64_t x = v[i] / 4 + p[j][0];	/* near the base too */
			int64_t k = prov_bpf_tls_bucket(DTRACEAGG_LQUANTIZE,
			    arg, x);

			if (lbucket(p[j][0], p[j][1], p[j][2], k) !=
			    lbucket(p[j][0], p[j][1], p[j][2], x))
				fail_msg("lquantize %zu: %lld keyed as %lld", j,
				    (long long)x, (long long)k);
		}
	}
}

static void llquantize_same_bucket(void **state)
{
	/* factor, low, high, steps; 10^19 > INT64_MAX: the last clamps */
	static const uint16_t p[][4] = { { 10, 0, 6, 20 }, { 2, 3, 40, 4 },
		{ 10, 2, 18, 100 }, { 3, 0, 39, 9 }, { 16, 1, 15, 256 } };
	int64_t v[3 + 63 * 6];
	int n = values(v);

	(void)state;
	for (size_t j = 0; j < sizeof(p) / sizeof(p[0]); j++) {
		uint64_t arg = DTRACE_LLQUANTIZE_ENCODE(p[j][0], p[j][1],
		    p[j][2], p[j][3]);

		for (int i = 0; i < n; i++)
			for (int64_t d = -3; d <= 3; d += 3) {
				int64_t x = v[i] / 3 + d, k = prov_bpf_tls_bucket(
				    DTRACEAGG_LLQUANTIZE, arg, x);

				if (ks_agg_llquantize_bucket(p[j][0], p[j][1],
				    p[j][2], p[j][3], k) !=
				    ks_agg_llquantize_bucket(p[j][0], p[j][1],
				    p[j][2], p[j][3], x))
					fail_msg("llquantize %zu: %lld keyed "
					    "as %lld", j, (long long)x,
					    (long long)k);
			}
	}
	/* the key is the bucket's lower edge */
	assert_int_equal(prov_bpf_tls_bucket(DTRACEAGG_LLQUANTIZE,
	    DTRACE_LLQUANTIZE_ENCODE(10, 0, 6, 20), 5678), 5500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantize_same_bucket),
		cmocka_unit_test(lquantize_same_bucket),
		cmocka_unit_test(llquantize_same_bucket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
