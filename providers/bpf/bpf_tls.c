/*
 * bpf_tls.c - kernel clauses (ks_ktls.h) lowered to BPF, for the
 * aggregating body of bpf_agg.c.
 *
 * Self-> variables: one BPF_MAP_TYPE_HASH per consumer (kap_tlsstate; at
 * most MAXSTATES at once, the drain closes the map of a consumer that is
 * gone), keyed { u32 tid, u32 variable id, u32 consumer serial, u32 0 },
 * value the 8-byte integer, preallocated with kap_tlscap entries (what the
 * consumer's dynvarsize holds of them in the shim).  dtrace's semantics:
 * a load of a missing variable reads 0; a store of 0 deletes it; a store
 * that finds the map full is dropped and counted in the consumer's slot
 * of a per-CPU array, which the drain reports as dynamic variable drops
 * (ks_tls_dyndrops: "dtrace: N dynamic variable drops", as the shim's
 * arena does).  A thread's variables are never in two places: see
 * tlsplan.c for the rule and the veto when lowering fails here.
 *
 * Lowering: each DIF register lives in a stack slot (helper calls
 * clobber r1-r5); an instruction loads its operands into r1/r2, computes,
 * and stores its result.  CMP/TST keep their operands in two slots for
 * the branch right behind them; SCMP (execname against a string
 * constant, tlsplan.c checked which register holds which) compares the
 * task's comm with the constant's 16 NUL-padded bytes and leaves 1
 * (different) or 0.  Branches go forward; RET leaves the value in r7.
 * timestamp is read once per firing (dtrace's timestamp does not move
 * within a firing), at the first kernel clause.
 *
 * A VALUE step's value becomes a value of the same bucket: for quantize
 * the power of two at the bucket's edge (0 stays 0, -v for negatives),
 * for lquantize the bucket's base (base - 1 below, the top above) of the
 * value's low 32 bits (dtrace's lquantize reads an int32_t), for
 * llquantize the bucket's lower edge (llq_key), so that the shim, applying it with the key's count, builds the same
 * distribution.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpf_tls.h"
#include "bpf_util.h"

#define REG_AT(k) (-288 - 8 * (k))	/* DIF registers %r0..%r7 */
#define CCA_AT (-352)			/* the last compare's operands */
#define CCB_AT (-360)
#define TK_AT (-376)			/* the map key (16 bytes) */
#define TV_AT (-384)			/* a value to insert */
#define TS_AT (-392)			/* timestamp of this firing */
#define TCOMM_AT (-408)			/* the task's comm (16 bytes) */
#define TDK_AT (-412)			/* the drops array's index */
#define MAXSTATES 16			/* consumers with maps at once */

typedef struct tls_state {
	pthread_mutex_t lk;
	uint32_t serial[MAXSTATES];	/* 0: free slot */
	int map[MAXSTATES];
	int dropmap;			/* per CPU, by slot */
	uint64_t *dlast;		/* [MAXSTATES * ncpu] reported */
	uint64_t *dvals;		/* [ncpu] */
	int ncpu;
} tls_state_t;

static tls_state_t tls = { .lk = PTHREAD_MUTEX_INITIALIZER,
	.dropmap = -1 };

/* The slot of consumer serial, its map made (cap entries) if new; -1
 * (lk held). */
static int state_slot(tls_state_t *ts, uint32_t serial, uint32_t cap)
{
	int k, fr = -1;

	if (ts->dropmap < 0) {
		ts->ncpu = (int)ks_ncpus();
		ts->dlast = calloc((size_t)MAXSTATES * (size_t)ts->ncpu, 8);
		ts->dvals = calloc((size_t)ts->ncpu, 8);
		if (ts->dlast == NULL || ts->dvals == NULL)
			return -1;
		ts->dropmap = prov_bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY,
		    4, 8, MAXSTATES, 0);
		if (ts->dropmap < 0)
			return -1;
	}
	for (k = 0; k < MAXSTATES; k++) {
		if (ts->serial[k] == serial)
			return k;
		if (ts->serial[k] == 0 && fr < 0)
			fr = k;
	}
	if (fr < 0 || cap == 0)
		return -1;
	ts->map[fr] = prov_bpf_map_create(BPF_MAP_TYPE_HASH, 16, 8, cap, 0);
	if (ts->map[fr] < 0)
		return -1;
	ts->serial[fr] = serial;
	return fr;
}

/* ---- small emitters ---- */

typedef struct em {
	struct bpf_insn *p;
	int n, bad;
	const prov_bpf_argmap_t *am;
	int map, slot;
	int comm_at;			/* fp offset of the comm the filter
					 * in front read, 0: none */
} em_t;

static void put(em_t *e, struct bpf_insn i)
{
	if (e->n >= PROV_BPF_TLSMAX - 2) {
		e->bad = 1;
		return;
	}
	e->p[e->n++] = i;
}

static void ld64(em_t *e, int reg, uint64_t v)
{
	put(e, ins(BPF_LD | BPF_DW | BPF_IMM, (uint8_t)reg, 0, 0,
	    (int32_t)(uint32_t)v));
	put(e, ins(0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32)));
}

static void ldmap(em_t *e, int reg, int fd)
{
	put(e, ins(BPF_LD | BPF_DW | BPF_IMM, (uint8_t)reg, BPF_PSEUDO_MAP_FD,
	    0, fd));
	put(e, ins(0, 0, 0, 0, 0));
}

static void fp(em_t *e, int reg, int at)
{
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_X, (uint8_t)reg, 10, 0, 0));
	put(e, ins(BPF_ALU64 | BPF_ADD | BPF_K, (uint8_t)reg, 0, 0, at));
}

static void call(em_t *e, int fn)
{
	put(e, ins(BPF_JMP | BPF_CALL, 0, 0, 0, fn));
}

static void ldx(em_t *e, int reg, int at)
{
	put(e, ins(BPF_LDX | BPF_MEM | BPF_DW, (uint8_t)reg, 10, (int16_t)at,
	    0));
}

static void stx(em_t *e, int at, int reg)
{
	put(e, ins(BPF_STX | BPF_MEM | BPF_DW, 10, (uint8_t)reg, (int16_t)at,
	    0));
}

/* A forward jump to fix later: its index. */
static int jmp(em_t *e, uint8_t code, int dst, int src, int32_t imm)
{
	put(e, ins(code, (uint8_t)dst, (uint8_t)src, 0, imm));
	return e->n - 1;
}

static void land(em_t *e, int at)
{
	if (at >= 0 && at < e->n)
		e->p[at].off = (int16_t)(e->n - at - 1);
}

/* ---- variables ---- */

/* r0 = the map's element for variable var of this thread, or 0. */
static void tls_lookup(em_t *e, uint32_t var)
{
	put(e, ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, TK_AT + 4, (int32_t)var));
	ldmap(e, 1, e->map);
	fp(e, 2, TK_AT);
	call(e, BPF_FUNC_map_lookup_elem);
}

static void tls_load(em_t *e, uint32_t var, int rd)
{
	int miss;

	tls_lookup(e, var);
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 0));
	miss = jmp(e, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0);
	put(e, ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 0, 0, 0));
	land(e, miss);
	if (rd != 0)
		stx(e, REG_AT(rd), 1);
}

/* Store %rs into var: 0 deletes; one that finds no room (a new
 * variable in a full map: an existing one is always replaced) is counted
 * in the consumer's drops.  One map operation either way. */
static void tls_store(em_t *e, uint32_t var, int rs)
{
	int nonzero, done, stored;

	ldx(e, 8, REG_AT(rs));
	put(e, ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, TK_AT + 4, (int32_t)var));
	nonzero = jmp(e, BPF_JMP | BPF_JNE | BPF_K, 8, 0, 0);
	ldmap(e, 1, e->map);
	fp(e, 2, TK_AT);
	call(e, BPF_FUNC_map_delete_elem);
	done = jmp(e, BPF_JMP | BPF_JA, 0, 0, 0);
	land(e, nonzero);
	stx(e, TV_AT, 8);
	ldmap(e, 1, e->map);
	fp(e, 2, TK_AT);
	fp(e, 3, TV_AT);
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, BPF_ANY));
	call(e, BPF_FUNC_map_update_elem);
	stored = jmp(e, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0);
	put(e, ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, TDK_AT, e->slot));
	ldmap(e, 1, tls.dropmap);
	fp(e, 2, TDK_AT);
	call(e, BPF_FUNC_map_lookup_elem);
	put(e, ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3, 0));
	put(e, ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 0, 0, 0));
	put(e, ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, 1));
	put(e, ins(BPF_STX | BPF_MEM | BPF_DW, 0, 1, 0, 0));
	land(e, done);
	land(e, stored);
}

/* ---- instructions ---- */

/* r1 = one half of what helper returns (pid_tgid, uid_gid): the upper
 * (the pid, the gid) if high, else the lower (the tid, the uid). */
static void half(em_t *e, int helper, int high)
{
	call(e, helper);
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 0, 0, 0));
	if (high)
		put(e, ins(BPF_ALU64 | BPF_RSH | BPF_K, 1, 0, 0, 32));
	else
		put(e, ins(BPF_ALU | BPF_MOV | BPF_X, 1, 1, 0, 0));
}

/* r1 = builtin variable id, as the provider hands it to D; 0 if not
 * one the program can read. */
static int builtin(em_t *e, uint32_t id)
{
	switch (id) {
	case DIF_VAR_TIMESTAMP:
		ldx(e, 1, TS_AT);
		return 1;
	case DIF_VAR_PID: case DIF_VAR_TID:
		half(e, BPF_FUNC_get_current_pid_tgid, id == DIF_VAR_PID);
		return 1;
	case DIF_VAR_UID: case DIF_VAR_GID:
		half(e, BPF_FUNC_get_current_uid_gid, id == DIF_VAR_GID);
		return 1;
	case DIF_VAR_CPU:
		call(e, BPF_FUNC_get_smp_processor_id);
		put(e, ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 0, 0, 0));
		return 1;
	default:
		break;
	}
	if (id < DIF_VAR_ARG0 || id >= DIF_VAR_ARG0 + DTRACE_MAXARGS ||
	    e->am == NULL || e->am->pba_off[id - DIF_VAR_ARG0] < 8 ||
	    e->n + PROV_BPF_ARGINSNS >= PROV_BPF_TLSMAX - 2)
		return 0;
	e->n += prov_bpf_emit_arg(e->p + e->n, e->am, (int)(id -
	    DIF_VAR_ARG0));
	return 1;
}

/* SCMP of the comm with string constant s (ko_imm 1: longer than any
 * comm): [CCA] = 0 when equal, else 1. */
static void scmp(em_t *e, const ks_kop_t *s)
{
	uint64_t w[2];
	int j[2];

	put(e, ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, CCB_AT, 0));
	put(e, ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, CCA_AT, 1));
	if (s->ko_imm)
		return;
	memcpy(w, s->ko_str, 16);
	if (e->comm_at == 0) {
		fp(e, 1, TCOMM_AT);
		put(e, ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 16));
		call(e, BPF_FUNC_get_current_comm);
	}
	for (int k = 0; k < 2; k++) {
		ldx(e, 1, (e->comm_at ? e->comm_at : TCOMM_AT) + 8 * k);
		ld64(e, 2, w[k]);
		j[k] = jmp(e, BPF_JMP | BPF_JNE | BPF_X, 1, 2, 0);
	}
	put(e, ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, CCA_AT, 0));
	land(e, j[0]);
	land(e, j[1]);
}

static uint8_t alu_op(int op)
{
	switch (op) {
	case DIF_OP_OR: return BPF_OR;
	case DIF_OP_XOR: return BPF_XOR;
	case DIF_OP_AND: return BPF_AND;
	case DIF_OP_SLL: return BPF_LSH;
	case DIF_OP_SRL: return BPF_RSH;
	case DIF_OP_SUB: return BPF_SUB;
	case DIF_OP_ADD: return BPF_ADD;
	case DIF_OP_MUL: return BPF_MUL;
	case DIF_OP_SRA: return BPF_ARSH;
	default: return 0xff;
	}
}

static uint8_t jmp_op(int op)
{
	switch (op) {
	case DIF_OP_BE: return BPF_JEQ;
	case DIF_OP_BNE: return BPF_JNE;
	case DIF_OP_BG: return BPF_JSGT;
	case DIF_OP_BGU: return BPF_JGT;
	case DIF_OP_BGE: return BPF_JSGE;
	case DIF_OP_BGEU: return BPF_JGE;
	case DIF_OP_BL: return BPF_JSLT;
	case DIF_OP_BLU: return BPF_JLT;
	case DIF_OP_BLE: return BPF_JSLE;
	case DIF_OP_BLEU: return BPF_JLE;
	default: return 0xff;
	}
}

/* One instruction of x (index i); strs: the SETS each register holds
 * (index + 1, 0: none).  Jumps to fix are noted in fix[] (to: target
 * instruction index, or x->kx_n for the end). */
static void one(em_t *e, const ks_kexpr_t *x, int i, uint8_t *strs,
    int *fix, int *to, int *nfix)
{
	const ks_kop_t *o = &x->kx_ops[i];
	uint8_t op = o->ko_op, a;

	switch (op) {
	case DIF_OP_NOP:
		return;
	case DIF_OP_RET:
		ldx(e, 7, REG_AT(o->ko_rd));
		to[*nfix] = x->kx_n;
		fix[(*nfix)++] = jmp(e, BPF_JMP | BPF_JA, 0, 0, 0);
		return;
	case DIF_OP_MOV: case DIF_OP_NOT:
		ldx(e, 1, REG_AT(o->ko_r1));
		if (op == DIF_OP_NOT)
			put(e, ins(BPF_ALU64 | BPF_XOR | BPF_K, 1, 0, 0, -1));
		strs[o->ko_rd] = op == DIF_OP_MOV ? strs[o->ko_r1] : 0;
		break;
	case DIF_OP_SETX:
		ld64(e, 1, o->ko_imm);
		strs[o->ko_rd] = 0;
		break;
	case DIF_OP_SETS:
		strs[o->ko_rd] = (uint8_t)(i + 1);
		return;
	case DIF_OP_LDGS:
		strs[o->ko_rd] = 0;
		if (o->ko_var == DIF_VAR_EXECNAME)
			return;			/* only SCMP reads it */
		if (!builtin(e, o->ko_var))
			e->bad = 1;
		break;
	case DIF_OP_LDTS:
		strs[o->ko_rd] = 0;
		tls_load(e, o->ko_var, o->ko_rd);
		return;
	case DIF_OP_STTS:
		tls_store(e, o->ko_var, o->ko_r1);
		return;
	case DIF_OP_CMP: case DIF_OP_TST:
		ldx(e, 1, REG_AT(o->ko_r1));
		stx(e, CCA_AT, 1);
		ldx(e, 2, REG_AT(op == DIF_OP_CMP ? o->ko_r2 : 0));
		stx(e, CCB_AT, 2);
		return;
	case DIF_OP_SCMP:
		a = strs[o->ko_r1] ? strs[o->ko_r1] : strs[o->ko_r2];
		if (a == 0 || x->kx_ops[a - 1].ko_op != DIF_OP_SETS)
			e->bad = 1;
		else
			scmp(e, &x->kx_ops[a - 1]);
		return;
	case DIF_OP_BA:
		to[*nfix] = (int)o->ko_var;
		fix[(*nfix)++] = jmp(e, BPF_JMP | BPF_JA, 0, 0, 0);
		return;
	default:
		if ((a = jmp_op(op)) != 0xff) {
			ldx(e, 1, CCA_AT);
			ldx(e, 2, CCB_AT);
			to[*nfix] = (int)o->ko_var;
			fix[(*nfix)++] = jmp(e, BPF_JMP | a | BPF_X, 1, 2, 0);
			return;
		}
		if ((a = alu_op(op)) == 0xff) {
			e->bad = 1;
			return;
		}
		ldx(e, 1, REG_AT(o->ko_r1));
		ldx(e, 2, REG_AT(o->ko_r2));
		put(e, ins(BPF_ALU64 | a | BPF_X, 1, 2, 0, 0));
		strs[o->ko_rd] = 0;
		break;
	}
	if (o->ko_rd != 0)		/* %r0 reads 0 always */
		stx(e, REG_AT(o->ko_rd), 1);
}

/* Is instruction i of x the target of a branch? */
static int target(const ks_kexpr_t *x, int i)
{
	for (int k = 0; k < x->kx_n; k++)
		if ((x->kx_ops[k].ko_op >= DIF_OP_BA &&
		    x->kx_ops[k].ko_op <= DIF_OP_BLEU) &&
		    x->kx_ops[k].ko_var == (uint32_t)i)
			return 1;
	return 0;
}

/* Expression x, its value in r7. */
static void expr(em_t *e, const ks_kexpr_t *x)
{
	int at[KS_KX_MAXOPS + 1], fix[KS_KX_MAXOPS], to[KS_KX_MAXOPS];
	int nfix = 0;
	uint8_t strs[DIF_DIR_NREGS] = { 0 };

	for (int k = 0; k < DIF_DIR_NREGS; k++)
		put(e, ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0,
		    (int16_t)REG_AT(k), 0));
	put(e, ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, CCA_AT, 0));
	put(e, ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, CCB_AT, 0));
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_K, 7, 0, 0, 0));
	for (int i = 0; i < x->kx_n && !e->bad; i++) {
		if (target(x, i))
			memset(strs, 0, sizeof(strs));
		at[i] = e->n;
		one(e, x, i, strs, fix, to, &nfix);
	}
	at[x->kx_n] = e->n;
	for (int k = 0; k < nfix && !e->bad; k++)
		e->p[fix[k]].off = (int16_t)(at[to[k]] - fix[k] - 1);
}

/* ---- buckets ---- */

/*
 * llquantize's orders as agg.c's ks_agg_llquantize_bucket walks them:
 * below first, bucket 0; then per order o, values below lim[o] fall in
 * buckets of width[o] from last[o]; at an order whose next power
 * overflows (clamp, the last order then) every value counts as
 * lim[o] - 1; at and above lim[n - 1], the overflow bucket.  The value
 * keyed on is a value of the same bucket: first - 1, the bucket's lower
 * edge, lim[o] - 1 at a clamp, lim[n - 1] above.
 */
#define LLQ_MAXO 64
typedef struct llq {
	int n, clamp;
	int64_t first;
	int64_t lim[LLQ_MAXO], last[LLQ_MAXO], width[LLQ_MAXO];
} llq_t;

/* 0, or -1 when the parameters make more orders than LLQ_MAXO. */
static int llq_table(uint64_t arg, llq_t *t)
{
	uint16_t factor = DTRACE_LLQUANTIZE_FACTOR(arg);
	uint16_t low = DTRACE_LLQUANTIZE_LMAG(arg);
	uint16_t high = DTRACE_LLQUANTIZE_HMAG(arg);
	uint16_t nsteps = DTRACE_LLQUANTIZE_STEPS(arg);
	int64_t this = 1, last, next;

	memset(t, 0, sizeof(*t));
	if (factor < 2 || nsteps == 0)
		return -1;
	for (int o = 0; o < low; o++)
		this *= factor;
	t->first = last = this;
	this *= factor;
	for (int o = low; o <= high; o++) {
		int64_t nb = this > nsteps ? nsteps : this;

		if (t->n == LLQ_MAXO)
			return -1;
		t->lim[t->n] = this;
		t->last[t->n] = last;
		t->width[t->n++] = this / nb;
		next = (int64_t)((uint64_t)this * factor);
		if (next < this || next / factor != this) {
			t->clamp = 1;
			return 0;
		}
		last = this;
		this = next;
	}
	return 0;
}

static int64_t llq_key(const llq_t *t, int64_t v)
{
	if (v < t->first)
		return t->first - 1;
	for (int o = 0; o < t->n; o++) {
		if (t->clamp && o == t->n - 1)
			return t->lim[o] - 1;
		if (v < t->lim[o])
			return t->last[o] + (v - t->last[o]) / t->width[o] *
			    t->width[o];
	}
	return t->lim[t->n - 1];
}

int64_t prov_bpf_tls_bucket(uint16_t agg, uint64_t arg, int64_t v)
{
	int64_t base = DTRACE_LQUANTIZE_BASE(arg), top;
	uint64_t m;
	llq_t t;

	if (agg == DTRACEAGG_LLQUANTIZE)
		return llq_table(arg, &t) == 0 ? llq_key(&t, v) : v;
	if (agg == DTRACEAGG_LQUANTIZE) {
		uint16_t step = DTRACE_LQUANTIZE_STEP(arg);

		top = base + (int64_t)DTRACE_LQUANTIZE_LEVELS(arg) * step;
		v = (int32_t)v;		/* as agg.c's lquantize (dtrace's) */
		if (v < base)
			return base - 1;
		if (v >= top)
			return top;
		return base + (int64_t)((uint64_t)(v - base) / step * step);
	}
	if (v == 0)
		return 0;
	m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	m = 1ULL << (63 - __builtin_clzll(m));
	return v < 0 ? (int64_t)-m : (int64_t)m;
}

/* r7 = llq_key(r7) (the table of the step's parameters). */
static void llq_bucket(em_t *e, const ks_kstep_t *s)
{
	int done[LLQ_MAXO + 1], nd = 0, j;
	llq_t t;

	if (llq_table(s->kks_arg, &t) != 0 || t.n == 0) {
		e->bad = 1;		/* the shim's, then */
		return;
	}
	ld64(e, 1, (uint64_t)t.first);
	j = jmp(e, BPF_JMP | BPF_JSGE | BPF_X, 7, 1, 0);
	ld64(e, 7, (uint64_t)(t.first - 1));
	done[nd++] = jmp(e, BPF_JMP | BPF_JA, 0, 0, 0);
	land(e, j);
	for (int o = 0; o < t.n; o++) {
		if (t.clamp && o == t.n - 1) {
			ld64(e, 7, (uint64_t)(t.lim[o] - 1));
			done[nd++] = jmp(e, BPF_JMP | BPF_JA, 0, 0, 0);
			break;
		}
		ld64(e, 1, (uint64_t)t.lim[o]);
		j = jmp(e, BPF_JMP | BPF_JSGE | BPF_X, 7, 1, 0);
		ld64(e, 1, (uint64_t)t.last[o]);
		ld64(e, 2, (uint64_t)t.width[o]);
		put(e, ins(BPF_ALU64 | BPF_SUB | BPF_X, 7, 1, 0, 0));
		put(e, ins(BPF_ALU64 | BPF_DIV | BPF_X, 7, 2, 0, 0));
		put(e, ins(BPF_ALU64 | BPF_MUL | BPF_X, 7, 2, 0, 0));
		put(e, ins(BPF_ALU64 | BPF_ADD | BPF_X, 7, 1, 0, 0));
		done[nd++] = jmp(e, BPF_JMP | BPF_JA, 0, 0, 0);
		land(e, j);
	}
	if (!t.clamp)
		ld64(e, 7, (uint64_t)t.lim[t.n - 1]);
	for (int k = 0; k < nd; k++)
		land(e, done[k]);
}

/* r7 = the value of r7's bucket (prov_bpf_tls_bucket in BPF). */
static void bucket(em_t *e, const ks_kstep_t *s)
{
	int64_t base = DTRACE_LQUANTIZE_BASE(s->kks_arg);
	uint16_t step = DTRACE_LQUANTIZE_STEP(s->kks_arg);
	int64_t top = base + (int64_t)DTRACE_LQUANTIZE_LEVELS(s->kks_arg) *
	    step;
	int j[3], z, pos;
	static const int sh[] = { 32, 16, 8, 4, 2, 1 };

	if (s->kks_agg == DTRACEAGG_LLQUANTIZE) {
		llq_bucket(e, s);
		return;
	}
	if (s->kks_agg == DTRACEAGG_LQUANTIZE) {
		/* the value's low 32 bits, signed, as agg.c's lquantize */
		put(e, ins(BPF_ALU64 | BPF_LSH | BPF_K, 7, 0, 0, 32));
		put(e, ins(BPF_ALU64 | BPF_ARSH | BPF_K, 7, 0, 0, 32));
		ld64(e, 1, (uint64_t)base);
		j[0] = jmp(e, BPF_JMP | BPF_JSGE | BPF_X, 7, 1, 0);
		ld64(e, 7, (uint64_t)(base - 1));
		j[1] = jmp(e, BPF_JMP | BPF_JA, 0, 0, 0);
		land(e, j[0]);
		ld64(e, 2, (uint64_t)top);
		j[0] = jmp(e, BPF_JMP | BPF_JSLT | BPF_X, 7, 2, 0);
		put(e, ins(BPF_ALU64 | BPF_MOV | BPF_X, 7, 2, 0, 0));
		j[2] = jmp(e, BPF_JMP | BPF_JA, 0, 0, 0);
		land(e, j[0]);
		put(e, ins(BPF_ALU64 | BPF_SUB | BPF_X, 7, 1, 0, 0));
		put(e, ins(BPF_ALU64 | BPF_DIV | BPF_K, 7, 0, 0, step));
		put(e, ins(BPF_ALU64 | BPF_MUL | BPF_K, 7, 0, 0, step));
		put(e, ins(BPF_ALU64 | BPF_ADD | BPF_X, 7, 1, 0, 0));
		land(e, j[1]);
		land(e, j[2]);
		return;
	}
	/* quantize: r8 = sign, r7 = |v|, r2 = log2 |v|, r7 = 1 << r2 */
	z = jmp(e, BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 0);
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_K, 8, 0, 0, 0));
	pos = jmp(e, BPF_JMP | BPF_JSGT | BPF_K, 7, 0, 0);
	put(e, ins(BPF_ALU64 | BPF_NEG, 7, 0, 0, 0));
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_K, 8, 0, 0, 1));
	land(e, pos);
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0));
	for (int k = 0; k < 6; k++) {
		put(e, ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 7, 0, 0));
		put(e, ins(BPF_ALU64 | BPF_RSH | BPF_K, 1, 0, 0, sh[k]));
		put(e, ins(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2, 0));
		put(e, ins(BPF_ALU64 | BPF_MOV | BPF_X, 7, 1, 0, 0));
		put(e, ins(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, sh[k]));
	}
	put(e, ins(BPF_ALU64 | BPF_MOV | BPF_K, 7, 0, 0, 1));
	put(e, ins(BPF_ALU64 | BPF_LSH | BPF_X, 7, 2, 0, 0));
	put(e, ins(BPF_JMP | BPF_JEQ | BPF_K, 8, 0, 1, 0));
	put(e, ins(BPF_ALU64 | BPF_NEG, 7, 0, 0, 0));
	land(e, z);
}

int prov_bpf_tls_emit_bucket(struct bpf_insn *p, uint16_t agg,
    uint64_t arg)
{
	em_t e = { .p = p };
	ks_kstep_t s;

	memset(&s, 0, sizeof(s));
	s.kks_agg = agg;
	s.kks_arg = arg;
	bucket(&e, &s);
	return e.bad ? -1 : e.n;
}

/* ---- clauses ---- */

/* Kernel clause kc, results into sl. */
static void clause(em_t *e, const ks_kclause_t *kc,
    const prov_bpf_kslots_t *sl)
{
	int skip = -1;

	if (kc->kkc_pred.kx_n > 0) {
		expr(e, &kc->kkc_pred);
		skip = jmp(e, BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 0);
	}
	if (sl->pks_pred != 0)		/* 0: the replay needs no word */
		put(e, ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, sl->pks_pred,
		    1));
	for (int s = 0; s < kc->kkc_nsteps && !e->bad; s++) {
		const ks_kstep_t *st = &kc->kkc_steps[s];

		expr(e, &st->kks_x);
		if (st->kks_kind != KS_KSTEP_VALUE)
			continue;
		bucket(e, st);
		stx(e, sl->pks_val[s], 7);
	}
	land(e, skip);
}

/* Does some expression of kc[] read timestamp? */
static int reads_time(const ks_kclause_t *kc, int nkc)
{
	for (int c = 0; c < nkc; c++)
		for (int x = 0; x <= kc[c].kkc_nsteps; x++) {
			const ks_kexpr_t *k = x == 0 ? &kc[c].kkc_pred :
			    &kc[c].kkc_steps[x - 1].kks_x;

			for (int i = 0; i < k->kx_n; i++)
				if (k->kx_ops[i].ko_op == DIF_OP_LDGS &&
				    k->kx_ops[i].ko_var == DIF_VAR_TIMESTAMP)
					return 1;
		}
	return 0;
}

int prov_bpf_tls_emit(struct bpf_insn *p, const ks_kclause_t *kc, int nkc,
    uint32_t serial, uint32_t cap, const prov_bpf_argmap_t *am,
    int comm_at, const prov_bpf_kslots_t *slots)
{
	tls_state_t *ts = &tls;
	em_t e = { .p = p, .am = am, .comm_at = comm_at };

	pthread_mutex_lock(&ts->lk);
	e.slot = state_slot(ts, serial, cap);
	e.map = e.slot >= 0 ? ts->map[e.slot] : -1;
	pthread_mutex_unlock(&ts->lk);
	if (e.slot < 0 || nkc <= 0)
		return -1;
	/* once per firing: the time, and the map key's thread and owner */
	if (reads_time(kc, nkc)) {
		call(&e, BPF_FUNC_ktime_get_ns);
		stx(&e, TS_AT, 0);
	}
	call(&e, BPF_FUNC_get_current_pid_tgid);
	put(&e, ins(BPF_STX | BPF_MEM | BPF_W, 10, 0, TK_AT, 0));
	put(&e, ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, TK_AT + 4, 0));
	put(&e, ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, TK_AT + 8,
	    (int32_t)serial));
	put(&e, ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, TK_AT + 12, 0));
	for (int c = 0; c < nkc && !e.bad; c++)
		clause(&e, &kc[c], &slots[c]);
	return e.bad ? -1 : e.n;
}

static uint32_t veto_serial;		/* atomic: pending veto, 0 none */

void prov_bpf_tls_veto_later(uint32_t serial)
{
	__atomic_store_n(&veto_serial, serial, __ATOMIC_RELEASE);
}

int prov_bpf_tls_veto_flush(void)
{
	uint32_t serial = __atomic_exchange_n(&veto_serial, 0,
	    __ATOMIC_ACQ_REL);

	return serial != 0 && ks_tls_veto(serial);
}

/* Consumer serial of slot k is closed: its programs went with its ECBs,
 * so its map goes and the slot serves the next consumer (dlast holds
 * the drops counted so far: the next one's start from there). */
static void state_gone(tls_state_t *ts, int k, uint32_t serial)
{
	pthread_mutex_lock(&ts->lk);
	if (ts->serial[k] == serial) {
		close(ts->map[k]);
		ts->serial[k] = 0;
	}
	pthread_mutex_unlock(&ts->lk);
}

void prov_bpf_tls_drain(void)
{
	tls_state_t *ts = &tls;
	union bpf_attr at;
	uint32_t serial[MAXSTATES];
	uint64_t gained[MAXSTATES];

	pthread_mutex_lock(&ts->lk);
	memset(gained, 0, sizeof(gained));
	memset(serial, 0, sizeof(serial));
	for (uint32_t k = 0; ts->dropmap >= 0 && k < MAXSTATES; k++) {
		serial[k] = ts->serial[k];
		if (serial[k] == 0)
			continue;
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)ts->dropmap;
		at.key = (uint64_t)(uintptr_t)&k;
		at.value = (uint64_t)(uintptr_t)ts->dvals;
		if (prov_bpf_call(BPF_MAP_LOOKUP_ELEM, &at) != 0)
			continue;
		for (int c = 0; c < ts->ncpu; c++) {
			uint64_t *last = &ts->dlast[k * (uint32_t)ts->ncpu +
			    (uint32_t)c];

			gained[k] += ts->dvals[c] - *last;
			*last = ts->dvals[c];
		}
	}
	pthread_mutex_unlock(&ts->lk);
	for (int k = 0; k < MAXSTATES; k++)
		if (serial[k] != 0 && ks_tls_dyndrops(serial[k], gained[k]) != 0)
			state_gone(ts, k, serial[k]);
}

void prov_bpf_tls_shutdown(void)
{
	tls_state_t *ts = &tls;

	pthread_mutex_lock(&ts->lk);
	for (int k = 0; k < MAXSTATES; k++) {
		if (ts->serial[k] != 0)
			close(ts->map[k]);
		ts->serial[k] = 0;
	}
	if (ts->dropmap >= 0)
		close(ts->dropmap);
	ts->dropmap = -1;
	free(ts->dlast);
	free(ts->dvals);
	ts->dlast = ts->dvals = NULL;
	pthread_mutex_unlock(&ts->lk);
}
