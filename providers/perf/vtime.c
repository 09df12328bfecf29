/*
 * vtime.c - per-thread CPU time for vtimestamp on the perf route.
 *
 * vtimestamp is, as in illumos, the nanoseconds the firing thread has
 * spent on CPU since the accounting began; only differences between two
 * firings of one thread mean anything.  The accounting runs while an
 * enabled ECB loads vtimestamp (the shim's ks_wants_vtime, followed
 * through ks_vtime_watch): then this file subscribes to
 * sched:sched_switch, whose records the drain thread delivers merged in
 * timestamp order with every other sample, so each firing sees every
 * switch that happened before it.
 *
 * Central structure: the thread on each CPU {tid, since ns} and an
 * open-addressing table of threads {tid, accumulated ns, last value
 * given}.  A switch on CPU c credits the thread leaving c with the time
 * since c's previous switch and makes the entering thread c's.  Each
 * CPU's records come from that CPU's ring, in order, so the accounting
 * never depends on how records of different CPUs interleave; a firing on
 * CPU c adds the time its thread has been on c.  Some switches are never
 * reported (seen on Linux 6.18: threads whose switches out of a CPU no
 * tracer sees, perf or BPF), and records may be lost: a thread switching
 * out of, or firing on, a CPU where another thread X was thought to run
 * is taken to have run there since X came, an upper bound (X's share is
 * unknown; losing the thread's whole slice would be worse).  A thread
 * firing where none is known (the accounting just began) runs from then.  Only threads
 * that have fired a probe are counted, from their first firing on (at 0).
 * Values given for a thread never go down (the last one is kept).
 * Exited threads are forgotten (the task ring's EXIT records, perf.c); a
 * full table is emptied and threads start again from 0.
 *
 * Invariants: the tables are touched only by the drain thread (no lock).
 * The watcher runs on a consumer thread and only (un)subscribes and bumps
 * the generation, which makes the drain thread empty the tables before
 * their next use, so a new accounting period starts from 0.
 *
 * Losses: a sched_switch record lost in an overrun ring leaves a thread
 * counted on CPU (or off) until its next switch, so vtime is then
 * approximate; the losses are reported as drops like any other.  On the
 * ptrace route the helper reads each thread's exact CPU time at the stop
 * instead (ptrace.c); this table is not used there.
 */
#include <pthread.h>
#include <string.h>
#include "prov_impl.h"

#define VT_SLOTS 32768			/* power of two */
#define VT_MAXLIVE (VT_SLOTS / 4 * 3)
#define VT_CPUS 1024

typedef struct vtent {
	int32_t ve_tid;			/* 0: free */
	uint64_t ve_acc;		/* ns on CPU up to its last switch-out */
	uint64_t ve_last;		/* the last value given */
} vtent_t;

/*
 * The state of vtime.c: one instance (vt), passed to the helpers below
 * (to on_switch as its callback argument).  "Drain": touched only by
 * the drain thread, no lock (see Invariants above).
 */
typedef struct vtime_state {
	vtent_t table[VT_SLOTS];	/* drain: threads' CPU time */
	uint32_t nlive;			/* drain: entries in use */
	struct {
		int32_t cur;		/* the thread on the CPU, -1 unknown */
		uint64_t since;		/* since when (ns) */
	} cpus[VT_CPUS];		/* drain */
	uint32_t gen;			/* atomic, bumped under watchlk: the
					 * watcher's accounting period */
	uint32_t seen;			/* drain: the tables' period */
	int active;			/* watchlk for writes, atomic reads:
					 * subscribed to sched_switch */
	int use_ptrace;			/* set once by prov_vtime_init */
	pthread_mutex_t watchlk;	/* the watcher's (un)subscribing */
	int fprev, fnext;		/* drain: sched_switch field indexes,
					 * -2 until looked up */
} vtime_state_t;

static vtime_state_t vt = {
	.watchlk = PTHREAD_MUTEX_INITIALIZER,
	.fprev = -2, .fnext = -2,
};

static uint32_t slot_of(int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (VT_SLOTS - 1);
}

static vtent_t *find(vtime_state_t *vs, int32_t tid, int create)
{
	uint32_t i = slot_of(tid);

	for (; vs->table[i].ve_tid != 0; i = (i + 1) & (VT_SLOTS - 1))
		if (vs->table[i].ve_tid == tid)
			return &vs->table[i];
	if (!create)
		return NULL;
	if (vs->nlive >= VT_MAXLIVE) {
		memset(vs->table, 0, sizeof(vs->table));
		vs->nlive = 0;
		i = slot_of(tid);
	}
	vs->nlive++;
	memset(&vs->table[i], 0, sizeof(vs->table[i]));
	vs->table[i].ve_tid = tid;
	return &vs->table[i];
}

/* Start a new period if the watcher began one. */
static void sync_gen(vtime_state_t *vs)
{
	uint32_t g = __atomic_load_n(&vs->gen, __ATOMIC_ACQUIRE);

	if (g != vs->seen) {
		prov_vtime_reset();
		vs->seen = g;
	}
}

void prov_vtime_reset(void)
{
	vtime_state_t *vs = &vt;

	memset(vs->table, 0, sizeof(vs->table));
	vs->nlive = 0;
	for (int c = 0; c < VT_CPUS; c++) {
		vs->cpus[c].cur = -1;		/* unknown */
		vs->cpus[c].since = 0;
	}
}

/* CPU c's thread leaves at t: credit it if it is counted (it has fired
 * a probe: other threads need no account). */
static void leave(vtime_state_t *vs, uint32_t c, uint64_t t)
{
	vtent_t *e;

	if (vs->cpus[c].cur > 0 && t > vs->cpus[c].since &&
	    (e = find(vs, vs->cpus[c].cur, 0)) != NULL)
		e->ve_acc += t - vs->cpus[c].since;
}

void prov_vtime_switch(uint32_t cpu, int32_t prev, int32_t next, uint64_t t)
{
	vtime_state_t *vs = &vt;
	uint32_t c = cpu % VT_CPUS;

	sync_gen(vs);
	if (vs->cpus[c].cur > 0 && vs->cpus[c].cur != prev) {
		/* the switch from cur to prev was not seen: prev is given
		 * the time since cur came (a bound: cur's share is lost) */
		vs->cpus[c].cur = prev;
	}
	if (vs->cpus[c].cur == prev)
		leave(vs, c, t);
	vs->cpus[c].cur = next;
	vs->cpus[c].since = t;
}

uint64_t prov_vtime_get(uint32_t cpu, int32_t tid, uint64_t t, int running)
{
	vtime_state_t *vs = &vt;
	uint32_t c = cpu % VT_CPUS;
	uint64_t v;
	vtent_t *e;

	sync_gen(vs);
	if (tid <= 0)
		return 0;
	if (running && vs->cpus[c].cur != tid) {
		/* the switch from cur to tid was not seen: as in
		 * prov_vtime_switch, tid has run since cur came; with no
		 * thread known there, from now on */
		if (vs->cpus[c].cur <= 0)
			vs->cpus[c].since = t;
		vs->cpus[c].cur = tid;
	}
	if ((e = find(vs, tid, running)) == NULL)
		return 0;
	v = e->ve_acc;
	if (vs->cpus[c].cur == tid && t > vs->cpus[c].since)
		v += t - vs->cpus[c].since;
	if (v < e->ve_last)
		v = e->ve_last;
	e->ve_last = v;
	return v;
}

void prov_vtime_forget(int32_t tid)
{
	vtime_state_t *vs = &vt;
	uint32_t i, j, k;

	if (tid <= 0)
		return;
	for (i = slot_of(tid); vs->table[i].ve_tid != tid; i = (i + 1) &
	    (VT_SLOTS - 1))
		if (vs->table[i].ve_tid == 0)
			return;
	/* backward-shift deletion keeps every probe chain unbroken */
	for (j = i;;) {
		vs->table[i].ve_tid = 0;
		for (;;) {
			j = (j + 1) & (VT_SLOTS - 1);
			if (vs->table[j].ve_tid == 0) {
				vs->nlive--;
				return;
			}
			k = slot_of(vs->table[j].ve_tid);
			/* k cyclically in (i, j]: the entry stays */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		vs->table[i] = vs->table[j];
		i = j;
	}
}

int prov_vtime_active(void)
{
	vtime_state_t *vs = &vt;

	return __atomic_load_n(&vs->active, __ATOMIC_ACQUIRE);
}

/* Drain thread: a sched_switch record. */
static void on_switch(void *arg, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	vtime_state_t *vs = arg;

	(void)arg;
	if (vs->fprev == -2) {
		vs->fprev = prov_tracefs_field(fmt, "prev_pid");
		vs->fnext = prov_tracefs_field(fmt, "next_pid");
	}
	if (vs->fprev < 0 || vs->fnext < 0)
		return;
	prov_vtime_switch(s->pps_cpu,
	    (int32_t)prov_tracefs_int(&fmt->tff_fields[vs->fprev],
	    s->pps_raw, s->pps_rawlen),
	    (int32_t)prov_tracefs_int(&fmt->tff_fields[vs->fnext], s->pps_raw,
	    s->pps_rawlen), s->pps_time);
}

/* The shim's watcher: follow ks_wants_vtime().  Consumer thread, no shim
 * lock held. */
static void watch(void)
{
	vtime_state_t *vs = &vt;
	int want = ks_wants_vtime();

	pthread_mutex_lock(&vs->watchlk);
	if (vs->use_ptrace) {
		prov_ptrace_vtime(want);
	} else if (want && !vs->active) {
		__atomic_add_fetch(&vs->gen, 1, __ATOMIC_RELEASE);
		if (prov_tp_subscribe("sched", "sched_switch", DTRACE_IDNONE,
		    on_switch, vs) == 0)
			__atomic_store_n(&vs->active, 1, __ATOMIC_RELEASE);
		else
			prov_note("vtimestamp: no sched_switch, it stays 0");
	} else if (!want && vs->active) {
		__atomic_store_n(&vs->active, 0, __ATOMIC_RELEASE);
		prov_tp_unsubscribe("sched", "sched_switch", on_switch, vs);
	}
	pthread_mutex_unlock(&vs->watchlk);
}

void prov_vtime_init(int ptrace_route)
{
	vtime_state_t *vs = &vt;

	vs->use_ptrace = ptrace_route;
	ks_vtime_watch(watch);
}
