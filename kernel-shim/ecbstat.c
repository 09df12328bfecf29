/*
 * ecbstat.c - what each ECB did: per-CPU counters of its runs, false
 * predicates, lost records and faults (DTRACEIOC_ECBSTAT, for dtui's
 * enablings pane).
 *
 * ecb.c counts in probe context, where the fire lock is already held, so
 * a count is one plain add to the firing CPU's line of the ECB: nothing
 * is locked or made atomic for it.  The ioctl sums the lines under the
 * fire lock, which only the consumer's thread waits for.
 *
 * What a run costs is sampled: timing every run would cost two clock
 * reads (about what a short clause costs), so one in KS_ECB_SAMPLE is
 * timed, and the clock's own cost, measured once as the least of many
 * back-to-back reads, is taken off each sample.
 */
#include <errno.h>
#include <stdlib.h>
#include "ks_impl.h"

static uint64_t clockcost;
static int clockcost_known;

/* The least time two clock reads in a row take (a timed run reads the
 * clock twice around it): measured the first time it is asked. */
static uint64_t measure_clockcost(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 256; i++) {
		uint64_t a = ks_gethrtime(), b = ks_gethrtime();

		if (b - a < best)
			best = b - a;
	}
	return best == UINT64_MAX ? 0 : best;
}

uint64_t ks_ecb_clockcost(void)
{
	return clockcost;
}

ks_ecb_t *ks_ecb_new(ks_state_t *st)
{
	ks_ecb_t *e = ks_calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	if (!clockcost_known) {		/* made outside probe context */
		clockcost = measure_clockcost();
		clockcost_known = 1;
	}
	e->ke_cnt = ks_calloc_aligned(_Alignof(ks_ecbcnt_t), st->st_ncpus,
	    sizeof(ks_ecbcnt_t));
	if (e->ke_cnt == NULL) {
		free(e);
		return NULL;
	}
	e->ke_state = st;
	return e;
}

void ks_ecb_free(ks_ecb_t *e)
{
	if (e == NULL)
		return;
	free(e->ke_cnt);
	free(e);
}

int ks_ecb_stats(ks_state_t *st, dtrace_ecbstats_t *s)
{
	uint32_t n;

	if (s->dtess_room > 0 && s->dtess_stats == NULL)
		return ks_state_seterr(st, EINVAL, "no room for ECB counters");
	pthread_mutex_lock(&ks_fire_lock);
	s->dtess_necbs = st->st_necbs;
	n = s->dtess_room < st->st_necbs ? s->dtess_room : st->st_necbs;
	for (uint32_t i = 0; i < n; i++) {
		const ks_ecb_t *e = st->st_ecbs[i];
		dtrace_ecbstat_t *o = &s->dtess_stats[i];

		o->dtes_fires = o->dtes_predfalse = 0;
		o->dtes_drops = o->dtes_errors = 0;
		o->dtes_samples = o->dtes_sampns = 0;
		for (unsigned c = 0; c < st->st_ncpus; c++) {
			o->dtes_fires += e->ke_cnt[c].kec_fires;
			o->dtes_predfalse += e->ke_cnt[c].kec_predfalse;
			o->dtes_drops += e->ke_cnt[c].kec_drops;
			o->dtes_errors += e->ke_cnt[c].kec_errors;
			o->dtes_samples += e->ke_cnt[c].kec_samples;
			o->dtes_sampns += e->ke_cnt[c].kec_sampns;
		}
	}
	pthread_mutex_unlock(&ks_fire_lock);
	return 0;
}
