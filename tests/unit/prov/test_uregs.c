/*
 * test_uregs.c - prov_perf_ctx puts the user registers perf samples (its
 * x86 order, PERF_SAMPLE_REGS_USER) into uregs[] order (R_* of x86_64
 * struct pt_regs), and a sample without them leaves uregs[] absent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "prov_impl.h"

/* uregs[] indexes (engine/compile.c's prelude) */
enum { R_R15, R_R14, R_R13, R_R12, R_RBP, R_RBX, R_R11, R_R10, R_R9, R_R8,
	R_RAX, R_RCX, R_RDX, R_RSI, R_RDI, R_ERR, R_RIP, R_CS, R_RFL, R_RSP,
	R_SS, R_NREGS };

static void perf_order_to_pt_regs(void **state)
{
#if defined(__x86_64__)
	/* perf: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 .. R15, each
	 * value 100 + its perf register number */
	static const int perfno[20] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
	    16, 17, 18, 19, 20, 21, 22, 23 };
	static const struct { int r, perf; } want[] = {
		{ R_RAX, 0 }, { R_RBX, 1 }, { R_RCX, 2 }, { R_RDX, 3 },
		{ R_RSI, 4 }, { R_RDI, 5 }, { R_RBP, 6 }, { R_RSP, 7 },
		{ R_RIP, 8 }, { R_RFL, 9 }, { R_CS, 10 }, { R_SS, 11 },
		{ R_R8, 16 }, { R_R9, 17 }, { R_R10, 18 }, { R_R11, 19 },
		{ R_R12, 20 }, { R_R13, 21 }, { R_R14, 22 }, { R_R15, 23 },
	};
	uint64_t regs[20];
	prov_perf_sample_t s;
	ks_probe_ctx_t ctx;

	(void)state;
	for (int i = 0; i < 20; i++)
		regs[i] = 100 + (uint64_t)perfno[i];
	memset(&s, 0, sizeof(s));
	s.pps_pid = s.pps_tid = (int32_t)getpid();
	s.pps_uregs = regs;
	s.pps_nuregs = 20;
	prov_perf_ctx(&ctx, 1, &s);
	assert_non_null(ctx.kpc_uregs);
	assert_int_equal(ctx.kpc_nuregs, R_NREGS);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(ctx.kpc_uregs[want[i].r], 100 + want[i].perf);
	assert_int_equal(ctx.kpc_uregs[R_ERR], 0);	/* perf has no orig_ax */
#else
	(void)state;
	print_message("uregs[] has x86_64's order; nothing to map here\n");
	skip();
#endif
}

static void no_registers(void **state)
{
	prov_perf_sample_t s;
	ks_probe_ctx_t ctx;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.pps_pid = s.pps_tid = (int32_t)getpid();
	prov_perf_ctx(&ctx, 1, &s);
	assert_int_equal(ctx.kpc_nuregs, 0);
	assert_int_equal(ctx.kpc_vtimestamp, 0);	/* accounting off */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_order_to_pt_regs),
		cmocka_unit_test(no_registers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
