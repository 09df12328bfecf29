/*
 * ecbstat.c - what each enabled probe clause did (eng_ecbstats, engine.h):
 * the shim's per-ECB counters read at every work tick while a front end
 * watches them or an experiment is being written, with each ECB's clause
 * and probe.
 *
 * The read goes through eng_ks_ioctl inside eng_work's mark, so a
 * recording holds the answer at that tick and a replay takes it back at
 * the same point; an experiment recorded before the counters existed
 * simply has none (the replay's answer is "no counters", not an error).
 * The descriptions (EPROBE, PROBES) come from the consumer's cache, so
 * they are recorded and replayed as the records' are; each clause's
 * predicate and where each ECB runs are written down too (EXP_R_PRED,
 * EXP_R_ECBRUNS), so that a replay's enablings pane shows them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "consume.h"
#include "exp.h"
#include "providers.h"

#define MAXECBS	(1u << 20)

int eng_ecbstat_watch(eng_hdl_t *h, int on)
{
	h->eh_cons->ec_ecbwatch = on != 0;
	return 0;
}

const eng_ecbstat_t *eng_ecbstats(eng_hdl_t *h, size_t *np)
{
	struct eng_consumer *c = h->eh_cons;

	*np = c->ec_necbst;
	return c->ec_necbst > 0 ? c->ec_ecbst : NULL;
}

/* Room for n of both arrays; 0 or -1. */
static int room(struct eng_consumer *c, size_t n)
{
	dtrace_ecbstat_t *raw;
	eng_ecbstat_t *st;

	if (n <= c->ec_ecbcap)
		return 0;
	if ((raw = realloc(c->ec_ecbraw, n * sizeof (*raw))) == NULL)
		return -1;
	c->ec_ecbraw = raw;
	if ((st = realloc(c->ec_ecbst, n * sizeof (*st))) == NULL)
		return -1;
	c->ec_ecbst = st;
	c->ec_ecbcap = n;
	return 0;
}

/* The shim's counters into ec_ecbraw; their number, or -1 if none. */
static long fetch(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;
	dtrace_ecbstats_t s;

	for (;;) {
		memset(&s, 0, sizeof (s));
		s.dtess_room = (uint32_t)c->ec_ecbcap;
		s.dtess_stats = c->ec_ecbraw;
		if (eng_ks_ioctl(h, DTRACEIOC_ECBSTAT, &s) != 0)
			return -1;
		if (s.dtess_necbs <= s.dtess_room)
			return s.dtess_necbs;
		if (s.dtess_necbs > MAXECBS ||
		    room(c, s.dtess_necbs + 16) != 0)
			return -1;
	}
}

/* Ask the providers where each ECB's probe runs its clauses (a replay:
 * what the experiment says, if it says). */
static void where_run(eng_hdl_t *h, eng_ecbstat_t *st, size_t n)
{
	uint32_t *ids;
	uint8_t *runs;
	const uint8_t *rec;
	size_t nrec;

	if (eng_exp_replaying(h)) {
		if (eng_exp_runs_replay(h, &rec, &nrec))
			for (size_t i = 0; i < n && i < nrec; i++)
				st[i].ees_runs = rec[i] <= ENG_RUN_KAGG ?
				    rec[i] : ENG_RUN_UNKNOWN;
		return;
	}
	if (h->eh_flags & ENG_O_NOPROVIDERS)
		return;
	ids = malloc(n * sizeof(*ids) + 1);
	runs = malloc(n + 1);
	if (ids != NULL && runs != NULL) {
		for (size_t i = 0; i < n; i++)
			ids[i] = st[i].ees_probe.dtpd_id;
		prov_probe_runs(ids, runs, n);
		for (size_t i = 0; i < n; i++) {
			st[i].ees_runs = runs[i] == PROV_RUN_KAGG ? ENG_RUN_KAGG :
			    runs[i] == PROV_RUN_KFILTER ? ENG_RUN_KFILTER :
			    ENG_RUN_SHIM;
			runs[i] = (uint8_t)st[i].ees_runs;
		}
		eng_exp_runs_note(h, runs, n);
	}
	free(ids);
	free(runs);
}

int eng_ecb_poll(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;
	char save[sizeof (h->eh_errmsg)];
	long n;
	size_t k = 0;

	if (!c->ec_ecbwatch && !eng_exp_recording(h) &&
	    !eng_exp_replaying(h))
		return 0;
	if ((n = fetch(h)) < 0)
		return 0;		/* no counters: the pane stays empty */
	memcpy(save, h->eh_errmsg, sizeof (save));
	for (long i = 0; i < n; i++) {
		const dtrace_ecbstat_t *r = &c->ec_ecbraw[i];
		const eng_epcache_t *ep = eng_rec_epid(h, (dtrace_epid_t)i + 1);
		eng_ecbstat_t *o = &c->ec_ecbst[k];

		if (ep == NULL || ep->ep_desc->dtepd_uarg == DT_ECB_ERROR)
			continue;	/* the engine's own ERROR clause */
		o->ees_epid = (dtrace_epid_t)i + 1;
		o->ees_clause = ep->ep_desc->dtepd_uarg;
		o->ees_probe = ep->ep_probe;
		o->ees_fires = r->dtes_fires;
		o->ees_predfalse = r->dtes_predfalse;
		o->ees_drops = r->dtes_drops;
		o->ees_errors = r->dtes_errors;
		o->ees_samples = r->dtes_samples;
		o->ees_sampns = r->dtes_sampns;
		o->ees_runs = ENG_RUN_UNKNOWN;
		o->ees_pred = eng_exp_pred(h, o->ees_clause);
		k++;
	}
	memcpy(h->eh_errmsg, save, sizeof (save));
	c->ec_necbst = k;
	where_run(h, c->ec_ecbst, k);
	return 0;
}
