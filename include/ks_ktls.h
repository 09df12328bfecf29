/*
 * ks_ktls.h - thread-local (self->) variables held in the kernel: what the
 * shim hands a provider so that clauses that store, load, test and clear
 * them run in a BPF program (kernel-shim/tlsplan.c decides, the BPF
 * provider lowers, providers/bpf/bpf_tls.c).
 *
 * A clause that touches self-> variables is "kernel-able" when it writes
 * no record and each of its DIF objects is loop-free code over integers
 * of a few kinds: constants, timestamp, pid, tid, uid, gid, cpu, argN,
 * execname compared with a string constant (== or != only), self->
 * scalars, the ALU operations that cannot fault, compares and forward
 * branches.  Its predicate, its assignments (void expressions) and the
 * values of its quantize()/lquantize()/llquantize() actions that read self-> or
 * timestamp are run in the kernel; everything else of the clause (keys,
 * increments, other aggregations' values) is keyed on the values the
 * plan names (ks_aggplan_t), as for any aggregation-only clause, and
 * replayed by the shim with the kernel's results (ks_kresult_t).
 *
 * The rule that keeps a variable on one side: a consumer's self->
 * variables are all in the kernel, or all in the shim, never split.  They
 * go to the kernel only when EVERY clause of the consumer that touches a
 * self-> variable is kernel-able and sits on a probe whose provider
 * lowers it (ks_probe_kplan_able) next to only aggregation-only or
 * kernel-able clauses; a provider that then fails to lower one of them
 * vetoes (ks_tls_veto) and the consumer's variables stay in the shim for
 * the rest of its life.
 */
#ifndef KS_KTLS_H
#define KS_KTLS_H

#include <stdint.h>
#include "dtrace_abi.h"

#define KS_KX_MAXOPS 32			/* instructions of one expression */
#define KS_KT_MAXSTEPS 3		/* kernel steps of one clause */
#define KS_KT_MAXCLAUSES 2		/* kernel clauses on one probe */

/* One DIF instruction, decoded, with what it names resolved. */
typedef struct ks_kop {
	uint8_t ko_op;			/* DIF_OP_* */
	uint8_t ko_r1, ko_r2, ko_rd;	/* DIF registers (STTS: ko_r1) */
	uint32_t ko_var;		/* LDGS: DIF_VAR_*; LDTS/STTS: the
					 * variable id; branches: target
					 * index in the expression */
	uint64_t ko_imm;		/* SETX: the value; SETS: 1 if the
					 * string is longer than 15 bytes */
	char ko_str[16];		/* SETS: the string, NUL-padded */
} ks_kop_t;

typedef struct ks_kexpr {
	uint16_t kx_n;			/* 0: none (a predicate: true) */
	ks_kop_t kx_ops[KS_KX_MAXOPS];
} ks_kexpr_t;

enum { KS_KSTEP_STORE = 1, KS_KSTEP_VALUE };

/* One action run in the kernel: an assignment (run for its stores), or
 * the value of a quantize (kks_agg DTRACEAGG_QUANTIZE) or lquantize
 * (kks_arg its encoded parameters), replaced by a value of the same
 * bucket (what the shim needs to apply it). */
typedef struct ks_kstep {
	uint8_t kks_kind;		/* KS_KSTEP_* */
	uint16_t kks_agg;		/* VALUE: DTRACEAGG_* */
	uint64_t kks_arg;		/* VALUE: lquantize's parameters */
	ks_kexpr_t kks_x;
} ks_kstep_t;

typedef struct ks_kclause {
	uint64_t kkc_id;		/* the clause, for the replay */
	ks_kexpr_t kkc_pred;
	int kkc_nsteps;
	ks_kstep_t kkc_steps[KS_KT_MAXSTEPS];
	uint8_t kkc_nshim;		/* actions the shim runs at a replay
					 * (keys, increments, aggregations of
					 * plan values); with no VALUE step
					 * either, the predicate's outcome
					 * changes nothing there */
} ks_kclause_t;

/* The kernel's outcome of one kernel clause at one firing: did its
 * predicate hold, and the bucketed values of its VALUE steps. */
typedef struct ks_kresult {
	uint64_t kkr_id;		/* kkc_id */
	uint64_t kkr_pred;		/* 0: the clause did not run */
	uint64_t kkr_vals[KS_KT_MAXSTEPS];	/* by step index */
} ks_kresult_t;

/* Provider: the firings of probe id run the kernel clauses of its plans
 * in the kernel whenever a plan has some (able 1), or no longer (0).
 * Not from probe context. */
void ks_probe_kplan_able(dtrace_id_t id, int able);
/* Provider: the kernel clauses of consumer serial (kap_tlsstate) could
 * not be lowered: its self-> variables stay in the shim from now on.
 * Every probe's plan changes (no kernel clauses of that consumer): 1 when
 * the veto is new, and the provider must then bring all of its probes up
 * to their plans again, as after a filter change (the shim does not call
 * the watcher: the provider may be in it).  Takes the fire lock. */
int ks_tls_veto(uint32_t serial);
/* Provider: n (may be 0) stores to consumer serial's kernel-held
 * variables found no room: counted as dynamic variable drops.  0, or -1
 * when that consumer is closed (its map may go). */
int ks_tls_dyndrops(uint32_t serial, uint64_t n);

#endif /* KS_KTLS_H */
