/*
 * state.c - consumer states: open, close, options, the memory sized from
 * them, GO and STOP, and the small queries of ks.h.
 *
 * A state moves INACTIVE -> (GO) ACTIVE -> (exit() or STOP) DRAINING ->
 * (STOP) STOPPED.  Its memory (principal, aggregation and speculation
 * buffers per CPU, the dynamic variable space, scratch) is allocated once
 * at GO from the options in force, and freed at close: probe context never
 * allocates and the state's footprint is bounded by
 *   ncpus * (bufsize * (switch ? 2 : 1) + aggsize + nspec * specsize)
 *   + dynvarsize + scratch + staging for the largest ECB.
 * Open states are on one list (fire lock) so ks_provider_drops can charge
 * a provider's lost events to every active one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include "ks_filter.h"
#include "ks_impl.h"

static ks_state_t *states;		/* every open state (fire lock) */

/* DTrace's defaults for the options the shim uses. */
static dtrace_optval_t opt_default(int opt)
{
	switch (opt) {
	case DTRACEOPT_BUFSIZE:		return 4 << 20;
	case DTRACEOPT_AGGSIZE:		return 4 << 20;
	case DTRACEOPT_DYNVARSIZE:	return 1 << 20;
	case DTRACEOPT_SPECSIZE:	return 32 << 10;
	case DTRACEOPT_NSPEC:		return 1;
	case DTRACEOPT_STRSIZE:		return 256;
	case DTRACEOPT_STACKFRAMES:	return 20;
	case DTRACEOPT_USTACKFRAMES:	return 100;
	case DTRACEOPT_BUFPOLICY:	return DTRACEOPT_BUFPOLICY_SWITCH;
	case DTRACEOPT_CPU:		return -1;
	case DTRACEOPT_CLEANRATE:	return 9900990;	/* 101 Hz in ns */
	default:			return DTRACEOPT_UNSET;
	}
}

dtrace_optval_t ks_state_opt(const ks_state_t *st, int opt)
{
	if (opt < 0 || opt >= DTRACEOPT_MAX)
		return DTRACEOPT_UNSET;
	if (st->st_opts[opt] != DTRACEOPT_UNSET)
		return st->st_opts[opt];
	return opt_default(opt);
}

/* Highest possible CPU id + 1 from sysfs ("0-3" or "0,2-5"), else the
 * number of configured CPUs. */
static unsigned possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	char line[256], *p;
	long max = -1;

	if (f != NULL) {
		if (fgets(line, sizeof(line), f) != NULL) {
			for (p = line; *p != '\0'; p++) {
				char *end;
				long v;

				if (*p < '0' || *p > '9')
					continue;
				v = strtol(p, &end, 10);
				max = v > max ? v : max;
				p = end - 1;
			}
		}
		fclose(f);
	}
	if (max >= 0 && max < 65536)
		return (unsigned)max + 1;
	max = get_nprocs_conf();
	return max > 0 ? (unsigned)max : 1;
}

unsigned ks_ncpus(void)
{
	static unsigned n;
	unsigned v = __atomic_load_n(&n, __ATOMIC_RELAXED);

	if (v == 0) {
		v = possible_cpus();
		__atomic_store_n(&n, v, __ATOMIC_RELAXED);
	}
	return v;
}

/* ks_state.st_serial: names a consumer's kernel-held self-> variables. */
static uint32_t state_serials;

ks_state_t *ks_open(void)
{
	ks_state_t *st = ks_calloc(1, sizeof(*st));
	int i;

	if (st == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ks_registry_init();
	for (i = 0; i < DTRACEOPT_MAX; i++)
		st->st_opts[i] = DTRACEOPT_UNSET;
	st->st_ncpus = ks_ncpus();
	st->st_activity = KS_ST_INACTIVE;
	st->st_serial = __atomic_add_fetch(&state_serials, 1,
	    __ATOMIC_RELAXED);
	st->st_wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_lock(&ks_fire_lock);
	st->st_next = states;
	states = st;
	pthread_mutex_unlock(&ks_fire_lock);
	return st;
}

ks_state_t *ks_state_by_serial(uint32_t serial)
{
	for (ks_state_t *st = states; st != NULL; st = st->st_next)
		if (st->st_serial == serial)
			return st;
	return NULL;
}

/* Take st off the list of open states. */
static void unlist(ks_state_t *st)
{
	ks_state_t **pp;

	pthread_mutex_lock(&ks_fire_lock);
	for (pp = &states; *pp != NULL && *pp != st; pp = &(*pp)->st_next)
		;
	if (*pp == st)
		*pp = st->st_next;
	pthread_mutex_unlock(&ks_fire_lock);
}

/*
 * Do st's ECBs on provider probes (not BEGIN/END/ERROR, which no provider
 * loses) write principal-buffer records?  If not, do they aggregate?
 */
static void what_ecbs_do(const ks_state_t *st, int *writes, int *aggs)
{
	*writes = *aggs = 0;
	for (uint32_t i = 0; i < st->st_necbs; i++) {
		const ks_ecb_t *e = st->st_ecbs[i];

		if (e == NULL || e->ke_probe->kp_id <= KS_PROBE_ERROR)
			continue;
		*writes |= e->ke_clause->kc_writes;
		*aggs |= e->ke_clause->kc_naggs > 0;
	}
}

/*
 * A provider lost n events on cpu before it could fire them (a perf ring
 * overrun): they count as principal-buffer drops on that CPU in every
 * state tracing now, so consumers report "N drops on CPU M" as for a full
 * buffer.  The events' probes are unknown, so every active state counts
 * them, whatever it enabled.  A state whose provider probes only
 * aggregate has no principal records to lose (DTrace sizes such ECBs at
 * 0 bytes): the lost events were lost aggregation updates, and count as
 * aggregation drops ("N aggregation drops on CPU M").
 */
void ks_provider_drops(uint32_t cpu, uint64_t n)
{
	pthread_mutex_lock(&ks_fire_lock);
	for (ks_state_t *st = states; st != NULL; st = st->st_next) {
		ks_buf_t *b;
		int writes, aggs;

		if (st->st_activity != KS_ST_ACTIVE || !st->st_allocated)
			continue;
		b = &st->st_bufs[cpu % st->st_ncpus];
		what_ecbs_do(st, &writes, &aggs);
		if (aggs && !writes) {
			b->kb_aggdrops += n;
			continue;
		}
		b->kb_drops += n;
		b->kb_totdrops += n;
	}
	pthread_mutex_unlock(&ks_fire_lock);
}

/*
 * A provider counting firings in the kernel (ks_probe_fire_n) could not
 * count n of them on cpu: its map was full.  They were aggregation
 * updates, so every active state that aggregates on provider probes
 * counts n aggregation drops on that CPU ("N aggregation drops on CPU
 * M"); which state's ECBs they were for is unknown, as for
 * ks_provider_drops.
 */
void ks_provider_aggdrops(uint32_t cpu, uint64_t n)
{
	pthread_mutex_lock(&ks_fire_lock);
	for (ks_state_t *st = states; st != NULL; st = st->st_next) {
		int writes, aggs;

		if (st->st_activity != KS_ST_ACTIVE || !st->st_allocated)
			continue;
		what_ecbs_do(st, &writes, &aggs);
		if (aggs)
			st->st_bufs[cpu % st->st_ncpus].kb_aggdrops += n;
	}
	pthread_mutex_unlock(&ks_fire_lock);
}

int ks_state_seterr(ks_state_t *st, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->st_err, sizeof(st->st_err), fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

const char *ks_errmsg(const ks_state_t *st)
{
	return st != NULL ? st->st_err : "no state";
}

dtrace_optval_t ks_getopt(const ks_state_t *st, int option)
{
	return st != NULL ? ks_state_opt(st, option) : DTRACEOPT_UNSET;
}

uint32_t ks_state_recsize(const ks_state_t *st, dtrace_epid_t epid)
{
	if (epid == DTRACE_EPIDNONE || epid > st->st_necbs)
		return 0;
	return st->st_ecbs[epid - 1]->ke_clause->kc_size;
}

/* Scratch for one clause: strings, alloca and copyin (dif.h's size). */
static uint64_t scratch_size(const ks_state_t *st)
{
	dtrace_optval_t asked = ks_state_opt(st, DTRACEOPT_SCRATCHSIZE);

	if (asked > 0)		/* scratchsize, as Oracle's DTrace has it */
		return (uint64_t)asked;
	return ks_dif_scratch_size((uint64_t)ks_state_opt(st,
	    DTRACEOPT_STRSIZE));
}

static void free_buffers(ks_state_t *st)
{
	unsigned c;

	if (st->st_bufs != NULL)
		for (c = 0; c < st->st_ncpus; c++)
			ks_buf_fini(&st->st_bufs[c]);
	if (st->st_aggbufs != NULL)
		for (c = 0; c < st->st_ncpus; c++)
			ks_aggbuf_fini(&st->st_aggbufs[c]);
	ks_spec_free(st);
	free(st->st_bufs);
	free(st->st_aggbufs);
	free(st->st_scratch);
	st->st_bufs = NULL;
	st->st_aggbufs = NULL;
	st->st_scratch = NULL;
	st->st_allocated = 0;
}

/* Allocate every buffer from the options in force (at GO). */
static int alloc_buffers(ks_state_t *st)
{
	uint64_t bufsize = (uint64_t)ks_state_opt(st, DTRACEOPT_BUFSIZE);
	uint64_t aggsize = (uint64_t)ks_state_opt(st, DTRACEOPT_AGGSIZE);
	int policy = (int)ks_state_opt(st, DTRACEOPT_BUFPOLICY);
	unsigned c;

	st->st_bufs = ks_calloc(st->st_ncpus, sizeof(*st->st_bufs));
	st->st_aggbufs = ks_calloc(st->st_ncpus, sizeof(*st->st_aggbufs));
	st->st_scratch_size = scratch_size(st);
	st->st_scratch = ks_malloc(st->st_scratch_size);
	if (st->st_bufs == NULL || st->st_aggbufs == NULL ||
	    st->st_scratch == NULL)
		goto fail;
	for (c = 0; c < st->st_ncpus; c++) {
		if (ks_buf_init(&st->st_bufs[c], bufsize, policy) != 0 ||
		    ks_aggbuf_init(&st->st_aggbufs[c], aggsize) != 0)
			goto fail;
	}
	if (ks_spec_alloc(st) != 0)
		goto fail;
	st->st_allocated = 1;
	return 0;
fail:
	free_buffers(st);
	return ks_state_seterr(st, ENOMEM, "not enough memory for buffers "
	    "(bufsize %llu, aggsize %llu, %u CPUs)",
	    (unsigned long long)bufsize, (unsigned long long)aggsize,
	    st->st_ncpus);
}

/*
 * Fire BEGIN or END in st only.  BEGIN fires on the calling thread's CPU,
 * or on CPU N under the cpu=N option (DTrace cross-calls that CPU); END
 * on the same CPU as BEGIN (DTrace leaves END's CPU undefined), so the
 * records of both land in one buffer in order even when the consumer has
 * not read BEGIN's yet.
 */
static unsigned fire_own(ks_state_t *st, dtrace_id_t id)
{
	dtrace_optval_t only = ks_state_opt(st, DTRACEOPT_CPU);
	ks_probe_ctx_t ctx;

	ks_probe_ctx_self(&ctx, id);
	if (only >= 0 && (uint64_t)only < st->st_ncpus)
		ctx.kpc_cpu = (unsigned)only;
	if (id == KS_PROBE_BEGIN)
		st->st_begincpu = ctx.kpc_cpu;
	else
		ctx.kpc_cpu = st->st_begincpu;
	ks_ecb_fire_locked(st, &ctx);
	return ctx.kpc_cpu;
}

int ks_tracing(void)
{
	int n = 0;

	pthread_mutex_lock(&ks_fire_lock);
	for (ks_state_t *st = states; st != NULL; st = st->st_next)
		n += st->st_activity == KS_ST_ACTIVE ||
		    st->st_activity == KS_ST_DRAINING;
	pthread_mutex_unlock(&ks_fire_lock);
	return n > 0;
}

int ks_state_go(ks_state_t *st, uint32_t *cpu)
{
	uint64_t bufsize = (uint64_t)ks_state_opt(st, DTRACEOPT_BUFSIZE);
	unsigned c;

	if (st->st_activity != KS_ST_INACTIVE)
		return ks_state_seterr(st, EBUSY, "tracing already started");
	/* dtrace's kernel: destructive actions need the option at GO */
	for (ks_enabling_t *en = st->st_enablings; en != NULL; en = en->en_next)
		if (!en->en_disabled && ks_enabling_destructive(en) &&
		    ks_state_opt(st, DTRACEOPT_DESTRUCTIVE) == DTRACEOPT_UNSET)
			return ks_state_seterr(st, EACCES, "Destructive actions "
			    "not allowed");
	if (ks_state_opt(st, DTRACEOPT_BUFPOLICY) ==
	    DTRACEOPT_BUFPOLICY_FILL && st->st_endreserve > bufsize)
		return ks_state_seterr(st, E2BIG,
		    "END enablings exceed size of principal buffer");
	if (alloc_buffers(st) != 0)
		return -1;
	pthread_mutex_lock(&ks_fire_lock);
	st->st_activity = KS_ST_ACTIVE;
	c = fire_own(st, KS_PROBE_BEGIN);
	pthread_mutex_unlock(&ks_fire_lock);
	if (cpu != NULL)
		*cpu = c;
	return 0;
}

int ks_state_stop(ks_state_t *st, uint32_t *cpu)
{
	unsigned c;

	if (st->st_activity == KS_ST_INACTIVE)
		return ks_state_seterr(st, EBUSY, "tracing not started");
	if (st->st_activity == KS_ST_STOPPED)
		return ks_state_seterr(st, EBUSY, "tracing already stopped");
	pthread_mutex_lock(&ks_fire_lock);
	st->st_activity = KS_ST_DRAINING;
	c = fire_own(st, KS_PROBE_END);
	st->st_activity = KS_ST_STOPPED;
	pthread_mutex_unlock(&ks_fire_lock);
	if (cpu != NULL)
		*cpu = c;
	return 0;
}

/* Unlink every ECB of st from its probe, then stop the event sources. */
static void detach_ecbs(ks_state_t *st)
{
	uint32_t i;

	pthread_mutex_lock(&ks_fire_lock);
	for (i = 0; i < st->st_necbs; i++) {
		ks_ecb_t *e = st->st_ecbs[i], **pp = &e->ke_probe->kp_ecbs;

		while (*pp != NULL && *pp != e)
			pp = &(*pp)->ke_pnext;
		if (*pp == e)
			*pp = e->ke_pnext;
	}
	st->st_activity = KS_ST_STOPPED;
	pthread_mutex_unlock(&ks_fire_lock);
	for (i = 0; i < st->st_necbs; i++)
		if (!st->st_ecbs[i]->ke_disabled)
			ks_probe_disable_ecb(st->st_ecbs[i]->ke_probe,
			    st->st_ecbs[i]->ke_clause->kc_needs);
	ks_filter_changed();		/* kernel filters may tighten */
}

void ks_close(ks_state_t *st)
{
	ks_enabling_t *en, *next;
	uint32_t i;

	if (st == NULL)
		return;
	unlist(st);
	detach_ecbs(st);
	for (i = 0; i < st->st_necbs; i++)
		ks_ecb_free(st->st_ecbs[i]);
	free(st->st_ecbs);
	free(st->st_unstarted);
	free(st->st_aggs);
	free(st->st_formats);
	for (en = st->st_enablings; en != NULL; en = next) {
		next = en->en_next;
		ks_enabling_free(en);
	}
	free_buffers(st);
	if (st->st_vstate != NULL)
		ks_vstate_destroy(st->st_vstate);
	free(st->st_rec);
	free(st->st_key);
	free(st->st_locals);
	if (st->st_wakefd >= 0)
		close(st->st_wakefd);
	free(st);
}

int ks_wakefd(const ks_state_t *st)
{
	return st != NULL ? st->st_wakefd : -1;
}

int ks_bufstat(ks_state_t *st, unsigned cpu, ks_bufstat_t *out)
{
	const ks_buf_t *b;

	if (st == NULL || out == NULL || cpu >= st->st_ncpus) {
		errno = EINVAL;
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->kbs_policy = (int)ks_state_opt(st, DTRACEOPT_BUFPOLICY);
	out->kbs_size = (uint64_t)ks_state_opt(st, DTRACEOPT_BUFSIZE);
	if (!st->st_allocated)
		return 0;
	pthread_mutex_lock(&ks_fire_lock);
	b = &st->st_bufs[cpu];
	out->kbs_used = ks_buf_used(b);
	out->kbs_records = b->kb_records;
	out->kbs_fires = b->kb_fires;
	out->kbs_bytes = b->kb_bytes;
	out->kbs_drops = b->kb_totdrops;
	out->kbs_aggdrops = b->kb_aggdrops;
	out->kbs_errors = b->kb_errors;
	out->kbs_filled = b->kb_filled;
	out->kbs_hiwats = b->kb_hiwats;
	pthread_mutex_unlock(&ks_fire_lock);
	return 0;
}
