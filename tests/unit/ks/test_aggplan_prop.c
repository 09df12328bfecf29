/*
 * test_aggplan_prop.c - the promise of an aggregation plan, tested on
 * random DIF (kernel-shim/aggplan.c): whenever the analysis accepts a
 * predicate, two firings that agree on the plan's variables (kap_vars,
 * kap_args, cpu, the probe) give the same result and the same fault,
 * however much they differ in everything else (timestamps, ppid,
 * uregs, other arguments, another execname ...).  Programs are drawn
 * from a menu biased towards what the analysis allows (built-ins, ALU,
 * branches, string compares, clause-locals, tuples and calls of pure and
 * impure subroutines, loads), verified by ks_dif_verify, analysed as the
 * predicate of a clause, and run under the emulator.  A fixed seed keeps
 * the test repeatable; it also checks that enough programs were
 * accepted for the comparison to mean something.
 */
#include "ks_test.h"
#include "ks_filter.h"
#include "ks_impl.h"

#define NPROGS	30000
#define MAXLEN	24
#define LOC_INT	(DIF_VAR_OTHER_UBASE)		/* this->i: integer */
#define LOC_STR	(DIF_VAR_OTHER_UBASE + 1)	/* this->s: string */

static uint64_t seed = 0x9e3779b97f4a7c15ull;

/*
 * Provider memory a clause may read (typed string arguments).  Its text
 * changes between the two runs of a comparison, as memory does between
 * firings: an accepted program may not depend on it.
 */
static char kmem[16];

static void kmem_fill(int variant)
{
	static const char v0[16] = "odd\0sh\0xargs", v1[16] = "sh\0od\0\0xarg";

	memcpy(kmem, variant ? v1 : v0, sizeof(kmem));
}

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static unsigned pick(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static const uint32_t vars[] = {
	DIF_VAR_ARG0, DIF_VAR_ARG1, DIF_VAR_ARG2, DIF_VAR_ARG9, DIF_VAR_PID,
	DIF_VAR_TID, DIF_VAR_UID, DIF_VAR_GID, DIF_VAR_EXECNAME, DIF_VAR_CPU,
	DIF_VAR_PROBEFUNC, DIF_VAR_EPID, DIF_VAR_TIMESTAMP, DIF_VAR_PPID,
	DIF_VAR_ERRNO, DIF_VAR_WALLTIMESTAMP, DIF_VAR_STACKDEPTH,
};
static const uint32_t subrs[] = {
	DIF_SUBR_strlen, DIF_SUBR_strjoin, DIF_SUBR_htons, DIF_SUBR_lltostr,
	DIF_SUBR_substr, DIF_SUBR_toupper, DIF_SUBR_strchr, DIF_SUBR_index,
	DIF_SUBR_rand, DIF_SUBR_progenyof, DIF_SUBR_strtoll,
};
#define NELEM(a)	((unsigned)(sizeof(a) / sizeof((a)[0])))

/* Mostly %r1-%r3, so values flow between instructions. */
static uint32_t reg(void)
{
	return pick(8) != 0 ? 1 + pick(3) : 1 + pick(DIF_DIR_NREGS - 1);
}

/* One instruction at pc of len.  Random draws are made in a fixed order
 * (not as unsequenced function arguments), so every build makes the
 * same programs. */
static dif_instr_t gen(uint32_t pc, uint32_t len)
{
	static const uint8_t alu[] = { DIF_OP_OR, DIF_OP_XOR, DIF_OP_AND,
		DIF_OP_SLL, DIF_OP_SRL, DIF_OP_SRA, DIF_OP_SUB, DIF_OP_ADD,
		DIF_OP_MUL, DIF_OP_SDIV, DIF_OP_UREM };
	uint32_t r = pick(100), a = reg(), b = reg(), d = reg();
	unsigned x = pick(1u << 16), y = pick(2);

	if (r < 22)
		return DIF_INSTR_FMT(DIF_OP_LDGS, 0, 0, d) |
		    (vars[x % NELEM(vars)] << 8);
	if (r < 36)
		return DIF_INSTR_FMT(alu[x % NELEM(alu)], a, b, d);
	if (r < 42)
		return DIF_INSTR_SETX(x % 4, d);
	if (r < 46)
		return DIF_INSTR_SETS(y * 4, d);
	if (r < 52)
		return DIF_INSTR_FMT(y ? DIF_OP_CMP : DIF_OP_SCMP, a, b, 0);
	if (r < 60 && pc + 2 < len)
		return DIF_INSTR_BRANCH(DIF_OP_BA + x % 11,
		    pc + 1 + (x >> 4) % (len - pc - 2));
	if (r < 64)
		return DIF_INSTR_FMT(DIF_OP_LDGA, DIF_VAR_ARGS, b, d);
	if (r < 70)
		return DIF_INSTR_FMT(y ? DIF_OP_LDLS : DIF_OP_STLS, 0, 0, d) |
		    ((x % 2 ? LOC_STR : LOC_INT) << 8);
	if (r < 74)
		return DIF_INSTR_FLUSHTS;
	if (r < 82)
		return DIF_INSTR_FMT(y ? DIF_OP_PUSHTV : DIF_OP_PUSHTR,
		    x % 2 ? DIF_TYPE_STRING : DIF_TYPE_CTF, 0, d);
	if (r < 90)
		return DIF_INSTR_CALL(subrs[x % NELEM(subrs)], d);
	if (r < 94)
		return DIF_INSTR_FMT(DIF_OP_MOV, a, 0, d);
	return DIF_INSTR_FMT(DIF_OP_LDUB + y, a, 0, d);
}

/*
 * Four instructions that use a variable as a string: compare it with a
 * constant or pass it to strlen().  Returns how many it wrote.
 */
static uint32_t idiom(dif_instr_t *t, uint32_t pc, uint32_t len)
{
	uint32_t a = reg(), b = reg(), n = 0;

	t[n++] = DIF_INSTR_FMT(DIF_OP_LDGS, 0, 0, a) |
	    (vars[pick(NELEM(vars))] << 8);
	if (pick(2)) {
		unsigned str = pick(2) * 4, op = pick(2) ? DIF_OP_BE : DIF_OP_BL;

		t[n++] = DIF_INSTR_SETS(str, b);
		t[n++] = DIF_INSTR_FMT(DIF_OP_SCMP, a, b, 0);
		t[n++] = DIF_INSTR_BRANCH(op, pc + 4 + pick(len - pc - 4));
	} else {
		t[n++] = DIF_INSTR_FLUSHTS;
		t[n++] = DIF_INSTR_FMT(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, a);
		t[n++] = DIF_INSTR_CALL(DIF_SUBR_strlen, a);
	}
	return n;
}

/* A firing context; with base, one that agrees with it on plan p. */
static void mkctx(ks_probe_ctx_t *c, const ks_probe_ctx_t *base,
    const ks_clause_t *p)
{
	static const uint64_t uregs[4] = { 5, 6, 7, 8 };
	static const char *names[] = { "sh", "odd", "xargs", "a" };
	static const ks_ucapture_t km = { 0, sizeof(kmem),
	    (const uint8_t *)kmem };
	unsigned v = p != NULL ? p->kc_aggvars : 0;

	memset(c, 0, sizeof(*c));
	c->kpc_id = kt_probe[6];
	c->kpc_cpu = 0;
	c->kpc_pid = (int32_t)pick(4);
	c->kpc_ppid = (int32_t)pick(4);
	c->kpc_tid = (int32_t)pick(4);
	c->kpc_uid = pick(3);
	c->kpc_gid = pick(3);
	c->kpc_errno = (int32_t)pick(3);
	c->kpc_timestamp = rnd();
	c->kpc_vtimestamp = rnd();
	c->kpc_walltimestamp = rnd();
	c->kpc_nkstack = pick(5);
	strcpy(c->kpc_execname, names[pick(4)]);
	for (int i = 0; i < DTRACE_MAXARGS; i++) {
		static const unsigned at[] = { 0, 4, 7 };

		c->kpc_args[i] = pick(3) ? pick(5) : rnd();
		if (pick(2) == 0)	/* a string in provider memory */
			c->kpc_args[i] = (uint64_t)(uintptr_t)(kmem +
			    at[pick(3)]);
	}
	c->kpc_kmem = &km;
	c->kpc_nkmem = 1;
	c->kpc_uregs = uregs;
	c->kpc_nuregs = 4;
	if (base == NULL)
		return;
	c->kpc_cpu = base->kpc_cpu;
#define KEEP(bit, f) if (v & (1u << (bit))) c->f = base->f
	KEEP(KS_FV_PID, kpc_pid);
	KEEP(KS_FV_TID, kpc_tid);
	KEEP(KS_FV_UID, kpc_uid);
	KEEP(KS_FV_GID, kpc_gid);
	KEEP(KS_FV_ERRNO, kpc_errno);
#undef KEEP
	if (v & (1u << KS_FV_EXECNAME))
		memcpy(c->kpc_execname, base->kpc_execname, 16);
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		if (p->kc_aggargs & (1u << i))
			c->kpc_args[i] = base->kpc_args[i];
}

typedef struct outcome {
	uint64_t ret, addr;
	uint32_t fault, pc;
} outcome_t;

static outcome_t run(const ks_difo_t *dp, const ks_probe_ctx_t *ctx,
    ks_vstate_t *vs)
{
	static char scratch[4096] __attribute__((aligned(16)));
	uint64_t locals[2] = { 0 };
	ks_mstate_t ms;
	outcome_t o;

	memset(&ms, 0, sizeof(ms));
	ms.kms_ctx = ctx;
	ms.kms_probe[0] = "ktest";
	ms.kms_probe[1] = "mod";
	ms.kms_probe[2] = "func";
	ms.kms_probe[3] = "p6";
	ms.kms_vstate = vs;
	ms.kms_locals = locals;
	ms.kms_nlocals = 2;
	ms.kms_strsize = 64;
	ms.kms_scratch = scratch;
	ms.kms_scratch_size = sizeof(scratch);
	o.ret = ks_dif_emulate(dp, &ms);
	o.fault = ms.kms_fault;
	o.pc = ms.kms_fault_pc;
	o.addr = ms.kms_fault_addr;
	return o;
}

/* Make a random verified predicate in d (tables static); 0 if refused. */
static int make(ks_difo_t *d, dif_instr_t *text, ks_vstate_t *vs)
{
	static uint64_t ints[4] = { 0, 1, 3, 0x20 };
	static char strs[] = "odd\0sh\0";
	static dtrace_difv_t lv[2];
	char err[256];
	uint32_t len = 2 + pick(MAXLEN - 1);

	memset(lv, 0, sizeof(lv));
	lv[0].dtdv_id = LOC_INT;
	lv[0].dtdv_kind = DIFV_KIND_SCALAR;
	lv[0].dtdv_scope = DIFV_SCOPE_LOCAL;
	lv[0].dtdv_type.dtdt_kind = DIF_TYPE_CTF;
	lv[0].dtdv_type.dtdt_size = 8;
	lv[1] = lv[0];
	lv[1].dtdv_id = LOC_STR;
	lv[1].dtdv_type.dtdt_kind = DIF_TYPE_STRING;
	lv[1].dtdv_type.dtdt_flags = DIF_TF_BYREF;
	lv[1].dtdv_type.dtdt_size = 64;
	for (uint32_t k = 0; k + 1 < len; k++) {
		unsigned op;

		if (k + 5 < len && pick(6) == 0) {
			k += idiom(text + k, k, len) - 1;
			continue;
		}
		text[k] = gen(k, len);
		op = DIF_INSTR_OP(text[k]);
		/* a comparison is usually followed by a conditional branch */
		if ((op == DIF_OP_CMP || op == DIF_OP_SCMP) && k + 3 < len &&
		    pick(4) != 0) {
			unsigned bop = DIF_OP_BE + pick(10);

			text[k + 1] = DIF_INSTR_BRANCH(bop,
			    k + 2 + pick(len - k - 3));
			k++;
		}
	}
	/* return the last register written, or any */
	text[len - 1] = DIF_INSTR_RET(reg());
	for (uint32_t k = len - 1; k-- > 0;) {
		unsigned op = DIF_INSTR_OP(text[k]), rd = DIF_INSTR_RD(text[k]);

		if (op != DIF_OP_STLS && op != DIF_OP_PUSHTV &&
		    op != DIF_OP_PUSHTR && !(op >= DIF_OP_BA &&
		    op <= DIF_OP_BLEU) && rd != 0 && rd < DIF_DIR_NREGS &&
		    op != DIF_OP_CMP && op != DIF_OP_SCMP && pick(3) != 0) {
			text[len - 1] = DIF_INSTR_RET(rd);
			break;
		}
	}
	memset(d, 0, sizeof(*d));
	d->dtdo_buf = text;
	d->dtdo_len = len;
	d->dtdo_inttab = ints;
	d->dtdo_intlen = 4;
	d->dtdo_strtab = strs;
	d->dtdo_strlen = sizeof(strs);
	d->dtdo_vartab = lv;
	d->dtdo_varlen = 2;
	d->dtdo_rtype.dtdt_kind = DIF_TYPE_CTF;
	d->dtdo_rtype.dtdt_size = 8;
	return ks_dif_verify(d, err, sizeof(err)) == 0 &&
	    ks_vstate_declare(vs, d, err, sizeof(err)) == 0;
}

static void same_values_same_outcome(void **state)
{
	ks_vstate_t *vs = ks_vstate_create(1 << 16, 64);
	dif_instr_t text[MAXLEN + 1];
	unsigned verified = 0, accepted = 0, faulting = 0;
	ks_difo_t d;

	(void)state;
	kt_setup();
	assert_non_null(vs);
	for (int n = 0; n < NPROGS; n++) {
		ks_clause_t c;
		ks_probe_ctx_t a, b;

		if (!make(&d, text, vs))
			continue;
		verified++;
		memset(&c, 0, sizeof(c));
		c.kc_pred = &d;
		ks_clause_aggplan(&c);
		if (c.kc_aggok <= 0)
			continue;
		accepted++;
		mkctx(&a, NULL, NULL);
		for (int k = 0; k < 4; k++) {
			outcome_t x, y;

			mkctx(&b, &a, &c);
			kmem_fill(0);
			x = run(&d, &a, vs);
			kmem_fill(1);
			y = run(&d, &b, vs);
			faulting += x.fault != 0;
			if (x.ret != y.ret || x.fault != y.fault ||
			    x.pc != y.pc || x.addr != y.addr) {
				for (uint32_t i = 0; i < d.dtdo_len; i++)
					print_message("%02u: %08x\n", i,
					    text[i]);
				fail_msg("program %d: vars %#x args %#x: %llu "
				    "(fault %u) vs %llu (fault %u)", n,
				    c.kc_aggvars, (unsigned)c.kc_aggargs,
				    (unsigned long long)x.ret, x.fault,
				    (unsigned long long)y.ret, y.fault);
			}
		}
	}
	print_message("%u verified, %u accepted, %u faulting runs\n",
	    verified, accepted, faulting);
	assert_true(accepted >= 500);
	assert_true(verified > accepted);
	ks_vstate_destroy(vs);
}

/*
 * The comparison can see memory: a string compare through an argument
 * gives different answers when the text under it changes, and the
 * analysis refuses it.
 */
static void memory_is_seen(void **state)
{
	static uint64_t ints[4] = { 0, 1, 3, 0x20 };
	static char strs[] = "odd\0sh\0";
	dif_instr_t text[] = {
		DIF_INSTR_FMT(DIF_OP_LDGS, 0, 0, 1) | (DIF_VAR_ARG0 << 8),
		DIF_INSTR_SETS(0, 2),
		DIF_INSTR_FMT(DIF_OP_SCMP, 1, 2, 0),
		DIF_INSTR_BRANCH(DIF_OP_BE, 6),
		DIF_INSTR_SETX(1, 3),
		DIF_INSTR_RET(3),
		DIF_INSTR_SETX(2, 3),
		DIF_INSTR_RET(3),
	};
	ks_vstate_t *vs = ks_vstate_create(1 << 16, 64);
	ks_difo_t d;
	ks_clause_t c;
	ks_probe_ctx_t a;
	outcome_t x, y;
	char err[256];

	(void)state;
	kt_setup();
	memset(&d, 0, sizeof(d));
	d.dtdo_buf = text;
	d.dtdo_len = sizeof(text) / sizeof(text[0]);
	d.dtdo_inttab = ints;
	d.dtdo_intlen = 4;
	d.dtdo_strtab = strs;
	d.dtdo_strlen = sizeof(strs);
	d.dtdo_rtype.dtdt_kind = DIF_TYPE_CTF;
	d.dtdo_rtype.dtdt_size = 8;
	if (ks_dif_verify(&d, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	memset(&c, 0, sizeof(c));
	c.kc_pred = &d;
	ks_clause_aggplan(&c);
	assert_int_equal(c.kc_aggok, -1);
	mkctx(&a, NULL, NULL);
	a.kpc_args[0] = (uint64_t)(uintptr_t)kmem;
	kmem_fill(0);
	x = run(&d, &a, vs);
	kmem_fill(1);
	y = run(&d, &a, vs);
	assert_int_equal(x.fault, 0);
	assert_int_equal(y.fault, 0);
	assert_int_equal(x.ret, 3);	/* "odd" == "odd" */
	assert_int_equal(y.ret, 1);	/* "sh" != "odd" */
	ks_vstate_destroy(vs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_values_same_outcome),
		cmocka_unit_test(memory_is_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
