/*
 * ks_krec.h - records built in the kernel: what the shim tells a provider
 * so that a BPF program writes a clause's whole record (EPID header and
 * data records, as ecb.c lays them out) at the event, and the shim only
 * copies it into the consumer's buffer (ks_krec_commit), without running
 * the clause's DIF (kernel-shim/recplan.c decides, the BPF provider
 * builds the program, providers/bpf/bpf_rec.c).
 *
 * A probe has a record plan (krp_ok) when exactly ONE ECB is enabled on
 * it and its clause
 *   - writes a record and nothing else: no aggregation, no self->, no
 *     stacks, no exit/speculate/raise..., only trace()/printf() values
 *     (DIFEXPR actions) and printf's own action, or no action at all
 *     (the default action: the bare EPID header);
 *   - has no predicate, or one ks_filter_pred translates EXACTLY (no
 *     comparison loosened): the provider's filter in front of the
 *     program then is the predicate (krp_pred says which);
 *   - records values each DIF object returns in one step: pid, tid, uid,
 *     gid, cpu, argN, timestamp, execname (a string of the task's comm),
 *     probeprov/probemod/probefunc/probename, epid, id, or a constant
 *     (integer or string): KS_KRV_* below, at their record offsets.
 * Every value the plan names is what the shim's firing would store, byte
 * for byte (strings zero-padded to their record size); a provider that
 * cannot compute one of them exactly refuses the plan.
 *
 * The plan changes exactly when the filter does (ks_filter_gen(),
 * ks_filter_watch(); during an ENABLE it reads krp_ok 0), so a provider
 * installs plan and filter together from the same watcher.
 */
#ifndef KS_KREC_H
#define KS_KREC_H

#include <stdint.h>
#include "dtrace_abi.h"
#include "ks_filter.h"

#define KS_KR_MAXVALS 16
#define KS_KR_STRMAX 64			/* constant strings, NUL included */
#define KS_KR_RECMAX 1000		/* record bytes a plan may have */

enum ks_krv {
	KS_KRV_PID = 1, KS_KRV_TID, KS_KRV_UID, KS_KRV_GID, KS_KRV_CPU,
	KS_KRV_ARG,			/* kkv_arg */
	KS_KRV_TIMESTAMP,
	KS_KRV_COMM,			/* execname: the comm, 16 bytes */
	KS_KRV_INT,			/* kkv_val */
	KS_KRV_STR			/* kkv_str */
};

typedef struct ks_krval {
	uint8_t kkv_kind;		/* enum ks_krv */
	uint8_t kkv_arg;		/* KS_KRV_ARG: N */
	uint32_t kkv_off;		/* in the record */
	uint32_t kkv_size;		/* integers: 1, 2, 4, 8 (the low
					 * bytes are stored); strings: the
					 * record's size, > the text */
	uint64_t kkv_val;
	char kkv_str[KS_KR_STRMAX];
} ks_krval_t;

typedef struct ks_recplan {
	int krp_ok;
	uint32_t krp_serial;		/* the ECB's consumer (st_serial) */
	dtrace_epid_t krp_epid;
	uint32_t krp_size;		/* the record's (kc_size) */
	int krp_pred;			/* 1: the filter must be in front */
	unsigned krp_vars;		/* 1 << KS_FV_* read by the values
					 * and the predicate */
	uint32_t krp_args;		/* bit N: argN */
	int krp_nvals;
	ks_krval_t krp_vals[KS_KR_MAXVALS];
	uint64_t krp_gen;		/* ks_filter_gen() it was made at */
} ks_recplan_t;

/* The record plan of probe id now.  0, or -1 if no such probe
 * (krp_ok 0).  Takes the fire lock: not from probe context.
 * DTUI_REC_KERNEL=0 in the environment: never a plan. */
int ks_probe_recplan(dtrace_id_t id, ks_recplan_t *out);

/* A record of plan (serial, epid) built at an event of probe id on cpu:
 * len bytes (the plan's krp_size), of which rec holds the first sent
 * (the rest are zeros).  Copied to the consumer's buffer of that CPU as
 * the shim's own firing would (fire counts, buffer policy, drops), if
 * the ECB is still enabled on that probe and its consumer is active;
 * else nothing: 0.  retry: a switch buffer without room for it leaves
 * everything as it was and returns -1 (the caller may try again once
 * the consumer has switched).  Takes the fire lock. */
int ks_krec_commit(uint32_t serial, dtrace_epid_t epid, dtrace_id_t id,
    unsigned cpu, const void *rec, uint32_t sent, uint32_t len, int retry);

/* filter.c: ks_filter_pred's translation when it is exact (the terms
 * hold exactly when the predicate is nonzero), else -1. */
int ks_filter_pred_exact(const struct ks_difo *pred, ks_filter_term_t *term,
    int max);

#endif /* KS_KREC_H */
