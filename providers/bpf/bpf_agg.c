/*
 * bpf_agg.c - firings counted in the kernel and replayed into the shim in
 * bulk, for probes whose every enabled clause only aggregates values a
 * BPF program can take at the event (the shim's ks_aggplan_t).
 *
 * bpf_filter.c asks prov_bpf_agg_body() for an aggregating body in place
 * of a slot's record body when the plan allows it (prov_bpf_agg_fits).
 * The body builds a key on the BPF stack,
 *
 *   { u32 plan id, u32 0, [u64 pid_tgid], [u64 uid_gid], [comm[16]],
 *     [u64 argN ...], [u64 errno] }  (only the parts the plan reads; the
 *                                      rest 0)
 *
 * errno is keyed only on slots whose argument map holds a system call's
 * return value (PROV_BPF_ERRRET): -ret when it is -4095..-1, else 0, as
 * the syscall provider sets kpc_errno.
 *
 * and adds 1 to this CPU's count of that key in a BPF_MAP_TYPE_PERCPU_HASH
 * (inserting 0 with BPF_NOEXIST first when the key is new); when the map
 * is full it adds 1 to the per-CPU "drops" array instead.  It returns 0,
 * as bpf_sys.c's stub does on a miss: perf then builds no sample for the
 * tracepoint's (counting) perf events, ~17 ns a hit saved; a perf reader
 * of the same tracepoint in another tool misses the hits, as it misses
 * those our predicate filters drop.  There are two
 * hash maps, one with short keys (KEY_SMALL bytes) and one with long keys
 * (KEY_BIG), so hashing stays cheap for the common short keys, and a
 * third whose keys end in a string (KEY_STR).
 *
 * copyinstr(argN) (the plan's kap_strs; only the argument the slot's
 * record body captures, pba_ustr): the key ends with STRK bytes that
 * bpf_probe_read_user_str fills from argN's address over zeros, so equal
 * strings make equal keys.  A string that does not fit (STRK - 1 bytes
 * with its NUL are read: longer, or exactly that long, it may be cut) or
 * cannot be read at the event (a bad pointer, a page not yet in) is not
 * counted: the body jumps to the slot's record body, appended behind it
 * (prov_bpf_agg_fallback), and that firing goes through the shim as it
 * would without the plan, with the same capture.  The drain replays a
 * key with the string captured at argN (kpc_ucap), so the shim's
 * copyinstr reads exactly it, truncated to strsize as always.
 *
 * The maps hold 65536 keys each (DTUI_AGG_MAXKEYS or
 * prov_bpf_agg_set_maxkeys for tests).
 *
 * A plan (plans[id]: probe, key layout) is made once per probe and layout
 * and kept for the whole run: plan ids are never reused in the process,
 * so a key always means the same probe and fields, also after the probe's
 * slot went back to a record body (its old entries keep being drained).
 *
 * Entries are never deleted while programs run (a program may hold an
 * element's pointer): the drain keeps the last value read per (map, key,
 * cpu) in last[] and fires the difference, as ks_probe_fire_n(ctx, n)
 * with ctx rebuilt from the key on that CPU.  The drain thread calls
 * prov_bpf_agg_drain(0) after every pass (it drains every DRAIN_NS), and
 * prov_flush calls prov_bpf_agg_drain(1) so counts made before END or STOP
 * are in the aggregations before they are printed.
 *
 * Reclaiming: bpf_filter.c holds a plan while a slot's installed program
 * counts under it (prov_bpf_agg_hold before the program goes in,
 * prov_bpf_agg_release after it is replaced or its slot is gone).  A plan
 * nobody has held for RECLAIM_NS (far longer than the RCU grace period
 * after which no program that had it can still run) has its keys drained
 * one last time, then deleted from the map and from last[], so sessions
 * that come and go (dtui's :restart, new clauses) do not fill the maps
 * with dead keys.  A plan held again later (same probe and layout) starts
 * from empty keys and zero last values, consistently.  The check and the
 * deletions are made under rlk, which a hold takes too: a program can
 * only start counting under a plan after its deletions are done.
 *
 * Locks: plk guards plan creation and the maps' creation (taken under
 * bpf_filter.c's flk, never the other way); dlk guards last[] and the drop
 * counts and is held while firing (so a shim lock must never be held when
 * taking it).  plans[] entries are published with a release store and
 * freed only by prov_bpf_agg_shutdown, after the drain thread stopped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "bpf_agg_impl.h"
#include "bpf_util.h"


agg_state_t prov_bpf_aggs = {
	.plk = PTHREAD_MUTEX_INITIALIZER,
	.dlk = PTHREAD_MUTEX_INITIALIZER,
	.rlk = PTHREAD_MUTEX_INITIALIZER,
	.reclaim_ns = RECLAIM_NS,
	.nextplan = 1,
	.kmaps = { -1, -1, -1 }, .dropmap = -1, .firemap = -1,
	.budgetmap = -1, .spillkeys = SPILL_KEYS,
	.maxkeys = DEFAULT_KEYS,
};

const int prov_bpf_agg_ksize[NMAPS] = { KEY_SMALL, KEY_BIG, KEY_STR };

/* ---- plans and maps ---- */

int prov_bpf_agg_plan(dtrace_id_t id, ks_aggplan_t *out)
{
	int (*fn)(dtrace_id_t, ks_aggplan_t *) =
	    __atomic_load_n(&prov_bpf_aggs.plan_hook, __ATOMIC_ACQUIRE);

	memset(out, 0, sizeof(*out));
	if (fn != NULL)
		return fn(id, out);
	if (getenv("DTUI_AGG_KERNEL") != NULL &&	/* tests: the shim's */
	    strcmp(getenv("DTUI_AGG_KERNEL"), "0") == 0)	/* path only */
		return 0;
	return ks_probe_aggplan(id, out);
}

/* The key fields (PROV_FV_* of pid tid uid gid execname) a plan needs. */
static unsigned key_vars(const ks_aggplan_t *plan)
{
	return plan->kap_vars & (PROV_FV(KS_FV_PID) | PROV_FV(KS_FV_TID) |
	    PROV_FV(KS_FV_UID) | PROV_FV(KS_FV_GID) |
	    PROV_FV(KS_FV_EXECNAME));
}

/* Where am has a system call's return value (errno's source), or -1. */
static int ret_off(const prov_bpf_argmap_t *am)
{
	for (int i = 0; am != NULL && i < DTRACE_MAXARGS; i++)
		if (am->pba_off[i] >= 8 && am->pba_size[i] == 8 &&
		    am->pba_signed[i] == PROV_BPF_ERRRET)
			return am->pba_off[i];
	return -1;
}

int prov_bpf_agg_fits(const ks_aggplan_t *plan, unsigned vars,
    const prov_bpf_argmap_t *am)
{
	unsigned known = PROV_FV_ALL | PROV_FV(KS_FV_ERRNO) |
	    PROV_FV(KS_FV_USTR) | PROV_FV(KS_FV_KSTR);
	uint32_t kstr = plan->kap_kstrs;

	if (!plan->kap_ok || !(vars & PROV_FV_ONE) ||
	    (plan->kap_vars & ~known) != 0 ||
	    (key_vars(plan) & ~vars) != 0)
		return 0;
	if (plan->kap_nkc > 0 && (!(vars & PROV_FV(KS_FV_TID)) ||
	    plan->kap_strs != 0))
		return 0;		/* self-> is keyed on the task's tid */
	if ((plan->kap_vars & PROV_FV(KS_FV_ERRNO)) &&
	    (!(vars & PROV_FV(KS_FV_ARG)) || ret_off(am) < 0))
		return 0;
	if (((plan->kap_vars & PROV_FV(KS_FV_USTR)) != 0) !=
	    (plan->kap_strs != 0) || (plan->kap_strs != 0 && (am == NULL ||
	    am->pba_ustr == 0 || plan->kap_strs != 1u << (am->pba_ustr - 1) ||
	    !(plan->kap_args & plan->kap_strs))))
		return 0;		/* only the captured string, keyed with
					 * its address */
	if (((plan->kap_vars & PROV_FV(KS_FV_KSTR)) != 0) != (kstr != 0) ||
	    (kstr != 0 && ((kstr & (kstr - 1)) != 0 || plan->kap_strs != 0 ||
	    plan->kap_nkc > 0 || am == NULL ||
	    __builtin_ctz(kstr) >= DTRACE_MAXARGS ||
	    am->pba_skind[__builtin_ctz(kstr)] == 0)))
		return 0;		/* one string field of the record */
	if (plan->kap_args == 0)
		return 1;
	if (!(vars & PROV_FV(KS_FV_ARG)) || am == NULL)
		return 0;
	for (int i = 0; i < 32; i++) {
		if (!(plan->kap_args & ~kstr & (1u << i)))
			continue;
		if (i >= DTRACE_MAXARGS || am->pba_off[i] < 8)
			return 0;
	}
	return 1;
}

void prov_bpf_agg_maps_free(agg_state_t *ag)
{
	__atomic_store_n(&ag->started, 0, __ATOMIC_RELEASE);
	for (int m = 0; m < NMAPS; m++) {
		if (ag->kmaps[m] >= 0)
			close(ag->kmaps[m]);
		ag->kmaps[m] = -1;
	}
	if (ag->dropmap >= 0)
		close(ag->dropmap);
	if (ag->firemap >= 0)
		close(ag->firemap);
	if (ag->budgetmap >= 0)
		close(ag->budgetmap);
	ag->dropmap = ag->firemap = ag->budgetmap = -1;
	free(ag->flast);
	ag->flast = NULL;
	free(ag->bkeys);
	free(ag->bvals);
	free(ag->dlast);
	free(ag->dead);
	ag->bkeys = NULL;
	ag->bvals = NULL;
	ag->dlast = NULL;
	ag->dead = NULL;
	ag->ndead = ag->deadcap = 0;
}

/* Create the maps and the drain's buffers on first use (plk held). */
static int maps_start(agg_state_t *ag)
{
	if (ag->started)
		return 0;
	ag->ncpu = (int)ks_ncpus();	/* per-CPU map values: possible CPUs */
	if (getenv("DTUI_AGG_MAXKEYS") != NULL &&	/* tests */
	    atoi(getenv("DTUI_AGG_MAXKEYS")) > 0)
		ag->maxkeys = (uint32_t)atoi(getenv("DTUI_AGG_MAXKEYS"));
	if (getenv("DTUI_AGG_SPILLKEYS") != NULL &&	/* tests */
	    atoi(getenv("DTUI_AGG_SPILLKEYS")) > 0)
		ag->spillkeys = (uint32_t)atoi(getenv("DTUI_AGG_SPILLKEYS"));
	ag->bkeys = malloc((size_t)BATCH * KEY_MAX);
	ag->bvals = malloc((size_t)BATCH * 8 * (size_t)ag->ncpu);
	ag->dlast = calloc((size_t)ag->ncpu, sizeof(*ag->dlast));
	for (int m = 0; m < NMAPS; m++)
		ag->kmaps[m] = prov_bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH,
		    (uint32_t)ksize[m], 8, ag->maxkeys, BPF_F_NO_PREALLOC);
	ag->dropmap = prov_bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1,
	    0);
	ag->firemap = prov_bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8,
	    FIRES, 0);
	ag->budgetmap = prov_bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8,
	    MAX_PLANS, 0);
	ag->flast = calloc((size_t)FIRES * (size_t)ag->ncpu, 8);
	if (ag->bkeys == NULL || ag->bvals == NULL || ag->dlast == NULL ||
	    ag->kmaps[0] < 0 || ag->kmaps[1] < 0 || ag->kmaps[2] < 0 ||
	    ag->dropmap < 0 || ag->firemap < 0 || ag->budgetmap < 0 ||
	    ag->flast == NULL) {
		prov_bpf_agg_maps_free(ag);		/* not shutdown: plk is held */
		return -1;
	}
	__atomic_store_n(&ag->started, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The key words of plan's kernel clauses from off on (pks_* are fp
 * offsets); the offset after them. */
static int16_t layout_kc(aplan_t *ap, const ks_aggplan_t *plan, int16_t off)
{
	int16_t start;

	ap->ap_nkc = plan->kap_nkc;
	ap->ap_tlsstate = plan->kap_tlsstate;
	ap->ap_tlscap = plan->kap_tlscap;
	for (int c = 0; c < plan->kap_nkc && c < KS_KT_MAXCLAUSES; c++) {
		const ks_kclause_t *kc = &plan->kap_kc[c];

		start = off;
		ap->ap_kc[c] = *kc;
		for (int i = 0; i < kc->kkc_nsteps; i++) {
			if (kc->kkc_steps[i].kks_kind != KS_KSTEP_VALUE)
				continue;
			ap->ap_ks[c].pks_val[i] = (int16_t)(KEY_AT + off);
			off += 8;
		}
		if (kc->kkc_nshim == 0 && off == start)
			continue;	/* nothing of it at the replay */
		ap->ap_ks[c].pks_pred = (int16_t)(KEY_AT + off);
		off += 8;
	}
	return off;
}

/* Lay the key out for plan: offsets of the parts it needs.  0, or -1
 * when they do not fit. */
static int layout(aplan_t *ap, dtrace_id_t id, const ks_aggplan_t *plan,
    const prov_bpf_argmap_t *am)
{
	struct bpf_insn qbuf[PROV_BPF_TLSMAX];
	int16_t off = 8;

	memset(ap, 0, sizeof(*ap));
	ap->ap_probe = id;
	ap->ap_vars = key_vars(plan);
	ap->ap_args = plan->kap_args & ~plan->kap_kstrs;	/* by value */
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		ap->ap_am.pba_off[i] = -1;
	if (plan->kap_nkc > 0 && am != NULL)	/* kernel clauses read any */
		ap->ap_am = *am;
	if (ap->ap_vars & (PROV_FV(KS_FV_PID) | PROV_FV(KS_FV_TID))) {
		ap->ap_pt = off;
		off += 8;
	}
	if (ap->ap_vars & (PROV_FV(KS_FV_UID) | PROV_FV(KS_FV_GID))) {
		ap->ap_ug = off;
		off += 8;
	}
	if (ap->ap_vars & PROV_FV(KS_FV_EXECNAME)) {
		ap->ap_comm = off;
		off += 16;
	}
	for (int i = 0; i < DTRACE_MAXARGS; i++) {
		if (!(ap->ap_args & (1u << i)))
			continue;
		ap->ap_arg[i] = off;
		off += 8;
		ap->ap_am.pba_off[i] = am->pba_off[i];
		ap->ap_am.pba_size[i] = am->pba_size[i];
		ap->ap_am.pba_signed[i] = am->pba_signed[i];
	}
	if (plan->kap_vars & PROV_FV(KS_FV_ERRNO)) {
		ap->ap_errno = off;
		ap->ap_retoff = (int16_t)ret_off(am);
		off += 8;
	}
	off = layout_kc(ap, plan, off);
	if (plan->kap_qarg != 0 && plan->kap_nkc == 0 &&
	    (ap->ap_args & (1u << (plan->kap_qarg - 1))) &&
	    prov_bpf_tls_emit_bucket(qbuf, plan->kap_qagg,
	    plan->kap_qparam) >= 0) {
		ap->ap_qarg = plan->kap_qarg;
		ap->ap_qagg = plan->kap_qagg;
		ap->ap_qparam = plan->kap_qparam;
	}
	if (off > KEY_BIG)
		return -1;
	/* kernel clauses whose outcome the replay does not need: the
	 * firings only count (the ECBs' fire counts, aggregations of
	 * nothing) */
	ap->ap_fires = off == 8 && plan->kap_nkc > 0 && plan->kap_strs == 0 &&
	    plan->kap_kstrs == 0;
	ap->ap_big = off > KEY_SMALL;
	if (plan->kap_strs != 0) {	/* one, at the end: prov_bpf_agg_fits */
		ap->ap_strarg = (uint8_t)(am->pba_ustr - 1);
		ap->ap_str = KEY_BIG;
		ap->ap_big = 2;
	}
	if (plan->kap_kstrs != 0) {	/* one: prov_bpf_agg_fits */
		int n = __builtin_ctz(plan->kap_kstrs);

		ap->ap_strarg = (uint8_t)n;
		ap->ap_skind = am->pba_skind[n];
		ap->ap_soff = am->pba_soff[n];
		ap->ap_slen = am->pba_slen[n];
		ap->ap_str = KEY_BIG;
		ap->ap_big = 2;
	}
	return 0;
}

/* The same kernel clauses (a clause's lowering never changes: its id
 * says it all) for the same consumer? */
static int kc_same(const aplan_t *a, const aplan_t *b)
{
	if (a->ap_nkc != b->ap_nkc || a->ap_tlsstate != b->ap_tlsstate)
		return 0;
	for (int c = 0; c < a->ap_nkc; c++)
		if (a->ap_kc[c].kkc_id != b->ap_kc[c].kkc_id)
			return 0;
	return 1;
}

static int plan_same(const aplan_t *a, const aplan_t *b)
{
	return a->ap_probe == b->ap_probe && a->ap_vars == b->ap_vars &&
	    a->ap_args == b->ap_args && memcmp(&a->ap_am, &b->ap_am,
	    sizeof(a->ap_am)) == 0 && a->ap_errno == b->ap_errno &&
	    a->ap_retoff == b->ap_retoff && a->ap_str == b->ap_str &&
	    a->ap_strarg == b->ap_strarg && a->ap_skind == b->ap_skind &&
	    a->ap_soff == b->ap_soff && a->ap_slen == b->ap_slen &&
	    a->ap_spill == b->ap_spill && a->ap_qarg == b->ap_qarg &&
	    a->ap_qagg == b->ap_qagg && a->ap_qparam == b->ap_qparam &&
	    kc_same(a, b);
}

/* The plan id of this layout, made if new; -1 when full (plk held). */
static int plan_get(agg_state_t *ag, const aplan_t *want)
{
	aplan_t *ap;

	for (uint32_t i = 1; i < ag->nextplan && i < MAX_PLANS; i++)
		if (ag->plans[i] != NULL && plan_same(ag->plans[i], want))
			return (int)i;
	if (ag->nextplan >= MAX_PLANS || (ap = malloc(sizeof(*ap))) == NULL)
		return -1;
	*ap = *want;
	__atomic_store_n(&ag->plans[ag->nextplan], ap, __ATOMIC_RELEASE);
	return (int)ag->nextplan++;
}

/* ---- the aggregating body ---- */

static int emit_map(struct bpf_insn *p, int reg, int fd)
{
	p[0] = ins(BPF_LD | BPF_DW | BPF_IMM, (uint8_t)reg, BPF_PSEUDO_MAP_FD,
	    0, fd);
	p[1] = ins(0, 0, 0, 0, 0);
	return 2;
}

/* r<reg> = fp + at */
static int emit_fp(struct bpf_insn *p, int reg, int at)
{
	p[0] = ins(BPF_ALU64 | BPF_MOV | BPF_X, (uint8_t)reg, 10, 0, 0);
	p[1] = ins(BPF_ALU64 | BPF_ADD | BPF_K, (uint8_t)reg, 0, 0, at);
	return 2;
}

static int emit_call(struct bpf_insn *p, int fn)
{
	p[0] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, fn);
	return 1;
}

/* *(u64 *)r0 += 1 */
static int emit_inc(struct bpf_insn *p)
{
	p[0] = ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 0, 0, 0);
	p[1] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, 1);
	p[2] = ins(BPF_STX | BPF_MEM | BPF_DW, 0, 1, 0, 0);
	return 3;
}

/* Keep only the halves of r0 the plan needs: hi (pid, gid), lo. */
static int emit_halves(struct bpf_insn *p, int hi, int lo)
{
	if (hi && lo)
		return 0;
	if (lo) {
		p[0] = ins(BPF_ALU | BPF_MOV | BPF_X, 0, 0, 0, 0);
		return 1;
	}
	p[0] = ins(BPF_ALU64 | BPF_RSH | BPF_K, 0, 0, 0, 32);
	p[1] = ins(BPF_ALU64 | BPF_LSH | BPF_K, 0, 0, 0, 32);
	return 2;
}

/* Fill the key at KEY_AT (r6 = ctx); comm_at: fp offset where the
 * filter in front left the task's comm (0: none, read it). */
static int emit_key(struct bpf_insn *p, int planid, const aplan_t *ap,
    int comm_at)
{
	unsigned v = ap->ap_vars;
	int n = 0;

	for (int off = 0; off < ksize[ap->ap_big]; off += 8)
		p[n++] = ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0,
		    (int16_t)(KEY_AT + off), off == 0 ? planid : 0);
	if (ap->ap_pt) {
		n += emit_call(p + n, BPF_FUNC_get_current_pid_tgid);
		n += emit_halves(p + n, (v & PROV_FV(KS_FV_PID)) != 0,
		    (v & PROV_FV(KS_FV_TID)) != 0);
		p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0,
		    (int16_t)(KEY_AT + ap->ap_pt), 0);
	}
	if (ap->ap_ug) {
		n += emit_call(p + n, BPF_FUNC_get_current_uid_gid);
		n += emit_halves(p + n, (v & PROV_FV(KS_FV_GID)) != 0,
		    (v & PROV_FV(KS_FV_UID)) != 0);
		p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0,
		    (int16_t)(KEY_AT + ap->ap_ug), 0);
	}
	for (int k = 0; ap->ap_comm && comm_at && k < 2; k++) {
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 10,
		    (int16_t)(comm_at + 8 * k), 0);
		p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 1,
		    (int16_t)(KEY_AT + ap->ap_comm + 8 * k), 0);
	}
	if (ap->ap_comm && !comm_at) {
		n += emit_fp(p + n, 1, KEY_AT + ap->ap_comm);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 16);
		n += emit_call(p + n, BPF_FUNC_get_current_comm);
	}
	for (int i = 0; i < DTRACE_MAXARGS; i++) {
		if (!(ap->ap_args & (1u << i)))
			continue;
		/* -errno reads -1, as the provider hands it */
		n += prov_bpf_emit_arg(p + n, &ap->ap_am, i);
		if (ap->ap_qarg == i + 1) {	/* its bucket's value */
			p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 7, 1, 0, 0);
			n += prov_bpf_tls_emit_bucket(p + n, ap->ap_qagg,
			    ap->ap_qparam);
			p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 7, 0, 0);
		}
		p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 1,
		    (int16_t)(KEY_AT + ap->ap_arg[i]), 0);
	}
	if (ap->ap_errno) {		/* -ret if -4095 <= ret < 0, else 0 */
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 6, ap->ap_retoff,
		    0);
		p[n++] = ins(BPF_JMP | BPF_JSGE | BPF_K, 1, 0, 3, 0);
		p[n++] = ins(BPF_JMP | BPF_JSLT | BPF_K, 1, 0, 2, -4095);
		p[n++] = ins(BPF_ALU64 | BPF_NEG, 1, 0, 0, 0);
		p[n++] = ins(BPF_JMP | BPF_JA, 0, 0, 1, 0);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 0);
		p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 1,
		    (int16_t)(KEY_AT + ap->ap_errno), 0);
	}
	return n;
}

/* Copy the record's string field (r6 = the record) into the key's
 * string: a char[N] in place (N characters at most, as prov_tp_args
 * reads it), a __data_loc/__rel_loc one where its offset word points;
 * r0 as probe_read_kernel_str leaves it. */
static int emit_kstr(struct bpf_insn *p, const aplan_t *ap)
{
	int n = 0, size = STRK;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 3, 6, 0, 0);
	if (ap->ap_skind == PROV_BPF_KSTR_ARRAY) {
		p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, ap->ap_soff);
		if (ap->ap_slen + 1 < STRK)
			size = ap->ap_slen + 1;
	} else {
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_W, 1, 6, ap->ap_soff, 0);
		p[n++] = ins(BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, 0xffff);
		if (ap->ap_skind == PROV_BPF_KSTR_RELLOC)
			p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0,
			    ap->ap_soff + 4);
		p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_X, 3, 1, 0, 0);
	}
	n += emit_fp(p + n, 1, KEY_AT + ap->ap_str);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, size);
	n += emit_call(p + n, BPF_FUNC_probe_read_kernel_str);
	return n;
}

/* Add 1 to this CPU's firings of planid in the fires array; return 0. */
static int emit_fires(agg_state_t *ag, struct bpf_insn *p, int planid)
{
	int n = 0;

	p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, DKEY_AT, planid);
	n += emit_map(p + n, 1, ag->firemap);
	n += emit_fp(p + n, 2, DKEY_AT);
	n += emit_call(p + n, BPF_FUNC_map_lookup_elem);
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3, 0);
	n += emit_inc(p + n);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

/* The whole body: see the top comment. */
static int emit(agg_state_t *ag, struct bpf_insn *p, int planid,
    const aplan_t *ap, int comm_at)
{
	int map = ag->kmaps[ap->ap_big], n = 0, add, drop, out, fb = 0, nk;
	int spill[3], nsp = 0;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_key(p + n, planid, ap, comm_at);
	if (ap->ap_nkc > 0) {		/* their results in the key */
		nk = prov_bpf_tls_emit(p + n, ap->ap_kc, ap->ap_nkc,
		    ap->ap_tlsstate, ap->ap_tlscap, &ap->ap_am, comm_at,
		    ap->ap_ks);
		if (nk < 0)
			return 0;
		n += nk;
	}
	if (ap->ap_fires && planid < FIRES)	/* no key to hash */
		return n + emit_fires(ag, p + n, planid);
	if (ap->ap_str && ap->ap_skind) {	/* a string of the record */
		n += emit_kstr(p + n, ap);
	} else if (ap->ap_str) {	/* 1 <= bytes with the NUL < STRK */
		n += prov_bpf_emit_arg(p + n, &ap->ap_am, ap->ap_strarg);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 3, 1, 0, 0);
		n += emit_fp(p + n, 1, KEY_AT + ap->ap_str);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, STRK);
		n += emit_call(p + n, BPF_FUNC_probe_read_user_str);
	}
	if (ap->ap_str) {
		fb = n;
		p[n++] = ins(BPF_JMP | BPF_JSLT | BPF_K, 0, 0, 0, 1);
		p[n++] = ins(BPF_JMP | BPF_JSGE | BPF_K, 0, 0, 0, STRK);
	}
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, VAL_AT, 0);
	n += emit_map(p + n, 1, map);
	n += emit_fp(p + n, 2, KEY_AT);
	n += emit_call(p + n, BPF_FUNC_map_lookup_elem);
	add = n;
	p[n++] = ins(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 0, 0);
	if (ap->ap_spill) {		/* a new key: within the budget? */
		p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, DKEY_AT, planid);
		n += emit_map(p + n, 1, ag->budgetmap);
		n += emit_fp(p + n, 2, DKEY_AT);
		n += emit_call(p + n, BPF_FUNC_map_lookup_elem);
		spill[nsp++] = n;
		p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0, 0);
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 0, 0, 0);
		spill[nsp++] = n;
		p[n++] = ins(BPF_JMP | BPF_JGE | BPF_K, 1, 0, 0,
		    (int32_t)ag->spillkeys);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1);
		p[n++] = ins(BPF_STX | BPF_XADD | BPF_DW, 0, 1, 0, 0);
	}
	n += emit_map(p + n, 1, map);
	n += emit_fp(p + n, 2, KEY_AT);
	n += emit_fp(p + n, 3, VAL_AT);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, BPF_NOEXIST);
	n += emit_call(p + n, BPF_FUNC_map_update_elem);
	n += emit_map(p + n, 1, map);	/* inserted, or another CPU did */
	n += emit_fp(p + n, 2, KEY_AT);
	n += emit_call(p + n, BPF_FUNC_map_lookup_elem);
	drop = n;
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0, 0);
	p[add].off = (int16_t)(n - add - 1);
	n += emit_inc(p + n);
	out = n;
	p[n++] = ins(BPF_JMP | BPF_JA, 0, 0, 0, 0);
	if (ap->ap_spill) {		/* full: the record body, below */
		spill[nsp++] = drop;
	} else {
		p[drop].off = (int16_t)(n - drop - 1);
		p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, DKEY_AT, 0);
		n += emit_map(p + n, 1, ag->dropmap);
		n += emit_fp(p + n, 2, DKEY_AT);
		n += emit_call(p + n, BPF_FUNC_map_lookup_elem);
		p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3, 0);
		n += emit_inc(p + n);
	}
	p[out].off = (int16_t)(n - out - 1);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	if (fb > 0) {			/* not counted: the record body */
		p[fb].off = (int16_t)(n - fb - 1);
		p[fb + 1].off = (int16_t)(n - fb - 2);
	}
	for (int i = 0; i < nsp; i++)
		p[spill[i]].off = (int16_t)(n - spill[i] - 1);
	if (fb > 0 || nsp > 0)
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	return n;
}

int prov_bpf_agg_fallback(int planid)
{
	const aplan_t *ap;

	if (planid <= 0 || planid >= MAX_PLANS ||
	    (ap = __atomic_load_n(&prov_bpf_aggs.plans[planid], __ATOMIC_ACQUIRE)) ==
	    NULL)
		return 0;
	return ap->ap_str != 0 || ap->ap_spill;
}

int prov_bpf_agg_body(struct bpf_insn *p, dtrace_id_t id,
    const ks_aggplan_t *plan, unsigned vars, const prov_bpf_argmap_t *am,
    int comm_at, int *planid)
{
	agg_state_t *ag = &prov_bpf_aggs;
	aplan_t want;
	int pid, n = 0;

	if (!prov_bpf_agg_fits(plan, vars, am) ||
	    layout(&want, id, plan, am) != 0)
		return 0;
	want.ap_spill = (vars & PROV_FV_SPILL) && want.ap_nkc == 0;
	pthread_mutex_lock(&ag->plk);
	if (maps_start(ag) == 0 && (pid = plan_get(ag, &want)) > 0) {
		n = emit(ag, p, pid, ag->plans[pid], comm_at);
		*planid = pid;
	}
	pthread_mutex_unlock(&ag->plk);
	return n;
}

int prov_bpf_agg_reemit(struct bpf_insn *p, int planid, int comm_at)
{
	agg_state_t *ag = &prov_bpf_aggs;
	int n = 0;

	pthread_mutex_lock(&ag->plk);
	if (ag->started && planid > 0 && planid < MAX_PLANS &&
	    ag->plans[planid] != NULL)
		n = emit(ag, p, planid, ag->plans[planid], comm_at);
	pthread_mutex_unlock(&ag->plk);
	return n;
}
