/*
 * ecbstat.c - what each ECB did: per-CPU counters of its runs, false
 * predicates, lost records and faults (DTRACEIOC_ECBSTAT, for dtui's
 * enablings pane).
 *
 * ecb.c counts in probe context, where the fire lock is already held, so
 * a count is one plain add to the firing CPU's line of the ECB: nothing
 * is locked or made atomic for it.  The ioctl sums the lines under the
 * fire lock, which only the consumer's thread waits for.
 */
#include <errno.h>
#include <stdlib.h>
#include "ks_impl.h"

ks_ecb_t *ks_ecb_new(ks_state_t *st)
{
	ks_ecb_t *e = ks_calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
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
		for (unsigned c = 0; c < st->st_ncpus; c++) {
			o->dtes_fires += e->ke_cnt[c].kec_fires;
			o->dtes_predfalse += e->ke_cnt[c].kec_predfalse;
			o->dtes_drops += e->ke_cnt[c].kec_drops;
			o->dtes_errors += e->ke_cnt[c].kec_errors;
		}
	}
	pthread_mutex_unlock(&ks_fire_lock);
	return 0;
}
