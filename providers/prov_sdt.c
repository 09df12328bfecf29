/*
 * prov_sdt.c - the sdt provider: every tracefs tracepoint as
 * sdt:<subsystem>::<event>.
 *
 * Arguments are the event's own fields in format-file order (common_*
 * header fields left out), typed by kpo_getargdesc: integers by size and
 * signedness, strings (char[N] and __data_loc char[]) as char * whose
 * bytes, captured at event time, copyinstr() reads back.  Probes are made
 * when a consumer asks: only the named subsystem when the module is given
 * without globs, else every subsystem.
 *
 * sdt:syscalls::sys_enter_* probes with a user string argument (openat's
 * filename ...) are delivered like syscall::*:entry, by the BPF capture
 * program, so copyinstr() of that argument reads the bytes as they were
 * at the event even when the process has moved on or exited.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prov_impl.h"
#include "bpf_filter.h"

typedef struct sdtprobe {
	char sd_sys[64], sd_event[64];
	dtrace_id_t sd_id;
	int sd_capture;			/* BPF attachment + 1, or 0 */
	int sd_stri;			/* captured field index */
} sdtprobe_t;

static ks_provider_id_t prov_id;
static int provided_all;

static void make_probe(void *arg, const char *sys, const char *event)
{
	const dtrace_probedesc_t *desc = arg;
	sdtprobe_t *sp;

	if (desc != NULL && !prov_desc_allows(desc->dtpd_name, event))
		return;
	if (ks_probe_lookup(prov_id, sys, "", event) != DTRACE_IDNONE)
		return;
	sp = calloc(1, sizeof(*sp));
	if (sp == NULL)
		return;
	snprintf(sp->sd_sys, sizeof(sp->sd_sys), "%s", sys);
	snprintf(sp->sd_event, sizeof(sp->sd_event), "%s", event);
	sp->sd_id = ks_probe_create(prov_id, sys, "", event, 0, sp);
	if (sp->sd_id == DTRACE_IDNONE)
		free(sp);
}

static void sdt_provide(void *parg, const dtrace_probedesc_t *desc)
{
	if (provided_all)
		return;
	if (desc != NULL && desc->dtpd_mod[0] != '\0' &&
	    !prov_is_glob(desc->dtpd_mod)) {
		prov_tracefs_each(desc->dtpd_mod, make_probe, (void *)desc);
		return;
	}
	if (prov_tracefs_each(NULL, make_probe, NULL) == 0)
		provided_all = 1;
}

static void sdt_fire(void *arg, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	sdtprobe_t *sp = arg;
	ks_probe_ctx_t ctx;

	prov_perf_ctx(&ctx, sp->sd_id, s);
	prov_tp_args(&ctx, fmt, s->pps_raw, s->pps_rawlen, 0);
	prov_fire(&ctx);
}

/* A capture record (prov_bpf_rec_t, read by offset): fire with the
 * string served at the pointer's own address. */
static void sdt_fire_captured(void *arg, const prov_perf_sample_t *s)
{
	const uint8_t *rec = s->pps_raw + offsetof(prov_bpf_rec_t, pbr_rec);
	static ks_ucapture_t cap;
	const prov_tf_format_t *fmt;
	sdtprobe_t *sp = arg;
	ks_probe_ctx_t ctx;
	int64_t slen;

	if (s->pps_rawlen < sizeof(prov_bpf_rec_t) ||
	    (fmt = prov_tp_format(sp->sd_sys, sp->sd_event)) == NULL)
		return;
	memcpy(&slen, s->pps_raw + offsetof(prov_bpf_rec_t, pbr_len), 8);
	prov_perf_ctx(&ctx, sp->sd_id, s);
	prov_tp_args(&ctx, fmt, rec, 64, 0);
	cap.kuc_addr = prov_tracefs_int(&fmt->tff_fields[sp->sd_stri], rec,
	    64);
	cap.kuc_len = prov_bpf_caplen(slen);
	cap.kuc_data = s->pps_raw + offsetof(prov_bpf_rec_t, pbr_str);
	ctx.kpc_ucap = &cap;
	ctx.kpc_nucap = cap.kuc_len > 0 ? 1 : 0;
	prov_fire(&ctx);
}

/* Try the capturing route for sdt:syscalls::sys_enter_*; 0 or -1. */
static int capture_on(sdtprobe_t *sp, dtrace_id_t id)
{
	const prov_tf_format_t *fmt;
	int att;

	if (strcmp(sp->sd_sys, "syscalls") != 0 ||
	    strncmp(sp->sd_event, "sys_enter_", 10) != 0 ||
	    (fmt = prov_tp_format(sp->sd_sys, sp->sd_event)) == NULL ||
	    (sp->sd_stri = prov_syscall_strarg(fmt)) < 0)
		return -1;
	att = prov_bpf_capture(fmt->tff_id, (int)prov_tracefs_size(fmt),
	    (int)fmt->tff_fields[sp->sd_stri].tff_offset,
	    prov_perf_wants_stack(id), sdt_fire_captured, sp);
	if (att < 0)
		return -1;
	sp->sd_capture = att + 1;
	return 0;
}

static int sdt_enable(void *parg, dtrace_id_t id, void *arg)
{
	sdtprobe_t *sp = arg;
	const prov_tf_format_t *fmt;
	prov_bpf_argmap_t am;
	uint32_t len;

	if (sp->sd_capture > 0 || capture_on(sp, id) == 0)
		return 0;
	if (prov_tp_subscribe(sp->sd_sys, sp->sd_event, id, sdt_fire, sp) != 0)
		return -1;
	/* predicates on the task and the arguments filter in BPF */
	if ((fmt = prov_tp_format(sp->sd_sys, sp->sd_event)) != NULL) {
		len = prov_tracefs_size(fmt);
		prov_bpf_argmap_fmt(&am, fmt, 0, len < 440 ? len : 440);
		prov_tp_filter(sp->sd_sys, sp->sd_event, sdt_fire, sp,
		    PROV_FV_ALL | PROV_FV_ONE, &am);
	}
	return 0;
}

static void sdt_disable(void *parg, dtrace_id_t id, void *arg)
{
	sdtprobe_t *sp = arg;

	if (sp->sd_capture > 0) {
		prov_bpf_release(sp->sd_capture - 1);
		sp->sd_capture = 0;
		return;
	}
	prov_tp_unsubscribe(sp->sd_sys, sp->sd_event, sdt_fire, sp);
}

static void sdt_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc)
{
	sdtprobe_t *sp = arg;
	const prov_tf_format_t *fmt = prov_tp_format(sp->sd_sys, sp->sd_event);

	if (fmt == NULL) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	prov_tp_argdesc(fmt, 0, desc);
}

static const ks_provider_ops_t sdt_ops = {
	.kpo_provide = sdt_provide,
	.kpo_enable = sdt_enable,
	.kpo_disable = sdt_disable,
	.kpo_getargdesc = sdt_getargdesc,
};

int prov_sdt_register(void)
{
	if (ks_provider_register("sdt", &sdt_ops, NULL, &prov_id) != 0)
		return errno == EEXIST ? 0 : -1;
	return 0;
}
