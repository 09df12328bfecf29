/*
 * bpf_tls.h - kernel clauses (ks_ktls.h) in BPF: self-> variables in a
 * hash map per consumer, the clauses' DIF lowered to BPF instructions
 * (bpf_tls.c).  Used by bpf_agg.c's aggregating body.
 */
#ifndef PROV_BPF_TLS_H
#define PROV_BPF_TLS_H

#include <stdint.h>
#include <linux/bpf.h>
#include "bpf_filter.h"

#define PROV_BPF_TLSMAX 640		/* instructions of a plan's clauses */

/* Where a kernel clause's results go in the aggregation key (fp
 * offsets): the predicate's word (1 if it held, else 0, with the values
 * 0; 0: not kept, the replay runs nothing of the clause), and each VALUE
 * step's bucketed value (by step index). */
typedef struct prov_bpf_kslots {
	int16_t pks_pred;
	int16_t pks_val[KS_KT_MAXSTEPS];
} prov_bpf_kslots_t;

/* Emit the nkc kernel clauses kc[] of consumer serial (whose map holds
 * cap variables) into p (room for PROV_BPF_TLSMAX; r6 = ctx, the key
 * already zeroed), clause i's results into slots[i]; the instruction
 * count, or -1 when they cannot be lowered (an argument am does not map,
 * no map, too long).  comm_at: 0, or the fp offset where code that always
 * runs before left the task's comm (execname comparisons read it).  Takes bpf_tls.c's lock: callable under bpf_agg.c's
 * plk. */
int prov_bpf_tls_emit(struct bpf_insn *p, const ks_kclause_t *kc, int nkc,
    uint32_t serial, uint32_t cap, const prov_bpf_argmap_t *am,
    int comm_at, const prov_bpf_kslots_t *slots);

/* bpf_filter.c: a plan with kernel clauses of consumer serial could not
 * go in (under its lock); tell the shim (ks_tls_veto) at the next flush,
 * which the callers make once they hold no lock: 1 if that changed the
 * plans (the caller then installs them all again). */
void prov_bpf_tls_veto_later(uint32_t serial);
int prov_bpf_tls_veto_flush(void);

/* Report the stores that found the maps full since the last call (the
 * drain thread; no shim lock held). */
void prov_bpf_tls_drain(void);
/* Close the maps (after every program is gone). */
void prov_bpf_tls_shutdown(void);
/* Tests: the value a VALUE step of aggregation agg (DTRACEAGG_*, arg its
 * parameters) keys on for v, as the emitted code computes it. */
int64_t prov_bpf_tls_bucket(uint16_t agg, uint64_t arg, int64_t v);
/* r7 = prov_bpf_tls_bucket(agg, arg, r7) into p (room for
 * PROV_BPF_TLSMAX; clobbers r1, r2, r8): its length, -1 if it does not
 * fit. */
int prov_bpf_tls_emit_bucket(struct bpf_insn *p, uint16_t agg,
    uint64_t arg);

#endif /* PROV_BPF_TLS_H */
