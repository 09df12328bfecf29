/*
 * ks_filter.h - in-kernel filtering of predicates: what the shim tells a
 * provider about which firings of a probe some enabled clause could use.
 *
 * ks_probe_filter() describes, for one probe, a condition that is true
 * whenever ANY ECB enabled on it (in any consumer state, active or not)
 * could run its actions: an OR over ECBs of ANDs of simple comparisons of
 * pid, tid, cpu, uid, gid, argN (after an optional cast) or execname with
 * constants.  It is obtained from each ECB's predicate DIF (filter.c);
 * anything that cannot be expressed is loosened (a comparison becomes
 * "true"), and an ECB without a predicate, or with one that has side
 * effects, makes the whole filter "always true".  A provider may drop a
 * firing for which the filter is false before it leaves the kernel: no
 * clause would have run for it.
 *
 * The filter changes when ECBs come and go.  ks_filter_gen() counts those
 * changes; ks_filter_watch() registers one function the shim calls
 * (without any shim lock held) after every change, so a provider can
 * install the new filter before the new ECBs can fire.  While an ENABLE is
 * being processed every filter reads "always true", and the watcher is
 * called at its start too: ECBs attached by it are never filtered by a
 * filter that did not know them.
 *
 * A provider may do better for a probe that has no ECB yet (it is being
 * started by the ENABLE): no firing before the ENABLE ends is owed to the
 * new ECBs, so it may drop every firing until the watcher runs with
 * ks_filter_pending() 0 or ks_probe_busy() 1 (the new ECBs are linked
 * before ks_filter_end calls the watcher), then install the exact filter.
 * A probe with ECBs must keep the "always" rule: they are owed firings.
 */
#ifndef KS_FILTER_H
#define KS_FILTER_H

#include <stdint.h>
#include "dtrace_abi.h"
#include "ks_ktls.h"

#define KS_FILTER_MAXTERMS 8		/* ORed conjunctions */
#define KS_FILTER_MAXATOMS 8		/* ANDed comparisons per term */

enum ks_fvar {
	KS_FV_PID = 1, KS_FV_TID, KS_FV_CPU, KS_FV_UID, KS_FV_GID,
	KS_FV_ARG,			/* kfa_arg: 0 .. DTRACE_MAXARGS - 1 */
	KS_FV_EXECNAME,			/* kfa_str; only EQ and NE */
	KS_FV_ERRNO,			/* kap_vars only: no filter atom */
	KS_FV_USTR,			/* kap_vars only: kap_strs is set */
	KS_FV_KSTR			/* kap_vars only: kap_kstrs is set */
};

enum ks_fop { KS_FOP_EQ = 1, KS_FOP_NE, KS_FOP_LT, KS_FOP_LE, KS_FOP_GT,
	KS_FOP_GE };

/*
 * One comparison: value OP kfa_val, with value the 64-bit D value of the
 * variable (pid, tid sign-extended; uid, gid, cpu zero-extended; argN as
 * the provider's kpc_args) then, if kfa_shift, shifted left by kfa_shift
 * and back right (arithmetic if kfa_sext): a D cast to a narrower type.
 * kfa_unsigned: the comparison is unsigned.
 */
typedef struct ks_filter_atom {
	uint8_t kfa_var;		/* enum ks_fvar */
	uint8_t kfa_arg;
	uint8_t kfa_op;			/* enum ks_fop */
	uint8_t kfa_unsigned;
	uint8_t kfa_shift;		/* 0: no cast */
	uint8_t kfa_sext;
	uint64_t kfa_val;
	char kfa_str[16];		/* execname: NUL-padded, <= 15 chars */
} ks_filter_atom_t;

typedef struct ks_filter_term {
	int kft_natoms;			/* 0 would mean "true" */
	ks_filter_atom_t kft_atoms[KS_FILTER_MAXATOMS];
} ks_filter_term_t;

typedef struct ks_filter {
	int kf_always;			/* no filtering possible */
	int kf_nterms;			/* 0 and !kf_always: never true */
	ks_filter_term_t kf_terms[KS_FILTER_MAXTERMS];
	uint64_t kf_gen;		/* ks_filter_gen() it was made at */
} ks_filter_t;

struct ks_difo;

/* The filter of probe id now (see the top).  0, or -1 if no such probe
 * (out then reads "always").  Takes the fire lock: not from probe
 * context. */
int ks_probe_filter(dtrace_id_t id, ks_filter_t *out);
/* Changes to the set of enabled ECBs so far (any probe). */
uint64_t ks_filter_gen(void);
/* Call fn (NULL: none) after every change; one watcher. */
void ks_filter_watch(void (*fn)(void));
/* Nonzero while some ENABLE is being processed (filters read "always"). */
int ks_filter_pending(void);
/* 1 if some ECB (of any state, active or not) is on probe id now, else 0
 * (also for no such probe).  Takes the fire lock: not from probe
 * context. */
int ks_probe_busy(dtrace_id_t id);

/* Translate one predicate (NULL: none) into term[] (at most max); the
 * number of terms, or -1 when the predicate must count as always true.
 * Exposed for tests. */
int ks_filter_pred(const struct ks_difo *pred, ks_filter_term_t *term,
    int max);
/* Does the filter accept these values (comm NUL-padded to 16)?  For
 * tests and for providers that filter in user space. */
int ks_filter_match(const ks_filter_t *f, int32_t pid, int32_t tid,
    uint32_t cpu, uint32_t uid, uint32_t gid, const uint64_t *args,
    const char *comm);

/* Shim-internal: an ENABLE begins (every filter reads "always") and
 * ends (filters exact again); ECBs went away (DISABLE, a state closed:
 * filters may only get stricter).  Each bumps the generation and calls
 * the watcher; none may be called with the fire lock held. */
void ks_filter_begin(void);
void ks_filter_end(void);
void ks_filter_changed(void);

/*
 * Kernel-side aggregation.  ks_probe_aggplan() says whether a provider may
 * count the firings of probe id in the kernel (a BPF map keyed by the
 * values below) and hand them to the shim later in bulk with
 * ks_probe_fire_n(), instead of delivering each firing:
 *
 * kap_ok is set only when EVERY ECB enabled on the probe (every consumer
 * state, active or not) has only aggregating actions (count, sum, avg,
 * min, max, stddev, quantize, lquantize, llquantize, in any number, with
 * any keys) and every DIF object of the ECB (predicate, keys, values)
 * reads nothing but constants, clause-local variables (this->), the
 * probe's own constants (probeprov, probemod, probefunc, probename, id,
 * epid) and the variables in kap_vars/kap_args, and stores nothing but
 * clause-locals; anything else (globals, thread-locals, timestamp,
 * stacks, copyin, strings from memory, speculations, records) makes it 0.
 * Two firings with equal values of those variables on one CPU then have
 * exactly the same effect, so n of them may be fired as one weighted
 * firing.  kap_vars: bits (1 << KS_FV_*) of pid, tid, uid, gid, execname
 * and errno (kpc_errno) read (KS_FV_CPU is never needed: the provider
 * fires on the CPU the events happened on); with KS_FV_ARG, kap_args has
 * bit N for each argN / args[N] read.  With KS_FV_USTR, kap_strs has
 * bit N for each copyinstr(argN) (one argument, argN itself as the
 * address): the string the process had there is then one more value a
 * firing's effect depends on; a provider may key on it only if its
 * firings serve that string from a capture made at the event (kpc_ucap)
 * and it replays the counts with the same capture, at argN's address.
 * With KS_FV_KSTR, kap_kstrs has bit N for each args[N] used as a
 * string key (args[N] typed string: its text is in provider memory,
 * kpc_kmem, as a tracepoint's char[] fields are); a provider may key on
 * that text if it reads it at the event as its firings would, and
 * replays with the text in kpc_kmem at kpc_args[N].
 * A provider refuses a plan with bits it cannot key on.
 * kap_qarg = N + 1: argN (or args[N]) is read by nothing but as the
 * exact value of quantize kind kap_qagg (DTRACEAGG_*) with parameters
 * kap_qparam, the same in every ECB: a provider may key on a value of
 * the same bucket instead (prov_bpf_tls_bucket), the replay landing in
 * that bucket; sum/avg/min/max or any other use keep it exact.
 *
 * kap_nkc > 0: kernel clauses (ks_ktls.h) run on the probe besides: a
 * provider keys on the plan's values AND on each kernel clause's result
 * (kkc_pred, then the VALUE steps), runs their self-> variables in the
 * kernel for consumer kap_tlsstate (at most kap_tlscap of them: the
 * consumer's dynvarsize in the shim's blocks), and replays with kpc_kres;
 * a provider that cannot must refuse the plan and call ks_tls_veto.
 *
 * The plan changes exactly when the filter does (ks_filter_gen(),
 * ks_filter_watch(); during an ENABLE every plan reads kap_ok = 0), so a
 * provider installs plan and filter together from the same watcher.
 */
typedef struct ks_aggplan {
	int kap_ok;
	unsigned kap_vars;		/* 1 << KS_FV_* */
	uint32_t kap_args;		/* bit N: argN read */
	uint32_t kap_strs;		/* bit N: copyinstr(argN) read */
	uint32_t kap_kstrs;		/* bit N: args[N] a string key */
	uint8_t kap_qarg;		/* N + 1: argN is read only as the
					 * value of aggregations kap_qagg
					 * (a quantize kind) with parameters
					 * kap_qparam; 0: none */
	uint16_t kap_qagg;
	uint64_t kap_qparam;
	uint64_t kap_gen;		/* ks_filter_gen() it was made at */
	int kap_nkc;			/* kernel clauses (ks_ktls.h) */
	uint32_t kap_tlsstate;		/* their consumer's serial */
	uint32_t kap_tlscap;		/* its room for self-> variables */
	ks_kclause_t kap_kc[KS_KT_MAXCLAUSES];
} ks_aggplan_t;

/* The plan of probe id now.  0, or -1 if no such probe (out->kap_ok 0).
 * Takes the fire lock: not from probe context. */
int ks_probe_aggplan(dtrace_id_t id, ks_aggplan_t *out);

#endif /* KS_FILTER_H */
