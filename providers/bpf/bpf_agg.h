/*
 * bpf_agg.h - firings counted in the kernel: the aggregating BPF body that
 * bpf_filter.c installs instead of a record body when the shim's plan
 * allows it (ks_probe_aggplan), and the drain that replays the counts into
 * the shim with ks_probe_fire_n (see bpf_agg.c).
 */
#ifndef PROV_BPF_AGG_H
#define PROV_BPF_AGG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "bpf_filter.h"

#define PROV_BPF_AGGMAX (192 + 640)	/* instructions of an aggregating
					 * body, kernel clauses included
					 * (PROV_BPF_TLSMAX) */

/* The plan of probe id now: the test hook's answer when one is set, else
 * the shim's (0 with kap_ok 0 when the shim has none).  Not from probe
 * context (the shim takes its fire lock). */
int prov_bpf_agg_plan(dtrace_id_t id, ks_aggplan_t *out);

/* Can a slot whose firings take vars (PROV_FV_*, PROV_FV_ONE required)
 * and arguments as am maps count plan's firings in the kernel? */
int prov_bpf_agg_fits(const ks_aggplan_t *plan, unsigned vars,
    const prov_bpf_argmap_t *am);

/* Emit the aggregating body for probe id under plan into p (room for
 * PROV_BPF_AGGMAX), creating the maps and the plan (or reusing the plan of
 * the same probe and key layout).  comm_at: 0, or the fp offset where
 * code that always runs before the body left the task's comm (16 bytes;
 * the key copies it instead of asking the kernel again).  The
 * instruction count with the plan id in *planid, or 0 (nothing emitted)
 * when it cannot be done. */
int prov_bpf_agg_body(struct bpf_insn *p, dtrace_id_t id,
    const ks_aggplan_t *plan, unsigned vars, const prov_bpf_argmap_t *am,
    int comm_at, int *planid);
/* Does plan planid's body end in a fall-through to the slot's record
 * body (a firing it cannot count: a string too long or unreadable)?
 * The caller then appends the record body (without the prefix it shares
 * with the aggregating body), which expects r1 = ctx, as usual. */
int prov_bpf_agg_fallback(int planid);
/* Emit again the body of plan planid (tests); count or 0. */
int prov_bpf_agg_reemit(struct bpf_insn *p, int planid, int comm_at);

/* Fire the counts the maps gained since the last drain (and report the
 * map-full drops).  force 0: at most every 100 ms (the drain thread calls
 * it after every pass); 1: now (prov_flush).  Callable from any thread
 * holding no shim lock. */
void prov_bpf_agg_drain(int force);

/* A slot's program counts under planid from now (call before it goes in)
 * / no longer (call after it was replaced or its slot went away).  A plan
 * unheld for a while has its keys drained and deleted (see the top of
 * bpf_agg.c). */
void prov_bpf_agg_hold(int planid);
void prov_bpf_agg_release(int planid);
/* Tests: how long a plan must be unheld before its keys go (0: the
 * default, 1 s); keys the drain knows of plan planid (0: all plans). */
void prov_bpf_agg_set_reclaim(uint64_t ns);
size_t prov_bpf_agg_nkeys(int planid);
/* Close the maps and forget the counts; after every program is detached
 * and the drain thread stopped.  Plan ids stay unique in the process. */
void prov_bpf_agg_shutdown(void);

/* Tests: the maps' entry limit (before they are first created; 0: the
 * default 65536); the plan source (NULL: the shim); totals so far of
 * firings replayed, fire_n calls and map-full drops. */
void prov_bpf_agg_set_maxkeys(uint32_t n);
void prov_bpf_agg_set_plan_hook(int (*fn)(dtrace_id_t id,
    ks_aggplan_t *out));
void prov_bpf_agg_stats(uint64_t *fired, uint64_t *calls, uint64_t *drops);

#endif /* PROV_BPF_AGG_H */
