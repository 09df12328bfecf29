/*
 * tprows.c - providers described by a table of rows, each row a probe
 * name fed by one tracepoint (proc and sched use it).
 *
 * Several rows may carry the same name (proc:::exec comes from execve and
 * execveat); they form one probe, enabled by subscribing every row.  A row
 * with a NULL type list does not describe arguments (the first row of a
 * name does).  A row's tr_fire fills the firing's arguments (and may change
 * its process fields) and returns 0 to skip the firing.  A row naming a
 * tr_capture field (a syscall's string argument) is delivered by a BPF
 * capture program (bpf.c) so the string is served as it was at the
 * event.  A probe is made
 * only when every tracepoint it needs exists here.
 *
 * A row with tr_fvars tells the tracepoint (or its capture program) how
 * its firings read the event, so clause predicates are checked in the
 * kernel (row_filter); rows feeding threads other than the one the event
 * runs in name the record fields they take tid and execname from.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prov_impl.h"
#include "bpf_filter.h"

typedef struct tptable {
	ks_provider_id_t tt_prov;
	prov_tprow_t *tt_rows;
	int tt_nrows;
	int tt_provided;
} tptable_t;

static int row_exists(const prov_tprow_t *r)
{
	return prov_tp_format(r->tr_sys, r->tr_event) != NULL;
}

static void rows_provide(void *parg, const dtrace_probedesc_t *desc)
{
	tptable_t *t = parg;

	if (t->tt_provided)
		return;
	t->tt_provided = 1;
	for (int i = 0; i < t->tt_nrows; i++) {
		prov_tprow_t *r = &t->tt_rows[i];
		int ok = 1;

		if (i > 0 && strcmp(r->tr_name, t->tt_rows[i - 1].tr_name) == 0)
			continue;	/* made with its first row */
		for (int j = i; j < t->tt_nrows &&
		    strcmp(t->tt_rows[j].tr_name, r->tr_name) == 0; j++)
			ok = ok && row_exists(&t->tt_rows[j]);
		if (!ok)
			continue;
		r->tr_id = ks_probe_create(t->tt_prov, "", "", r->tr_name, 0,
		    r);
		for (int j = i + 1; j < t->tt_nrows &&
		    strcmp(t->tt_rows[j].tr_name, r->tr_name) == 0; j++)
			t->tt_rows[j].tr_id = r->tr_id;
	}
}

static void row_fire(void *arg, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	prov_tprow_t *r = arg;
	ks_probe_ctx_t ctx;

	prov_perf_ctx(&ctx, r->tr_id, s);
	if (r->tr_fire(&ctx, s, fmt))
		prov_fire(&ctx);
}

/* The captured string as a string-typed argument: the argument holding
 * its user address uaddr now points to a NUL-terminated copy, offered as
 * provider memory (kpc_kmem) and as a capture at that same address (for
 * copyinstr).  A string cut at the capture size stays cut. */
void prov_tp_kmem(ks_probe_ctx_t *ctx, const void *data, uint32_t len)
{
	static ks_ucapture_t kmem[2];
	uint32_t n = ctx->kpc_kmem == kmem ? ctx->kpc_nkmem : 0;

	if (n >= sizeof(kmem) / sizeof(kmem[0]))
		return;
	kmem[n].kuc_addr = 0;
	kmem[n].kuc_data = data;
	kmem[n].kuc_len = len;
	ctx->kpc_kmem = kmem;
	ctx->kpc_nkmem = n + 1;
}

static void cap_as_string(ks_probe_ctx_t *ctx, uint64_t uaddr,
    const uint8_t *data, uint32_t len)
{
	static char text[sizeof(((prov_bpf_rec_t *)0)->pbr_str) + 1];
	static ks_ucapture_t cap;
	uint64_t a = (uint64_t)(uintptr_t)text;

	if (len >= sizeof(text))
		len = sizeof(text) - 1;
	memcpy(text, data, len);
	text[len] = '\0';
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		if (ctx->kpc_args[i] == uaddr)
			ctx->kpc_args[i] = a;
	cap.kuc_addr = a;
	cap.kuc_len = (uint32_t)strlen(text) + 1;
	cap.kuc_data = (const uint8_t *)text;
	ctx->kpc_ucap = &cap;
	ctx->kpc_nucap = 1;
	prov_tp_kmem(ctx, text, cap.kuc_len);
}

/* A capture record (prov_bpf_rec_t, read by offset: RAW data is only
 * 4-byte aligned): fire with the string captured at the event. */
static void row_fire_captured(void *arg, const prov_perf_sample_t *s)
{
	prov_tprow_t *r = arg;
	const prov_tf_format_t *fmt = prov_tp_format(r->tr_sys, r->tr_event);
	prov_perf_sample_t rec = *s;
	ks_probe_ctx_t ctx;
	int64_t slen;
	uint32_t len;
	int f;

	if (fmt == NULL || s->pps_rawlen < sizeof(prov_bpf_rec_t) ||
	    (f = prov_tracefs_field(fmt, r->tr_capture)) < 0)
		return;
	rec.pps_raw = s->pps_raw + offsetof(prov_bpf_rec_t, pbr_rec);
	rec.pps_rawlen = 64;
	memcpy(&slen, s->pps_raw + offsetof(prov_bpf_rec_t, pbr_len), 8);
	prov_perf_ctx(&ctx, r->tr_id, &rec);
	if (!r->tr_fire(&ctx, &rec, fmt))
		return;
	len = prov_bpf_caplen(slen);
	if (len > 0)
		cap_as_string(&ctx, prov_tracefs_int(&fmt->tff_fields[f],
		    rec.pps_raw, 64), s->pps_raw + offsetof(prov_bpf_rec_t,
		    pbr_str), len);
	prov_fire(&ctx);
}

/* Start a row through its string capture; 0, or -1 to use the plain
 * tracepoint instead. */
static int capture_on(prov_tprow_t *r, dtrace_id_t id)
{
	const prov_tf_format_t *fmt = prov_tp_format(r->tr_sys, r->tr_event);
	int f, att;

	if (r->tr_capture == NULL || fmt == NULL ||
	    (f = prov_tracefs_field(fmt, r->tr_capture)) < 0)
		return -1;
	att = prov_bpf_capture(fmt->tff_id, (int)prov_tracefs_size(fmt),
	    (int)fmt->tff_fields[f].tff_offset, prov_perf_wants_stack(id),
	    row_fire_captured, r);
	if (att < 0)
		return -1;
	r->tr_att = att + 1;
	return 0;
}

/* Record field name of fmt as a filterable integer: its offset, size and
 * signedness into am slot i; 0 if it is not one. */
static int field_arg(const prov_tf_format_t *fmt, const char *name,
    size_t len, prov_bpf_argmap_t *am, int i)
{
	char buf[64];
	const prov_tf_field_t *f;
	int k;

	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if ((k = prov_tracefs_field(fmt, buf)) < 0)
		return 0;
	f = &fmt->tff_fields[k];
	if (prov_tracefs_is_str(f) || f->tff_dataloc || f->tff_array != 0 ||
	    (f->tff_size != 1 && f->tff_size != 2 && f->tff_size != 4 &&
	    f->tff_size != 8) || f->tff_offset % f->tff_size != 0 ||
	    f->tff_offset < 8 || f->tff_offset > 4000)
		return 0;
	am->pba_off[i] = (int16_t)f->tff_offset;
	am->pba_size[i] = (uint8_t)f->tff_size;
	am->pba_signed[i] = (uint8_t)(f->tff_signed != 0);
	return 1;
}

/* How row r's firings read the event (see prov_tprow_t). */
static void row_fprobe(const prov_tprow_t *r, const prov_tf_format_t *fmt,
    prov_bpf_fprobe_t *fp)
{
	const char *p = r->tr_fargs;
	prov_bpf_argmap_t t;
	int k;

	memset(fp, 0, sizeof(*fp));
	fp->pbp_vars = r->tr_fvars;
	fp->pbp_idle = 1;	/* thread 0 is "sched" in these providers */
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		fp->pbp_am.pba_off[i] = -1;
	for (int i = 0; p != NULL && *p != '\0' && i < DTRACE_MAXARGS; i++) {
		size_t n = strcspn(p, ",");

		if (field_arg(fmt, p, n, &fp->pbp_am, i))
			fp->pbp_hasam = 1;
		p += n + (p[n] == ',');
	}
	if (fp->pbp_hasam)
		fp->pbp_vars |= PROV_FV(KS_FV_ARG);
	else
		fp->pbp_vars &= ~PROV_FV(KS_FV_ARG);
	if (r->tr_ftid != NULL && field_arg(fmt, r->tr_ftid,
	    strlen(r->tr_ftid), &t, 0) && t.pba_size[0] == 4)
		fp->pbp_tid_off = t.pba_off[0];
	if (r->tr_fcomm != NULL &&
	    (k = prov_tracefs_field(fmt, r->tr_fcomm)) >= 0 &&
	    fmt->tff_fields[k].tff_array == 16)
		fp->pbp_comm_off = (int16_t)fmt->tff_fields[k].tff_offset;
	/* a variable from a field that cannot be read is not filtered */
	if (r->tr_ftid != NULL && fp->pbp_tid_off == 0)
		fp->pbp_vars &= ~PROV_FV(KS_FV_TID);
	if (r->tr_fcomm != NULL && fp->pbp_comm_off == 0)
		fp->pbp_vars &= ~PROV_FV(KS_FV_EXECNAME);
}

/* Tell the row's source how it reads the event, for kernel filtering. */
static void row_filter(prov_tprow_t *r, dtrace_id_t id)
{
	const prov_tf_format_t *fmt = prov_tp_format(r->tr_sys, r->tr_event);
	prov_bpf_fprobe_t fp;

	if (r->tr_fvars == 0 || fmt == NULL)
		return;
	row_fprobe(r, fmt, &fp);
	if (r->tr_att > 0)		/* a capture: the task's only */
		prov_bpf_filter_probe(r->tr_att - 1, id,
		    r->tr_ftid == NULL && r->tr_fcomm == NULL ?
		    r->tr_fvars & PROV_FV_TASK : 0, NULL);
	else
		prov_tp_filter_fp(r->tr_sys, r->tr_event, row_fire, r, &fp);
}

static void rows_disable(void *parg, dtrace_id_t id, void *arg)
{
	tptable_t *t = parg;

	for (int i = 0; i < t->tt_nrows; i++) {
		prov_tprow_t *r = &t->tt_rows[i];

		if (r->tr_id != id)
			continue;
		if (r->tr_att > 0) {
			prov_bpf_release(r->tr_att - 1);
			r->tr_att = 0;
		} else {
			prov_tp_unsubscribe(r->tr_sys, r->tr_event, row_fire,
			    r);
		}
	}
}

static int rows_enable(void *parg, dtrace_id_t id, void *arg)
{
	tptable_t *t = parg;

	prov_psargs_on();
	for (int i = 0; i < t->tt_nrows; i++) {
		prov_tprow_t *r = &t->tt_rows[i];

		if (r->tr_id != id || r->tr_att > 0)
			continue;
		if (capture_on(r, id) != 0 && prov_tp_subscribe(r->tr_sys,
		    r->tr_event, id, row_fire, r) != 0) {
			rows_disable(parg, id, arg);
			return -1;
		}
		row_filter(r, id);
	}
	return 0;
}

static void rows_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc)
{
	prov_tprow_t *r = arg;
	int n = 0;

	while (n < DTRACE_MAXARGS && r->tr_args[n] != NULL)
		n++;
	if (desc->dtargd_ndx < 0 || desc->dtargd_ndx >= n) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	prov_tp_argtype(r->tr_args[desc->dtargd_ndx], desc);
}

void prov_tp_argtype(const char *type, dtrace_argdesc_t *desc)
{
	const char *native = type;

	desc->dtargd_mapping = desc->dtargd_ndx;
	if (strcmp(type, "lwpsinfo_t *") == 0 ||
	    strcmp(type, "psinfo_t *") == 0) {
		native = "struct ks_task *";
		desc->dtargd_mapping = KS_ARG_TASK;
	} else if (strcmp(type, "cpuinfo_t *") == 0) {
		native = "processorid_t";
	}
	snprintf(desc->dtargd_native, sizeof(desc->dtargd_native), "%s",
	    native);
	if (native != type)
		snprintf(desc->dtargd_xlate, sizeof(desc->dtargd_xlate), "%s",
		    type);
}

static const ks_provider_ops_t rows_ops = {
	.kpo_provide = rows_provide,
	.kpo_enable = rows_enable,
	.kpo_disable = rows_disable,
	.kpo_getargdesc = rows_getargdesc,
};

int prov_tprows_register(const char *name, prov_tprow_t *rows, int nrows)
{
	tptable_t *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return -1;
	t->tt_rows = rows;
	t->tt_nrows = nrows;
	if (ks_provider_register(name, &rows_ops, t, &t->tt_prov) != 0) {
		free(t);
		return errno == EEXIST ? 0 : -1;
	}
	return 0;
}

int64_t prov_tp_get(const prov_tf_format_t *fmt, const prov_perf_sample_t *s,
    const char *field)
{
	int i = prov_tracefs_field(fmt, field);

	if (i < 0)
		return 0;
	return (int64_t)prov_tracefs_int(&fmt->tff_fields[i], s->pps_raw,
	    s->pps_rawlen);
}

void prov_tp_comm(const prov_tf_format_t *fmt, const prov_perf_sample_t *s,
    const char *field, char out[16])
{
	int i = prov_tracefs_field(fmt, field);
	const char *str;
	uint32_t len;

	if (i < 0)
		return;
	str = prov_tracefs_str(&fmt->tff_fields[i], s->pps_raw, s->pps_rawlen,
	    &len);
	if (str == NULL)
		return;
	if (len > 15)
		len = 15;
	memcpy(out, str, len);
	out[len] = '\0';
}

void prov_tp_as_thread(ks_probe_ctx_t *ctx, int32_t tid, const char *comm)
{
	const prov_pinfo_t *pi = prov_pcache_get(tid, 0);

	ctx->kpc_tid = tid;
	ctx->kpc_pid = pi->ppi_pid > 0 ? pi->ppi_pid : tid;
	ctx->kpc_ppid = pi->ppi_ppid;
	ctx->kpc_uid = pi->ppi_uid;
	ctx->kpc_gid = pi->ppi_gid;
	ctx->kpc_psargs = pi->ppi_psargs;
	ctx->kpc_argc = pi->ppi_argc;
	ctx->kpc_nkstack = ctx->kpc_nustack = 0;
	ctx->kpc_nuregs = 0;		/* they were the sampled thread's */
	if (prov_vtime_active())
		ctx->kpc_vtimestamp = prov_vtime_get(ctx->kpc_cpu, tid,
		    ctx->kpc_timestamp, 0);
	snprintf(ctx->kpc_execname, sizeof(ctx->kpc_execname), "%s",
	    comm != NULL ? comm : pi->ppi_comm);
}

void prov_tp_task(ks_probe_ctx_t *ctx, int32_t tid, const char *comm,
    int32_t pri, int32_t cpu, char sname)
{
	static ks_task_t task;
	const prov_pinfo_t *pi = prov_pcache_get(tid, 0);

	memset(&task, 0, sizeof(task));
	task.kt_tid = tid;
	task.kt_pid = tid == 0 ? 0 : pi->ppi_pid > 0 ? pi->ppi_pid : tid;
	task.kt_ppid = pi->ppi_ppid;
	task.kt_uid = pi->ppi_uid;
	task.kt_gid = pi->ppi_gid;
	task.kt_argc = pi->ppi_argc;
	memcpy(task.kt_psargs, pi->ppi_psargs, sizeof(task.kt_psargs));
	prov_task_proc(&task, pi);
	snprintf(task.kt_comm, sizeof(task.kt_comm), "%s",
	    comm != NULL ? comm : tid == 0 ? "sched" : pi->ppi_comm);
	task.kt_pri = pri;
	task.kt_cpu = cpu;
	task.kt_sname = sname;
	prov_tp_task_offer(ctx, &task);
}

void prov_tp_task_offer(ks_probe_ctx_t *ctx, const ks_task_t *task)
{
	ctx->kpc_args[KS_ARG_TASK] = (uint64_t)(uintptr_t)task;
	prov_tp_kmem(ctx, task, sizeof(*task));
}
