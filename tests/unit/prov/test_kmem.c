/*
 * test_kmem.c - string arguments served from provider memory: a firing
 * whose kpc_kmem holds a buffer lets DIF read args[0] pointing into it as
 * a string (as tracepoint char[N] fields and proc:::exec's path are
 * given, tp.c / tprows.c); without the range the same address faults.
 */
#include "../ks/test_dif_util.h"

static char text[32] = "sleeps";

/* Run "args[0] == want" (string compare) in f: 1, 0, or 2 on a fault. */
static int arg0_is(tfire_t *f, const char *want)
{
	tdif_t t;
	uint64_t v;

	td_init(&t);
	td_setx(&t, 1, 0);
	td_emit(&t, DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 1, 2));
	td_sets(&t, 3, want);
	td_emit(&t, DIF_INSTR_CMP(DIF_OP_SCMP, 2, 3));
	td_emit(&t, DIF_INSTR_BRANCH(DIF_OP_BE, 6));
	td_emit(&t, DIF_INSTR_RET(0));
	td_setx(&t, 4, 1);
	td_emit(&t, DIF_INSTR_RET(4));
	v = td_run(&t, f);
	return f->ms.kms_fault != 0 ? 2 : (int)v;
}

static void test_kmem_string_arg(void **state)
{
	ks_ucapture_t mem = { 0, sizeof(text), (const uint8_t *)text };
	tfire_t f;

	tf_init(&f);
	f.ctx.kpc_args[0] = (uint64_t)(uintptr_t)text;
	f.ctx.kpc_kmem = &mem;
	f.ctx.kpc_nkmem = 1;
	assert_int_equal(arg0_is(&f, "sleeps"), 1);
	assert_int_equal(arg0_is(&f, "other"), 0);
	tf_fini(&f);
}

static void test_kmem_absent_faults(void **state)
{
	tfire_t f;

	tf_init(&f);
	f.ctx.kpc_args[0] = (uint64_t)(uintptr_t)text;
	assert_int_equal(arg0_is(&f, "sleeps"), 2);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	tf_fini(&f);
}

static void test_kmem_range_end(void **state)
{
	/* a range ending inside the string: reading past it faults */
	ks_ucapture_t mem = { 0, 3, (const uint8_t *)text };
	tfire_t f;

	tf_init(&f);
	f.ctx.kpc_args[0] = (uint64_t)(uintptr_t)text;
	f.ctx.kpc_kmem = &mem;
	f.ctx.kpc_nkmem = 1;
	assert_int_equal(arg0_is(&f, "sleeps"), 2);	/* faults */
	tf_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmem_string_arg),
		cmocka_unit_test(test_kmem_absent_faults),
		cmocka_unit_test(test_kmem_range_end),
	};

	return TD_RUN_BOTH(tests);
}
