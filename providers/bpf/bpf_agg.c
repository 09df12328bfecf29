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
 * (KEY_BIG), so hashing stays cheap for the common short keys.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "bpf_agg.h"
#include "bpf_util.h"

#define MAX_PLANS 65536
#define KEY_SMALL 32
#define KEY_BIG 128			/* 8 + 8 + 8 + 16 + 8 * MAXARGS + 8 */
#define KEY_AT (-8 - KEY_BIG)		/* fp offset of the key */
#define VAL_AT (KEY_AT - 8)		/* the 0 inserted */
#define DKEY_AT (VAL_AT - 4)		/* the drops array's key */
#define DEFAULT_KEYS 65536
#define BATCH 256
#define DRAIN_NS 100000000ULL
#define RECLAIM_NS 1000000000ULL

typedef struct aplan {
	dtrace_id_t ap_probe;
	unsigned ap_vars;		/* PROV_FV_* of pid tid uid gid comm */
	uint32_t ap_args;		/* arguments in the key */
	int ap_big;			/* which map */
	prov_bpf_argmap_t ap_am;
	int16_t ap_pt, ap_ug, ap_comm;	/* key offsets, 0: absent */
	int16_t ap_arg[DTRACE_MAXARGS];
	int16_t ap_errno, ap_retoff;	/* key offset (0: absent), and the
					 * return value's in the record */
	int ap_refs;			/* rlk: slots counting under it */
	uint64_t ap_idle;		/* rlk: ns since unheld (0: held) */
} aplan_t;

/* The last count read of one key, per CPU. */
typedef struct last {
	uint8_t lk_map;
	uint8_t lk_key[KEY_BIG];
	uint64_t lk_v[];
} last_t;

static pthread_mutex_t plk = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t dlk = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rlk = PTHREAD_MUTEX_INITIALIZER;
static uint64_t reclaim_ns = RECLAIM_NS;
static aplan_t *plans[MAX_PLANS];
static uint32_t nextplan = 1;		/* plk */
static int kmaps[2] = { -1, -1 }, dropmap = -1;
static int started;			/* maps made (release/acquire) */
static int ncpu;			/* possible CPUs */
static uint32_t maxkeys = DEFAULT_KEYS;
static int (*plan_hook)(dtrace_id_t, ks_aggplan_t *);

/* dlk: */
static last_t **ltab;
static size_t lcap, lcount;
static uint64_t *dlast;
static uint64_t lastdrain, nfired, ncalls, ndrops;
static uint8_t *bkeys;
static uint64_t *bvals;
static uint8_t *dead;			/* keys to reclaim after a pass */
static size_t ndead, deadcap;

static const int ksize[2] = { KEY_SMALL, KEY_BIG };

/* ---- plans and maps ---- */

int prov_bpf_agg_plan(dtrace_id_t id, ks_aggplan_t *out)
{
	int (*fn)(dtrace_id_t, ks_aggplan_t *) = __atomic_load_n(&plan_hook,
	    __ATOMIC_ACQUIRE);

	memset(out, 0, sizeof(*out));
	if (fn != NULL)
		return fn(id, out);
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
	unsigned known = PROV_FV_ALL | PROV_FV(KS_FV_ERRNO);

	if (!plan->kap_ok || !(vars & PROV_FV_ONE) ||
	    (plan->kap_vars & ~known) != 0 ||
	    (key_vars(plan) & ~vars) != 0)
		return 0;
	if ((plan->kap_vars & PROV_FV(KS_FV_ERRNO)) &&
	    (!(vars & PROV_FV(KS_FV_ARG)) || ret_off(am) < 0))
		return 0;
	if (plan->kap_args == 0)
		return 1;
	if (!(vars & PROV_FV(KS_FV_ARG)) || am == NULL)
		return 0;
	for (int i = 0; i < 32; i++) {
		if (!(plan->kap_args & (1u << i)))
			continue;
		if (i >= DTRACE_MAXARGS || am->pba_off[i] < 8)
			return 0;
	}
	return 1;
}

static int possible_cpus(void)
{
	FILE *fp = fopen("/sys/devices/system/cpu/possible", "r");
	char line[256], *p;
	long max = -1;

	if (fp == NULL)
		return prov_perf_ncpus();
	if (fgets(line, sizeof(line), fp) != NULL)
		for (p = line; *p != '\0'; ) {	/* "0-3,8-11": the last */
			char *end;
			long v;

			if (*p < '0' || *p > '9') {
				p++;
				continue;
			}
			v = strtol(p, &end, 10);
			if (v > max)
				max = v;
			p = end;
		}
	fclose(fp);
	return max >= 0 ? (int)max + 1 : prov_perf_ncpus();
}

/* Close the maps and free the drain's buffers (plk held; dlk too, or the
 * maps were never started). */
static void maps_free(void)
{
	__atomic_store_n(&started, 0, __ATOMIC_RELEASE);
	for (int m = 0; m < 2; m++) {
		if (kmaps[m] >= 0)
			close(kmaps[m]);
		kmaps[m] = -1;
	}
	if (dropmap >= 0)
		close(dropmap);
	dropmap = -1;
	free(bkeys);
	free(bvals);
	free(dlast);
	free(dead);
	bkeys = NULL;
	bvals = NULL;
	dlast = NULL;
	dead = NULL;
	ndead = deadcap = 0;
}

/* Create the maps and the drain's buffers on first use (plk held). */
static int maps_start(void)
{
	if (started)
		return 0;
	ncpu = possible_cpus();
	if (getenv("DTUI_AGG_MAXKEYS") != NULL &&	/* tests */
	    atoi(getenv("DTUI_AGG_MAXKEYS")) > 0)
		maxkeys = (uint32_t)atoi(getenv("DTUI_AGG_MAXKEYS"));
	bkeys = malloc((size_t)BATCH * KEY_BIG);
	bvals = malloc((size_t)BATCH * 8 * (size_t)ncpu);
	dlast = calloc((size_t)ncpu, sizeof(*dlast));
	for (int m = 0; m < 2; m++)
		kmaps[m] = prov_bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH,
		    (uint32_t)ksize[m], 8, maxkeys, BPF_F_NO_PREALLOC);
	dropmap = prov_bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1, 0);
	if (bkeys == NULL || bvals == NULL || dlast == NULL || kmaps[0] < 0 ||
	    kmaps[1] < 0 || dropmap < 0) {
		maps_free();		/* not shutdown: plk is held */
		return -1;
	}
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Lay the key out for plan: offsets of the parts it needs. */
static void layout(aplan_t *ap, dtrace_id_t id, const ks_aggplan_t *plan,
    const prov_bpf_argmap_t *am)
{
	int16_t off = 8;

	memset(ap, 0, sizeof(*ap));
	ap->ap_probe = id;
	ap->ap_vars = key_vars(plan);
	ap->ap_args = plan->kap_args;
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		ap->ap_am.pba_off[i] = -1;
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
	ap->ap_big = off > KEY_SMALL;
}

static int plan_same(const aplan_t *a, const aplan_t *b)
{
	return a->ap_probe == b->ap_probe && a->ap_vars == b->ap_vars &&
	    a->ap_args == b->ap_args && memcmp(&a->ap_am, &b->ap_am,
	    sizeof(a->ap_am)) == 0 && a->ap_errno == b->ap_errno &&
	    a->ap_retoff == b->ap_retoff;
}

/* The plan id of this layout, made if new; -1 when full (plk held). */
static int plan_get(const aplan_t *want)
{
	aplan_t *ap;

	for (uint32_t i = 1; i < nextplan && i < MAX_PLANS; i++)
		if (plans[i] != NULL && plan_same(plans[i], want))
			return (int)i;
	if (nextplan >= MAX_PLANS || (ap = malloc(sizeof(*ap))) == NULL)
		return -1;
	*ap = *want;
	__atomic_store_n(&plans[nextplan], ap, __ATOMIC_RELEASE);
	return (int)nextplan++;
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
	static const uint8_t sz[9] = { 0, BPF_B, BPF_H, 0, BPF_W, 0, 0, 0,
		BPF_DW };
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
		int size = ap->ap_am.pba_size[i];

		if (!(ap->ap_args & (1u << i)))
			continue;
		p[n++] = ins(BPF_LDX | BPF_MEM | sz[size], 1, 6,
		    ap->ap_am.pba_off[i], 0);
		if (ap->ap_am.pba_signed[i] == PROV_BPF_ERRRET) {
			/* -errno reads -1, as the provider hands it */
			p[n++] = ins(BPF_JMP | BPF_JSGE | BPF_K, 1, 0, 2, 0);
			p[n++] = ins(BPF_JMP | BPF_JSLT | BPF_K, 1, 0, 1,
			    -4095);
			p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, -1);
		} else if (ap->ap_am.pba_signed[i] && size < 8) {
			p[n++] = ins(BPF_ALU64 | BPF_LSH | BPF_K, 1, 0, 0,
			    64 - 8 * size);
			p[n++] = ins(BPF_ALU64 | BPF_ARSH | BPF_K, 1, 0, 0,
			    64 - 8 * size);
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

/* The whole body: see the top comment. */
static int emit(struct bpf_insn *p, int planid, const aplan_t *ap,
    int comm_at)
{
	int map = kmaps[ap->ap_big], n = 0, add, drop, out;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_key(p + n, planid, ap, comm_at);
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, VAL_AT, 0);
	n += emit_map(p + n, 1, map);
	n += emit_fp(p + n, 2, KEY_AT);
	n += emit_call(p + n, BPF_FUNC_map_lookup_elem);
	add = n;
	p[n++] = ins(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 0, 0);
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
	p[drop].off = (int16_t)(n - drop - 1);
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, DKEY_AT, 0);
	n += emit_map(p + n, 1, dropmap);
	n += emit_fp(p + n, 2, DKEY_AT);
	n += emit_call(p + n, BPF_FUNC_map_lookup_elem);
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3, 0);
	n += emit_inc(p + n);
	p[out].off = (int16_t)(n - out - 1);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

int prov_bpf_agg_body(struct bpf_insn *p, dtrace_id_t id,
    const ks_aggplan_t *plan, unsigned vars, const prov_bpf_argmap_t *am,
    int comm_at, int *planid)
{
	aplan_t want;
	int pid, n = 0;

	if (!prov_bpf_agg_fits(plan, vars, am))
		return 0;
	layout(&want, id, plan, am);
	pthread_mutex_lock(&plk);
	if (maps_start() == 0 && (pid = plan_get(&want)) > 0) {
		n = emit(p, pid, plans[pid], comm_at);
		*planid = pid;
	}
	pthread_mutex_unlock(&plk);
	return n;
}

int prov_bpf_agg_reemit(struct bpf_insn *p, int planid, int comm_at)
{
	int n = 0;

	pthread_mutex_lock(&plk);
	if (started && planid > 0 && planid < MAX_PLANS &&
	    plans[planid] != NULL)
		n = emit(p, planid, plans[planid], comm_at);
	pthread_mutex_unlock(&plk);
	return n;
}

/* ---- draining ---- */

static uint64_t key_hash(int m, const uint8_t *key)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)m;

	for (int i = 0; i < ksize[m]; i++)
		h = (h ^ key[i]) * 1099511628211ULL;
	return h;
}

static int ltab_grow(void)
{
	size_t cap = lcap ? lcap * 2 : 1024;
	last_t **t = calloc(cap, sizeof(*t));

	if (t == NULL)
		return -1;
	for (size_t i = 0; i < lcap; i++) {
		size_t j;

		if (ltab[i] == NULL)
			continue;
		j = key_hash(ltab[i]->lk_map, ltab[i]->lk_key) & (cap - 1);
		while (t[j] != NULL)
			j = (j + 1) & (cap - 1);
		t[j] = ltab[i];
	}
	free(ltab);
	ltab = t;
	lcap = cap;
	return 0;
}

/* The last values of (m, key), made zero if new; NULL without memory. */
static last_t *last_get(int m, const uint8_t *key)
{
	size_t j;

	if ((lcount + 1) * 2 > lcap && ltab_grow() != 0)
		return NULL;
	j = key_hash(m, key) & (lcap - 1);
	for (; ltab[j] != NULL; j = (j + 1) & (lcap - 1))
		if (ltab[j]->lk_map == m &&
		    memcmp(ltab[j]->lk_key, key, (size_t)ksize[m]) == 0)
			return ltab[j];
	ltab[j] = calloc(1, sizeof(last_t) + 8 * (size_t)ncpu);
	if (ltab[j] == NULL)
		return NULL;
	ltab[j]->lk_map = (uint8_t)m;
	memcpy(ltab[j]->lk_key, key, (size_t)ksize[m]);
	lcount++;
	return ltab[j];
}

/* Forget (m, key): backward-shift deletion keeps every other key
 * reachable from its home slot. */
static void last_del(int m, const uint8_t *key)
{
	size_t j, k, h;

	if (lcap == 0)
		return;
	j = key_hash(m, key) & (lcap - 1);
	for (; ltab[j] != NULL; j = (j + 1) & (lcap - 1))
		if (ltab[j]->lk_map == m &&
		    memcmp(ltab[j]->lk_key, key, (size_t)ksize[m]) == 0)
			break;
	if (ltab[j] == NULL)
		return;
	free(ltab[j]);
	ltab[j] = NULL;
	lcount--;
	for (k = (j + 1) & (lcap - 1); ltab[k] != NULL; k = (k + 1) & (lcap - 1)) {
		h = key_hash(ltab[k]->lk_map, ltab[k]->lk_key) & (lcap - 1);
		if (j < k ? (h <= j || h > k) : (h <= j && h > k)) {
			ltab[j] = ltab[k];
			ltab[k] = NULL;
			j = k;
		}
	}
}

/* May plan ap's keys go (rlk, or a hint without it)? */
static int reclaimable(const aplan_t *ap, uint64_t now)
{
	return ap->ap_refs == 0 && ap->ap_idle != 0 &&
	    now - ap->ap_idle >= reclaim_ns;
}

/* Queue key of map m for reclaim() after this pass. */
static void queue_dead(int m, const uint8_t *key)
{
	if (ndead == deadcap) {
		size_t cap = deadcap ? deadcap * 2 : 64;
		uint8_t *d = realloc(dead, cap * (KEY_BIG + 1));

		if (d == NULL)
			return;			/* next pass retries */
		dead = d;
		deadcap = cap;
	}
	dead[ndead * (KEY_BIG + 1)] = (uint8_t)m;
	memcpy(dead + ndead * (KEY_BIG + 1) + 1, key, (size_t)ksize[m]);
	ndead++;
}

/* Delete the queued keys whose plans are still unheld (dlk held). */
static void reclaim(uint64_t now)
{
	union bpf_attr at;

	pthread_mutex_lock(&rlk);
	for (size_t i = 0; i < ndead; i++) {
		const uint8_t *e = dead + i * (KEY_BIG + 1);
		uint32_t id;

		memcpy(&id, e + 1, 4);
		if (plans[id] == NULL || !reclaimable(plans[id], now))
			continue;
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)kmaps[e[0]];
		at.key = (uint64_t)(uintptr_t)(e + 1);
		(void)prov_bpf_call(BPF_MAP_DELETE_ELEM, &at);
		last_del(e[0], e + 1);
	}
	pthread_mutex_unlock(&rlk);
	ndead = 0;
}

/* Fire n firings of key's plan on cpu. */
static void fire(const aplan_t *ap, const uint8_t *key, int cpu, uint64_t n,
    uint64_t now, uint64_t wall)
{
	ks_probe_ctx_t ctx;
	uint64_t w;

	memset(&ctx, 0, sizeof(ctx));
	ctx.kpc_id = ap->ap_probe;
	ctx.kpc_cpu = (uint32_t)cpu;
	ctx.kpc_timestamp = now;
	ctx.kpc_walltimestamp = wall;
	if (ap->ap_pt) {
		memcpy(&w, key + ap->ap_pt, 8);
		ctx.kpc_pid = (int32_t)(w >> 32);
		ctx.kpc_tid = (int32_t)(uint32_t)w;
	}
	if (ap->ap_ug) {
		memcpy(&w, key + ap->ap_ug, 8);
		ctx.kpc_gid = (uint32_t)(w >> 32);
		ctx.kpc_uid = (uint32_t)w;
	}
	if (ap->ap_comm)
		memcpy(ctx.kpc_execname, key + ap->ap_comm, 16);
	ctx.kpc_execname[15] = '\0';
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		if (ap->ap_args & (1u << i))
			memcpy(&ctx.kpc_args[i], key + ap->ap_arg[i], 8);
	if (ap->ap_errno) {
		memcpy(&w, key + ap->ap_errno, 8);
		ctx.kpc_errno = (int32_t)w;
	}
	prov_fire_n(&ctx, n);
	nfired += n;
	ncalls++;
}

/* One entry read from map m: fire what each CPU gained. */
static void take(int m, const uint8_t *key, const uint64_t *vals,
    uint64_t now, uint64_t wall)
{
	uint32_t id;
	const aplan_t *ap;
	last_t *lk;

	memcpy(&id, key, 4);
	if (id == 0 || id >= MAX_PLANS ||
	    (ap = __atomic_load_n(&plans[id], __ATOMIC_ACQUIRE)) == NULL ||
	    (lk = last_get(m, key)) == NULL)
		return;
	for (int c = 0; c < ncpu; c++) {
		uint64_t d = vals[c] - lk->lk_v[c];

		if (d == 0)
			continue;
		lk->lk_v[c] = vals[c];
		fire(ap, key, c, d, now, wall);
	}
	if (reclaimable(ap, now))
		queue_dead(m, key);
}

/* Read map m one key at a time (kernels without batch lookups). */
static void drain_keys(int m, uint64_t now, uint64_t wall)
{
	uint8_t key[KEY_BIG], next[KEY_BIG];
	union bpf_attr at;
	int first = 1;

	for (;;) {
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)kmaps[m];
		at.key = first ? 0 : (uint64_t)(uintptr_t)key;
		at.next_key = (uint64_t)(uintptr_t)next;
		if (prov_bpf_call(BPF_MAP_GET_NEXT_KEY, &at) != 0)
			return;
		first = 0;
		memcpy(key, next, (size_t)ksize[m]);
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)kmaps[m];
		at.key = (uint64_t)(uintptr_t)key;
		at.value = (uint64_t)(uintptr_t)bvals;
		if (prov_bpf_call(BPF_MAP_LOOKUP_ELEM, &at) == 0)
			take(m, key, bvals, now, wall);
	}
}

static void drain_map(int m, uint64_t now, uint64_t wall)
{
	uint8_t in[KEY_BIG], out[KEY_BIG];
	union bpf_attr at;
	int first = 1, err;

	for (;;) {
		memset(&at, 0, sizeof(at));
		at.batch.map_fd = (uint32_t)kmaps[m];
		at.batch.in_batch = first ? 0 : (uint64_t)(uintptr_t)in;
		at.batch.out_batch = (uint64_t)(uintptr_t)out;
		at.batch.keys = (uint64_t)(uintptr_t)bkeys;
		at.batch.values = (uint64_t)(uintptr_t)bvals;
		at.batch.count = BATCH;
		err = prov_bpf_call(BPF_MAP_LOOKUP_BATCH, &at) == 0 ? 0 : errno;
		if (err != 0 && err != ENOENT) {
			if (first)		/* no batches here */
				drain_keys(m, now, wall);
			return;
		}
		for (uint32_t i = 0; i < at.batch.count && i < BATCH; i++)
			take(m, bkeys + (size_t)i * (size_t)ksize[m],
			    bvals + (size_t)i * (size_t)ncpu, now, wall);
		if (err == ENOENT)
			return;
		memcpy(in, out, sizeof(in));
		first = 0;
	}
}

/* Report the map-full drops each CPU gained. */
static void drain_drops(void)
{
	union bpf_attr at;
	uint32_t key = 0;

	memset(&at, 0, sizeof(at));
	at.map_fd = (uint32_t)dropmap;
	at.key = (uint64_t)(uintptr_t)&key;
	at.value = (uint64_t)(uintptr_t)bvals;
	if (prov_bpf_call(BPF_MAP_LOOKUP_ELEM, &at) != 0)
		return;
	for (int c = 0; c < ncpu; c++) {
		uint64_t d = bvals[c] - dlast[c];

		if (d == 0)
			continue;
		dlast[c] = bvals[c];
		ndrops += d;
		ks_provider_aggdrops((uint32_t)c, d);
	}
}

void prov_bpf_agg_drain(int force)
{
	uint64_t now;

	if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		return;
	if (force)
		pthread_mutex_lock(&dlk);
	else if (pthread_mutex_trylock(&dlk) != 0)
		return;			/* a flush is draining */
	now = ks_gethrtime();
	if (started && (force || now - lastdrain >= DRAIN_NS)) {
		uint64_t wall = ks_getwalltime();

		lastdrain = now;
		drain_map(0, now, wall);
		drain_map(1, now, wall);
		if (ndead > 0)
			reclaim(now);
		drain_drops();
	}
	pthread_mutex_unlock(&dlk);
}

/* ---- the rest ---- */

void prov_bpf_agg_shutdown(void)
{
	pthread_mutex_lock(&plk);
	pthread_mutex_lock(&dlk);
	maps_free();
	for (size_t i = 0; i < lcap; i++)
		free(ltab[i]);
	free(ltab);
	ltab = NULL;
	lcap = lcount = 0;
	for (uint32_t i = 1; i < nextplan && i < MAX_PLANS; i++) {
		free(plans[i]);		/* ids stay used: nextplan stays */
		plans[i] = NULL;
	}
	pthread_mutex_unlock(&dlk);
	pthread_mutex_unlock(&plk);
}

void prov_bpf_agg_hold(int planid)
{
	aplan_t *ap;

	if (planid <= 0 || planid >= MAX_PLANS ||
	    (ap = __atomic_load_n(&plans[planid], __ATOMIC_ACQUIRE)) == NULL)
		return;
	pthread_mutex_lock(&rlk);
	ap->ap_refs++;
	ap->ap_idle = 0;
	pthread_mutex_unlock(&rlk);
}

void prov_bpf_agg_release(int planid)
{
	aplan_t *ap;

	if (planid <= 0 || planid >= MAX_PLANS ||
	    (ap = __atomic_load_n(&plans[planid], __ATOMIC_ACQUIRE)) == NULL)
		return;
	pthread_mutex_lock(&rlk);
	if (ap->ap_refs > 0 && --ap->ap_refs == 0)
		ap->ap_idle = ks_gethrtime() | 1;
	pthread_mutex_unlock(&rlk);
}

void prov_bpf_agg_set_reclaim(uint64_t ns)
{
	pthread_mutex_lock(&rlk);
	reclaim_ns = ns ? ns : RECLAIM_NS;
	pthread_mutex_unlock(&rlk);
}

size_t prov_bpf_agg_nkeys(int planid)
{
	size_t n = 0;
	uint32_t id;

	pthread_mutex_lock(&dlk);
	for (size_t i = 0; i < lcap; i++) {
		if (ltab[i] == NULL)
			continue;
		memcpy(&id, ltab[i]->lk_key, 4);
		n += planid == 0 || id == (uint32_t)planid;
	}
	pthread_mutex_unlock(&dlk);
	return n;
}

void prov_bpf_agg_set_maxkeys(uint32_t n)
{
	maxkeys = n ? n : DEFAULT_KEYS;
}

void prov_bpf_agg_set_plan_hook(int (*fn)(dtrace_id_t id, ks_aggplan_t *out))
{
	__atomic_store_n(&plan_hook, fn, __ATOMIC_RELEASE);
}

void prov_bpf_agg_stats(uint64_t *fired, uint64_t *calls, uint64_t *drops)
{
	pthread_mutex_lock(&dlk);
	*fired = nfired;
	*calls = ncalls;
	*drops = ndrops;
	pthread_mutex_unlock(&dlk);
}
