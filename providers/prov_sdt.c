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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prov_impl.h"

typedef struct sdtprobe {
	char sd_sys[64], sd_event[64];
	dtrace_id_t sd_id;
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

static int sdt_enable(void *parg, dtrace_id_t id, void *arg)
{
	sdtprobe_t *sp = arg;

	return prov_tp_subscribe(sp->sd_sys, sp->sd_event, id, sdt_fire, sp);
}

static void sdt_disable(void *parg, dtrace_id_t id, void *arg)
{
	sdtprobe_t *sp = arg;

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
