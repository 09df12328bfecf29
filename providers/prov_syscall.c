/*
 * prov_syscall.c - the syscall provider: syscall::<name>:entry and
 * syscall::<name>:return for every system call of the running kernel.
 *
 * Names come from tracefs events/syscalls (sys_enter_<name>, without the
 * prefix).  entry fires with arg0..argN the call's arguments in
 * format-file order (typed through kpo_getargdesc); return fires with
 * arg0 = arg1 = the return value, or -1 with errno set when the kernel
 * returned -errno.
 *
 * Event source: the first SC_OWN_MAX probes enabled fire from
 * syscalls:sys_enter_<name> / sys_exit_<name> of their own, as BPF
 * captures or through tp.c; only the calls traced pay for a tracepoint
 * then, but each probe costs a perf event whose close waits for RCU
 * (~80 ms, in the background at exit).  Beyond that, and once any probe
 * uses it, a syscall whose native number is known (prov_bpf_sys_nr)
 * fires from the one BPF program per direction on raw_syscalls
 * (bpf_sys.c, prov_bpf_sys), whose records read as the per-syscall
 * format lays them out; that is cheap to enable and to disable for any
 * number of probes, but every system call of the machine pays for the
 * raw tracepoint (~27 ns more than an untraced call with per-syscall
 * tracepoints: 108 against 81 ns per getppid() here).  Once the raw
 * route carries probes, a per-syscall tracepoint left enabled makes
 * every call pay for its callback too (~6 ns): so when a probe goes raw
 * while no consumer is tracing yet (dtrace's ENABLE before GO: nothing
 * fired counts anywhere), the probes on tracepoints of their own move
 * to the raw route, their attachments closed outright (an idle stub kept
 * for reuse keeps the callback).  syscall:::entry thus ends up on
 * raw_syscalls alone; syscall::getppid:entry alone keeps its own.
 * Otherwise probes stay on the route they were enabled on, so nothing is
 * lost or doubled.  Others
 * (no number, or when that BPF route cannot load) use their own
 * tracepoints.  Both routes filter predicates in the kernel
 * on the task, the entry arguments, and the return value (arg0/arg1 of
 * return, compared as D sees them: -1 for -errno).
 *
 * Pointer arguments are the caller's user addresses.  For an entry probe
 * whose arguments include a string (openat's path, execve's file ...) a
 * BPF program (bpf.c) copies the first such string (up to 255 bytes) at
 * event time and the firing serves it through kpc_ucap, so copyinstr()
 * reads what the process passed.  Other pointers, longer strings, or
 * kernels where BPF cannot load, read the live process (the shim's
 * default), so a buffer the process changes or frees before the drain
 * thread gets to the record reads back changed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prov_impl.h"
#include "bpf_filter.h"

typedef struct scprobe {
	char sp_event[64];		/* sys_enter_X or sys_exit_X */
	int sp_return;
	int sp_nr;			/* native number, -1: unknown */
	dtrace_id_t sp_id;
	int sp_capture;			/* BPF attachment, or -1 */
	int sp_stri;			/* captured field index */
	int sp_own;			/* enabled on its own tracepoint */
	const prov_tf_format_t *sp_fmt;	/* drain thread's cache (tp_t's
					 * formats are never freed) */
} scprobe_t;

#define SC_OWN_MAX 8

static int nown;			/* probes with sp_own set (enable and
					 * disable run on one thread) */
static scprobe_t *owned[SC_OWN_MAX];	/* they, in no order */

static ks_provider_id_t prov_id;
static int provided;

static void make_probe(void *arg, const char *sys, const char *event)
{
	scprobe_t *sp;
	const char *name;
	int ret;

	if (strncmp(event, "sys_enter_", 10) == 0) {
		name = event + 10;
		ret = 0;
	} else if (strncmp(event, "sys_exit_", 9) == 0) {
		name = event + 9;
		ret = 1;
	} else {
		return;
	}
	if (ks_probe_lookup(prov_id, "", name, ret ? "return" : "entry") !=
	    DTRACE_IDNONE)
		return;
	sp = calloc(1, sizeof(*sp));
	if (sp == NULL)
		return;
	snprintf(sp->sp_event, sizeof(sp->sp_event), "%s", event);
	sp->sp_return = ret;
	sp->sp_capture = -1;
	sp->sp_nr = prov_bpf_sys_nr(name);
	sp->sp_id = ks_probe_create(prov_id, "", name,
	    ret ? "return" : "entry", 0, sp);
	if (sp->sp_id == DTRACE_IDNONE)
		free(sp);
}

static void sc_provide(void *parg, const dtrace_probedesc_t *desc)
{
	if (provided)
		return;
	if (prov_tracefs_each("syscalls", make_probe, NULL) == 0)
		provided = 1;
}

/* Index of the first argument field (after __syscall_nr). */
static int first_arg(const prov_tf_format_t *fmt)
{
	int i = prov_tracefs_field(fmt, "__syscall_nr");

	return i < 0 ? 0 : i + 1;
}

static void sc_fire(void *arg, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	scprobe_t *sp = arg;
	ks_probe_ctx_t ctx;

	prov_perf_ctx(&ctx, sp->sp_id, s);
	if (!sp->sp_return) {
		prov_tp_args(&ctx, fmt, s->pps_raw, s->pps_rawlen,
		    first_arg(fmt));
	} else {
		int i = prov_tracefs_field(fmt, "ret");
		int64_t ret = i < 0 ? 0 : (int64_t)prov_tracefs_int(
		    &fmt->tff_fields[i], s->pps_raw, s->pps_rawlen);

		if (ret < 0 && ret >= -4095) {
			ctx.kpc_errno = (int32_t)-ret;
			ret = -1;
		}
		ctx.kpc_args[0] = ctx.kpc_args[1] = (uint64_t)ret;
	}
	prov_fire(&ctx);
}

/* The probe's format, for the drain thread: looked up (under tp.c's
 * lock, which enabling holds across slow work) once, not per record. */
static const prov_tf_format_t *sc_format(scprobe_t *sp)
{
	if (sp->sp_fmt == NULL)
		sp->sp_fmt = prov_tp_format("syscalls", sp->sp_event);
	return sp->sp_fmt;
}

/* A capture record from the BPF program: fire with the string captured
 * at event time served at the pointer's own address. */
static void sc_fire_captured(void *arg, const prov_perf_sample_t *s)
{
	/* RAW data is only 4-byte aligned: no struct access, offsets */
	const uint8_t *rec = s->pps_raw + offsetof(prov_bpf_rec_t, pbr_rec);
	const uint8_t *str = s->pps_raw + offsetof(prov_bpf_rec_t, pbr_str);
	static ks_ucapture_t cap;
	const prov_tf_format_t *fmt;
	ks_probe_ctx_t ctx;
	scprobe_t *sp = arg;
	int64_t slen;

	if (s->pps_rawlen < sizeof(prov_bpf_rec_t) ||
	    (fmt = sc_format(sp)) == NULL)
		return;
	memcpy(&slen, s->pps_raw + offsetof(prov_bpf_rec_t, pbr_len),
	    sizeof(slen));
	prov_perf_ctx(&ctx, sp->sp_id, s);
	prov_tp_args(&ctx, fmt, rec, 64, first_arg(fmt));
	cap.kuc_addr = prov_tracefs_int(&fmt->tff_fields[sp->sp_stri], rec,
	    64);
	cap.kuc_len = prov_bpf_caplen(slen);
	cap.kuc_data = str;
	ctx.kpc_ucap = &cap;
	ctx.kpc_nucap = cap.kuc_len > 0 ? 1 : 0;
	prov_fire(&ctx);
}

/* A record of the raw route without a string capture. */
static void sc_fire_raw(void *arg, const prov_perf_sample_t *s)
{
	scprobe_t *sp = arg;
	const prov_tf_format_t *fmt = sc_format(sp);

	if (fmt != NULL)
		sc_fire(sp, s, fmt);
}

int prov_syscall_strarg(const prov_tf_format_t *fmt)
{
	for (int i = first_arg(fmt); i < fmt->tff_nfields; i++) {
		const prov_tf_field_t *f = &fmt->tff_fields[i];

		if (strstr(f->tff_type, "char") != NULL &&
		    strchr(f->tff_type, '*') != NULL &&
		    strstr(f->tff_type, "* *") == NULL &&
		    strstr(f->tff_type, "*const *") == NULL &&
		    f->tff_offset + 8 <= 64)
			return i;
	}
	return -1;
}

/* The filter's argument map of a return probe: arg0 and arg1 are the
 * return value at offset 16 (sys_exit_X and raw_syscalls:sys_exit). */
static void ret_argmap(prov_bpf_argmap_t *am)
{
	memset(am, 0, sizeof(*am));
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		am->pba_off[i] = -1;
	for (int i = 0; i < 2; i++) {
		am->pba_off[i] = 16;
		am->pba_size[i] = 8;
		am->pba_signed[i] = PROV_BPF_ERRRET;
	}
}

/* The argument map of an entry record of size bytes whose capture body
 * copies field stri's string (-1: none): that argument is pba_ustr, so
 * copyinstr() of it may be counted in the kernel (bpf_agg.c). */
static void strarg_map(prov_bpf_argmap_t *am, const prov_tf_format_t *fmt,
    uint32_t size, int stri)
{
	uint32_t off;

	prov_bpf_argmap_fmt(am, fmt, first_arg(fmt), size);
	if (stri < 0)
		return;
	off = fmt->tff_fields[stri].tff_offset;
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		if (am->pba_off[i] == (int16_t)off && am->pba_size[i] == 8)
			am->pba_ustr = (uint8_t)(i + 1);
}

/* Try the raw_syscalls route (bpf_sys.c). */
static int raw_on(scprobe_t *sp, dtrace_id_t id)
{
	const prov_tf_format_t *fmt = prov_tp_format("syscalls", sp->sp_event);
	uint32_t size = fmt != NULL ? prov_tracefs_size(fmt) : 0;
	prov_bpf_argmap_t am;
	int stroff = -1;

	if (size < 16)			/* no arguments: id only */
		size = 16;
	if (sp->sp_nr < 0 || fmt == NULL || size > 64)
		return -1;
	sp->sp_stri = sp->sp_return ? -1 : prov_syscall_strarg(fmt);
	if (sp->sp_stri >= 0)
		stroff = (int)fmt->tff_fields[sp->sp_stri].tff_offset;
	sp->sp_capture = prov_bpf_sys(sp->sp_return, sp->sp_nr, (int)size,
	    stroff, prov_perf_wants_stack(id), stroff >= 0 ?
	    sc_fire_captured : sc_fire_raw, sp);
	if (sp->sp_capture < 0)
		return -1;
	if (sp->sp_return)
		ret_argmap(&am);
	else
		strarg_map(&am, fmt, size, sp->sp_stri);
	prov_bpf_filter_probe(sp->sp_capture, id, PROV_FV_ALL | PROV_FV_ONE,
	    &am);
	return 0;
}

/* Try the capturing route for an entry probe with a string argument. */
static int capture_on(scprobe_t *sp, dtrace_id_t id)
{
	const prov_tf_format_t *fmt = prov_tp_format("syscalls", sp->sp_event);
	prov_bpf_argmap_t am;

	if (sp->sp_return || fmt == NULL ||
	    (sp->sp_stri = prov_syscall_strarg(fmt)) < 0)
		return -1;
	sp->sp_capture = prov_bpf_capture(fmt->tff_id,
	    (int)prov_tracefs_size(fmt),
	    (int)fmt->tff_fields[sp->sp_stri].tff_offset,
	    prov_perf_wants_stack(id), sc_fire_captured, sp);
	if (sp->sp_capture < 0)
		return -1;
	strarg_map(&am, fmt, 64, sp->sp_stri);
	prov_bpf_filter_probe(sp->sp_capture, id, PROV_FV_ALL | PROV_FV_ONE,
	    &am);
	return 0;
}

/* Enable sp on its own tracepoint: a capture, else through tp.c. */
static int own_on(scprobe_t *sp, dtrace_id_t id)
{
	const prov_tf_format_t *fmt;
	prov_bpf_argmap_t am;

	if (capture_on(sp, id) == 0)
		return 0;
	if (prov_tp_subscribe("syscalls", sp->sp_event, id, sc_fire, sp) != 0)
		return -1;
	/* predicates on the task and (entry) arguments filter in BPF */
	fmt = prov_tp_format("syscalls", sp->sp_event);
	if (fmt != NULL && !sp->sp_return) {
		prov_bpf_argmap_fmt(&am, fmt, first_arg(fmt),
		    prov_tracefs_size(fmt));
		prov_tp_filter("syscalls", sp->sp_event, sc_fire, sp,
		    PROV_FV_ALL | PROV_FV_ONE, &am);
	} else {
		ret_argmap(&am);
		prov_tp_filter("syscalls", sp->sp_event, sc_fire, sp,
		    PROV_FV_ALL | PROV_FV_ONE, &am);
	}
	return 0;
}

/* Take sp off the list of probes on tracepoints of their own. */
static void unown(scprobe_t *sp)
{
	for (int i = 0; sp->sp_own && i < nown; i++)
		if (owned[i] == sp) {
			owned[i] = owned[--nown];
			break;
		}
	sp->sp_own = 0;
}

/* The raw route is in use and nothing fires into any consumer yet: move
 * the probes on tracepoints of their own onto it (see the top), closing
 * their old attachments rather than keeping them idle. */
static void own_to_raw(void)
{
	if (prov_firings_count())
		return;
	prov_bpf_keep_idle(0);
	for (int i = nown - 1; i >= 0; i--) {
		scprobe_t *sp = owned[i];
		int old = sp->sp_capture;

		sp->sp_capture = -1;
		if (raw_on(sp, sp->sp_id) != 0) {
			sp->sp_capture = old;	/* stays where it is */
			continue;
		}
		unown(sp);
		if (old >= 0)
			prov_bpf_release(old);
		else
			prov_tp_unsubscribe("syscalls", sp->sp_event,
			    sc_fire, sp);
	}
	prov_bpf_keep_idle(1);
	prov_bpf_close_deferred();	/* open, an event keeps the callback */
}

int prov_syscall_nown(void)
{
	return nown;
}

static int sc_enable(void *parg, dtrace_id_t id, void *arg)
{
	scprobe_t *sp = arg;
	int own = nown < SC_OWN_MAX && !prov_bpf_sys_busy();

	if (sp->sp_capture >= 0 || sp->sp_own)
		return 0;
	if (own && own_on(sp, id) == 0)
		goto mine;
	if (raw_on(sp, id) == 0) {
		own_to_raw();
		return 0;
	}
	if (own || own_on(sp, id) != 0)
		return -1;
mine:
	sp->sp_own = 1;
	owned[nown++] = sp;
	return 0;
}

static void sc_disable(void *parg, dtrace_id_t id, void *arg)
{
	scprobe_t *sp = arg;

	unown(sp);
	if (sp->sp_capture >= 0) {
		prov_bpf_release(sp->sp_capture);
		sp->sp_capture = -1;
		return;
	}
	prov_tp_unsubscribe("syscalls", sp->sp_event, sc_fire, sp);
}

static void sc_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc)
{
	scprobe_t *sp = arg;
	const prov_tf_format_t *fmt;

	if (sp->sp_return) {
		if (desc->dtargd_ndx > 1) {
			desc->dtargd_ndx = DTRACE_ARGNONE;
			return;
		}
		snprintf(desc->dtargd_native, sizeof(desc->dtargd_native),
		    "int64_t");
		desc->dtargd_mapping = desc->dtargd_ndx;
		return;
	}
	fmt = prov_tp_format("syscalls", sp->sp_event);
	if (fmt == NULL) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	prov_tp_argdesc(fmt, first_arg(fmt), desc);
}

static const ks_provider_ops_t sc_ops = {
	.kpo_provide = sc_provide,
	.kpo_enable = sc_enable,
	.kpo_disable = sc_disable,
	.kpo_getargdesc = sc_getargdesc,
};

int prov_syscall_register(void)
{
	if (ks_provider_register("syscall", &sc_ops, NULL, &prov_id) != 0)
		return errno == EEXIST ? 0 : -1;
	return 0;
}
