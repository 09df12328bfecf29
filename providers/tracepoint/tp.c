/*
 * tp.c - tracepoints shared by several probes.
 *
 * A tracepoint (sched:sched_switch, syscalls:sys_exit_openat ...) may feed
 * several probes at once: sched:::on-cpu and sched:::off-cpu both come
 * from sched_switch, sdt:sched::sched_switch too.  A struct tp is one
 * tracefs event opened through perf on every CPU, with its parsed format
 * and up to TP_MAXSUB subscribers (a callback and its probe); it is opened
 * with the first subscriber and closed with the last.
 *
 * Kernel filtering (BPF route): each subscriber may say how its firings
 * read the event (prov_tp_filter, prov_tp_filter_fp); once all have, the
 * tracepoint's program drops events no subscriber's clauses could use
 * (one subscriber: its probe's filter; several: the OR, bpf_fmerge.c).
 *
 * The subscriber slots are read by the drain thread without a lock: a
 * slot is published with a release store after it is filled and cleared
 * by storing NULL, and subscriber arguments live as long as their probes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prov_impl.h"
#include "bpf_filter.h"

#define TP_MAXSUB 8
#define STRBUF 16384

typedef struct tpsub {
	prov_tp_fire_t *ts_fn;
	void *ts_arg;
	dtrace_id_t ts_id;		/* for the kernel filter: the probe, */
	unsigned ts_vars;		/* what it takes from the task (0: */
	int ts_hasam;			/* never filter), its arguments */
	prov_bpf_argmap_t ts_am;	/* (prov_tp_filter), or all of */
	int ts_hasfp;			/* that and record sources */
	prov_bpf_fprobe_t ts_fp;	/* (prov_tp_filter_fp) */
} tpsub_t;

typedef struct tp {
	char tp_sys[64], tp_event[64];
	prov_tf_format_t tp_fmt;
	prov_perf_src_t *tp_src;	/* perf route, or */
	int tp_att;			/* BPF route attachment (-1: none) */
	int tp_chain;			/* opened sampling these (PROV_SAMPLE_*) */
	int tp_nsub;
	tpsub_t tp_subs[TP_MAXSUB];
	tpsub_t *tp_live[TP_MAXSUB];	/* what the drain thread reads */
	struct tp *tp_link;
} tp_t;

/*
 * The state of tp.c: one instance (tpst), passed to the helpers below.
 * Each field names what guards it.
 */
typedef struct tp_state {
	pthread_mutex_t tplk;		/* tps and every tp_t's fields but
					 * tp_live, which the drain thread
					 * reads (published under tplk) */
	tp_t *tps;			/* tplk: every tracepoint in use */
	char strbuf[STRBUF];		/* drain thread: prov_tp_args's
					 * strings (see there) */
	ks_ucapture_t ucaps[DTRACE_MAXARGS];	/* drain thread: the same */
} tp_state_t;

static tp_state_t tpst = { .tplk = PTHREAD_MUTEX_INITIALIZER };

/* Drain thread: run every subscriber of the tracepoint. */
static void tp_sample(void *arg, const prov_perf_sample_t *s)
{
	tp_t *tp = arg;

	for (int i = 0; i < TP_MAXSUB; i++) {
		tpsub_t *sub = __atomic_load_n(&tp->tp_live[i],
		    __ATOMIC_ACQUIRE);

		if (sub != NULL)
			sub->ts_fn(sub->ts_arg, s, &tp->tp_fmt);
	}
}

static tp_t *tp_find(tp_state_t *tq, const char *sys, const char *event,
    int create)
{
	tp_t *tp;

	for (tp = tq->tps; tp != NULL; tp = tp->tp_link)
		if (strcmp(tp->tp_sys, sys) == 0 &&
		    strcmp(tp->tp_event, event) == 0)
			return tp;
	if (!create)
		return NULL;
	tp = calloc(1, sizeof(*tp));
	if (tp == NULL) {
		ks_provider_error("tracepoint %s:%s: out of memory", sys,
		    event);
		return NULL;
	}
	if (prov_tracefs_format(sys, event, &tp->tp_fmt) != 0) {
		ks_provider_error("tracepoint %s:%s: cannot read its format",
		    sys, event);
		free(tp);
		return NULL;
	}
	tp->tp_att = -1;
	snprintf(tp->tp_sys, sizeof(tp->tp_sys), "%s", sys);
	snprintf(tp->tp_event, sizeof(tp->tp_event), "%s", event);
	tp->tp_link = tq->tps;
	tq->tps = tp;
	return tp;
}

/* Open the tracepoint: through BPF when it loads (every hit), else a perf
 * source; either is reopened with call chains or user registers when a
 * probe wants them. */
static int tp_open(tp_t *tp, int chain)
{
	prov_perf_src_t *src;
	uint32_t size = prov_tracefs_size(&tp->tp_fmt);

	int att;

	if ((tp->tp_att >= 0 || tp->tp_src != NULL) &&
	    (chain & ~tp->tp_chain) == 0)
		return 0;
	chain |= tp->tp_chain;		/* what other subscribers need too */
	if (tp->tp_src == NULL) {
		if (prov_tracefs_has_dataloc(&tp->tp_fmt))
			size += 256;
		att = prov_bpf_copy(tp->tp_fmt.tff_id, (int)size, chain,
		    tp_sample, tp);
		if (att >= 0) {		/* replaces one without chains */
			prov_bpf_release(tp->tp_att);
			tp->tp_att = att;
			tp->tp_chain = chain;
			return 0;
		}
		if (tp->tp_att >= 0)
			return -1;
	}
	src = prov_perf_tracepoint(tp->tp_fmt.tff_id, chain, tp_sample, tp);
	if (src == NULL)
		return -1;
	if (tp->tp_src != NULL)
		prov_perf_close(tp->tp_src);
	tp->tp_src = src;
	tp->tp_chain = chain;
	return 0;
}

/* A tracepoint's BPF program filters for its probes' predicates when
 * every subscriber said how it reads the event (tplk): one subscriber
 * that reads it from the task, for its probe; otherwise for the OR of
 * the subscribers' probes, each read its own way (bpf_fmerge.c). */
static void tp_refilter(tp_t *tp)
{
	prov_bpf_fprobe_t fp[TP_MAXSUB];
	const tpsub_t *one = NULL;
	int n = 0;

	for (int i = 0; i < TP_MAXSUB; i++) {
		const tpsub_t *sub = &tp->tp_subs[i];

		if (tp->tp_live[i] == NULL)
			continue;
		if (sub->ts_vars == 0 && !sub->ts_hasfp) {
			prov_bpf_filter_probe(tp->tp_att, DTRACE_IDNONE, 0,
			    NULL);
			return;
		}
		one = sub;
		if (sub->ts_hasfp) {
			fp[n] = sub->ts_fp;
		} else {
			memset(&fp[n], 0, sizeof(fp[n]));
			fp[n].pbp_vars = sub->ts_vars;
			fp[n].pbp_hasam = sub->ts_hasam;
			if (sub->ts_hasam)
				fp[n].pbp_am = sub->ts_am;
		}
		fp[n++].pbp_id = sub->ts_id;
	}
	if (n == 1 && !one->ts_hasfp)
		prov_bpf_filter_probe(tp->tp_att, one->ts_id, one->ts_vars,
		    one->ts_hasam ? &one->ts_am : NULL);
	else
		prov_bpf_filter_probes(tp->tp_att, fp, n);
}

/* The subscriber (fn, arg) of tp (tplk), or NULL. */
static tpsub_t *tp_sub(tp_t *tp, prov_tp_fire_t *fn, void *arg)
{
	for (int i = 0; tp != NULL && i < TP_MAXSUB; i++)
		if (tp->tp_live[i] != NULL && tp->tp_subs[i].ts_fn == fn &&
		    tp->tp_subs[i].ts_arg == arg)
			return &tp->tp_subs[i];
	return NULL;
}

void prov_tp_filter_fp(const char *sys, const char *event,
    prov_tp_fire_t *fn, void *arg, const prov_bpf_fprobe_t *fp)
{
	tp_state_t *tq = &tpst;
	tpsub_t *sub;
	tp_t *tp;

	pthread_mutex_lock(&tq->tplk);
	tp = tp_find(tq, sys, event, 0);
	if ((sub = tp_sub(tp, fn, arg)) != NULL) {
		sub->ts_fp = *fp;
		sub->ts_hasfp = 1;
		tp_refilter(tp);
	}
	pthread_mutex_unlock(&tq->tplk);
}

void prov_tp_filter(const char *sys, const char *event, prov_tp_fire_t *fn,
    void *arg, unsigned vars, const prov_bpf_argmap_t *am)
{
	tp_state_t *tq = &tpst;
	tp_t *tp;

	pthread_mutex_lock(&tq->tplk);
	tp = tp_find(tq, sys, event, 0);
	for (int i = 0; tp != NULL && i < TP_MAXSUB; i++) {
		tpsub_t *sub = &tp->tp_subs[i];

		if (tp->tp_live[i] == NULL || sub->ts_fn != fn ||
		    sub->ts_arg != arg)
			continue;
		sub->ts_vars = vars;
		sub->ts_hasam = am != NULL;
		if (am != NULL)
			sub->ts_am = *am;
		tp_refilter(tp);
	}
	pthread_mutex_unlock(&tq->tplk);
}

int prov_tp_subscribe(const char *sys, const char *event, dtrace_id_t id,
    prov_tp_fire_t *fn, void *arg)
{
	tp_state_t *tq = &tpst;
	tp_t *tp;
	int slot = -1, rc = -1;

	pthread_mutex_lock(&tq->tplk);
	tp = tp_find(tq, sys, event, 1);
	if (tp == NULL)
		goto out;
	for (int i = 0; i < TP_MAXSUB; i++) {
		if (tp->tp_live[i] != NULL && tp->tp_subs[i].ts_fn == fn &&
		    tp->tp_subs[i].ts_arg == arg) {
			rc = 0;
			goto out;
		}
		if (tp->tp_live[i] == NULL && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		ks_provider_error("tracepoint %s:%s: too many probes on it",
		    sys, event);
		goto out;
	}
	if (tp_open(tp, prov_perf_wants_stack(id)) != 0)
		goto out;
	tp->tp_subs[slot].ts_fn = fn;
	tp->tp_subs[slot].ts_arg = arg;
	tp->tp_subs[slot].ts_id = id;
	tp->tp_subs[slot].ts_vars = 0;
	tp->tp_subs[slot].ts_hasam = 0;
	tp->tp_subs[slot].ts_hasfp = 0;
	__atomic_store_n(&tp->tp_live[slot], &tp->tp_subs[slot],
	    __ATOMIC_RELEASE);
	tp->tp_nsub++;
	tp_refilter(tp);
	rc = 0;
out:
	pthread_mutex_unlock(&tq->tplk);
	return rc;
}

void prov_tp_unsubscribe(const char *sys, const char *event,
    prov_tp_fire_t *fn, void *arg)
{
	tp_state_t *tq = &tpst;
	tp_t *tp;

	pthread_mutex_lock(&tq->tplk);
	tp = tp_find(tq, sys, event, 0);
	for (int i = 0; tp != NULL && i < TP_MAXSUB; i++) {
		if (tp->tp_live[i] == NULL || tp->tp_subs[i].ts_fn != fn ||
		    tp->tp_subs[i].ts_arg != arg)
			continue;
		__atomic_store_n(&tp->tp_live[i], NULL, __ATOMIC_RELEASE);
		if (--tp->tp_nsub > 0)
			tp_refilter(tp);
		if (tp->tp_nsub == 0) {
			prov_bpf_release(tp->tp_att);
			prov_perf_close(tp->tp_src);
			tp->tp_att = -1;
			tp->tp_src = NULL;
			tp->tp_chain = 0;
		}
	}
	pthread_mutex_unlock(&tq->tplk);
}

int prov_tp_attachment(const char *sys, const char *event)
{
	tp_state_t *tq = &tpst;
	tp_t *tp;
	int att;

	pthread_mutex_lock(&tq->tplk);
	tp = tp_find(tq, sys, event, 0);
	att = tp != NULL ? tp->tp_att : -1;
	pthread_mutex_unlock(&tq->tplk);
	return att;
}

const prov_tf_format_t *prov_tp_format(const char *sys, const char *event)
{
	tp_state_t *tq = &tpst;
	const prov_tf_format_t *f;
	tp_t *tp;

	pthread_mutex_lock(&tq->tplk);
	tp = tp_find(tq, sys, event, 1);
	f = tp != NULL ? &tp->tp_fmt : NULL;
	pthread_mutex_unlock(&tq->tplk);
	return f;
}

/* ---- arguments from a raw record (drain thread only) ----
 * String fields (char[N], __data_loc char[]) are typed string: their
 * NUL-terminated text is packed into strbuf, the argument is its address
 * and strbuf is offered to clauses as provider memory (kpc_kmem), so
 * trace(args[0]) and printf("%s") print it.  Each string is also a
 * capture at that same address, so copyinstr(args[0]) keeps working;
 * each capture claims the rest of the buffer, because the shim's
 * copyinstr serves a chunk from a capture only when it fits entirely. */

static const ks_ucapture_t strmem = { 0, STRBUF,
	(const uint8_t *)tpst.strbuf };

void prov_tp_args(ks_probe_ctx_t *ctx, const prov_tf_format_t *fmt,
    const uint8_t *raw, uint32_t rawlen, int first)
{
	tp_state_t *tq = &tpst;
	uint32_t used = 0;
	int n = 0, nucap = 0;

	for (int i = first; i < fmt->tff_nfields && n < DTRACE_MAXARGS; i++) {
		const prov_tf_field_t *f = &fmt->tff_fields[i];
		const char *str;
		uint32_t len;

		if (f->tff_common)
			continue;
		str = prov_tracefs_str(f, raw, rawlen, &len);
		if (str == NULL) {
			ctx->kpc_args[n++] = prov_tracefs_int(f, raw, rawlen);
			continue;
		}
		if (len + 1 > STRBUF - used) {
			ctx->kpc_args[n++] = 0;
			continue;
		}
		memcpy(tq->strbuf + used, str, len);
		tq->strbuf[used + len] = '\0';
		tq->ucaps[nucap].kuc_addr =
		    (uint64_t)(uintptr_t)(tq->strbuf + used);
		tq->ucaps[nucap].kuc_len = STRBUF - used;	/* see above */
		tq->ucaps[nucap].kuc_data = (const uint8_t *)tq->strbuf + used;
		ctx->kpc_args[n++] = (uint64_t)(uintptr_t)(tq->strbuf + used);
		nucap++;
		used += len + 1;
	}
	ctx->kpc_ucap = tq->ucaps;
	ctx->kpc_nucap = (uint32_t)nucap;
	ctx->kpc_kmem = &strmem;
	ctx->kpc_nkmem = 1;
}

/* A C integer type D knows by that name. */
static int is_plain_int(const char *t)
{
	static const char *const known[] = {
		"char", "unsigned char", "short", "unsigned short", "int",
		"unsigned int", "unsigned", "long", "unsigned long",
		"long long", "unsigned long long", "size_t", "ssize_t",
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(t, known[i]) == 0)
			return 1;
	return 0;
}

/* C type of a field as D should see it: char[N] and __data_loc char[]
 * fields are string (see prov_tp_args), char pointers (user addresses,
 * for copyinstr) char *, other pointers uintptr_t, integers by their C
 * name when D knows it (syscall
 * "int dfd" is an int although the record stores 8 bytes), else by size
 * and signedness (kernel typedefs such as umode_t mean nothing to D). */
static void field_type(const prov_tf_field_t *f, char *buf, size_t len)
{
	if (prov_tracefs_is_str(f))
		snprintf(buf, len, "string");
	else if (strstr(f->tff_type, "char") != NULL &&
	    strchr(f->tff_type, '*') != NULL)
		snprintf(buf, len, "char *");
	else if (f->tff_array > 0 || f->tff_dataloc ||
	    strchr(f->tff_type, '*') != NULL)
		snprintf(buf, len, "uintptr_t");
	else if (is_plain_int(f->tff_type))
		snprintf(buf, len, "%s", f->tff_type);
	else if (f->tff_size == 1 || f->tff_size == 2 || f->tff_size == 4 ||
	    f->tff_size == 8)
		snprintf(buf, len, "%sint%u_t", f->tff_signed ? "" : "u",
		    f->tff_size * 8);
	else
		snprintf(buf, len, "uint64_t");
}

void prov_tp_argdesc(const prov_tf_format_t *fmt, int first,
    dtrace_argdesc_t *desc)
{
	int n = 0;

	for (int i = first; fmt != NULL && i < fmt->tff_nfields; i++) {
		const prov_tf_field_t *f = &fmt->tff_fields[i];

		if (f->tff_common)
			continue;
		if (n++ == desc->dtargd_ndx) {
			field_type(f, desc->dtargd_native,
			    sizeof(desc->dtargd_native));
			desc->dtargd_mapping = desc->dtargd_ndx;
			return;
		}
	}
	desc->dtargd_ndx = DTRACE_ARGNONE;
}
