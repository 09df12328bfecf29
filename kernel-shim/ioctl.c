/*
 * ioctl.c - ks_ioctl(): the DTRACEIOC_* commands, one small handler each.
 *
 * Handlers check their argument, take the fire lock only around what
 * probe context also touches, and report failures through
 * ks_state_seterr() (errno plus a message for ks_errmsg()).
 */
#include <errno.h>
#include <string.h>
#include "ks_filter.h"
#include "ks_impl.h"

/* PROBES and PROBEMATCH: the first probe with id >= dtpd_id (matching the
 * globs for PROBEMATCH).  Providers are asked to provide at the start of a
 * walk (dtpd_id <= 1). */
static int probe_next(ks_state_t *st, dtrace_probedesc_t *d, int match)
{
	dtrace_probedesc_t want = *d;
	dtrace_id_t id, n;

	want.dtpd_provider[DTRACE_PROVNAMELEN - 1] = '\0';
	want.dtpd_mod[DTRACE_MODNAMELEN - 1] = '\0';
	want.dtpd_func[DTRACE_FUNCNAMELEN - 1] = '\0';
	want.dtpd_name[DTRACE_NAMELEN - 1] = '\0';
	if (d->dtpd_id <= 1)
		ks_probe_provide(match ? &want : NULL);
	n = ks_probe_count();
	for (id = d->dtpd_id < 1 ? 1 : d->dtpd_id; id <= n; id++) {
		ks_probe_t *p = ks_probe_get(id);

		if (p == NULL || __atomic_load_n(&p->kp_prov->kv_defunct,
		    __ATOMIC_ACQUIRE) || (match && !ks_probe_matches(p, &want)))
			continue;		/* (unregistered: gone) */
		ks_probe_describe(p, d);
		return 0;
	}
	return ks_state_seterr(st, ESRCH, "no more probes");
}

static int do_probearg(ks_state_t *st, dtrace_argdesc_t *a)
{
	if (ks_probe_argdesc(a) != 0)
		return ks_state_seterr(st, ENOENT, "probe %u does not exist",
		    a->dtargd_id);
	return 0;
}

static int do_conf(dtrace_conf_t *c)
{
	memset(c, 0, sizeof(*c));
	c->dtc_difversion = DIF_VERSION;
	c->dtc_difintregs = DIF_DIR_NREGS;
	c->dtc_diftupregs = DIF_DTR_NREGS;
	c->dtc_ctfmodel = DOF_MODEL_LP64;
	c->dtc_ncpus = ks_ncpus();
	return 0;
}

static int do_enable(ks_state_t *st, dtrace_enable_arg_t *ea)
{
	ks_enabling_t *en;
	char err[KS_ERRLEN];

	ea->dtea_nmatched = 0;
	ea->dtea_errmsg[0] = '\0';
	if (st->st_activity == KS_ST_STOPPED ||
	    st->st_activity == KS_ST_DRAINING) {
		ks_state_seterr(st, EBUSY, "tracing has stopped");
		goto fail;
	}
	en = ks_dof_load(ea->dtea_dof, ea->dtea_size,
	    st->st_vstate != NULL ? ks_state_opt(st, DTRACEOPT_STRSIZE) : 0,
	    err, sizeof(err));
	if (en == NULL) {
		ks_state_seterr(st, EINVAL, "%s", err);
		goto fail;
	}
	/* once tracing, GO's check of destructive actions is made here */
	if (st->st_activity != KS_ST_INACTIVE && ks_enabling_destructive(en) &&
	    en->en_opts[DTRACEOPT_DESTRUCTIVE] == DTRACEOPT_UNSET &&
	    ks_state_opt(st, DTRACEOPT_DESTRUCTIVE) == DTRACEOPT_UNSET) {
		ks_enabling_free(en);
		ks_state_seterr(st, EACCES, "Destructive actions not allowed");
		goto fail;
	}
	ks_filter_begin();		/* filters loosen, see ks_filter.h */
	if (ks_enable_add(st, en, &ea->dtea_nmatched) != 0) {
		ks_filter_end();
		ks_enabling_free(en);
		goto fail;
	}
	ks_filter_end();
	ea->dtea_enabling = en->en_id;
	return 0;
fail:
	memcpy(ea->dtea_errmsg, st->st_err, sizeof(ea->dtea_errmsg));
	ea->dtea_errmsg[sizeof(ea->dtea_errmsg) - 1] = '\0';
	return -1;
}

static int do_bufsnap(ks_state_t *st, dtrace_bufdesc_t *d, int agg)
{
	ks_buf_t *b;
	int rc;

	if (d->dtbd_cpu >= st->st_ncpus)
		return ks_state_seterr(st, EINVAL, "no CPU %u", d->dtbd_cpu);
	if (!st->st_allocated) {
		d->dtbd_size = 0;
		d->dtbd_drops = 0;
		d->dtbd_errors = 0;
		d->dtbd_oldest = 0;
		return 0;
	}
	if (agg) {
		pthread_mutex_lock(&ks_fire_lock);
		b = &st->st_bufs[d->dtbd_cpu];
		rc = ks_aggbuf_snap(&st->st_aggbufs[d->dtbd_cpu], d);
		d->dtbd_drops = b->kb_aggdrops;	/* cumulative, see ks.h */
		d->dtbd_errors = (uint32_t)b->kb_errors;
		pthread_mutex_unlock(&ks_fire_lock);
		if (rc != 0)
			return ks_state_seterr(st, ENOSPC, "aggregation "
			    "snapshot of CPU %u needs a larger buffer",
			    d->dtbd_cpu);
		return 0;
	}
	if (ks_buf_snap(st, &st->st_bufs[d->dtbd_cpu], d) != 0)
		return ks_state_seterr(st, ENOSPC, "snapshot of CPU %u "
		    "needs a buffer of bufsize bytes", d->dtbd_cpu);
	return 0;
}

static int do_status(ks_state_t *st, dtrace_status_t *s)
{
	uint64_t dyn = 0;

	pthread_mutex_lock(&ks_fire_lock);
	if (st->st_allocated)
		ks_spec_clean(st);
	if (st->st_vstate != NULL)
		dyn = ks_vstate_dyndrops(st->st_vstate);
	*s = st->st_status;
	s->dtst_dyndrops += dyn;
	pthread_mutex_unlock(&ks_fire_lock);
	return 0;
}

/* Copy up to room record descriptions; report how many there are. */
static void copy_recs(dtrace_recdesc_t *dst, int room,
    const dtrace_recdesc_t *src, int n)
{
	int i;

	for (i = 0; i < n && i < room; i++)
		dst[i] = src[i];
}

static int do_eprobe(ks_state_t *st, dtrace_eprobedesc_t *d)
{
	const ks_ecb_t *e;
	const ks_clause_t *c;
	int room = d->dtepd_nrecs;

	if (d->dtepd_epid == DTRACE_EPIDNONE || d->dtepd_epid > st->st_necbs)
		return ks_state_seterr(st, ENOENT, "no enabled probe %u",
		    d->dtepd_epid);
	e = st->st_ecbs[d->dtepd_epid - 1];
	c = e->ke_clause;
	d->dtepd_probeid = e->ke_probe->kp_id;
	d->dtepd_uarg = c->kc_uarg;
	d->dtepd_size = c->kc_size;
	d->dtepd_nrecs = c->kc_nrecs;
	copy_recs(d->dtepd_rec, room, c->kc_recs, c->kc_nrecs);
	return 0;
}

static int do_aggdesc(ks_state_t *st, dtrace_aggdesc_t *d)
{
	const ks_agg_t *g;
	int room = d->dtagd_nrecs;

	if (d->dtagd_id == DTRACE_AGGIDNONE || d->dtagd_id > st->st_naggs)
		return ks_state_seterr(st, ENOENT, "no aggregation %u",
		    d->dtagd_id);
	g = st->st_aggs[d->dtagd_id - 1];
	d->dtagd_epid = g->kg_epid;
	d->dtagd_size = g->kg_size;
	d->dtagd_nrecs = g->kg_nrecs;
	copy_recs(d->dtagd_rec, room, g->kg_recs, g->kg_nrecs);
	return 0;
}

static int do_format(ks_state_t *st, dtrace_fmtdesc_t *f)
{
	const char *s;
	size_t len;

	if (f->dtfd_format == 0 || f->dtfd_format > st->st_nformats)
		return ks_state_seterr(st, ENOENT, "no format %u",
		    f->dtfd_format);
	s = st->st_formats[f->dtfd_format - 1];
	len = strlen(s) + 1;
	if (f->dtfd_string == NULL || f->dtfd_length < (int)len) {
		f->dtfd_length = (int)len;
		return 0;
	}
	memcpy(f->dtfd_string, s, len);
	return 0;
}

int ks_ioctl(ks_state_t *st, int cmd, void *arg)
{
	if (st == NULL || arg == NULL) {
		errno = EINVAL;
		return -1;
	}
	st->st_err[0] = '\0';
	switch (cmd) {
	case DTRACEIOC_PROBES:
		return probe_next(st, arg, 0);
	case DTRACEIOC_PROBEMATCH:
		return probe_next(st, arg, 1);
	case DTRACEIOC_PROBEARG:
		return do_probearg(st, arg);
	case DTRACEIOC_CONF:
		return do_conf(arg);
	case DTRACEIOC_ENABLE:
		return do_enable(st, arg);
	case DTRACEIOC_GO:
		return ks_state_go(st, arg);
	case DTRACEIOC_STOP:
		return ks_state_stop(st, arg);
	case DTRACEIOC_BUFSNAP:
		return do_bufsnap(st, arg, 0);
	case DTRACEIOC_AGGSNAP:
		return do_bufsnap(st, arg, 1);
	case DTRACEIOC_STATUS:
		return do_status(st, arg);
	case DTRACEIOC_EPROBE:
		return do_eprobe(st, arg);
	case DTRACEIOC_AGGDESC:
		return do_aggdesc(st, arg);
	case DTRACEIOC_FORMAT:
		return do_format(st, arg);
	case DTRACEIOC_DISABLE:
		return ks_enable_disable(st, *(uint32_t *)arg);
	case DTRACEIOC_ECBSTAT:
		return ks_ecb_stats(st, arg);
	default:
		return ks_state_seterr(st, EINVAL, "unknown command %d", cmd);
	}
}
