/*
 * test_dif_emul.c - the DIF emulator, opcode by opcode: arithmetic and
 * its edge cases (shifts >= 64, INT64_MIN / -1), every branch at signed
 * and unsigned boundaries, loads and stores with their faults, SCMP at
 * strsize, built-in variables, user-memory loads, and that every fault
 * kind sets kms_fault, kms_fault_addr and kms_fault_pc.  Every test runs
 * under both dispatch styles.
 */
#include <limits.h>
#include <stdlib.h>
#include "test_dif_util.h"

/* r1 = a, r2 = b, r3 = a OP b, return r3. */
static uint64_t binop(unsigned op, uint64_t a, uint64_t b, uint32_t *fault)
{
	tdif_t t;

	td_init(&t);
	td_setx(&t, 1, a);
	td_setx(&t, 2, b);
	td_emit(&t, DIF_INSTR_FMT(op, 1, 2, 3));
	td_emit(&t, DIF_INSTR_RET(3));
	return td_run1(&t, fault);
}

static void test_ks_dif_emul_arith(void **state)
{
	assert_int_equal(binop(DIF_OP_OR, 0xf0, 0x0f, NULL), 0xff);
	assert_int_equal(binop(DIF_OP_XOR, 0xff, 0x0f, NULL), 0xf0);
	assert_int_equal(binop(DIF_OP_AND, 0xff, 0x0f, NULL), 0x0f);
	assert_int_equal(binop(DIF_OP_ADD, 40, 2, NULL), 42);
	assert_int_equal(binop(DIF_OP_ADD, UINT64_MAX, 2, NULL), 1);
	assert_int_equal(binop(DIF_OP_SUB, 2, 40, NULL), (uint64_t)-38);
	assert_int_equal(binop(DIF_OP_MUL, 6, 7, NULL), 42);
	assert_int_equal(binop(DIF_OP_MUL, (uint64_t)-6, 7, NULL),
	    (uint64_t)-42);
	assert_int_equal(binop(DIF_OP_SDIV, (uint64_t)-42, 5, NULL),
	    (uint64_t)-8);
	assert_int_equal(binop(DIF_OP_UDIV, (uint64_t)-42, 5, NULL),
	    (uint64_t)-42 / 5);
	assert_int_equal(binop(DIF_OP_SREM, (uint64_t)-42, 5, NULL),
	    (uint64_t)-2);
	assert_int_equal(binop(DIF_OP_UREM, (uint64_t)-42, 5, NULL),
	    (uint64_t)-42 % 5);
}

static void test_ks_dif_emul_division_edges(void **state)
{
	uint32_t f;

	assert_int_equal(binop(DIF_OP_SDIV, (uint64_t)INT64_MIN, (uint64_t)-1,
	    NULL), (uint64_t)INT64_MIN);
	assert_int_equal(binop(DIF_OP_SREM, (uint64_t)INT64_MIN, (uint64_t)-1,
	    NULL), 0);
	assert_int_equal(binop(DIF_OP_SDIV, 7, (uint64_t)-1, NULL),
	    (uint64_t)-7);
	for (unsigned op = DIF_OP_SDIV; op <= DIF_OP_UREM; op++) {
		assert_int_equal(binop(op, 5, 0, &f), 0);
		assert_int_equal(f, DTRACEFLT_DIVZERO);
	}
}

static void test_ks_dif_emul_shifts(void **state)
{
	assert_int_equal(binop(DIF_OP_SLL, 1, 63, NULL), 1ull << 63);
	assert_int_equal(binop(DIF_OP_SLL, 1, 64, NULL), 0);
	assert_int_equal(binop(DIF_OP_SLL, 1, 1000, NULL), 0);
	assert_int_equal(binop(DIF_OP_SRL, 1ull << 63, 63, NULL), 1);
	assert_int_equal(binop(DIF_OP_SRL, UINT64_MAX, 64, NULL), 0);
	assert_int_equal(binop(DIF_OP_SRA, (uint64_t)-16, 2, NULL),
	    (uint64_t)-4);
	assert_int_equal(binop(DIF_OP_SRA, (uint64_t)-16, 64, NULL),
	    UINT64_MAX);
	assert_int_equal(binop(DIF_OP_SRA, 16, UINT64_MAX, NULL), 0);
	assert_int_equal(binop(DIF_OP_SRA, 1ull << 62, 62, NULL), 1);
}

static void test_ks_dif_emul_not_mov_nop(void **state)
{
	tdif_t t;

	td_init(&t);
	td_setx(&t, 1, 0x0f);
	td_emit(&t, DIF_INSTR_NOT(1, 2));
	td_emit(&t, DIF_INSTR_NOP);
	td_emit(&t, DIF_INSTR_MOV(2, 3));
	td_emit(&t, DIF_INSTR_RET(3));
	assert_int_equal(td_run1(&t, NULL), ~(uint64_t)0x0f);
}

static void test_ks_dif_emul_r0_is_zero(void **state)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_RET(0));
	assert_int_equal(td_run1(&t, NULL), 0);
	assert_int_equal(binop(DIF_OP_OR, 0, 0, NULL), 0);
}

/* 1 if branch op is taken after CMP a, b (or TST a when tst). */
static int taken(unsigned op, uint64_t a, uint64_t b, int tst)
{
	tdif_t t;

	td_init(&t);
	td_setx(&t, 1, a);
	td_setx(&t, 2, b);
	td_emit(&t, tst ? DIF_INSTR_TST(1) : DIF_INSTR_CMP(DIF_OP_CMP, 1, 2));
	td_emit(&t, DIF_INSTR_BRANCH(op, td_pc(&t) + 2));
	td_emit(&t, DIF_INSTR_RET(0));
	td_setx(&t, 3, 1);
	td_emit(&t, DIF_INSTR_RET(3));
	return (int)td_run1(&t, NULL);
}

static void test_ks_dif_emul_branches(void **state)
{
	static const uint64_t v[] = { 0, 1, 2, (uint64_t)-1, (uint64_t)-2,
	    (uint64_t)INT64_MAX, (uint64_t)INT64_MIN, (uint64_t)INT64_MIN + 1,
	    (uint64_t)INT64_MAX - 1, 0x80 };
	const size_t n = sizeof (v) / sizeof (v[0]);

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			uint64_t a = v[i], b = v[j];
			int64_t sa = (int64_t)a, sb = (int64_t)b;
			const struct { unsigned op; int want; } c[] = {
				{ DIF_OP_BA, 1 }, { DIF_OP_BE, a == b },
				{ DIF_OP_BNE, a != b }, { DIF_OP_BG, sa > sb },
				{ DIF_OP_BGU, a > b }, { DIF_OP_BGE, sa >= sb },
				{ DIF_OP_BGEU, a >= b }, { DIF_OP_BL, sa < sb },
				{ DIF_OP_BLU, a < b }, { DIF_OP_BLE, sa <= sb },
				{ DIF_OP_BLEU, a <= b },
			};

			for (size_t k = 0; k < sizeof (c) / sizeof (c[0]); k++)
				if (taken(c[k].op, a, b, 0) != c[k].want)
					fail_msg("op %#x a %#llx b %#llx: want %d",
					    c[k].op, (unsigned long long)a,
					    (unsigned long long)b, c[k].want);
		}
	}
}

static void test_ks_dif_emul_tst(void **state)
{
	assert_int_equal(taken(DIF_OP_BE, 0, 5, 1), 1);
	assert_int_equal(taken(DIF_OP_BE, 3, 3, 1), 0);
	assert_int_equal(taken(DIF_OP_BNE, 3, 0, 1), 1);
	/* TST clears n, v, c: (uint64_t)-1 is neither negative nor below */
	assert_int_equal(taken(DIF_OP_BL, (uint64_t)-1, 0, 1), 0);
	assert_int_equal(taken(DIF_OP_BLU, (uint64_t)-1, 0, 1), 0);
	assert_int_equal(taken(DIF_OP_BG, (uint64_t)-1, 0, 1), 1);
}

/* alloc 16 bytes of scratch in r2, store val there with STX, then load
 * with op from r2 + off. */
static uint64_t load(unsigned op, uint64_t val, uint64_t off, uint32_t *f)
{
	tdif_t t;

	td_init(&t);
	td_setx(&t, 1, 16);
	td_emit(&t, DIF_INSTR_ALLOCS(1, 2));
	td_setx(&t, 3, val);
	td_emit(&t, DIF_INSTR_STORE(DIF_OP_STX, 3, 2));
	td_setx(&t, 4, off);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_ADD, 2, 4, 2));
	td_emit(&t, DIF_INSTR_LOAD(op, 2, 5));
	td_emit(&t, DIF_INSTR_RET(5));
	return td_run1(&t, f);
}

static void test_ks_dif_emul_loads(void **state)
{
	const uint64_t v = 0x80f0fff1fedcba98ull;
	static const unsigned rld[] = { DIF_OP_RLDSB, DIF_OP_RLDSH,
	    DIF_OP_RLDSW, DIF_OP_RLDUB, DIF_OP_RLDUH, DIF_OP_RLDUW,
	    DIF_OP_RLDX };
	static const unsigned ld[] = { DIF_OP_LDSB, DIF_OP_LDSH, DIF_OP_LDSW,
	    DIF_OP_LDUB, DIF_OP_LDUH, DIF_OP_LDUW, DIF_OP_LDX };
	const uint64_t want[] = { (uint64_t)(int8_t)0x98,
	    (uint64_t)(int16_t)0xba98, (uint64_t)(int32_t)0xfedcba98, 0x98,
	    0xba98, 0xfedcba98, v };

	for (int i = 0; i < 7; i++) {
		assert_int_equal(load(ld[i], v, 0, NULL), want[i]);
		assert_int_equal(load(rld[i], v, 0, NULL), want[i]);
	}
	assert_int_equal(load(DIF_OP_LDSB, v, 7, NULL), (uint64_t)(int8_t)0x80);
	assert_int_equal(load(DIF_OP_LDUB, v, 7, NULL), 0x80);
}

static void test_ks_dif_emul_load_faults(void **state)
{
	uint32_t f;

	assert_int_equal(load(DIF_OP_LDUH, 1, 1, &f), 0);
	assert_int_equal(f, DTRACEFLT_BADALIGN);
	assert_int_equal(load(DIF_OP_LDX, 1, 4, &f), 0);
	assert_int_equal(f, DTRACEFLT_BADALIGN);
	assert_int_equal(load(DIF_OP_LDX, 1, 16, &f), 0);
	assert_int_equal(f, DTRACEFLT_BADADDR);	/* past allocated scratch */
	assert_int_equal(load(DIF_OP_RLDUB, 1, (uint64_t)-1 << 40, &f), 0);
	assert_int_equal(f, DTRACEFLT_BADADDR);
	assert_int_equal(load(DIF_OP_LDX, 1, 8, &f), 0);	/* 16 bytes */
	assert_int_equal(f, 0);
}

static void test_ks_dif_emul_fault_records_pc_and_addr(void **state)
{
	tdif_t t;
	tfire_t f;
	int x = 0;

	td_init(&t);
	td_emit(&t, DIF_INSTR_NOP);
	td_setx(&t, 1, (uint64_t)(uintptr_t)&x);
	td_emit(&t, DIF_INSTR_LOAD(DIF_OP_LDSW, 1, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	tf_init(&f);
	assert_int_equal(td_run(&t, &f), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	assert_int_equal(f.ms.kms_fault_addr, (uint64_t)(uintptr_t)&x);
	assert_int_equal(f.ms.kms_fault_pc, 2 * 4);
	assert_string_equal(ks_dif_fault_name(f.ms.kms_fault),
	    "invalid address");
	/* the next run starts clean */
	t.text[2] = DIF_INSTR_NOP;
	assert_int_equal(td_run(&t, &f), 0);
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
}

static void test_ks_dif_emul_stores(void **state)
{
	tdif_t t;
	uint32_t f;
	static const unsigned st[] = { DIF_OP_STB, DIF_OP_STH, DIF_OP_STW,
	    DIF_OP_STX };
	const uint64_t want[] = { 0xef, 0xbeef, 0xdeadbeef, 0x1deadbeef };

	for (int i = 0; i < 4; i++) {
		td_init(&t);
		td_setx(&t, 1, 8);
		td_emit(&t, DIF_INSTR_ALLOCS(1, 2));
		td_setx(&t, 3, 0x1deadbeefull);
		td_emit(&t, DIF_INSTR_STORE(st[i], 3, 2));
		td_emit(&t, DIF_INSTR_LOAD(DIF_OP_LDX, 2, 4));
		td_emit(&t, DIF_INSTR_RET(4));
		assert_int_equal(td_run1(&t, NULL), want[i]);
	}
	/* outside scratch: the string table is readable, not writable */
	td_init(&t);
	td_sets(&t, 2, "abcdefgh");
	td_emit(&t, DIF_INSTR_STORE(DIF_OP_STB, 0, 2));
	td_emit(&t, DIF_INSTR_RET(0));
	td_run1(&t, &f);
	assert_int_equal(f, DTRACEFLT_BADADDR);
	/* misaligned store into scratch */
	td_init(&t);
	td_setx(&t, 1, 16);
	td_emit(&t, DIF_INSTR_ALLOCS(1, 2));
	td_setx(&t, 3, 2);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_ADD, 2, 3, 2));
	td_emit(&t, DIF_INSTR_STORE(DIF_OP_STW, 3, 2));
	td_emit(&t, DIF_INSTR_RET(0));
	td_run1(&t, &f);
	assert_int_equal(f, DTRACEFLT_BADALIGN);
}

static void test_ks_dif_emul_allocs_copys(void **state)
{
	tdif_t t;
	uint32_t f;

	/* COPYS "hello" into scratch, then LDUB [r3 + 4] = 'o' */
	td_init(&t);
	td_sets(&t, 1, "hello");
	td_setx(&t, 2, 6);
	td_emit(&t, DIF_INSTR_ALLOCS(2, 3));
	td_emit(&t, DIF_INSTR_COPYS(1, 2, 3));
	td_setx(&t, 4, 4);
	td_emit(&t, DIF_INSTR_FMT(DIF_OP_ADD, 3, 4, 4));
	td_emit(&t, DIF_INSTR_LOAD(DIF_OP_LDUB, 4, 5));
	td_emit(&t, DIF_INSTR_RET(5));
	assert_int_equal(td_run1(&t, NULL), 'o');
	/* ALLOCS of more than the scratch */
	td_init(&t);
	td_setx(&t, 1, 1 << 20);
	td_emit(&t, DIF_INSTR_ALLOCS(1, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	assert_int_equal(td_run1(&t, &f), 0);
	assert_int_equal(f, DTRACEFLT_NOSCRATCH);
	/* COPYS to a non-scratch destination */
	td_init(&t);
	td_sets(&t, 1, "hello");
	td_setx(&t, 2, 6);
	td_emit(&t, DIF_INSTR_COPYS(1, 2, 1));
	td_emit(&t, DIF_INSTR_RET(0));
	td_run1(&t, &f);
	assert_int_equal(f, DTRACEFLT_BADADDR);
}

static void test_ks_dif_emul_setx_sets(void **state)
{
	tdif_t t;
	tfire_t f;
	uint64_t v;

	td_init(&t);
	td_setx(&t, 1, 0x123456789abcdef0ull);
	td_emit(&t, DIF_INSTR_RET(1));
	assert_int_equal(td_run1(&t, NULL), 0x123456789abcdef0ull);
	td_init(&t);
	td_sets(&t, 1, "xyz");
	td_emit(&t, DIF_INSTR_RET(1));
	tf_init(&f);
	v = td_run(&t, &f);
	assert_string_equal((const char *)(uintptr_t)v, "xyz");
	tf_fini(&f);
}

/* Result of SCMP a, b as -1/0/1 (via BL/BE), in firing f. */
static int scmp(tfire_t *f, uint64_t a, uint64_t b)
{
	tdif_t t;

	td_init(&t);
	td_setx(&t, 1, a);
	td_setx(&t, 2, b);
	td_emit(&t, DIF_INSTR_CMP(DIF_OP_SCMP, 1, 2));
	td_emit(&t, DIF_INSTR_BRANCH(DIF_OP_BL, 8));
	td_emit(&t, DIF_INSTR_BRANCH(DIF_OP_BE, 7));
	td_setx(&t, 3, 1);
	td_emit(&t, DIF_INSTR_RET(3));
	td_emit(&t, DIF_INSTR_RET(0));
	td_setx(&t, 3, (uint64_t)-1);
	td_emit(&t, DIF_INSTR_RET(3));
	assert_int_equal(t.text[7], DIF_INSTR_RET(0));
	return (int)(int64_t)td_run(&t, f);
}

static void test_ks_dif_emul_scmp(void **state)
{
	static const char s[] = "abc\0abd\0ab\0abcdefghXYZ\0abcdefghQRS";
	tfire_t f;
	uint64_t base;

	/* strings in scratch (readable); strsize 8 */
	tf_init_sized(&f, 4096, 8);
	memcpy(f.scratch, s, sizeof (s));
	f.ms.kms_scratch_used = sizeof (s);
	base = (uint64_t)(uintptr_t)f.scratch;
	assert_int_equal(scmp(&f, base, base), 0);
	assert_int_equal(scmp(&f, base, base + 4), -1);
	assert_int_equal(scmp(&f, base + 4, base), 1);
	assert_int_equal(scmp(&f, base + 8, base), -1);
	assert_int_equal(scmp(&f, base, base + 8), 1);
	/* strsize 8: the first 8 bytes are equal, no NUL needed */
	assert_int_equal(scmp(&f, base + 11, base + 23), 0);
	assert_int_equal(f.ms.kms_fault, 0);
	/* a string that runs off readable memory before strsize faults */
	f.ms.kms_scratch_used = 14;
	assert_int_equal(scmp(&f, base + 11, base), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	assert_int_equal(f.ms.kms_fault_pc, 2 * 4);
	tf_fini(&f);
}

static void test_ks_dif_emul_builtins(void **state)
{
	static const struct { uint32_t id; uint64_t want; } b[] = {
		{ DIF_VAR_EPID, 7 }, { DIF_VAR_ID, 42 }, { DIF_VAR_CPU, 1 },
		{ DIF_VAR_UID, 1000 }, { DIF_VAR_GID, 100 },
		{ DIF_VAR_TIMESTAMP, 123456789 }, { DIF_VAR_CURTHREAD, 0 },
		{ DIF_VAR_IPL, 0 }, { DIF_VAR_ARG0, 10 }, { DIF_VAR_ARG9, 19 },
		{ DIF_VAR_STACKDEPTH, 3 }, { DIF_VAR_USTACKDEPTH, 2 },
		{ DIF_VAR_CALLER, 0xc0ffee }, { DIF_VAR_UCALLER, 0xbeef },
		{ DIF_VAR_ERRNO, 2 }, { DIF_VAR_VTIMESTAMP, 55 },
		{ DIF_VAR_WALLTIMESTAMP, 66 },
	};
	static const uint64_t ks[3] = { 1, 2, 3 }, us[2] = { 4, 5 };
	tdif_t t;
	tfire_t f;

	tf_init(&f);
	for (int i = 0; i < 10; i++)
		f.ctx.kpc_args[i] = 10 + (uint64_t)i;
	f.ctx.kpc_kstack = ks;
	f.ctx.kpc_nkstack = 3;
	f.ctx.kpc_ustack = us;
	f.ctx.kpc_nustack = 2;
	f.ctx.kpc_caller = 0xc0ffee;
	f.ctx.kpc_ucaller = 0xbeef;
	f.ctx.kpc_errno = 2;
	f.ctx.kpc_vtimestamp = 55;
	f.ctx.kpc_walltimestamp = 66;
	for (size_t i = 0; i < sizeof (b) / sizeof (b[0]); i++) {
		td_init(&t);
		td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGS, b[i].id, 1));
		td_emit(&t, DIF_INSTR_RET(1));
		if (td_run(&t, &f) != b[i].want)
			fail_msg("built-in %#x", b[i].id);
	}
	td_init(&t);
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 1));
	td_emit(&t, DIF_INSTR_RET(1));
	assert_int_equal(td_run(&t, &f), (uint64_t)getpid());
	t.text[0] = DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PPID, 1);
	assert_int_equal(td_run(&t, &f), (uint64_t)getppid());
	t.text[0] = DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_TID, 1);
	assert_int_equal(td_run(&t, &f), (uint64_t)f.ctx.kpc_tid);
	tf_fini(&f);
}

/* A string built-in, compared with SCMP against want (1 if equal). */
static int strvar_is(tfire_t *f, uint32_t id, const char *want)
{
	tdif_t t;

	td_init(&t);
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGS, id, 1));
	td_sets(&t, 2, want);
	td_emit(&t, DIF_INSTR_CMP(DIF_OP_SCMP, 1, 2));
	td_emit(&t, DIF_INSTR_BRANCH(DIF_OP_BE, 5));
	td_emit(&t, DIF_INSTR_RET(0));
	td_setx(&t, 3, 1);
	td_emit(&t, DIF_INSTR_RET(3));
	return (int)td_run(&t, f) && f->ms.kms_fault == 0;
}

static void test_ks_dif_emul_string_builtins(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_true(strvar_is(&f, DIF_VAR_EXECNAME, "foo"));
	assert_true(strvar_is(&f, DIF_VAR_PROBEPROV, "syscall"));
	assert_true(strvar_is(&f, DIF_VAR_PROBEMOD, "vmlinux"));
	assert_true(strvar_is(&f, DIF_VAR_PROBEFUNC, "read"));
	assert_true(strvar_is(&f, DIF_VAR_PROBENAME, "entry"));
	assert_true(strvar_is(&f, DIF_VAR_ZONENAME, "global"));
	assert_false(strvar_is(&f, DIF_VAR_EXECNAME, "bar"));
	f.ms.kms_probe[2] = NULL;
	assert_true(strvar_is(&f, DIF_VAR_PROBEFUNC, ""));
	tf_fini(&f);
}

static void test_ks_dif_emul_ldga(void **state)
{
	static const uint64_t uregs[3] = { 100, 200, 300 };
	tdif_t t;
	tfire_t f;

	tf_init(&f);
	f.ctx.kpc_args[3] = 33;
	f.ctx.kpc_uregs = uregs;
	f.ctx.kpc_nuregs = 3;
	td_init(&t);
	td_setx(&t, 1, 3);
	td_emit(&t, DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_ARGS, 1, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	assert_int_equal(td_run(&t, &f), 33);
	t.ints[0] = 12;			/* past args[9] */
	assert_int_equal(td_run(&t, &f), 0);
	assert_int_equal(f.ms.kms_fault, 0);
	t.ints[0] = 2;
	t.text[1] = DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_UREGS, 1, 2);
	assert_int_equal(td_run(&t, &f), 300);
	t.ints[0] = 3;
	assert_int_equal(td_run(&t, &f), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_ILLOP);
	assert_int_equal(f.ms.kms_fault_pc, 4);
	t.text[1] = DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_REGS, 1, 2);
	assert_int_equal(td_run(&t, &f), 0);
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
}

static uint64_t uload(tfire_t *f, unsigned op, uint64_t addr)
{
	tdif_t t;

	td_init(&t);
	td_setx(&t, 1, addr);
	td_emit(&t, DIF_INSTR_LOAD(op, 1, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	return td_run(&t, f);
}

static int64_t fake_copyin(void *arg, int pid, uint64_t uaddr, void *buf,
    uint64_t len)
{
	memset(buf, 0x7f, len);
	*(int *)arg += 1;
	return (int64_t)len;
}

static void test_ks_dif_emul_user_loads(void **state)
{
	static volatile uint64_t word = 0x8182838485868788ull;
	uint64_t a = (uint64_t)(uintptr_t)&word;
	uint8_t cap[4] = { 0xfe, 1, 2, 3 };
	ks_ucapture_t uc = { 0x1000, 4, cap };
	tfire_t f;
	int calls = 0;

	tf_init(&f);		/* kpc_pid is this process */
	assert_int_equal(uload(&f, DIF_OP_ULDX, a), word);
	assert_int_equal(uload(&f, DIF_OP_ULDSB, a), (uint64_t)(int8_t)0x88);
	assert_int_equal(uload(&f, DIF_OP_ULDUB, a), 0x88);
	assert_int_equal(uload(&f, DIF_OP_ULDSH, a), (uint64_t)(int16_t)0x8788);
	assert_int_equal(uload(&f, DIF_OP_ULDUH, a), 0x8788);
	assert_int_equal(uload(&f, DIF_OP_ULDSW, a),
	    (uint64_t)(int32_t)0x85868788);
	assert_int_equal(uload(&f, DIF_OP_ULDUW, a), 0x85868788);
	/* an unmapped user address */
	assert_int_equal(uload(&f, DIF_OP_ULDX, 8), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	assert_int_equal(f.ms.kms_fault_addr, 8);
	/* captured memory comes first */
	f.ctx.kpc_ucap = &uc;
	f.ctx.kpc_nucap = 1;
	assert_int_equal(uload(&f, DIF_OP_ULDSB, 0x1000), (uint64_t)-2);
	assert_int_equal(uload(&f, DIF_OP_ULDUH, 0x1002), 0x0302);
	/* then the provider's copyin */
	f.ctx.kpc_copyin = fake_copyin;
	f.ctx.kpc_copyin_arg = &calls;
	assert_int_equal(uload(&f, DIF_OP_ULDUB, 0x1004), 0x7f);
	assert_int_equal(calls, 1);
	tf_fini(&f);
}

static void test_ks_dif_emul_tuple_overflow(void **state)
{
	tdif_t t;
	uint32_t f;

	td_init(&t);
	for (int i = 0; i < KS_DIF_TUPLE_MAX + 1; i++)
		td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 0));
	td_emit(&t, DIF_INSTR_RET(0));
	{
		tfire_t fi;

		tf_init(&fi);
		td_run(&t, &fi);
		assert_int_equal(fi.ms.kms_fault, DTRACEFLT_TUPOFLOW);
		assert_int_equal(fi.ms.kms_fault_pc, KS_DIF_TUPLE_MAX * 4);
		assert_int_equal(fi.ms.kms_fault_addr, 0);
		tf_fini(&fi);
	}
	/* POPTS and FLUSHTS make room again */
	t.text[3] = DIF_INSTR_POPTS;
	td_run1(&t, &f);
	assert_int_equal(f, 0);
	t.text[3] = DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 0);
	t.text[5] = DIF_INSTR_FLUSHTS;
	td_run1(&t, &f);
	assert_int_equal(f, 0);
}

/* Each fault kind: kms_fault, kms_fault_addr and kms_fault_pc. */
static void test_ks_dif_emul_every_fault_kind(void **state)
{
	static int word;
	const uint64_t w = (uint64_t)(uintptr_t)&word;
	const struct {
		dif_instr_t in;		/* at pc 2, after r1 = a, r2 = b */
		uint64_t a, b;
		uint32_t fault;
		uint64_t addr;
	} c[] = {
		{ DIF_INSTR_LOAD(DIF_OP_LDSW, 1, 3), w, 0,
		    DTRACEFLT_BADADDR, w },
		{ DIF_INSTR_LOAD(DIF_OP_LDUW, 1, 3), 0x1002, 0,
		    DTRACEFLT_BADALIGN, 0x1002 },
		{ DIF_INSTR_LOAD(DIF_OP_ULDX, 1, 3), 24, 0,
		    DTRACEFLT_BADADDR, 24 },
		{ DIF_INSTR_STORE(DIF_OP_STB, 2, 1), w, 1,
		    DTRACEFLT_BADADDR, w },
		{ DIF_INSTR_FMT(DIF_OP_UDIV, 1, 2, 3), 1, 0,
		    DTRACEFLT_DIVZERO, 0 },
		{ DIF_INSTR_FMT(DIF_OP_SREM, 1, 2, 3), 1, 0,
		    DTRACEFLT_DIVZERO, 0 },
		{ DIF_INSTR_ALLOCS(1, 3), 1 << 30, 0, DTRACEFLT_NOSCRATCH, 0 },
		{ DIF_INSTR_LDA(DIF_OP_LDGA, DIF_VAR_UREGS, 1, 3), 0, 0,
		    DTRACEFLT_ILLOP, 0 },
		{ DIF_INSTR_CMP(DIF_OP_SCMP, 1, 2), 8, 16,
		    DTRACEFLT_BADADDR, 8 },
		{ DIF_INSTR_CALL(DIF_SUBR_copyout, 3), 0, 0,
		    DTRACEFLT_ILLOP, 0 },
	};

	for (size_t k = 0; k < sizeof (c) / sizeof (c[0]); k++) {
		tdif_t t;
		tfire_t f;

		td_init(&t);
		td_setx(&t, 1, c[k].a);
		td_setx(&t, 2, c[k].b);
		td_emit(&t, c[k].in);
		td_emit(&t, DIF_INSTR_RET(3));
		tf_init(&f);
		assert_int_equal(td_run(&t, &f), 0);
		if (f.ms.kms_fault != c[k].fault ||
		    f.ms.kms_fault_addr != c[k].addr ||
		    f.ms.kms_fault_pc != 8)
			fail_msg("case %zu: fault %u addr %#llx pc %u", k,
			    f.ms.kms_fault,
			    (unsigned long long)f.ms.kms_fault_addr,
			    f.ms.kms_fault_pc);
		tf_fini(&f);
	}
}

static void test_ks_dif_readable_for_records(void **state)
{
	static char outside[16] = "not dif memory";
	tdif_t t;
	tfire_t f;
	uint64_t s;

	tf_init(&f);
	td_init(&t);
	s = (uint64_t)(uintptr_t)(t.strs + td_str(&t, "hello"));
	assert_int_equal(ks_dif_readable(&t.dp, &f.ms, s, 0, 1), 5);
	assert_int_equal(ks_dif_readable(&t.dp, &f.ms, s, 6, 0), 6);
	assert_int_equal(f.ms.kms_fault, 0);
	/* one byte past the string table */
	assert_int_equal(ks_dif_readable(&t.dp, &f.ms, s, 7, 0), -1);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	f.ms.kms_fault = 0;
	assert_int_equal(ks_dif_readable(&t.dp, &f.ms,
	    (uint64_t)(uintptr_t)outside, 0, 1), -1);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	assert_int_equal(f.ms.kms_fault_addr, (uint64_t)(uintptr_t)outside);
	f.ms.kms_fault = 0;
	/* execname of the firing is readable */
	assert_int_equal(ks_dif_readable(&t.dp, &f.ms,
	    (uint64_t)(uintptr_t)f.ctx.kpc_execname, 0, 1), 3);
	tf_fini(&f);
}

/* A random register-only program (arithmetic, compares, forward branches,
 * SETX) of n instructions ending in RET. */
static void random_program(tdif_t *t, uint64_t *seed, uint32_t n)
{
	static const unsigned alu[] = { DIF_OP_OR, DIF_OP_XOR, DIF_OP_AND,
	    DIF_OP_SLL, DIF_OP_SRL, DIF_OP_SUB, DIF_OP_ADD, DIF_OP_MUL,
	    DIF_OP_SDIV, DIF_OP_UDIV, DIF_OP_SREM, DIF_OP_UREM, DIF_OP_SRA };

	td_init(t);
	for (uint32_t pc = 0; pc + 1 < n; pc++) {
		uint64_t r;
		unsigned a, b, d;

		*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
		r = *seed >> 16;
		a = r & 7;
		b = (r >> 3) & 7;
		d = 1 + (r >> 6) % 7;
		switch ((r >> 9) % 6) {
		case 0: case 1:
			td_emit(t, DIF_INSTR_FMT(alu[(r >> 12) % 13], a, b, d));
			break;
		case 2:
			td_setx(t, d, *seed ^ (r << 7));
			break;
		case 3:
			td_emit(t, (r >> 12) & 1 ? DIF_INSTR_CMP(DIF_OP_CMP, a, b) :
			    DIF_INSTR_TST(a));
			break;
		case 4:
			td_emit(t, DIF_INSTR_BRANCH(DIF_OP_BA + (r >> 12) % 11,
			    pc + 1 + (r >> 16) % (n - pc - 1)));
			break;
		default:
			td_emit(t, (r >> 12) & 1 ? DIF_INSTR_NOT(a, d) :
			    DIF_INSTR_MOV(a, d));
		}
	}
	td_emit(t, DIF_INSTR_RET(1 + (*seed >> 40) % 7));
}

/* The switch and computed-goto loops agree on 3000 random programs. */
static void test_ks_dif_emul_dispatch_styles_agree(void **state)
{
	uint64_t seed = 42;
	tdif_t t;
	tfire_t f;

	tf_init(&f);
	for (int k = 0; k < 3000; k++) {
		uint64_t v1, v2;
		uint32_t f1, p1;

		random_program(&t, &seed, 2 + (uint32_t)(seed >> 20) % 40);
		assert_int_equal(ks_dif_verify(&t.dp, NULL, 0), 0);
		v1 = ks_dif_emulate_with(&t.dp, &f.ms, KS_DIF_DISPATCH_SWITCH);
		f1 = f.ms.kms_fault;
		p1 = f.ms.kms_fault_pc;
		v2 = ks_dif_emulate_with(&t.dp, &f.ms, KS_DIF_DISPATCH_GOTO);
		if (v1 != v2 || f1 != f.ms.kms_fault ||
		    p1 != f.ms.kms_fault_pc)
			fail_msg("program %d: switch %#llx/%u/%u, goto "
			    "%#llx/%u/%u", k, (unsigned long long)v1, f1, p1,
			    (unsigned long long)v2, f.ms.kms_fault,
			    f.ms.kms_fault_pc);
	}
	tf_fini(&f);
}

/* An mstate with no context, storage, scratch or locals: faults, never a
 * crash. */
static void test_ks_dif_emul_bare_mstate(void **state)
{
	ks_mstate_t ms;
	tdif_t t;
	char err[128];

	td_init(&t);
	td_var(&t, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD, 0);
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 1));
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_EXECNAME, 2));
	td_sets(&t, 3, "");
	td_emit(&t, DIF_INSTR_CMP(DIF_OP_SCMP, 2, 3));
	td_emit(&t, DIF_INSTR_BRANCH(DIF_OP_BNE, 6));
	td_emit(&t, DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 4));
	td_emit(&t, DIF_INSTR_RET(1));
	assert_int_equal(ks_dif_verify(&t.dp, err, sizeof (err)), 0);
	memset(&ms, 0, sizeof (ms));
	ms.kms_strsize = 16;
	assert_int_equal(ks_dif_emulate_with(&t.dp, &ms, td_dispatch), 0);
	assert_int_equal(ms.kms_fault, DTRACEFLT_ILLOP);	/* no storage */
	assert_int_equal(ms.kms_fault_pc, 5 * 4);
	/* no scratch: ALLOCS and string results fault NOSCRATCH */
	td_init(&t);
	td_setx(&t, 1, 8);
	td_emit(&t, DIF_INSTR_ALLOCS(1, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	assert_int_equal(ks_dif_emulate_with(&t.dp, &ms, td_dispatch), 0);
	assert_int_equal(ms.kms_fault, DTRACEFLT_NOSCRATCH);
	/* no context: user loads fault */
	td_init(&t);
	td_setx(&t, 1, 0x1000);
	td_emit(&t, DIF_INSTR_LOAD(DIF_OP_ULDX, 1, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	assert_int_equal(ks_dif_emulate_with(&t.dp, &ms, td_dispatch), 0);
	assert_int_equal(ms.kms_fault, DTRACEFLT_BADADDR);
}

static void test_ks_dif_api_helpers(void **state)
{
	ks_difo_t *dp = calloc(1, sizeof (*dp));
	tfire_t f;

	/* ks_difo_free frees the object and its tables (LSan checks) */
	assert_non_null(dp);
	dp->dtdo_len = 2;
	dp->dtdo_buf = calloc(2, sizeof (dif_instr_t));
	dp->dtdo_buf[0] = DIF_INSTR_SETX(0, 1);
	dp->dtdo_buf[1] = DIF_INSTR_RET(1);
	dp->dtdo_intlen = 1;
	dp->dtdo_inttab = calloc(1, sizeof (uint64_t));
	dp->dtdo_inttab[0] = 77;
	dp->dtdo_strlen = 1;
	dp->dtdo_strtab = calloc(1, 1);
	assert_int_equal(ks_dif_verify(dp, NULL, 0), 0);
	tf_init(&f);
	assert_int_equal(ks_dif_emulate(dp, &f.ms), 77);
	tf_fini(&f);
	ks_difo_free(dp);
	ks_difo_free(NULL);
	assert_true(ks_dif_scratch_size(256) >= 8 * 257);
	assert_true(ks_dif_scratch_size(1 << 20) >= 8 * ((1 << 20) + 1));
	assert_string_equal(ks_dif_fault_name(DTRACEFLT_DIVZERO),
	    "divide-by-zero");
	assert_string_equal(ks_dif_fault_name(DTRACEFLT_BADALIGN),
	    "invalid alignment");
	assert_string_equal(ks_dif_fault_name(12345), "unknown fault");
}

static void test_ks_dif_emul_goto_is_compiled(void **state)
{
	assert_int_equal(ks_dif_have_goto(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ks_dif_emul_arith),
		cmocka_unit_test(test_ks_dif_emul_division_edges),
		cmocka_unit_test(test_ks_dif_emul_shifts),
		cmocka_unit_test(test_ks_dif_emul_not_mov_nop),
		cmocka_unit_test(test_ks_dif_emul_r0_is_zero),
		cmocka_unit_test(test_ks_dif_emul_branches),
		cmocka_unit_test(test_ks_dif_emul_tst),
		cmocka_unit_test(test_ks_dif_emul_loads),
		cmocka_unit_test(test_ks_dif_emul_load_faults),
		cmocka_unit_test(test_ks_dif_emul_fault_records_pc_and_addr),
		cmocka_unit_test(test_ks_dif_emul_stores),
		cmocka_unit_test(test_ks_dif_emul_allocs_copys),
		cmocka_unit_test(test_ks_dif_emul_setx_sets),
		cmocka_unit_test(test_ks_dif_emul_scmp),
		cmocka_unit_test(test_ks_dif_emul_builtins),
		cmocka_unit_test(test_ks_dif_emul_string_builtins),
		cmocka_unit_test(test_ks_dif_emul_ldga),
		cmocka_unit_test(test_ks_dif_emul_user_loads),
		cmocka_unit_test(test_ks_dif_emul_tuple_overflow),
		cmocka_unit_test(test_ks_dif_emul_every_fault_kind),
		cmocka_unit_test(test_ks_dif_readable_for_records),
		cmocka_unit_test(test_ks_dif_emul_dispatch_styles_agree),
		cmocka_unit_test(test_ks_dif_emul_bare_mstate),
		cmocka_unit_test(test_ks_dif_api_helpers),
		cmocka_unit_test(test_ks_dif_emul_goto_is_compiled),
	};

	return TD_RUN_BOTH(tests);
}
