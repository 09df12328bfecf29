/*
 * bpf_filter.c - clause predicates checked in the kernel, so firings no
 * enabled clause wants never leave it.
 *
 * The shim describes, per probe, a condition true whenever some enabled
 * ECB could run (ks_probe_filter: OR of ANDs of pid, tid, cpu, uid, gid,
 * argN, execname against constants).  This file turns it into BPF
 * instructions put in front of bpf.c's record-copying programs:
 *
 *   r6 = r1
 *   term 1: load a value (helper call or record field), compare with the
 *           constant, on failure jump to term 2; ...; all held: ja body
 *   term 2: ...
 *   r0 = 0; exit               (no term held: the event is dropped)
 *   r1 = r6                    (the helpers clobbered it)
 *   body:   bpf.c's program, unchanged (it starts with r6 = r1 too)
 *
 * Replacing the program of a live attachment must neither lose nor double
 * an event, so every attachment made through prov_bpf_fload is a stub
 * that tail-calls slot `tag` of one PROG_ARRAY map; the slot holds the
 * filtered body, and a new filter replaces it with one map update, which
 * the kernel makes atomically.  The stub returns 1 if the slot is empty.
 *
 * The filter follows the shim's ECB changes through ks_filter_watch: at
 * the start of every ENABLE each filter is dropped (ks_probe_filter reads
 * "always"), at its end the exact filter is installed, before the new
 * ECBs could fire unfiltered-out.  Failing to load a filtered program
 * leaves the plain body in the slot: correctness first.
 *
 * A probe being started by an ENABLE has no ECB yet, and no firing before
 * the ENABLE ends is owed to the ECBs it adds: "always" would let a flood
 * through (e.g. another process hammering the same system call) that
 * overruns the perf rings before the exact filter arrives.  So a slot told
 * its probe(s) while an ENABLE is pending (ks_filter_pending) and none of
 * them has an ECB (ks_probe_busy) is held: its entry holds the program
 * that returns 1 and does nothing (fs_held), until the watcher finds the
 * ENABLE over or an ECB linked, and installs the exact filter and plan at
 * once.  A slot whose probe has ECBs keeps the "always" rule (they are
 * owed every firing).  A slot not told its probe is never held.
 *
 * A slot may feed several probes (a shared tracepoint, given by
 * prov_bpf_filter_probes): its filter is then the OR of their filters,
 * each rewritten by bpf_fmerge.c for the way that probe reads the event;
 * fs_vars and fs_am are the merge's (an execname atom with kfa_arg != 0
 * compares a record field).  No aggregation plan applies to such a slot.
 *
 * When the shim's plan for the probe allows it (ks_probe_aggplan) and the
 * slot's provider said every hit fires the probe once (PROV_FV_ONE), the
 * body behind the filter is bpf_agg.c's aggregating body instead of the
 * record body: the same watcher installs filter and plan together.
 *
 * fslots[] is guarded by flk.  Lock order: the shim's watcher lock, flk,
 * bpf_agg.c's plan lock, the shim's fire lock (inside ks_probe_filter and
 * ks_probe_aggplan).
 *
 * A slot's program lives in entry fs_key of PROG_ARRAY fs_map: the shared
 * array at key = slot for prov_bpf_fload's stubs (constant-key tail calls:
 * the kernel patches their jumps, so deleting such an entry waits for
 * RCU, ~14 ms here, while replacing it costs ~0.1 ms), or a caller's
 * array (prov_bpf_fload_at, bpf_sys.c's arrays indexed by syscall number,
 * whose stub's key is a variable: its updates and deletes cost
 * microseconds).  So prov_bpf_funload empties a shared-array entry by
 * putting a program that returns 1 (what the stub returns for an empty
 * entry) into it, and deletes only entries of callers' arrays.
 *
 * Slots are reused (bpf.c), but a released stub stays attached to its
 * tracepoint until the deferred close of its event: it must never
 * tail-call the program of the slot's next owner (with another
 * tracepoint's record).  So each stub carries its generation (fgen[],
 * one more at every prov_bpf_fload of the slot) and tail-calls only while
 * the ARRAY genmap holds it at key slot; prov_bpf_funload zeroes it
 * first.  (bpf.c rests a freed slot QUARANTINE_NS before giving it
 * again, so a stub that read its generation just before the release has
 * long finished when the next owner's program goes in.)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include "bpf_filter.h"
#include "bpf_agg.h"
#include "bpf_rec.h"
#include "bpf_tls.h"
#include "bpf_util.h"
#include "providers.h"

#define MAX_FSLOTS (PROV_BPF_USLOT0 + PROV_BPF_USLOTS)

typedef struct fslot {
	struct bpf_insn *fs_body;	/* bpf.c's program */
	int fs_n;
	dtrace_id_t fs_id;		/* DTRACE_IDNONE: no filter */
	unsigned fs_vars;		/* PROV_FV_* */
	prov_bpf_argmap_t fs_am;
	int fs_hasam;
	ks_filter_t fs_cur;		/* installed (kf_always: none) */
	prov_bpf_fprobe_t *fs_multi;	/* several probes (fs_nmulti > 0): */
	int fs_nmulti;			/* fs_vars/fs_am are then the merge's */
	int fs_map, fs_key;		/* where the program goes */
	int fs_plan;			/* aggregating body's plan, or -1 */
	dtrace_id_t fs_aggid;		/* the probe and plan it counts */
	ks_aggplan_t fs_agg;
	int fs_aggcomm;			/* its key copies the filter's comm */
	int fs_hasrec;			/* runs the record body of fs_rec */
	ks_recplan_t fs_rec;
	int fs_held;			/* dropping until the ENABLE ends */
	uint32_t fs_ptype, fs_eat;	/* how its programs load */
	int fs_uprobe;			/* a uprobe's: never held, no plan
					 * keyed on arguments with kernel
					 * thread-locals (see
					 * prov_bpf_fload_uprobe) */
} fslot_t;

/*
 * The state of bpf_filter.c: one instance (filt), passed to the helpers
 * below (watch and fstart, called back without an argument, take it
 * themselves).  Each field names what guards it; the lock order is at
 * the top.
 */
typedef struct filt_state {
	pthread_mutex_t flk;		/* fslots[], fgen[] writes, and what
					 * is installed in the maps */
	pthread_once_t fonce;		/* makes the two maps (fstart) */
	fslot_t *fslots[MAX_FSLOTS];	/* flk */
	int progarray;			/* fonce: the stubs' tail-call array */
	int genmap;			/* fonce: slot -> its live stub's
					 * generation */
	uint32_t fgen[MAX_FSLOTS];	/* flk for writes; a slot's owner
					 * (under bpf.c's slot_lk) may read
					 * its entry */
} filt_state_t;

static filt_state_t filt = {
	.flk = PTHREAD_MUTEX_INITIALIZER,
	.fonce = PTHREAD_ONCE_INIT,
	.progarray = -1,
	.genmap = -1,
};

/* ---- loading and replacing ---- */

static int array_set(int map, int slot, int pfd)
{
	union bpf_attr at;
	uint32_t key = (uint32_t)slot;

	memset(&at, 0, sizeof(at));
	at.map_fd = (uint32_t)map;
	at.key = (uint64_t)(uintptr_t)&key;
	if (pfd < 0)
		return (int)prov_bpf_call(BPF_MAP_DELETE_ELEM, &at);
	at.value = (uint64_t)(uintptr_t)&pfd;
	return (int)prov_bpf_call(BPF_MAP_UPDATE_ELEM, &at);
}

/* Load body (nb instructions) behind filter f (none if it cannot be);
 * the program fd (*np: the filter's length, 0 if none) or -1. */
static int load_behind(const fslot_t *fs, const ks_filter_t *f,
    const struct bpf_insn *body, int nb, int *np)
{
	static struct bpf_insn prog[PROV_BPF_FMAX + PROV_BPF_AGGMAX + 288];
	int n = 0, pfd = -1;

	if (f != NULL && fs->fs_id != DTRACE_IDNONE &&
	    nb <= PROV_BPF_AGGMAX + 288)
		n = prov_bpf_filter_emit(prog, f, fs->fs_vars,
		    fs->fs_hasam ? &fs->fs_am : NULL);
	if (n > 0) {
		memcpy(prog + n, body, (size_t)nb * sizeof(*prog));
		pfd = prov_bpf_prog_load_as(prog, n + nb, fs->fs_ptype,
		    fs->fs_eat);
	}
	if (pfd < 0) {
		n = 0;
		pfd = prov_bpf_prog_load_as(body, nb, fs->fs_ptype, fs->fs_eat);
	}
	*np = n;
	return pfd;
}

/* Instructions at the start of the slot's body that every body must
 * keep: bpf_sys.c's prologue (drops 32-bit calls) in its arrays' bodies,
 * else none. */
static int body_prefix(filt_state_t *fl, const fslot_t *fs)
{
	struct bpf_insn p[32];
	int n;

	if (fs->fs_map == fl->progarray ||
	    (n = prov_bpf_sys_prologue(p)) <= 0 || n > 32 || n > fs->fs_n ||
	    memcmp(p, fs->fs_body, (size_t)n * sizeof(*p)) != 0)
		return 0;
	return n;
}

/* Does every term of filter f, as emitted for the slot, read the task's
 * comm into PROV_BPF_COMM_AT?  A body behind it then finds it there. */
static int filter_reads_comm(const fslot_t *fs, const ks_filter_t *f)
{
	const prov_bpf_argmap_t *am = fs->fs_hasam ? &fs->fs_am : NULL;

	if (f == NULL || !prov_bpf_filterable(f, fs->fs_vars, am))
		return 0;
	for (int t = 0; t < f->kf_nterms; t++) {
		const ks_filter_term_t *tm = &f->kf_terms[t];
		int found = 0;

		for (int i = 0; i < tm->kft_natoms &&
		    i < KS_FILTER_MAXATOMS; i++)
			found |= tm->kft_atoms[i].kfa_var == KS_FV_EXECNAME &&
			    tm->kft_atoms[i].kfa_arg == 0 &&
			    prov_bpf_atom_ok(&tm->kft_atoms[i], fs->fs_vars, am);
		if (!found)
			return 0;
	}
	return 1;
}

#define AGG_ROOM (PROV_BPF_AGGMAX + 32 + 256)	/* prefix, body, record
						 * body behind it */

/* The record body behind an aggregating body of plan that falls through
 * to it (prov_bpf_agg_fallback), at p; its length, or -1 if it does not
 * fit in room. */
static int agg_tail(const fslot_t *fs, int pre, int plan,
    struct bpf_insn *p, int room)
{
	if (!prov_bpf_agg_fallback(plan))
		return 0;
	if (fs->fs_n - pre > room)
		return -1;
	memcpy(p, fs->fs_body + pre, (size_t)(fs->fs_n - pre) * sizeof(*p));
	return fs->fs_n - pre;
}

/* The aggregating body of plan ap for the slot, behind the body's
 * prefix, into p (room for AGG_ROOM); its length (0: none) and plan id
 * in *plan.  comm: the filter in front leaves the comm at
 * PROV_BPF_COMM_AT. */
static int agg_body(filt_state_t *fl, const fslot_t *fs, const ks_aggplan_t *ap,
    int comm, struct bpf_insn *p, int *plan)
{
	int pre = body_prefix(fl, fs), na, nt;

	memcpy(p, fs->fs_body, (size_t)pre * sizeof(*p));
	na = prov_bpf_agg_body(p + pre, fs->fs_id, ap, fs->fs_vars,
	    fs->fs_hasam ? &fs->fs_am : NULL, comm ? PROV_BPF_COMM_AT : 0,
	    plan);
	if (na <= 0 || (nt = agg_tail(fs, pre, *plan, p + pre + na,
	    AGG_ROOM - pre - na)) < 0)
		return 0;
	return na + pre + nt;
}

/* The record body of plan rp behind the slot's prefix, loaded behind
 * filter f (which must be in front when the plan has a predicate): the
 * program fd, or -1. */
static int rec_load(filt_state_t *fl, const fslot_t *fs, const ks_filter_t *f,
    const ks_recplan_t *rp, struct bpf_insn *p, int *np)
{
	int pre = body_prefix(fl, fs), nr, pfd;

	memcpy(p, fs->fs_body, (size_t)pre * sizeof(*p));
	nr = prov_bpf_rec_body(p + pre, rp, fs->fs_id, fs->fs_body, fs->fs_n,
	    fs->fs_hasam ? &fs->fs_am : NULL);
	if (nr <= 0 || (rp->krp_pred && f == NULL))
		return -1;
	pfd = load_behind(fs, f, p, pre + nr, np);
	if (pfd >= 0 && rp->krp_pred && *np == 0) {
		close(pfd);		/* the predicate would not be run */
		pfd = -1;
	}
	return pfd;
}

/* Load the slot's body (the aggregating one for plan ap if not NULL and
 * it can be made, behind the body's prefix; else the kernel record body
 * of plan rp if not NULL) behind filter f into the array.  0, or -1 if
 * not even the plain record body went in. */
static int install(filt_state_t *fl, int slot, fslot_t *fs,
    const ks_filter_t *f, const ks_aggplan_t *ap, const ks_recplan_t *rp)
{
	static struct bpf_insn abody[AGG_ROOM];
	int n = 0, na = 0, plan = -1, pfd = -1, rc, comm = 0, hasrec = 0;

	if (ap != NULL && fs->fs_id != DTRACE_IDNONE) {
		comm = filter_reads_comm(fs, f);
		if ((na = agg_body(fl, fs, ap, comm, abody, &plan)) > 0)
			pfd = load_behind(fs, f, abody, na, &n);
		if (pfd >= 0 && comm && n == 0) {	/* no filter in front: */
			close(pfd);			/* no comm there */
			pfd = -1;
		}
		if (pfd < 0 && comm) {
			comm = 0;
			if ((na = agg_body(fl, fs, ap, 0, abody, &plan)) > 0)
				pfd = load_behind(fs, f, abody, na, &n);
		}
	}
	if (pfd < 0 && ap == NULL && rp != NULL)
		hasrec = (pfd = rec_load(fl, fs, f, rp, abody, &n)) >= 0;
	if (pfd < 0) {
		if (ap != NULL && ap->kap_nkc > 0)	/* self-> to the shim */
			prov_bpf_tls_veto_later(ap->kap_tlsstate);
		na = 0;
		comm = 0;
		pfd = load_behind(fs, f, fs->fs_body, fs->fs_n, &n);
	}
	if (pfd < 0)
		return -1;
	if (na > 0)			/* before it can count: see bpf_agg.c */
		prov_bpf_agg_hold(plan);
	rc = array_set(fs->fs_map, fs->fs_key, pfd);
	close(pfd);
	if (rc != 0) {
		if (na > 0)
			prov_bpf_agg_release(plan);
		return -1;
	}
	if (fs->fs_plan > 0)		/* the old program is out */
		prov_bpf_agg_release(fs->fs_plan);
	memset(&fs->fs_cur, 0, sizeof(fs->fs_cur));
	if (n > 0)
		fs->fs_cur = *f;
	fs->fs_cur.kf_always = n == 0;
	memset(&fs->fs_agg, 0, sizeof(fs->fs_agg));
	fs->fs_plan = na > 0 ? plan : -1;
	if (na > 0)
		fs->fs_agg = *ap;
	fs->fs_aggid = fs->fs_id;
	fs->fs_aggcomm = comm;
	fs->fs_hasrec = hasrec;
	memset(&fs->fs_rec, 0, sizeof(fs->fs_rec));
	if (hasrec)
		fs->fs_rec = *rp;
	return 0;
}

/* Tests: a filter in place of the shim's (a probe with no ECBs would
 * otherwise be unfiltered, and a flood from another copy of the test
 * would reach its rings). */
static int (*filter_hook)(dtrace_id_t, ks_filter_t *);	/* atomic */

void prov_bpf_filter_set_hook(int (*fn)(dtrace_id_t id, ks_filter_t *out))
{
	__atomic_store_n(&filter_hook, fn, __ATOMIC_RELEASE);
}

/* The filter of probe id: the test hook's, else the shim's. */
static int probe_filter(dtrace_id_t id, ks_filter_t *out)
{
	int (*fn)(dtrace_id_t, ks_filter_t *) =
	    __atomic_load_n(&filter_hook, __ATOMIC_ACQUIRE);

	if (fn != NULL) {
		memset(out, 0, sizeof(*out));
		out->kf_gen = ks_filter_gen();
		return fn(id, out);
	}
	return ks_probe_filter(id, out);
}

static int same(const ks_filter_t *a, const ks_filter_t *b)
{
	if (a->kf_always || b->kf_always)
		return a->kf_always == b->kf_always;
	return a->kf_nterms == b->kf_nterms && memcmp(a->kf_terms,
	    b->kf_terms, (size_t)a->kf_nterms * sizeof(a->kf_terms[0])) == 0;
}

/* The OR of a shared slot's probes' filters, rewritten for its program
 * (fs_vars and fs_am become the merge's); kf_always if none. */
static void multi_filter(fslot_t *fs, ks_filter_t *out)
{
	static ks_filter_t each[PROV_BPF_MAXFP];
	int n = fs->fs_nmulti;

	for (int i = 0; i < n; i++)
		if (probe_filter(fs->fs_multi[i].pbp_id, &each[i]) != 0)
			each[i].kf_always = 1;
	if (prov_bpf_filter_merge(fs->fs_multi, each, n, out,
	    &fs->fs_am) != 0)
		out->kf_always = 1;
	fs->fs_vars = PROV_FV_ALL;
	fs->fs_hasam = 1;
}

/* Does the slot run the aggregating body of plan ap (NULL: records)? */
static int same_agg(const fslot_t *fs, const ks_aggplan_t *ap)
{
	if (ap == NULL || fs->fs_plan < 0)
		return ap == NULL && fs->fs_plan < 0;
	return fs->fs_aggid == fs->fs_id &&
	    fs->fs_agg.kap_vars == ap->kap_vars &&
	    fs->fs_agg.kap_args == ap->kap_args &&
	    fs->fs_agg.kap_strs == ap->kap_strs;
}

/* Does the slot run the record body of plan rp (NULL: none)? */
static int same_rec(const fslot_t *fs, const ks_recplan_t *rp)
{
	if (rp == NULL || !fs->fs_hasrec)
		return rp == NULL && !fs->fs_hasrec;
	return fs->fs_rec.krp_serial == rp->krp_serial &&
	    fs->fs_rec.krp_epid == rp->krp_epid &&
	    fs->fs_rec.krp_size == rp->krp_size && fs->fs_aggid == fs->fs_id;
}

static int noop_prog(void);

/* Must the slot drop everything now: an ENABLE is pending and none of
 * its probes has an ECB (see the top; flk)? */
static int must_hold(const fslot_t *fs)
{
	if (fs->fs_id == DTRACE_IDNONE || fs->fs_uprobe ||
	    !ks_filter_pending())
		return 0;
	if (fs->fs_nmulti == 0)
		return !ks_probe_busy(fs->fs_id);
	for (int i = 0; i < fs->fs_nmulti; i++)
		if (ks_probe_busy(fs->fs_multi[i].pbp_id))
			return 0;
	return 1;
}

/* Hold the slot: the do-nothing program in its entry (flk).  Its
 * installed filter reads "unknown" so that the next refilter installs. */
static void hold(fslot_t *fs)
{
	if (fs->fs_held || noop_prog() < 0 ||
	    array_set(fs->fs_map, fs->fs_key, noop_prog()) != 0)
		return;
	fs->fs_held = 1;
	memset(&fs->fs_cur, 0, sizeof(fs->fs_cur));
	fs->fs_cur.kf_nterms = -1;
	if (fs->fs_plan > 0)		/* the old program is out */
		prov_bpf_agg_release(fs->fs_plan);
	fs->fs_plan = -1;
	fs->fs_aggcomm = 0;
	memset(&fs->fs_agg, 0, sizeof(fs->fs_agg));
	fs->fs_hasrec = 0;
}

/* Bring slot's program up to its probe's filter and plan now (flk);
 * 1 if it stopped counting under a plan it counted under before. */
static int refilter(filt_state_t *fl, int slot)
{
	fslot_t *fs = fl->fslots[slot];
	ks_aggplan_t ap;
	ks_recplan_t rp;
	ks_filter_t f;
	int agg, was, planned, rec;

	if (fs == NULL)
		return 0;
	if (must_hold(fs)) {
		was = fs->fs_plan;
		hold(fs);
		return was >= 0 && fs->fs_plan != was;
	}
	if (fs->fs_nmulti > 0)
		multi_filter(fs, &f);
	else if (fs->fs_id == DTRACE_IDNONE ||
	    probe_filter(fs->fs_id, &f) != 0)
		f.kf_always = 1;
	planned = fs->fs_id != DTRACE_IDNONE && fs->fs_nmulti == 0 &&
	    prov_bpf_agg_plan(fs->fs_id, &ap) == 0;
	agg = planned && prov_bpf_agg_fits(&ap, fs->fs_vars, fs->fs_hasam ?
	    &fs->fs_am : NULL) &&
	    !(fs->fs_uprobe && (ap.kap_strs || (ap.kap_args &&
	    ap.kap_nkc > 0)));
	if (planned && !agg && ap.kap_ok && ap.kap_nkc > 0)
		prov_bpf_tls_veto_later(ap.kap_tlsstate);
	rec = !agg && fs->fs_id != DTRACE_IDNONE && fs->fs_nmulti == 0 &&
	    !fs->fs_uprobe && prov_bpf_rec_plan(fs->fs_id, fs->fs_vars,
	    fs->fs_hasam ? &fs->fs_am : NULL, f.kf_always ? NULL : &f, &rp);
	if (same(&f, &fs->fs_cur) && same_agg(fs, agg ? &ap : NULL) &&
	    same_rec(fs, rec ? &rp : NULL))
		return 0;
	was = fs->fs_plan;
	if (install(fl, slot, fs, f.kf_always ? NULL : &f,
	    agg ? &ap : NULL, rec ? &rp : NULL) == 0)
		fs->fs_held = 0;
	/* install() falls back to the plain body; if even that cannot
	 * load, the old program stays (the body never changes; a held
	 * slot stays held and is retried at the next change) */
	return was >= 0 && fs->fs_plan != was;
}

/* The ECBs changed.  Counts made under a plan that is no longer
 * installed are fired now, before new ECBs (an ENABLE begins: every plan
 * reads "not ok") can see them with values the old key lacked.  A slot
 * that could not lower its kernel clauses vetoes them (bpf_tls.c): every
 * plan of that consumer changes, so all slots are brought up again (a
 * veto is for good, so this ends).  The shim may be calling this as its
 * watcher: nothing here calls the watcher back. */
static void watch(void)
{
	filt_state_t *fl = &filt;
	int stopped = 0;

	do {
		pthread_mutex_lock(&fl->flk);
		for (int s = 0; s < MAX_FSLOTS; s++)
			if (fl->fslots[s] != NULL &&
			    fl->fslots[s]->fs_id != DTRACE_IDNONE)
				stopped |= refilter(fl, s);
		pthread_mutex_unlock(&fl->flk);
	} while (prov_bpf_tls_veto_flush());
	if (stopped)
		prov_bpf_agg_drain(1);
}

static void fstart(void)
{
	filt_state_t *fl = &filt;

	fl->progarray = prov_bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, 4, 4,
	    MAX_FSLOTS, 0);
	fl->genmap = fl->progarray >= 0 ? prov_bpf_map_create(
	    BPF_MAP_TYPE_ARRAY, 4, 4, MAX_FSLOTS, 0) : -1;
	if (fl->genmap < 0 && fl->progarray >= 0) {
		close(fl->progarray);
		fl->progarray = -1;
	}
	if (fl->progarray >= 0)
		ks_filter_watch(watch);
}

/* genmap[slot] = gen (0: no stub may tail-call slot); 0 or -1. */
static int gen_set(filt_state_t *fl, int slot, uint32_t gen)
{
	union bpf_attr at;
	uint32_t key = (uint32_t)slot;

	memset(&at, 0, sizeof(at));
	at.map_fd = (uint32_t)fl->genmap;
	at.key = (uint64_t)(uintptr_t)&key;
	at.value = (uint64_t)(uintptr_t)&gen;
	return (int)prov_bpf_call(BPF_MAP_UPDATE_ELEM, &at);
}

/* The stub: if genmap[slot] == gen, tail_call(ctx, progarray, slot);
 * return 1 */
static int attach_stub(filt_state_t *fl, int tpid, int slot, uint32_t gen)
{
	struct bpf_insn p[17];

	p[0] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[1] = ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, slot);
	p[2] = ins(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0,
	    fl->genmap);
	p[3] = ins(0, 0, 0, 0, 0);
	p[4] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	p[5] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4);
	p[6] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	p[7] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 7, 0);
	p[8] = ins(BPF_LDX | BPF_MEM | BPF_W, 1, 0, 0, 0);
	p[9] = ins(BPF_JMP32 | BPF_JNE | BPF_K, 1, 0, 5, (int32_t)gen);
	p[10] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[11] = ins(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0,
	    fl->progarray);
	p[12] = ins(0, 0, 0, 0, 0);
	p[13] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, slot);
	p[14] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call);
	p[15] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
	p[16] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return prov_bpf_load_attach(p, 17, (uint64_t)tpid);
}

static fslot_t *fslot_new(const struct bpf_insn *body, int n, int map,
    int key)
{
	fslot_t *fs = calloc(1, sizeof(*fs));

	if (fs == NULL)
		return NULL;
	fs->fs_body = malloc((size_t)n * sizeof(*body));
	if (fs->fs_body == NULL) {
		free(fs);
		return NULL;
	}
	memcpy(fs->fs_body, body, (size_t)n * sizeof(*body));
	fs->fs_n = n;
	fs->fs_id = DTRACE_IDNONE;
	fs->fs_map = map;
	fs->fs_key = key;
	fs->fs_plan = -1;
	fs->fs_ptype = BPF_PROG_TYPE_TRACEPOINT;
	return fs;
}

/* Free a slot whose program is out of the array (or never went in). */
static void fslot_free(fslot_t *fs)
{
	if (fs->fs_plan > 0)
		prov_bpf_agg_release(fs->fs_plan);
	free(fs->fs_multi);
	free(fs->fs_body);
	free(fs);
}

int prov_bpf_fload(const struct bpf_insn *body, int n, int tpid, int slot)
{
	filt_state_t *fl = &filt;
	fslot_t *fs;
	int efd = -1;

	pthread_once(&fl->fonce, fstart);
	if (fl->progarray < 0 || slot < 0 || slot >= MAX_FSLOTS || n <= 0 ||
	    (fs = fslot_new(body, n, fl->progarray, slot)) == NULL)
		return -1;
	pthread_mutex_lock(&fl->flk);
	if (++fl->fgen[slot] == 0)
		fl->fgen[slot] = 1;
	if (install(fl, slot, fs, NULL, NULL, NULL) == 0 &&
	    gen_set(fl, slot, fl->fgen[slot]) == 0 &&
	    (efd = attach_stub(fl, tpid, slot, fl->fgen[slot])) >= 0) {
		fl->fslots[slot] = fs;
	} else {
		(void)gen_set(fl, slot, 0);
		(void)array_set(fl->progarray, slot, -1);
		fslot_free(fs);
	}
	pthread_mutex_unlock(&fl->flk);
	return efd;
}

/* Install a loaded slot's program and keep it (freed if refused).  The
 * tracepoint and uprobe loaders share this. */
static int fslot_install(filt_state_t *fl, int slot, fslot_t *fs)
{
	int rc = -1;

	pthread_mutex_lock(&fl->flk);
	if (install(fl, slot, fs, NULL, NULL, NULL) == 0) {
		fl->fslots[slot] = fs;
		rc = 0;
	} else {
		fslot_free(fs);
	}
	pthread_mutex_unlock(&fl->flk);
	return rc;
}

int prov_bpf_fload_at(const struct bpf_insn *body, int n, int map, int key,
    int slot)
{
	filt_state_t *fl = &filt;
	fslot_t *fs;

	pthread_once(&fl->fonce, fstart);
	if (map < 0 || key < 0 || slot < 0 || slot >= MAX_FSLOTS || n <= 0 ||
	    (fs = fslot_new(body, n, map, key)) == NULL)
		return -1;
	return fslot_install(fl, slot, fs);
}

int prov_bpf_fload_uprobe(const struct bpf_insn *body, int n, int map,
    int key, int slot)
{
	filt_state_t *fl = &filt;
	fslot_t *fs;

	pthread_once(&fl->fonce, fstart);
	if (map < 0 || key < 0 || slot < PROV_BPF_USLOT0 ||
	    slot >= MAX_FSLOTS || n <= 0 ||
	    (fs = fslot_new(body, n, map, key)) == NULL)
		return -1;
	fs->fs_ptype = BPF_PROG_TYPE_KPROBE;
	fs->fs_eat = 48;		/* BPF_TRACE_UPROBE_MULTI (6.6) */
	/* a uprobe placed during an ENABLE may be hit at once: those hits
	 * are owed to the ECBs being made.  A user function's arguments
	 * are often all distinct (pointers, counters): a plan keyed on them
	 * spills (PROV_FV_SPILL, in the caller's vars) past a budget of
	 * keys to records, which are exact; so a plan that also runs
	 * kernel clauses (which cannot spill: their self-> stores ran) is
	 * not keyed on arguments here.  Kernel thread-locals need every
	 * probe of their clauses placed: prov_uprobe_settle */
	fs->fs_uprobe = 1;
	return fslot_install(fl, slot, fs);
}

int prov_bpf_frevive(const struct bpf_insn *body, int n, int slot)
{
	filt_state_t *fl = &filt;
	fslot_t *fs;
	int rc = -1;

	if (fl->progarray < 0 || slot < 0 || slot >= MAX_FSLOTS || n <= 0 ||
	    fl->fgen[slot] == 0 ||
	    (fs = fslot_new(body, n, fl->progarray, slot)) == NULL)
		return -1;
	pthread_mutex_lock(&fl->flk);
	if (fl->fslots[slot] == NULL &&
	    install(fl, slot, fs, NULL, NULL, NULL) == 0 &&
	    gen_set(fl, slot, fl->fgen[slot]) == 0) {
		fl->fslots[slot] = fs;
		rc = 0;
	} else {
		if (fl->fslots[slot] == NULL)
			(void)gen_set(fl, slot, 0);
		fslot_free(fs);
	}
	pthread_mutex_unlock(&fl->flk);
	return rc;
}

/* The program an unloaded shared-array entry holds: return 1. */
static int noop_prog(void)
{
	static int fd = -1;
	struct bpf_insn p[2];

	if (fd < 0) {
		p[0] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
		p[1] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		fd = prov_bpf_prog_load(p, 2);
	}
	return fd;
}

void prov_bpf_funload(int slot)
{
	filt_state_t *fl = &filt;
	fslot_t *fs;

	if (slot < 0 || slot >= MAX_FSLOTS)
		return;
	pthread_mutex_lock(&fl->flk);
	fs = fl->fslots[slot];
	fl->fslots[slot] = NULL;
	if (fs != NULL && fs->fs_map == fl->progarray)
		(void)gen_set(fl, slot, 0);	/* its stub goes inert first */
	if (fs != NULL && (fs->fs_map != fl->progarray || noop_prog() < 0 ||
	    array_set(fs->fs_map, fs->fs_key, noop_prog()) != 0))
		(void)array_set(fs->fs_map, fs->fs_key, -1);
	pthread_mutex_unlock(&fl->flk);
	if (fs != NULL)
		fslot_free(fs);
}

void prov_bpf_filter_probe(int att, dtrace_id_t id, unsigned vars,
    const prov_bpf_argmap_t *am)
{
	filt_state_t *fl = &filt;
	fslot_t *fs;

	if (att < 0 || att >= MAX_FSLOTS)
		return;
	pthread_mutex_lock(&fl->flk);
	if ((fs = fl->fslots[att]) != NULL) {
		if (fs->fs_nmulti == 0 && fs->fs_id != id)
			ks_probe_kplan_able(fs->fs_id, 0);
		/* kernel clauses need every hit to fire the probe once, with
		 * the task's tid (bpf_tls.c keys self-> on it) */
		ks_probe_kplan_able(id, (vars & PROV_FV_ONE) &&
		    (vars & PROV_FV(KS_FV_TID)));
		free(fs->fs_multi);
		fs->fs_multi = NULL;
		fs->fs_nmulti = 0;
		fs->fs_id = id;
		fs->fs_vars = vars;
		fs->fs_hasam = am != NULL;
		if (am != NULL)
			fs->fs_am = *am;
		refilter(fl, att);
	}
	pthread_mutex_unlock(&fl->flk);
	if (prov_bpf_tls_veto_flush())
		watch();
}

void prov_bpf_filter_probes(int att, const prov_bpf_fprobe_t *p, int n)
{
	filt_state_t *fl = &filt;
	prov_bpf_fprobe_t *copy = NULL;
	fslot_t *fs;

	if (att < 0 || att >= MAX_FSLOTS)
		return;
	if (n > PROV_BPF_MAXFP)
		n = 0;			/* too many: no filter */
	if (n > 0 && (copy = malloc((size_t)n * sizeof(*p))) == NULL)
		n = 0;
	if (n > 0)
		memcpy(copy, p, (size_t)n * sizeof(*p));
	pthread_mutex_lock(&fl->flk);
	if ((fs = fl->fslots[att]) != NULL) {
		if (fs->fs_nmulti == 0)
			ks_probe_kplan_able(fs->fs_id, 0);
		free(fs->fs_multi);
		fs->fs_multi = copy;
		fs->fs_nmulti = n;
		fs->fs_id = n > 0 ? p[0].pbp_id : DTRACE_IDNONE;
		copy = NULL;
		/* another probe set: reinstall even if the terms match */
		fs->fs_cur.kf_always = 0;
		fs->fs_cur.kf_nterms = -1;
		refilter(fl, att);
	}
	pthread_mutex_unlock(&fl->flk);
	free(copy);
	if (prov_bpf_tls_veto_flush())
		watch();
}

int prov_bpf_filter_prog(int slot, struct bpf_insn *out, int max)
{
	filt_state_t *fl = &filt;
	fslot_t *fs;
	int n = -1;

	if (slot < 0 || slot >= MAX_FSLOTS)
		return -1;
	pthread_mutex_lock(&fl->flk);
	if ((fs = fl->fslots[slot]) != NULL && fs->fs_held) {
		n = max >= 2 ? 2 : -1;	/* the do-nothing program */
		if (n == 2) {
			out[0] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
			out[1] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		}
	} else if (fs != NULL) {
		n = fs->fs_cur.kf_always ? 0 : prov_bpf_filter_emit(out,
		    &fs->fs_cur, fs->fs_vars, fs->fs_hasam ? &fs->fs_am :
		    NULL);
		if (fs->fs_plan > 0 && n + AGG_ROOM <= max) {
			int pre = body_prefix(fl, fs), nt;

			memcpy(out + n, fs->fs_body,
			    (size_t)pre * sizeof(*out));
			n += pre;
			n += prov_bpf_agg_reemit(out + n, fs->fs_plan,
			    fs->fs_aggcomm ? PROV_BPF_COMM_AT : 0);
			nt = agg_tail(fs, pre, fs->fs_plan, out + n,
			    max - n);
			n += nt > 0 ? nt : 0;
		}
		else if (fs->fs_plan <= 0 && n + fs->fs_n <= max) {
			memcpy(out + n, fs->fs_body,
			    (size_t)fs->fs_n * sizeof(*out));
			n += fs->fs_n;
		}
	}
	pthread_mutex_unlock(&fl->flk);
	return n;
}

int prov_bpf_filter_agg(int slot)
{
	filt_state_t *fl = &filt;
	int plan = -1;

	if (slot < 0 || slot >= MAX_FSLOTS)
		return -1;
	pthread_mutex_lock(&fl->flk);
	if (fl->fslots[slot] != NULL)
		plan = fl->fslots[slot]->fs_plan;
	pthread_mutex_unlock(&fl->flk);
	return plan;
}

int prov_bpf_filter_find(dtrace_id_t id)
{
	filt_state_t *fl = &filt;
	int slot = -1;

	pthread_mutex_lock(&fl->flk);
	for (int s = 0; s < MAX_FSLOTS && slot < 0; s++)
		if (fl->fslots[s] != NULL && fl->fslots[s]->fs_id == id)
			slot = s;
	pthread_mutex_unlock(&fl->flk);
	return slot;
}

/* The entries of ids[] (sorted by id through ix) that are probe id:
 * mark each as run at least as far in the kernel as r. */
static void mark(const uint32_t *ids, const size_t *ix, size_t n,
    dtrace_id_t id, uint8_t r, uint8_t *runs)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ids[ix[mid]] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && ids[ix[lo]] == id; lo++)
		if (runs[ix[lo]] < r)
			runs[ix[lo]] = r;
}

static int by_id(const void *a, const void *b, void *ids)
{
	uint32_t x = ((const uint32_t *)ids)[*(const size_t *)a];
	uint32_t y = ((const uint32_t *)ids)[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

void prov_probe_runs(const uint32_t *ids, uint8_t *runs, size_t n)
{
	filt_state_t *fl = &filt;
	size_t *ix = malloc(n * sizeof(*ix) + 1);

	memset(runs, PROV_RUN_SHIM, n);
	if (ix == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), by_id, (void *)ids);
	pthread_mutex_lock(&fl->flk);
	for (int s = 0; s < MAX_FSLOTS; s++) {
		const fslot_t *fs = fl->fslots[s];
		uint8_t r;

		if (fs == NULL || fs->fs_held)
			continue;
		r = fs->fs_plan >= 0 ? PROV_RUN_KAGG : !fs->fs_cur.kf_always ?
		    PROV_RUN_KFILTER : PROV_RUN_SHIM;
		if (r == PROV_RUN_SHIM)
			continue;
		if (fs->fs_nmulti == 0 && fs->fs_id != DTRACE_IDNONE)
			mark(ids, ix, n, fs->fs_id, r, runs);
		for (int i = 0; i < fs->fs_nmulti; i++)
			mark(ids, ix, n, fs->fs_multi[i].pbp_id, r, runs);
	}
	pthread_mutex_unlock(&fl->flk);
	free(ix);
}

void prov_bpf_filter_update(void)
{
	watch();
}
