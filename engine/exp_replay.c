/*
 * exp_replay.c - replaying an experiment (exp.h): the shim's answers
 * taken from the records, and the public calls made again in their
 * recorded order (eng_replay_run).
 *
 * The engine handle replays with no providers and no enabling; the
 * consumer runs unchanged and every ioctl it makes is answered here:
 * stream answers (GO, STOP, STATUS, BUFSNAP, AGGSNAP) from the next
 * record, which must be of that kind (else the experiment is "out of
 * step": refused, or, after a file was cut short, the end); keyed
 * answers from the table, filled as the records go by.  Every keyed
 * value is checked before it is kept (a description whose records lie
 * outside its size is refused), since the consumer trusts what the shim
 * describes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "exp.h"
#include "consume.h"

#define MAXRECS	4096		/* record descriptions per description */
#define MAXSIZE	(1u << 26)	/* bytes of one firing or aggregation record */

int eng_exp_replaying(const eng_hdl_t *h)
{
	return h->eh_exp != NULL && h->eh_exp->x_replay;
}

static int is_keyed(int type)
{
	return (type >= EXP_R_EPROBE && type <= EXP_R_NORM) ||
	    type == EXP_R_PRED;
}

/* Records a replay may pass over when it looks for another: kinds this
 * build does not know (a newer minor's, exp_read.c) and where ECBs run
 * when nothing asks (taken: the pane keeps what it had). */
static int skipped(eng_hdl_t *h, const struct exp_rhdr *rh, int file)
{
	if (eng_exp_unknown(rh->rh_type)) {
		eng_exp_skip(h, file);
		return 1;
	}
	if (rh->rh_type == EXP_R_ECBRUNS || rh->rh_type == EXP_R_ECBTIME) {
		eng_exp_take(h, file);
		return 1;
	}
	return 0;
}

/* Out of step or malformed: refused (x_err), or the end after a cut. */
static int bad(eng_hdl_t *h, int file, const char *what)
{
	struct eng_exp *x = h->eh_exp;
	char where[1300];

	eng_exp_where(h, file, where, sizeof (where));
	if (x->x_err[0] == '\0' && x->x_warn[0] == '\0')
		snprintf(x->x_err, sizeof (x->x_err), "%s: %s", where, what);
	errno = EIO;
	return -1;
}

static int recs_ok(const dtrace_recdesc_t *r, int n, uint32_t size)
{
	for (int i = 0; i < n; i++)
		if ((uint64_t)r[i].dtrd_offset + r[i].dtrd_size > size)
			return 0;
	return 1;
}

/* Is the keyed value well formed for its type? */
static int value_ok(int type, const struct exp_key *k, const char *v,
    size_t len)
{
	if (k->k_rc != 0)
		return len == 0;
	switch (type) {
	case EXP_R_EPROBE: {
		dtrace_eprobedesc_t d;
		size_t hd = offsetof(dtrace_eprobedesc_t, dtepd_rec);

		if (len < hd)
			return 0;
		memcpy(&d, v, hd);
		if (d.dtepd_nrecs < 0 || d.dtepd_nrecs > MAXRECS ||
		    len != hd + (size_t)d.dtepd_nrecs * sizeof (dtrace_recdesc_t)
		    || d.dtepd_size < sizeof (dtrace_rechdr_t) ||
		    d.dtepd_size > MAXSIZE || d.dtepd_epid != k->k_a)
			return 0;
		return recs_ok((const dtrace_recdesc_t *)(const void *)(v + hd),
		    d.dtepd_nrecs, d.dtepd_size);
	}
	case EXP_R_AGGDESC: {
		dtrace_aggdesc_t d;
		size_t hd = offsetof(dtrace_aggdesc_t, dtagd_rec);

		if (len < hd)
			return 0;
		memcpy(&d, v, hd);
		if (d.dtagd_nrecs < 2 || d.dtagd_nrecs > MAXRECS ||
		    len != hd + (size_t)d.dtagd_nrecs * sizeof (dtrace_recdesc_t)
		    || d.dtagd_size < 8 || d.dtagd_size > MAXSIZE ||
		    d.dtagd_id != k->k_a)
			return 0;
		return recs_ok((const dtrace_recdesc_t *)(const void *)(v + hd),
		    d.dtagd_nrecs, d.dtagd_size);
	}
	case EXP_R_PROBE: return len == sizeof (dtrace_probedesc_t);
	case EXP_R_PIECE: return len == sizeof (int32_t);
	case EXP_R_NORM: return len == sizeof (uint64_t);
	default: return memchr(v, '\0', len) == NULL;	/* strings */
	}
}

/* Keep a keyed record (it is taken). 0, or -1 if malformed. */
static int install(eng_hdl_t *h, const struct exp_rhdr *rh,
    const char *body, int file)
{
	struct exp_key k;
	size_t len;

	if (rh->rh_len < sizeof (k))
		return bad(h, file, "keyed record too short");
	memcpy(&k, body, sizeof (k));
	len = rh->rh_len - sizeof (k);
	if (!value_ok(rh->rh_type, &k, body + sizeof (k), len))
		return bad(h, file, "malformed description");
	if (eng_exp_keys_put(&h->eh_exp->x_keys, rh->rh_type, &k,
	    body + sizeof (k), len) != 0)
		return bad(h, file, "out of memory");
	eng_exp_take(h, file);
	return 0;
}

const struct exp_keyval *eng_exp_keyed(eng_hdl_t *h, int type, uint64_t a,
    uint64_t b, uint64_t c)
{
	const struct exp_keyval *kv;
	const struct exp_rhdr *rh;
	const char *body;
	int f;

	while ((kv = eng_exp_keys_get(h->eh_exp->x_keys, type, a, b, c)) ==
	    NULL) {
		if ((rh = eng_exp_peek(h, &body, &f)) == NULL)
			return NULL;
		if (rh->rh_type == EXP_R_MARK && rh->rh_depth > 0)
			eng_exp_take(h, f);
		else if (eng_exp_unknown(rh->rh_type))
			eng_exp_skip(h, f);
		else if (!is_keyed(rh->rh_type) || install(h, rh, body, f) != 0)
			return NULL;
	}
	return kv;
}

/* The next stream answer, which must be of type (unless optional: then
 * NULL without complaint when another comes first); not taken. */
static const struct exp_rhdr *pull_any(eng_hdl_t *h, int type,
    const char **body, int *file, int optional)
{
	const struct exp_rhdr *rh;

	while ((rh = eng_exp_peek(h, body, file)) != NULL) {
		if (rh->rh_type == type)
			return rh;
		if (rh->rh_type == EXP_R_MARK && rh->rh_depth > 0)
			eng_exp_take(h, *file);
		else if (skipped(h, rh, *file))
			continue;
		else if (!is_keyed(rh->rh_type) ||
		    install(h, rh, *body, *file) != 0)
			break;
	}
	if (rh != NULL && !optional)
		bad(h, *file, "record out of step with the replay");
	errno = optional ? ENOENT : EIO;
	return NULL;
}

static const struct exp_rhdr *pull(eng_hdl_t *h, int type,
    const char **body, int *file)
{
	return pull_any(h, type, body, file, 0);
}

/* The timed runs recorded after an ECBSTAT of n counters (1.2), if the
 * experiment has them. */
static void ecbtime(eng_hdl_t *h, dtrace_ecbstats_t *s, uint32_t n)
{
	const char *body;
	int f;
	const struct exp_rhdr *rh = pull_any(h, EXP_R_ECBTIME, &body, &f, 1);

	if (rh == NULL)
		return;
	if (rh->rh_len == (size_t)n * sizeof (struct exp_ecbtime))
		for (uint32_t i = 0; i < n; i++) {
			struct exp_ecbtime t;

			memcpy(&t, body + i * sizeof (t), sizeof (t));
			s->dtess_stats[i].dtes_samples = t.et_samples;
			s->dtess_stats[i].dtes_sampns = t.et_ns;
		}
	eng_exp_take(h, f);
}

/* ECBSTAT: the counters of the tick, if the experiment has them. */
static int ecbstat(eng_hdl_t *h, dtrace_ecbstats_t *s)
{
	const char *body;
	int f;
	const struct exp_rhdr *rh = pull_any(h, EXP_R_ECBSTAT, &body, &f, 1);
	struct exp_ans an;
	struct exp_ecbs es;

	if (rh == NULL)
		return -1;
	if (rh->rh_len < sizeof (an) + sizeof (es))
		return bad(h, f, "counters record too short");
	memcpy(&an, body, sizeof (an));
	memcpy(&es, body + sizeof (an), sizeof (es));
	if (es.es_n != es.es_necbs || rh->rh_len != sizeof (an) +
	    sizeof (es) + (size_t)es.es_n * sizeof (struct exp_ecbcnt))
		return bad(h, f, "counters record of the wrong size");
	s->dtess_necbs = es.es_necbs;
	if (es.es_n > s->dtess_room)
		return 0;		/* asked again with more room: not taken */
	if (es.es_n > 0 && s->dtess_stats == NULL)
		return bad(h, f, "no room for counters");
	for (uint32_t i = 0; i < es.es_n; i++) {
		struct exp_ecbcnt c;

		memcpy(&c, body + sizeof (an) + sizeof (es) + i * sizeof (c),
		    sizeof (c));
		s->dtess_stats[i] = (dtrace_ecbstat_t){ c.ec_fires,
		    c.ec_predfalse, c.ec_drops, c.ec_errors, 0, 0 };
	}
	eng_exp_take(h, f);
	ecbtime(h, s, es.es_n);
	errno = an.an_errno;
	return an.an_rc;
}

int eng_exp_runs_replay(eng_hdl_t *h, const uint8_t **runs, size_t *np)
{
	struct eng_exp *x = h->eh_exp;
	const char *body;
	int f;
	const struct exp_rhdr *rh = pull_any(h, EXP_R_ECBRUNS, &body, &f, 1);

	if (rh != NULL) {
		uint8_t *nv = realloc(x->x_runs, (size_t)rh->rh_len + 1);

		if (nv == NULL)
			return 0;
		memcpy(nv, body, rh->rh_len);
		x->x_runs = nv;
		x->x_nruns = rh->rh_len;
		eng_exp_take(h, f);
	}
	*runs = x->x_runs;
	*np = x->x_nruns;
	return x->x_runs != NULL;
}

static int answer(eng_hdl_t *h, int type, void *arg, size_t size)
{
	const char *body;
	int f;
	const struct exp_rhdr *rh = pull(h, type, &body, &f);
	struct exp_ans an;

	if (rh == NULL)
		return -1;
	if (rh->rh_len != sizeof (an) + size)
		return bad(h, f, "answer of the wrong size");
	memcpy(&an, body, sizeof (an));
	memcpy(arg, body + sizeof (an), size);
	eng_exp_take(h, f);
	errno = an.an_errno;
	return an.an_rc;
}

static int snap(eng_hdl_t *h, int type, dtrace_bufdesc_t *bd)
{
	const char *body;
	int f;
	const struct exp_rhdr *rh = pull(h, type, &body, &f);
	struct exp_snap sn;

	if (rh == NULL)
		return -1;
	if (rh->rh_len < sizeof (sn))
		return bad(h, f, "snapshot record too short");
	memcpy(&sn, body, sizeof (sn));
	if ((sn.sn_enc == EXP_ENC_RAW && sn.sn_size != rh->rh_len -
	    sizeof (sn)) || sn.sn_enc > EXP_ENC_ZRLE ||
	    sn.sn_cpu != bd->dtbd_cpu || (sn.sn_rc != 0 && sn.sn_size != 0))
		return bad(h, f, "snapshot of the wrong size or CPU");
	if (sn.sn_rc == 0 && sn.sn_size > bd->dtbd_size) {
		bd->dtbd_size = sn.sn_size;
		errno = ENOSPC;		/* asked again: not taken */
		return -1;
	}
	if (sn.sn_enc == EXP_ENC_ZRLE && eng_exp_unzrle(body + sizeof (sn),
	    rh->rh_len - sizeof (sn), bd->dtbd_data, sn.sn_size) != 0)
		return bad(h, f, "snapshot data badly coded");
	if (sn.sn_rc == 0 && sn.sn_enc == EXP_ENC_RAW)
		memcpy(bd->dtbd_data, body + sizeof (sn), sn.sn_size);
	bd->dtbd_size = sn.sn_size;
	bd->dtbd_errors = sn.sn_errors;
	bd->dtbd_drops = sn.sn_drops;
	bd->dtbd_oldest = sn.sn_oldest;
	bd->dtbd_timestamp = sn.sn_timestamp;
	eng_exp_take(h, f);
	errno = sn.sn_errno;
	return sn.sn_rc;
}

/* A keyed description: the recorded one, or its header and count when
 * the caller's room is smaller (it asks again), as the shim does. */
static int describe(eng_hdl_t *h, int type, uint64_t key, void *arg,
    size_t hd, int *nrecsp)
{
	const struct exp_keyval *kv = eng_exp_keyed(h, type, key, 0, 0);
	int room = *nrecsp, n;

	if (kv == NULL) {
		errno = ENOENT;
		return -1;
	}
	if (kv->kv_key.k_rc != 0) {
		errno = kv->kv_key.k_errno;
		return kv->kv_key.k_rc;
	}
	memcpy(&n, (const char *)kv->kv_val + ((const char *)nrecsp -
	    (const char *)arg), sizeof (n));
	memcpy(arg, kv->kv_val, n > room ? hd : kv->kv_len);
	return 0;
}

static int format(eng_hdl_t *h, dtrace_fmtdesc_t *fd)
{
	const struct exp_keyval *kv = eng_exp_keyed(h, EXP_R_FORMAT,
	    fd->dtfd_format, 0, 0);

	if (kv == NULL) {
		errno = ENOENT;
		return -1;
	}
	if (kv->kv_key.k_rc != 0) {
		errno = kv->kv_key.k_errno;
		return kv->kv_key.k_rc;
	}
	if (fd->dtfd_string == NULL || fd->dtfd_length < (int)kv->kv_len + 1) {
		fd->dtfd_length = (int)kv->kv_len + 1;
		return 0;
	}
	memcpy(fd->dtfd_string, kv->kv_val, kv->kv_len + 1);
	return 0;
}

int eng_exp_replay_ioctl(eng_hdl_t *h, int cmd, void *arg)
{
	switch (cmd) {
	case DTRACEIOC_GO:
		return answer(h, EXP_R_GO, arg, sizeof (uint32_t));
	case DTRACEIOC_STOP:
		return answer(h, EXP_R_STOP, arg, sizeof (uint32_t));
	case DTRACEIOC_STATUS:
		return answer(h, EXP_R_STATUS, arg, sizeof (dtrace_status_t));
	case DTRACEIOC_BUFSNAP:
		return snap(h, EXP_R_BUFSNAP, arg);
	case DTRACEIOC_AGGSNAP:
		return snap(h, EXP_R_AGGSNAP, arg);
	case DTRACEIOC_EPROBE: {
		dtrace_eprobedesc_t *d = arg;

		return describe(h, EXP_R_EPROBE, d->dtepd_epid, d,
		    offsetof(dtrace_eprobedesc_t, dtepd_rec), &d->dtepd_nrecs);
	}
	case DTRACEIOC_AGGDESC: {
		dtrace_aggdesc_t *d = arg;

		return describe(h, EXP_R_AGGDESC, d->dtagd_id, d,
		    offsetof(dtrace_aggdesc_t, dtagd_rec), &d->dtagd_nrecs);
	}
	case DTRACEIOC_PROBES: {
		dtrace_probedesc_t *pd = arg;
		const struct exp_keyval *kv = eng_exp_keyed(h, EXP_R_PROBE,
		    pd->dtpd_id, 0, 0);

		if (kv == NULL || kv->kv_key.k_rc != 0) {
			errno = kv != NULL ? kv->kv_key.k_errno : ESRCH;
			return -1;
		}
		memcpy(pd, kv->kv_val, sizeof (*pd));
		return 0;
	}
	case DTRACEIOC_FORMAT:
		return format(h, arg);
	case DTRACEIOC_ECBSTAT:
		return ecbstat(h, arg);
	default:
		return ks_ioctl(h->eh_ks, cmd, arg);
	}
}

/* ---- the public calls -------------------------------------------------- */

/* The consumer's per-CPU state sized for the recording's CPUs. */
static int fit_cpus(eng_hdl_t *h, int n)
{
	struct eng_consumer *c = h->eh_cons;
	uint64_t **v[] = { &c->ec_drops, &c->ec_aggdrops, &c->ec_errors,
	    &c->ec_aggseen };

	if (n == c->ec_ncpus)
		return 0;
	for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++) {
		uint64_t *nv = calloc((size_t)n, sizeof (uint64_t));

		if (nv == NULL)
			return eng_error(h, "out of memory");
		free(*v[i]);
		*v[i] = nv;
	}
	c->ec_ncpus = n;
	return 0;
}

int eng_replay_open(eng_hdl_t *h, const char *path)
{
	struct eng_exp *x;

	if (h->eh_go || (h->eh_exp != NULL && (h->eh_exp->x_rec ||
	    h->eh_exp->x_replay)))
		return eng_error(h, "a session is already running");
	if ((x = eng_exp_get(h)) == NULL)
		return eng_error(h, "out of memory");
	x->x_want = 0;
	x->x_replay = 1;
	if (eng_exp_read_open(h, path) != 0 || fit_cpus(h, x->x_ncpus) != 0) {
		x->x_replay = 0;
		return -1;
	}
	return 0;
}

int eng_replay_follow(eng_hdl_t *h, int on)
{
	struct eng_exp *x = h->eh_exp;

	if (x == NULL || !x->x_replay)
		return eng_error(h, "no experiment to replay");
	x->x_replay = on ? 2 : 1;
	for (int f = 0; f < EXP_NFILES && !on; f++)
		x->x_in[f].xi_end = x->x_in[f].xi_end || !x->x_in[f].xi_has;
	return 0;
}

int eng_replay_finished(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;
	char path[1200], tail[64];
	FILE *fp;
	size_t n;
	long sz;

	if (x == NULL)
		return 1;
	snprintf(path, sizeof (path), "%s/log.xml", x->x_dir);
	if ((fp = fopen(path, "r")) == NULL)
		return 1;
	fseek(fp, 0, SEEK_END);
	sz = ftell(fp);
	fseek(fp, sz > 40 ? sz - 40 : 0, SEEK_SET);
	n = fread(tail, 1, sizeof (tail) - 1, fp);
	fclose(fp);
	tail[n] = '\0';
	return strstr(tail, "</experiment>") != NULL;
}

const char *eng_replay_warning(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;

	return x != NULL && x->x_warn[0] != '\0' ? x->x_warn : NULL;
}

static void apply_opts(eng_hdl_t *h, const char *body, size_t len)
{
	struct eng_exp *x = h->eh_exp;
	dtrace_optval_t v[ENG_OPT_MAX];

	if (len != sizeof (v))
		return;
	memcpy(v, body, sizeof (v));
	for (int i = 0; i < ENG_OPT_MAX; i++)
		if (!x->x_optkeep[i])
			h->eh_opt[i] = v[i];
}

/* One top-level call again; its result. */
static int call(eng_hdl_t *h, FILE *fp, int api)
{
	switch (api) {
	case EXP_M_GO: return eng_go(h);
	case EXP_M_STOP: return eng_stop(h);
	case EXP_M_STATUS:
		return eng_status(h) == ENG_STATUS_NONE ? -1 : 0;
	case EXP_M_WORK: return eng_work(h, fp);
	case EXP_M_AGGSNAP: return eng_agg_snap(h);
	case EXP_M_AGGPRINT: return fp != NULL ? eng_agg_print(h, fp) : 0;
	default: return 0;
	}
}

/* Replay records up to and including the next top-level work tick (or
 * to the end, with last): 1 if a tick ran (*tp its time), 0 at the end,
 * -1 if the experiment is corrupt. */
static int replay(eng_hdl_t *h, FILE *fp, uint64_t *tp, int last)
{
	struct eng_exp *x = h->eh_exp;
	const struct exp_rhdr *rh;
	const char *body;
	int f, r = 0;

	x->x_stepping = 1;
	while ((rh = eng_exp_peek(h, &body, &f)) != NULL) {
		struct exp_mark mk;

		if (is_keyed(rh->rh_type)) {
			if (install(h, rh, body, f) != 0)
				break;
			continue;
		}
		if (skipped(h, rh, f))
			continue;
		if (rh->rh_type == EXP_R_OPTS) {
			apply_opts(h, body, rh->rh_len);
			eng_exp_take(h, f);
			continue;
		}
		if (rh->rh_type != EXP_R_MARK || rh->rh_len < sizeof (mk)) {
			bad(h, f, "record out of step with the replay");
			break;
		}
		memcpy(&mk, body, sizeof (mk));
		if (rh->rh_depth > 0) {
			eng_exp_take(h, f);
			continue;
		}
		if (mk.mk_api == EXP_M_TEXT) {
			if (fp != NULL)
				fwrite(body + sizeof (mk), 1, rh->rh_len -
				    sizeof (mk), fp);
			eng_exp_take(h, f);
			continue;
		}
		if (tp != NULL)
			*tp = rh->rh_time;
		eng_exp_take(h, f);
		if (call(h, fp, (int)mk.mk_api) != 0 &&
		    (x->x_err[0] != '\0' || x->x_warn[0] != '\0'))
			break;
		if (mk.mk_api == EXP_M_WORK && !last) {
			r = 1;
			break;
		}
	}
	x->x_stepping = 0;
	if (fp != NULL)
		fflush(fp);
	if (x->x_err[0] != '\0' && x->x_warn[0] == '\0')
		return eng_error(h, "%s", x->x_err);
	return r;
}

int eng_replay_step(eng_hdl_t *h, FILE *fp, uint64_t *tp)
{
	struct eng_exp *x = h->eh_exp;

	if (x == NULL || !x->x_replay)
		return eng_error(h, "no experiment to replay");
	return replay(h, fp, tp, 0);
}

int eng_replay_run(eng_hdl_t *h, FILE *fp)
{
	struct eng_exp *x = h->eh_exp;

	if (x == NULL || !x->x_replay)
		return eng_error(h, "no experiment to replay");
	return replay(h, fp, NULL, 1) < 0 ? -1 : 0;
}

/* A consumer call made by the front end itself while replaying (a TUI's
 * own aggregation snapshot): nothing to do, the experiment's calls are
 * made by the replay. */
int eng_exp_replay_idle(const eng_hdl_t *h)
{
	const struct eng_exp *x = h->eh_exp;

	return x != NULL && x->x_replay && !x->x_stepping;
}
