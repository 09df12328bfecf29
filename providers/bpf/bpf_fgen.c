/*
 * bpf_fgen.c - the filter's BPF instructions (prov_bpf_filter_emit; see
 * bpf_filter.c's top comment for their shape) and the argument maps of
 * tracepoint formats.
 */
#include <string.h>
#include "bpf_filter.h"
#include "bpf_util.h"

typedef struct gen {
	struct bpf_insn *p;
	int n;
	int fail[KS_FILTER_MAXATOMS * 2];	/* jumps to the next term */
	int nfail;
	int pass[KS_FILTER_MAXTERMS];		/* jumps to the body */
	int npass;
} gen_t;

static void put(gen_t *g, struct bpf_insn i)
{
	g->p[g->n++] = i;
}

static void put_imm64(gen_t *g, int reg, uint64_t v)
{
	put(g, ins(BPF_LD | BPF_DW | BPF_IMM, (uint8_t)reg, 0, 0,
	    (int32_t)(uint32_t)v));
	put(g, ins(0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32)));
}

static void patch(gen_t *g, int at, int to)
{
	g->p[at].off = (int16_t)(to - at - 1);
}

int prov_bpf_atom_ok(const ks_filter_atom_t *a, unsigned vars,
    const prov_bpf_argmap_t *am)
{
	if (a->kfa_var < KS_FV_PID || a->kfa_var > KS_FV_EXECNAME ||
	    !(vars & PROV_FV(a->kfa_var)))
		return 0;
	if (a->kfa_var != KS_FV_ARG)
		return 1;
	return am != NULL && a->kfa_arg < DTRACE_MAXARGS &&
	    am->pba_off[a->kfa_arg] >= 8;
}

static void call(gen_t *g, int fn)
{
	put(g, ins(BPF_JMP | BPF_CALL, 0, 0, 0, fn));
}

/* r1 = the atom's 64-bit D value */
static void load_value(gen_t *g, const ks_filter_atom_t *a,
    const prov_bpf_argmap_t *am)
{
	switch (a->kfa_var) {
	case KS_FV_PID: case KS_FV_TID:
		call(g, BPF_FUNC_get_current_pid_tgid);
		break;
	case KS_FV_UID: case KS_FV_GID:
		call(g, BPF_FUNC_get_current_uid_gid);
		break;
	case KS_FV_CPU:
		call(g, BPF_FUNC_get_smp_processor_id);
		break;
	default:
		g->n += prov_bpf_emit_arg(g->p + g->n, am, a->kfa_arg);
		goto cast;
	}
	put(g, ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 0, 0, 0));
	if (a->kfa_var == KS_FV_PID || a->kfa_var == KS_FV_GID)
		put(g, ins(BPF_ALU64 | BPF_RSH | BPF_K, 1, 0, 0, 32));
	else if (a->kfa_var != KS_FV_CPU)	/* tid, uid: low half */
		put(g, ins(BPF_ALU | BPF_MOV | BPF_X, 1, 1, 0, 0));
cast:
	if (a->kfa_shift != 0) {
		put(g, ins(BPF_ALU64 | BPF_LSH | BPF_K, 1, 0, 0, a->kfa_shift));
		put(g, ins(BPF_ALU64 | (a->kfa_sext ? BPF_ARSH : BPF_RSH) |
		    BPF_K, 1, 0, 0, a->kfa_shift));
	}
}

/* The jump taken when "r1 OP r2" does not hold. */
static uint8_t fail_jump(const ks_filter_atom_t *a)
{
	int u = a->kfa_unsigned;

	switch (a->kfa_op) {
	case KS_FOP_EQ: return BPF_JNE;
	case KS_FOP_NE: return BPF_JEQ;
	case KS_FOP_LT: return u ? BPF_JGE : BPF_JSGE;
	case KS_FOP_LE: return u ? BPF_JGT : BPF_JSGT;
	case KS_FOP_GT: return u ? BPF_JLE : BPF_JSLE;
	default: return u ? BPF_JLT : BPF_JSLT;
	}
}

static void jump_fail(gen_t *g, uint8_t op)
{
	g->fail[g->nfail++] = g->n;
	put(g, ins(BPF_JMP | op | BPF_X, 1, 2, 0, 0));
}

/* execname ==/!= the atom's 16 NUL-padded bytes, two words at a time */
static void emit_comm(gen_t *g, const ks_filter_atom_t *a)
{
	uint64_t w[2];
	int skip = -1;

	memcpy(w, a->kfa_str, 16);
	if (a->kfa_arg == 0) {		/* the task's, else a record field */
		put(g, ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0));
		put(g, ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0,
		    PROV_BPF_COMM_AT));
		put(g, ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 16));
		call(g, BPF_FUNC_get_current_comm);
	}
	for (int k = 0; k < 2; k++) {
		if (a->kfa_arg != 0)
			put(g, ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 6,
			    (int16_t)(a->kfa_arg + 8 * k), 0));
		else
			put(g, ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 10,
			    (int16_t)(PROV_BPF_COMM_AT + 8 * k), 0));
		put_imm64(g, 2, w[k]);
		if (a->kfa_op == KS_FOP_EQ) {
			jump_fail(g, BPF_JNE);
		} else if (k == 0) {		/* differs already: holds */
			skip = g->n;
			put(g, ins(BPF_JMP | BPF_JNE | BPF_X, 1, 2, 0, 0));
		} else {
			jump_fail(g, BPF_JEQ);
		}
	}
	if (skip >= 0)
		patch(g, skip, g->n);
}

static void emit_atom(gen_t *g, const ks_filter_atom_t *a,
    const prov_bpf_argmap_t *am)
{
	if (a->kfa_var == KS_FV_EXECNAME) {
		emit_comm(g, a);
		return;
	}
	load_value(g, a, am);
	put_imm64(g, 2, a->kfa_val);
	jump_fail(g, fail_jump(a));
}

int prov_bpf_filterable(const ks_filter_t *f, unsigned vars,
    const prov_bpf_argmap_t *am)
{
	if (f->kf_always || f->kf_nterms <= 0 ||
	    f->kf_nterms > KS_FILTER_MAXTERMS)
		return 0;
	for (int t = 0; t < f->kf_nterms; t++) {
		int k = 0;

		for (int i = 0; i < f->kf_terms[t].kft_natoms; i++)
			k += prov_bpf_atom_ok(&f->kf_terms[t].kft_atoms[i],
			    vars, am);
		if (k == 0)
			return 0;
	}
	return 1;
}

int prov_bpf_filter_emit(struct bpf_insn *p, const ks_filter_t *f,
    unsigned vars, const prov_bpf_argmap_t *am)
{
	gen_t g = { .p = p };

	if (!prov_bpf_filterable(f, vars, am))
		return 0;
	put(&g, ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0));
	for (int t = 0; t < f->kf_nterms; t++) {
		const ks_filter_term_t *tm = &f->kf_terms[t];

		g.nfail = 0;
		for (int i = 0; i < tm->kft_natoms &&
		    i < KS_FILTER_MAXATOMS; i++)
			if (prov_bpf_atom_ok(&tm->kft_atoms[i], vars, am))
				emit_atom(&g, &tm->kft_atoms[i], am);
		g.pass[g.npass++] = g.n;
		put(&g, ins(BPF_JMP | BPF_JA, 0, 0, 0, 0));
		for (int i = 0; i < g.nfail; i++)
			patch(&g, g.fail[i], g.n);
	}
	put(&g, ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0));
	put(&g, ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	for (int i = 0; i < g.npass; i++)
		patch(&g, g.pass[i], g.n);
	put(&g, ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0));
	return g.n;
}

void prov_bpf_argmap_fmt(prov_bpf_argmap_t *am, const prov_tf_format_t *fmt,
    int first, uint32_t reclen)
{
	int n = 0;

	memset(am, 0, sizeof(*am));
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		am->pba_off[i] = -1;
	for (int i = first; i < fmt->tff_nfields && n < DTRACE_MAXARGS; i++) {
		const prov_tf_field_t *f = &fmt->tff_fields[i];
		uint32_t sz = f->tff_size;

		if (f->tff_common)
			continue;
		if (!prov_tracefs_is_str(f) && !f->tff_dataloc &&
		    f->tff_array == 0 && (sz == 1 || sz == 2 || sz == 4 ||
		    sz == 8) && f->tff_offset % sz == 0 &&
		    f->tff_offset >= 8 && f->tff_offset + sz <= reclen) {
			am->pba_off[n] = (int16_t)f->tff_offset;
			am->pba_size[n] = (uint8_t)sz;
			am->pba_signed[n] = (uint8_t)(f->tff_signed != 0);
		}
		if (prov_tracefs_is_str(f) && f->tff_offset >= 8 &&
		    f->tff_offset < INT16_MAX && f->tff_size < UINT16_MAX) {
			am->pba_skind[n] = f->tff_dataloc == 2 ?
			    PROV_BPF_KSTR_RELLOC : f->tff_dataloc ?
			    PROV_BPF_KSTR_DATALOC : PROV_BPF_KSTR_ARRAY;
			am->pba_soff[n] = (int16_t)f->tff_offset;
			am->pba_slen[n] = (uint16_t)f->tff_size;
		}
		n++;
	}
}

