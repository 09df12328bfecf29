/*
 * exp_hook.c - where the consumer meets the experiment (exp.h): the
 * ioctl every consumer call goes through, the marks of the public calls,
 * the keyed lookups (clause pieces, aggregation names, symbols), the
 * "record" options and the public eng_record_* calls.
 *
 * Recording writes down, inside marked calls, each answer the shim gives
 * (stream answers in order, keyed answers once); replaying answers from
 * the experiment instead of the shim (exp_replay.c).  Outside both, each
 * hook costs one test of h->eh_exp.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "exp.h"
#include "consume.h"
#include "ccinfo.h"
#include "elfsym.h"

struct eng_exp *eng_exp_get(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;

	if (x != NULL)
		return x;
	if ((x = calloc(1, sizeof (*x))) == NULL)
		return NULL;
	for (int i = 0; i < EXP_NFILES; i++)
		x->x_out[i].xo_fd = x->x_in[i].xi_fd = -1;
	x->x_ovfd = -1;
	h->eh_exp = x;
	return x;
}

/* Write a keyed answer once (at the current depth). */
static void put_keyed(eng_hdl_t *h, int type, const struct exp_key *k,
    const void *val, size_t len)
{
	struct eng_exp *x = h->eh_exp;

	if (eng_exp_keys_get(x->x_keys, type, k->k_a, k->k_b, k->k_c) != NULL)
		return;
	if (eng_exp_keys_put(&x->x_keys, type, k, val, len) != 0)
		return;
	eng_exp_put(h, type, x->x_depth, k, sizeof (*k), val, len);
}

/* Zero-run code n bytes into x_zbuf; 1 if that is smaller (*np). */
static int code(struct eng_exp *x, const char *p, size_t n, size_t *np)
{
	size_t room = n + n / 2 + 8;

	if (room > x->x_zcap) {
		char *nb = realloc(x->x_zbuf, room);

		if (nb == NULL)
			return 0;
		x->x_zbuf = nb;
		x->x_zcap = room;
	}
	*np = eng_exp_zrle(p, n, x->x_zbuf);
	return *np < n;
}

static void put_snap(eng_hdl_t *h, int type, const dtrace_bufdesc_t *bd,
    int rc, int err)
{
	struct exp_snap sn;
	size_t n;

	if (rc != 0 && err == ENOSPC)
		return;			/* asked again with a larger buffer */
	memset(&sn, 0, sizeof (sn));
	sn.sn_rc = rc;
	sn.sn_errno = err;
	sn.sn_cpu = bd->dtbd_cpu;
	sn.sn_errors = bd->dtbd_errors;
	sn.sn_size = rc == 0 ? bd->dtbd_size : 0;
	sn.sn_drops = bd->dtbd_drops;
	sn.sn_oldest = bd->dtbd_oldest;
	sn.sn_timestamp = bd->dtbd_timestamp;
	if (rc == 0 && sn.sn_size > 0 && sn.sn_size % 8 == 0 &&
	    code(h->eh_exp, bd->dtbd_data, sn.sn_size, &n)) {
		sn.sn_enc = EXP_ENC_ZRLE;
		eng_exp_put(h, type, h->eh_exp->x_depth, &sn, sizeof (sn),
		    h->eh_exp->x_zbuf, n);
		return;
	}
	eng_exp_put(h, type, h->eh_exp->x_depth, &sn, sizeof (sn),
	    rc == 0 ? bd->dtbd_data : NULL, (size_t)sn.sn_size);
}

/* ECBSTAT's answer: the counters as format 1.0 has them, then the timed
 * runs in a record of their own (exp.h). */
static void put_ecbstat(eng_hdl_t *h, const dtrace_ecbstats_t *s,
    const struct exp_ans *an)
{
	struct exp_ecbs es = { an->an_rc == 0 ? s->dtess_necbs : 0, 0 };
	char head[sizeof (*an) + sizeof (es)];
	struct exp_ecbcnt *cnt;
	struct exp_ecbtime *tm;
	int depth = h->eh_exp->x_depth;

	es.es_n = es.es_necbs;
	cnt = malloc((size_t)es.es_n * sizeof (*cnt) + 1);
	tm = malloc((size_t)es.es_n * sizeof (*tm) + 1);
	if (cnt == NULL || tm == NULL) {
		free(cnt);
		free(tm);
		return;
	}
	for (uint32_t i = 0; i < es.es_n; i++) {
		const dtrace_ecbstat_t *d = &s->dtess_stats[i];

		cnt[i] = (struct exp_ecbcnt){ d->dtes_fires, d->dtes_predfalse,
		    d->dtes_drops, d->dtes_errors };
		tm[i] = (struct exp_ecbtime){ d->dtes_samples, d->dtes_sampns };
	}
	memcpy(head, an, sizeof (*an));
	memcpy(head + sizeof (*an), &es, sizeof (es));
	eng_exp_put(h, EXP_R_ECBSTAT, depth, head, sizeof (head), cnt,
	    (size_t)es.es_n * sizeof (*cnt));
	if (es.es_n > 0)
		eng_exp_put(h, EXP_R_ECBTIME, depth, tm,
		    (size_t)es.es_n * sizeof (*tm), NULL, 0);
	free(cnt);
	free(tm);
}

/* Write down the shim's answer to cmd (in: what the call was asked). */
static void record_answer(eng_hdl_t *h, int cmd, void *arg, int rc, int err,
    uint64_t in, int room)
{
	struct exp_ans an = { rc, err };
	struct exp_key k = { in, 0, 0, rc, err };
	int depth = h->eh_exp->x_depth;

	switch (cmd) {
	case DTRACEIOC_GO: case DTRACEIOC_STOP:
		if (depth > 0)
			eng_exp_put(h, cmd == DTRACEIOC_GO ? EXP_R_GO :
			    EXP_R_STOP, depth, &an, sizeof (an), arg, 4);
		break;
	case DTRACEIOC_STATUS:
		if (depth > 0)
			eng_exp_put(h, EXP_R_STATUS, depth, &an, sizeof (an),
			    arg, sizeof (dtrace_status_t));
		break;
	case DTRACEIOC_BUFSNAP: case DTRACEIOC_AGGSNAP:
		if (depth > 0)
			put_snap(h, cmd == DTRACEIOC_BUFSNAP ? EXP_R_BUFSNAP :
			    EXP_R_AGGSNAP, arg, rc, err);
		break;
	case DTRACEIOC_ECBSTAT: {
		const dtrace_ecbstats_t *s = arg;

		/* (a count above the room: asked again with more) */
		if (depth > 0 && (rc != 0 || s->dtess_necbs <= (uint32_t)room))
			put_ecbstat(h, s, &an);
		break;
	}
	case DTRACEIOC_EPROBE: {
		const dtrace_eprobedesc_t *d = arg;

		if (rc == 0 && (d->dtepd_nrecs > room || d->dtepd_nrecs < 0))
			break;		/* asked again with more room */
		put_keyed(h, EXP_R_EPROBE, &k, d, rc != 0 ? 0 :
		    offsetof(dtrace_eprobedesc_t, dtepd_rec) +
		    (size_t)d->dtepd_nrecs * sizeof (dtrace_recdesc_t));
		break;
	}
	case DTRACEIOC_AGGDESC: {
		const dtrace_aggdesc_t *d = arg;

		if (rc == 0 && (d->dtagd_nrecs > room || d->dtagd_nrecs < 0))
			break;
		put_keyed(h, EXP_R_AGGDESC, &k, d, rc != 0 ? 0 :
		    offsetof(dtrace_aggdesc_t, dtagd_rec) +
		    (size_t)d->dtagd_nrecs * sizeof (dtrace_recdesc_t));
		break;
	}
	case DTRACEIOC_PROBES:
		put_keyed(h, EXP_R_PROBE, &k, arg, rc != 0 ? 0 :
		    sizeof (dtrace_probedesc_t));
		break;
	case DTRACEIOC_FORMAT: {
		const dtrace_fmtdesc_t *f = arg;

		if (rc == 0 && f->dtfd_string == NULL)
			break;		/* the length only: the string follows */
		put_keyed(h, EXP_R_FORMAT, &k, rc == 0 ? f->dtfd_string : "",
		    rc == 0 ? strnlen(f->dtfd_string, (size_t)f->dtfd_length) :
		    0);
		break;
	}
	default:
		break;
	}
}

int eng_ks_ioctl(eng_hdl_t *h, int cmd, void *arg)
{
	struct eng_exp *x = h->eh_exp;
	uint64_t in = 0;
	int room = 0, rc, err;

	if (x == NULL || (!x->x_rec && !x->x_replay))
		return ks_ioctl(h->eh_ks, cmd, arg);
	if (x->x_replay)
		return eng_exp_replay_ioctl(h, cmd, arg);
	switch (cmd) {
	case DTRACEIOC_EPROBE:
		in = ((dtrace_eprobedesc_t *)arg)->dtepd_epid;
		room = ((dtrace_eprobedesc_t *)arg)->dtepd_nrecs;
		break;
	case DTRACEIOC_AGGDESC:
		in = ((dtrace_aggdesc_t *)arg)->dtagd_id;
		room = ((dtrace_aggdesc_t *)arg)->dtagd_nrecs;
		break;
	case DTRACEIOC_PROBES:
		in = ((dtrace_probedesc_t *)arg)->dtpd_id;
		break;
	case DTRACEIOC_FORMAT:
		in = ((dtrace_fmtdesc_t *)arg)->dtfd_format;
		break;
	case DTRACEIOC_ECBSTAT:
		room = (int)((dtrace_ecbstats_t *)arg)->dtess_room;
		break;
	}
	rc = ks_ioctl(h->eh_ks, cmd, arg);
	err = errno;
	record_answer(h, cmd, arg, rc, err, in, room);
	errno = err;
	return rc;
}

static void put_opts(eng_hdl_t *h)
{
	eng_exp_put(h, EXP_R_OPTS, 0, h->eh_opt, sizeof (h->eh_opt), NULL, 0);
}

/* The experiment, made when GO is called with "record" asked for. */
static void create_at_go(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;

	if (!x->x_want || x->x_rec || x->x_failed)
		return;
	if (eng_exp_create(h) != 0) {
		x->x_failed = 1;
		snprintf(x->x_err, sizeof (x->x_err), "%s", h->eh_errmsg);
	}
}

/* Every target's descendants get sub-experiments (exp_desc.c); the -c
 * command (held before its exec, or at -x evaltime's point) is the
 * founder if there is one, else the first -p process. */
static void watch_targets(eng_hdl_t *h)
{
	const struct eng_consumer *c = h->eh_cons;

	for (int created = 1; created >= 0; created--)
		for (int i = 0; i < c->ec_ntargets; i++)
			if (eng_proc_created(c->ec_targets[i]) == created)
				eng_exp_desc_watch(h, c->ec_targets[i]);
}

struct exp_scope eng_exp_enter(eng_hdl_t *h, int api)
{
	struct exp_scope s = { h, api };
	struct eng_exp *x = h->eh_exp;
	struct exp_mark mk = { (uint32_t)api, 0 };

	if (x == NULL)
		return s;
	if (api == EXP_M_GO && x->x_depth == 0)
		create_at_go(h);
	if (x->x_rec) {
		if (api == EXP_M_GO && x->x_depth == 0)
			put_opts(h);
		eng_exp_put(h, EXP_R_MARK, x->x_depth, &mk, sizeof (mk),
		    NULL, 0);
		if (api == EXP_M_GO) {
			eng_exp_log_event(h, "start", "");
			watch_targets(h);
		}
		if (api == EXP_M_STOP && !h->eh_stopped && h->eh_go)
			eng_exp_log_event(h, "stop", "");
	}
	x->x_depth++;
	return s;
}

void eng_exp_leave(struct exp_scope *s)
{
	eng_hdl_t *h = s->es_h;
	struct eng_exp *x = h->eh_exp;

	if (x == NULL || x->x_depth == 0)
		return;
	if (--x->x_depth > 0 || !x->x_rec)
		return;
	if (h->eh_cons->ec_exited && !x->x_exitlogged) {
		char a[64];

		snprintf(a, sizeof (a), "status=\"%d\"",
		    h->eh_cons->ec_exitstatus);
		eng_exp_log_event(h, "exit", a);
		x->x_exitlogged = 1;
	}
	if (s->es_api == EXP_M_WORK)
		eng_exp_overview(h);
	eng_exp_flush(h);
}

/* ---- keyed lookups ------------------------------------------------------ */

int eng_exp_piece(eng_hdl_t *h, uint64_t stmtid)
{
	const eng_cc_stmtinfo_t *si;
	struct exp_key k = { stmtid, 0, 0, 0, 0 };
	int32_t piece;

	if (eng_exp_replaying(h)) {
		const struct exp_keyval *kv = eng_exp_keyed(h, EXP_R_PIECE,
		    stmtid, 0, 0);

		if (kv == NULL || kv->kv_len != sizeof (piece))
			return 0;
		memcpy(&piece, kv->kv_val, sizeof (piece));
		return piece;
	}
	si = eng_cc_stmtinfo(h, stmtid);
	piece = si != NULL ? si->esi_piece : 0;
	/* asked at every record: the clause of the last one is written
	 * down already, without a lookup */
	if (eng_exp_recording(h) && (!h->eh_exp->x_pieceput ||
	    h->eh_exp->x_lastpiece != stmtid)) {
		put_keyed(h, EXP_R_PIECE, &k, &piece, sizeof (piece));
		h->eh_exp->x_lastpiece = stmtid;
		h->eh_exp->x_pieceput = 1;
	}
	return piece;
}

const char *eng_exp_pred(eng_hdl_t *h, uint64_t stmtid)
{
	struct exp_key k = { stmtid, 0, 0, 0, 0 };
	const eng_cc_stmtinfo_t *si;
	const char *p;

	if (eng_exp_replaying(h)) {
		const struct exp_keyval *kv = eng_exp_keyed(h, EXP_R_PRED,
		    stmtid, 0, 0);

		return kv != NULL && kv->kv_key.k_rc == 0 ? kv->kv_val : NULL;
	}
	si = h->eh_cc != NULL ? eng_cc_stmtinfo(h, stmtid) : NULL;
	p = si != NULL ? si->esi_pred : NULL;
	if (eng_exp_recording(h)) {
		k.k_rc = p != NULL ? 0 : -1;
		put_keyed(h, EXP_R_PRED, &k, p != NULL ? p : "",
		    p != NULL ? strlen(p) : 0);
	}
	return p;
}

void eng_exp_runs_note(eng_hdl_t *h, const uint8_t *runs, size_t n)
{
	struct eng_exp *x = h->eh_exp;
	uint8_t *nv;

	if (!eng_exp_recording(h) || (n == x->x_nruns && (n == 0 ||
	    memcmp(runs, x->x_runs, n) == 0)))
		return;
	if ((nv = realloc(x->x_runs, n + 1)) == NULL)
		return;
	memcpy(nv, runs, n);
	x->x_runs = nv;
	x->x_nruns = n;
	eng_exp_put(h, EXP_R_ECBRUNS, x->x_depth, runs, n, NULL, 0);
}

const char *eng_exp_aggname(eng_hdl_t *h, dtrace_aggvarid_t varid)
{
	struct exp_key k = { varid, 0, 0, 0, 0 };
	const char *n;

	if (eng_exp_replaying(h)) {
		const struct exp_keyval *kv = eng_exp_keyed(h, EXP_R_AGGNAME,
		    varid, 0, 0);

		return kv != NULL && kv->kv_key.k_rc == 0 ? kv->kv_val : NULL;
	}
	n = h->eh_cc != NULL ? eng_cc_aggname(h, varid) : NULL;
	if (eng_exp_recording(h)) {
		k.k_rc = n != NULL ? 0 : -1;
		put_keyed(h, EXP_R_AGGNAME, &k, n != NULL ? n : "",
		    n != NULL ? strlen(n) : 0);
	}
	return n;
}

int eng_exp_sym_replay(eng_hdl_t *h, int type, int pid, uint64_t addr,
    int mode, char *buf, size_t len, uint64_t *out)
{
	const struct exp_keyval *kv;

	if (!eng_exp_replaying(h))
		return 0;
	kv = eng_exp_keyed(h, type, (uint64_t)(uint32_t)pid, addr,
	    (uint64_t)mode);
	if (type == EXP_R_NORM) {
		*out = addr;
		if (kv != NULL && kv->kv_len == sizeof (*out))
			memcpy(out, kv->kv_val, sizeof (*out));
	} else if (len > 0) {
		snprintf(buf, len, "%s", kv != NULL ? (const char *)kv->kv_val
		    : "?");
	}
	return 1;
}

void eng_exp_sym_note(eng_hdl_t *h, int type, int pid, uint64_t addr,
    int mode, const char *text, uint64_t out)
{
	struct exp_key k = { (uint64_t)(uint32_t)pid, addr, (uint64_t)mode,
	    0, 0 };
	struct eng_exp *x = h->eh_exp;

	if (!eng_exp_recording(h) || eng_exp_keys_get(x->x_keys, type, k.k_a,
	    k.k_b, k.k_c) != NULL)
		return;
	if (pid > 0) {
		struct exp_key pk = { (uint64_t)(uint32_t)pid, 0, 0, 0, 0 };

		/* the first address of a process: its objects in map.xml */
		if (eng_exp_keys_get(x->x_keys, EXP_R_NTYPES, pk.k_a, 0, 0) ==
		    NULL && eng_exp_keys_put(&x->x_keys, EXP_R_NTYPES, &pk,
		    NULL, 0) == 0)
			eng_exp_note_maps(h, pid);
	}
	if (type == EXP_R_NORM)
		put_keyed(h, type, &k, &out, sizeof (out));
	else
		put_keyed(h, type, &k, text, strlen(text));
}

/* ---- options and the public calls ---------------------------------------- */

int eng_exp_setopt(eng_hdl_t *h, const char *name, const char *value)
{
	struct eng_exp *x;
	char **dst;

	if (strcmp(name, "record") != 0 && strcmp(name, "recordnote") != 0)
		return 0;
	if ((x = eng_exp_get(h)) == NULL)
		return eng_error(h, "out of memory");
	dst = name[6] == '\0' ? &x->x_name : &x->x_note;
	if (x->x_rec)
		return eng_error(h, "Operation illegal when tracing is active");
	free(*dst);
	*dst = NULL;
	if (value != NULL && *value != '\0' && (*dst = strdup(value)) == NULL)
		return eng_error(h, "out of memory");
	if (name[6] == '\0')
		x->x_want = 1;
	return 1;
}

/* After option index was set: recording, the options in force are
 * written down; replaying, the front end's choice stays. */
void eng_exp_optchanged(eng_hdl_t *h, int index)
{
	struct eng_exp *x = h->eh_exp;

	if (x == NULL || index < 0 || index >= ENG_OPT_MAX)
		return;
	if (x->x_replay && x->x_depth == 0)	/* not setopt() in a replay */
		x->x_optkeep[index] = 1;
	else if (x->x_rec && x->x_depth == 0)
		put_opts(h);
}

const char *eng_record_name(eng_hdl_t *h)
{
	return eng_exp_recording(h) ? h->eh_exp->x_dir : NULL;
}

const char *eng_record_error(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;

	return x != NULL && x->x_failed ? x->x_err : NULL;
}

int eng_print_text(eng_hdl_t *h, FILE *fp, const char *s)
{
	struct exp_mark mk = { EXP_M_TEXT, 0 };

	if (eng_exp_recording(h))
		eng_exp_put(h, EXP_R_MARK, h->eh_exp->x_depth, &mk, sizeof (mk),
		    s, strlen(s));
	return fputs(s, fp) < 0 ? -1 : 0;
}

/* What the consumer learnt before recording began, as keyed answers, so
 * that a replay decodes what follows (recording started while tracing). */
static void dump_known(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;

	for (size_t i = 0; i < c->ec_nep; i++) {
		const dtrace_eprobedesc_t *d = c->ec_ep[i].ep_desc;
		struct exp_key k = { i, 0, 0, 0, 0 };

		if (d == NULL)
			continue;
		put_keyed(h, EXP_R_EPROBE, &k, d, offsetof(dtrace_eprobedesc_t,
		    dtepd_rec) + (size_t)d->dtepd_nrecs *
		    sizeof (dtrace_recdesc_t));
		k.k_a = d->dtepd_probeid;
		put_keyed(h, EXP_R_PROBE, &k, &c->ec_ep[i].ep_probe,
		    sizeof (c->ec_ep[i].ep_probe));
	}
	for (size_t i = 0; i < c->ec_nfmt; i++) {
		struct exp_key k = { i, 0, 0, 0, 0 };

		if (c->ec_fmt[i] != NULL)
			put_keyed(h, EXP_R_FORMAT, &k, c->ec_fmt[i],
			    strlen(c->ec_fmt[i]));
	}
	for (size_t id = 0; id < 65536; id++) {
		const dtrace_aggdesc_t *d = eng_agg_cached(c->ec_agg, id);
		struct exp_key k = { id, 0, 0, 0, 0 };

		if (d != NULL)
			put_keyed(h, EXP_R_AGGDESC, &k, d, offsetof(
			    dtrace_aggdesc_t, dtagd_rec) + (size_t)d->dtagd_nrecs *
			    sizeof (dtrace_recdesc_t));
	}
}

int eng_record_start(eng_hdl_t *h, const char *name)
{
	struct eng_exp *x = eng_exp_get(h);
	struct exp_mark mk = { EXP_M_GO, 0 };
	struct exp_ans an = { 0, 0 };
	uint32_t cpu = 0;

	if (x == NULL)
		return eng_error(h, "out of memory");
	if (x->x_rec)
		return eng_error(h, "already recording %s", x->x_dir);
	if (x->x_replay)
		return eng_error(h, "replaying an experiment");
	free(x->x_name);
	x->x_name = name != NULL && *name != '\0' ? strdup(name) : NULL;
	x->x_failed = 0;
	x->x_err[0] = '\0';
	x->x_want = 1;
	if (eng_exp_create(h) != 0)
		return -1;
	if (!h->eh_go)
		return 0;
	/* as if tracing began now: replay starts with GO */
	put_opts(h);
	eng_exp_put(h, EXP_R_MARK, 0, &mk, sizeof (mk), NULL, 0);
	eng_exp_put(h, EXP_R_GO, 1, &an, sizeof (an), &cpu, sizeof (cpu));
	dump_known(h);
	eng_exp_log_event(h, "start", "");
	watch_targets(h);
	eng_exp_flush(h);
	return 0;
}

int eng_record_stop(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;

	if (x == NULL || !x->x_rec)
		return eng_error(h, "not recording");
	eng_exp_flush(h);
	eng_exp_free(x);
	h->eh_exp = NULL;
	return 0;
}
