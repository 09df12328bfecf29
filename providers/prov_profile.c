/*
 * prov_profile.c - the profile provider: tick-N and profile-N.
 *
 * profile-N fires on every CPU: as root through perf cpu-clock sampling
 * on each CPU (arg0 the kernel pc, arg1 the user pc of the interrupted
 * thread); without privileges through one timer thread pinned to each CPU
 * (no pc).  tick-N fires every N on one CPU (TICK_CPU) in the interrupted
 * thread's context, as DTrace's cyclic does: as root it is profile-N's
 * perf route with the other CPUs' samples dropped (and the idle thread's
 * firings filled in, below); without privileges, on one timer thread (the
 * tick queue), in dtrace's own context.
 *
 * cpu-clock takes no samples on a CPU parked in idle (NOHZ, or a vCPU the
 * hypervisor halts), yet profile-N fires on every CPU at its rate whatever
 * the load.  So on the perf route the drain thread notes each CPU's last
 * firing (pp_last), and a filler thread fires what an idle CPU missed:
 * whenever a CPU's last firing is more than 1.5 periods older than the
 * horizon (FILL_LAG_NS before the start of the last drain pass: samples
 * older than that have been drained),
 * it fires at last + period as the idle thread (pid 0, execname "sched",
 * arg0 = arg1 = 0) and moves last on.  A probe's firings on a CPU stay in
 * time order (tick-N's records replayed in order): the filler and the
 * drain thread each collect and fire under firelk, and a sample at or
 * before a firing already filled in (written into its ring late, past
 * the margin) is not fired again.
 *
 * A timer queue (struct tq) is a thread with a list of entries, each an
 * enabled probe and its next deadline on CLOCK_MONOTONIC.  The thread
 * never fires with its lock held (the shim may call kpo_disable with its
 * own lock held).  Missed deadlines are not caught up: a late queue fires
 * once and schedules the next deadline from now.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "prov_impl.h"

#define MIN_PERIOD_NS 200000ull		/* 200us, as illumos profile */
#define MAX_FIRE 64			/* firings per queue pass */
#define FILL_NS 10000000ull		/* filler thread period */
#define FILL_LAG_NS 2000000ull		/* margin behind a drain pass */
#define MAX_FILLP 16			/* perf profile probes filled */
#define TICK_CPU 0			/* the CPU tick-N fires on */

typedef struct pprobe {
	int pp_kind;			/* PROV_PROFILE_TICK or _PROFILE */
	uint64_t pp_period;		/* ns */
	dtrace_id_t pp_id;
	prov_perf_src_t *pp_src;	/* perf route of profile-N */
	int pp_on;			/* timer entries exist */
	uint64_t *pp_last;		/* per CPU last firing (filllk) */
	uint64_t *pp_filled;		/* per CPU last filled firing (filllk;
					 * pp_last's second half) */
} pprobe_t;

typedef struct tentry {
	pprobe_t *te_probe;
	uint64_t te_next;
	struct tentry *te_link;
} tentry_t;

typedef struct tq {
	pthread_t tq_thr;
	int tq_started, tq_stop;
	int tq_cpu;			/* pinned CPU, or -1 */
	pthread_mutex_t tq_lock;
	pthread_cond_t tq_cond;		/* on CLOCK_MONOTONIC */
	tentry_t *tq_list;
} tq_t;

static ks_provider_id_t prov_id;
static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;
static tq_t tickq;
static tq_t *cpuq;			/* one per CPU, made on demand */
static int ncpuq;
/* the filler of idle CPUs' firings (perf route) */
static pthread_mutex_t filllk = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fillcv = PTHREAD_COND_INITIALIZER;
static pprobe_t *fillp[MAX_FILLP];
static pthread_t fillthr;
static int fill_started, fill_stop;
/* held across collecting and firing (taken before filllk; never by a
 * kpo_* op, so firing under it cannot deadlock with the shim; recursive:
 * a firing may flush) */
static pthread_mutex_t firelk = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static int fill_gap(pprobe_t *pp, uint32_t cpu, uint64_t t);

static const struct unit {
	const char *u_name;
	uint64_t u_ns;			/* 0: hz */
} units[] = {
	{ "", 0 }, { "hz", 0 }, { "ns", 1 }, { "nsec", 1 },
	{ "us", 1000 }, { "usec", 1000 }, { "ms", 1000000 },
	{ "msec", 1000000 }, { "s", 1000000000ull },
	{ "sec", 1000000000ull }, { "m", 60000000000ull },
	{ "min", 60000000000ull }, { "h", 3600000000000ull },
	{ "hour", 3600000000000ull }, { "d", 86400000000000ull },
	{ "day", 86400000000000ull },
};

int prov_profile_parse(const char *name, int *kind, uint64_t *period_ns,
    char *err, size_t errlen)
{
	const char *p;
	char *end;
	unsigned long long n;

	if (strncmp(name, "tick-", 5) == 0) {
		*kind = PROV_PROFILE_TICK;
		p = name + 5;
	} else if (strncmp(name, "profile-", 8) == 0) {
		*kind = PROV_PROFILE_PROFILE;
		p = name + 8;
	} else {
		snprintf(err, errlen, "profile probe \"%s\": name must be "
		    "tick-N or profile-N", name);
		return -1;
	}
	if (*p < '0' || *p > '9') {
		snprintf(err, errlen, "profile probe \"%s\": N must start "
		    "with a digit", name);
		return -1;
	}
	errno = 0;
	n = strtoull(p, &end, 10);
	if (errno != 0 || n == 0) {
		snprintf(err, errlen, "profile probe \"%s\": N must be a "
		    "positive number", name);
		return -1;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].u_name) != 0)
			continue;
		if (units[i].u_ns == 0)
			*period_ns = n > 1000000000ull ? 0 : 1000000000ull / n;
		else if (n > UINT64_MAX / units[i].u_ns)
			*period_ns = UINT64_MAX;
		else
			*period_ns = n * units[i].u_ns;
		if (*period_ns < MIN_PERIOD_NS) {
			snprintf(err, errlen, "profile probe \"%s\": interval "
			    "below the 200us minimum", name);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "profile probe \"%s\": unknown unit \"%s\" "
	    "(ns us ms s m h d hz)", name, end);
	return -1;
}

/* ---- timer queues ---- */

static void tq_init(tq_t *q, int cpu)
{
	pthread_condattr_t ca;

	memset(q, 0, sizeof(*q));
	q->tq_cpu = cpu;
	pthread_mutex_init(&q->tq_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->tq_cond, &ca);
	pthread_condattr_destroy(&ca);
}

/* Collect due entries into ids (at most MAX_FIRE); return the count and
 * the earliest next deadline in *nextp.  Called with the lock held. */
static int tq_due(tq_t *q, uint64_t now, dtrace_id_t *ids, uint64_t *nextp)
{
	int n = 0;

	*nextp = UINT64_MAX;
	for (tentry_t *e = q->tq_list; e != NULL; e = e->te_link) {
		if (e->te_next <= now && n < MAX_FIRE) {
			ids[n++] = e->te_probe->pp_id;
			e->te_next += e->te_probe->pp_period;
			if (e->te_next <= now)
				e->te_next = now + e->te_probe->pp_period;
		}
		if (e->te_next < *nextp)
			*nextp = e->te_next;
	}
	return n;
}

static void tq_fire(tq_t *q, const dtrace_id_t *ids, int n)
{
	for (int i = 0; i < n; i++) {
		ks_probe_ctx_t ctx;
		int cpu = sched_getcpu();

		ks_probe_ctx_self(&ctx, ids[i]);
		ctx.kpc_cpu = q->tq_cpu >= 0 ? (uint32_t)q->tq_cpu :
		    (uint32_t)(cpu < 0 ? 0 : cpu);
		prov_fire(&ctx);
	}
}

static void *tq_main(void *arg)
{
	tq_t *q = arg;
	dtrace_id_t ids[MAX_FIRE];

	if (q->tq_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(q->tq_cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_mutex_lock(&q->tq_lock);
	while (!q->tq_stop) {
		uint64_t next;
		int n = tq_due(q, ks_gethrtime(), ids, &next);

		if (n > 0) {
			pthread_mutex_unlock(&q->tq_lock);
			tq_fire(q, ids, n);
			pthread_mutex_lock(&q->tq_lock);
			continue;
		}
		if (next == UINT64_MAX) {
			pthread_cond_wait(&q->tq_cond, &q->tq_lock);
		} else {
			struct timespec ts = { (time_t)(next / 1000000000ull),
			    (long)(next % 1000000000ull) };
			pthread_cond_timedwait(&q->tq_cond, &q->tq_lock, &ts);
		}
	}
	pthread_mutex_unlock(&q->tq_lock);
	return NULL;
}

static int tq_add(tq_t *q, pprobe_t *pp)
{
	tentry_t *e = calloc(1, sizeof(*e));

	if (e == NULL) {
		ks_provider_error("profile: out of memory");
		return -1;
	}
	e->te_probe = pp;
	pthread_mutex_lock(&q->tq_lock);
	e->te_next = ks_gethrtime() + pp->pp_period;
	e->te_link = q->tq_list;
	q->tq_list = e;
	if (!q->tq_started) {
		q->tq_stop = 0;
		if (pthread_create(&q->tq_thr, NULL, tq_main, q) != 0) {
			q->tq_list = e->te_link;
			pthread_mutex_unlock(&q->tq_lock);
			free(e);
			ks_provider_error("profile: cannot start timer thread");
			return -1;
		}
		q->tq_started = 1;
	}
	pthread_cond_signal(&q->tq_cond);
	pthread_mutex_unlock(&q->tq_lock);
	return 0;
}

static void tq_remove(tq_t *q, pprobe_t *pp)
{
	pthread_mutex_lock(&q->tq_lock);
	for (tentry_t **ep = &q->tq_list; *ep != NULL; ) {
		tentry_t *e = *ep;

		if (e->te_probe == pp) {
			*ep = e->te_link;
			free(e);
		} else {
			ep = &e->te_link;
		}
	}
	pthread_cond_signal(&q->tq_cond);
	pthread_mutex_unlock(&q->tq_lock);
}

static void tq_stop(tq_t *q)
{
	pthread_mutex_lock(&q->tq_lock);
	if (!q->tq_started) {
		pthread_mutex_unlock(&q->tq_lock);
		return;
	}
	q->tq_stop = 1;
	pthread_cond_signal(&q->tq_cond);
	pthread_mutex_unlock(&q->tq_lock);
	pthread_join(q->tq_thr, NULL);
	q->tq_started = 0;
	while (q->tq_list != NULL) {
		tentry_t *e = q->tq_list;

		q->tq_list = e->te_link;
		free(e);
	}
}

/* ---- profile-N ---- */

static void perf_tick(void *arg, const prov_perf_sample_t *s)
{
	pprobe_t *pp = arg;
	ks_probe_ctx_t ctx;

	if (pp->pp_kind == PROV_PROFILE_TICK && s->pps_cpu != TICK_CPU)
		return;
	pthread_mutex_lock(&firelk);
	if (fill_gap(pp, s->pps_cpu, s->pps_time) == 0) {
		prov_perf_ctx(&ctx, pp->pp_id, s);
		ctx.kpc_args[0] = s->pps_user ? 0 : s->pps_ip;
		ctx.kpc_args[1] = s->pps_user ? s->pps_ip : 0;
		prov_fire(&ctx);
	}
	pthread_mutex_unlock(&firelk);
}

/* ---- idle CPUs' firings on the perf route (see the top comment) ---- */

#define FILL_MAX 256			/* firings collected at once */

typedef struct fillev {
	dtrace_id_t fe_id;
	uint32_t fe_cpu;
	uint64_t fe_time;
} fillev_t;

/* Collect into out[n..max) the firings CPU c missed for pp before
 * horizon; the new n.  filllk held. */
static int fill_cpu(pprobe_t *pp, int c, uint64_t horizon, fillev_t *out,
    int n, int max)
{
	uint64_t per = pp->pp_period;

	if (pp->pp_kind == PROV_PROFILE_TICK && c != TICK_CPU)
		return n;
	while (n < max && pp->pp_last[c] + per + per / 2 < horizon) {
		pp->pp_last[c] += per;
		out[n].fe_id = pp->pp_id;
		out[n].fe_cpu = (uint32_t)c;
		out[n++].fe_time = pp->pp_last[c];
		pp->pp_filled[c] = pp->pp_last[c];
	}
	return n;
}

/* Collect the firings idle CPUs missed before horizon.  filllk held. */
static int fill_due(uint64_t horizon, fillev_t *out, int max)
{
	int n = 0, ncpu = prov_perf_ncpus();

	for (int i = 0; i < MAX_FILLP; i++)
		for (int c = 0; fillp[i] != NULL && c < ncpu; c++)
			n = fill_cpu(fillp[i], c, horizon, out, n, max);
	return n;
}

static void fill_fire(const fillev_t *ev, int n);

/* Drain thread, firelk held: a sample at t on cpu.  Fire what the CPU
 * missed since its last firing (the filler stays behind the drain
 * thread), then note t.  1 if the sample is not to fire: a firing filled
 * in already stands for it. */
static int fill_gap(pprobe_t *pp, uint32_t cpu, uint64_t t)
{
	fillev_t ev[FILL_MAX];
	int n;

	if (cpu >= (uint32_t)prov_perf_ncpus())
		return 0;
	do {
		pthread_mutex_lock(&filllk);
		if (pp->pp_last == NULL) {
			pthread_mutex_unlock(&filllk);
			return 0;
		}
		if (t <= pp->pp_filled[cpu]) {
			pthread_mutex_unlock(&filllk);
			return 1;
		}
		n = fill_cpu(pp, (int)cpu, t, ev, 0, FILL_MAX);
		if (n < FILL_MAX && t > pp->pp_last[cpu])
			pp->pp_last[cpu] = t;
		pthread_mutex_unlock(&filllk);
		fill_fire(ev, n);
	} while (n == FILL_MAX);
	return 0;
}

static void fill_fire(const fillev_t *ev, int n)
{
	uint64_t wall = ks_getwalltime() - ks_gethrtime();

	for (int i = 0; i < n; i++) {
		ks_probe_ctx_t ctx;

		memset(&ctx, 0, sizeof(ctx));
		ctx.kpc_id = ev[i].fe_id;
		ctx.kpc_cpu = ev[i].fe_cpu;
		ctx.kpc_timestamp = ev[i].fe_time;
		ctx.kpc_walltimestamp = ev[i].fe_time + wall;
		snprintf(ctx.kpc_execname, sizeof(ctx.kpc_execname), "sched");
		prov_fire(&ctx);
	}
}

static void *fill_main(void *arg)
{
	fillev_t ev[FILL_MAX];

	(void)arg;
	pthread_mutex_lock(&filllk);
	while (!fill_stop) {
		uint64_t h = prov_perf_drained();
		int n;

		h = h > FILL_LAG_NS ? h - FILL_LAG_NS : 0;
		pthread_mutex_unlock(&filllk);
		pthread_mutex_lock(&firelk);
		pthread_mutex_lock(&filllk);
		n = fill_due(h, ev, FILL_MAX);
		pthread_mutex_unlock(&filllk);
		fill_fire(ev, n);
		pthread_mutex_unlock(&firelk);
		pthread_mutex_lock(&filllk);
		if (n == FILL_MAX)
			continue;
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)FILL_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&fillcv, &filllk, &ts);
	}
	pthread_mutex_unlock(&filllk);
	return NULL;
}

/* Fill pp's idle CPUs from now on; 0 or -1 (then pp fires as before). */
static int fill_add(pprobe_t *pp)
{
	int ncpu = prov_perf_ncpus(), rc = -1;
	uint64_t now = ks_gethrtime();

	if (pp->pp_last == NULL &&
	    (pp->pp_last = calloc(2 * (size_t)ncpu, sizeof(uint64_t))) == NULL) {
		ks_provider_error("profile: out of memory");
		return -1;
	}
	pthread_mutex_lock(&filllk);
	pp->pp_filled = pp->pp_last + ncpu;
	for (int c = 0; c < ncpu; c++) {
		pp->pp_last[c] = now;
		pp->pp_filled[c] = 0;
	}
	for (int i = 0; i < MAX_FILLP && rc != 0; i++)
		if (fillp[i] == NULL) {
			fillp[i] = pp;
			rc = 0;
		}
	if (rc == 0 && !fill_started) {
		fill_stop = 0;
		if (pthread_create(&fillthr, NULL, fill_main, NULL) == 0)
			fill_started = 1;
	}
	pthread_mutex_unlock(&filllk);
	return rc;
}

static void fill_remove(pprobe_t *pp)
{
	pthread_mutex_lock(&filllk);
	for (int i = 0; i < MAX_FILLP; i++)
		if (fillp[i] == pp)
			fillp[i] = NULL;
	pthread_mutex_unlock(&filllk);
}

void prov_profile_flush(uint64_t upto)
{
	fillev_t ev[FILL_MAX];
	int n;

	do {
		pthread_mutex_lock(&firelk);
		pthread_mutex_lock(&filllk);
		n = fill_due(upto, ev, FILL_MAX);
		pthread_mutex_unlock(&filllk);
		fill_fire(ev, n);
		pthread_mutex_unlock(&firelk);
	} while (n == FILL_MAX);
}

static void fill_shutdown(void)
{
	pthread_mutex_lock(&filllk);
	if (!fill_started) {
		pthread_mutex_unlock(&filllk);
		return;
	}
	fill_stop = 1;
	pthread_cond_signal(&fillcv);
	pthread_mutex_unlock(&filllk);
	pthread_join(fillthr, NULL);
	fill_started = 0;
}

static int profile_perf_on(pprobe_t *pp)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = pp->pp_period;
	pp->pp_src = prov_perf_open(&attr, prov_perf_wants_stack(pp->pp_id),
	    perf_tick, pp);
	if (pp->pp_src == NULL)
		return -1;
	(void)fill_add(pp);
	return 0;
}

static int profile_timers_on(pprobe_t *pp)
{
	int n = prov_perf_ncpus();

	if (cpuq == NULL) {
		cpuq = calloc((size_t)n, sizeof(*cpuq));
		if (cpuq == NULL) {
			ks_provider_error("profile: out of memory");
			return -1;
		}
		for (int i = 0; i < n; i++)
			tq_init(&cpuq[i], i);
		ncpuq = n;
	}
	for (int i = 0; i < ncpuq; i++) {
		if (tq_add(&cpuq[i], pp) != 0) {
			for (int j = 0; j < i; j++)
				tq_remove(&cpuq[j], pp);
			return -1;
		}
	}
	return 0;
}

/* ---- provider ops ---- */

static pprobe_t *probe_make(const char *name)
{
	char err[128];
	int kind;
	uint64_t period;
	pprobe_t *pp;
	dtrace_id_t id;

	if (prov_profile_parse(name, &kind, &period, err, sizeof(err)) != 0)
		return NULL;
	id = ks_probe_lookup(prov_id, "", "", name);
	if (id != DTRACE_IDNONE)
		return NULL;
	pp = calloc(1, sizeof(*pp));
	if (pp == NULL)
		return NULL;
	pp->pp_kind = kind;
	pp->pp_period = period;
	pp->pp_id = ks_probe_create(prov_id, "", "", name, 0, pp);
	if (pp->pp_id == DTRACE_IDNONE) {
		free(pp);
		return NULL;
	}
	return pp;
}

static void profile_provide(void *parg, const dtrace_probedesc_t *desc)
{
	static const char *const stock[] = {
		"profile-97", "profile-199", "profile-499", "profile-997",
		"profile-1999", "profile-4001", "profile-4999",
		"tick-1", "tick-10", "tick-100", "tick-500", "tick-1000",
		"tick-5000", "tick-1s", "tick-10s",
	};

	for (size_t i = 0; i < sizeof(stock) / sizeof(stock[0]); i++)
		probe_make(stock[i]);
	if (desc != NULL && desc->dtpd_name[0] != '\0' &&
	    !prov_is_glob(desc->dtpd_name))
		probe_make(desc->dtpd_name);
}

static int profile_enable(void *parg, dtrace_id_t id, void *arg)
{
	pprobe_t *pp = arg;
	int rc;

	pthread_mutex_lock(&plock);
	if (pp->pp_on) {
		pthread_mutex_unlock(&plock);
		return 0;
	}
	if (pp->pp_kind == PROV_PROFILE_TICK && prov_is_privileged()) {
		rc = profile_perf_on(pp);
		if (rc != 0)
			rc = tq_add(&tickq, pp);
	} else if (pp->pp_kind == PROV_PROFILE_TICK) {
		rc = tq_add(&tickq, pp);
	} else if (prov_is_privileged()) {
		rc = profile_perf_on(pp);
		if (rc != 0)
			rc = profile_timers_on(pp);
	} else {
		rc = profile_timers_on(pp);
	}
	if (rc == 0)
		pp->pp_on = 1;
	pthread_mutex_unlock(&plock);
	return rc;
}

static void profile_disable(void *parg, dtrace_id_t id, void *arg)
{
	pprobe_t *pp = arg;

	pthread_mutex_lock(&plock);
	if (pp->pp_on) {
		if (pp->pp_src != NULL) {
			fill_remove(pp);
			prov_perf_close(pp->pp_src);
			pp->pp_src = NULL;
		} else if (pp->pp_kind == PROV_PROFILE_TICK) {
			tq_remove(&tickq, pp);
		} else {
			for (int i = 0; i < ncpuq; i++)
				tq_remove(&cpuq[i], pp);
		}
		pp->pp_on = 0;
	}
	pthread_mutex_unlock(&plock);
}

static void profile_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc)
{
	pprobe_t *pp = arg;

	if (pp->pp_kind != PROV_PROFILE_PROFILE || desc->dtargd_ndx > 1) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	snprintf(desc->dtargd_native, sizeof(desc->dtargd_native),
	    "uint64_t");
	desc->dtargd_mapping = desc->dtargd_ndx;
}

static void profile_destroy(void *parg, dtrace_id_t id, void *arg)
{
	pprobe_t *pp = arg;

	profile_disable(parg, id, arg);
	pthread_mutex_lock(&filllk);	/* the drain thread may look */
	free(pp->pp_last);
	pp->pp_last = pp->pp_filled = NULL;
	pthread_mutex_unlock(&filllk);
	free(arg);
}

static const ks_provider_ops_t profile_ops = {
	.kpo_provide = profile_provide,
	.kpo_enable = profile_enable,
	.kpo_disable = profile_disable,
	.kpo_getargdesc = profile_getargdesc,
	.kpo_destroy = profile_destroy,
};

int prov_profile_register(void)
{
	tq_init(&tickq, -1);
	if (ks_provider_register("profile", &profile_ops, NULL, &prov_id) != 0)
		return errno == EEXIST ? 0 : -1;
	return 0;
}

void prov_profile_shutdown(void)
{
	pthread_mutex_lock(&plock);
	tq_stop(&tickq);
	for (int i = 0; i < ncpuq; i++)
		tq_stop(&cpuq[i]);
	pthread_mutex_unlock(&plock);
	fill_shutdown();
}
