/*
 * bpf_agg_drain.c - the counts of bpf_agg.c's maps fired into the shim:
 * the drain (the last value read per key and CPU, the difference fired
 * with ks_probe_fire_n), the map-full drops, reclaiming the keys of plans
 * nobody holds, and the holds themselves (see bpf_agg.c's top comment).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "bpf_agg_impl.h"
#include "bpf_util.h"

/* ---- draining ---- */

static uint64_t key_hash(int m, const uint8_t *key)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)m;

	for (int i = 0; i < ksize[m]; i++)
		h = (h ^ key[i]) * 1099511628211ULL;
	return h;
}

static int ltab_grow(agg_state_t *ag)
{
	size_t cap = ag->lcap ? ag->lcap * 2 : 1024;
	last_t **t = calloc(cap, sizeof(*t));

	if (t == NULL)
		return -1;
	for (size_t i = 0; i < ag->lcap; i++) {
		size_t j;

		if (ag->ltab[i] == NULL)
			continue;
		j = key_hash(ag->ltab[i]->lk_map, ag->ltab[i]->lk_key) &
		    (cap - 1);
		while (t[j] != NULL)
			j = (j + 1) & (cap - 1);
		t[j] = ag->ltab[i];
	}
	free(ag->ltab);
	ag->ltab = t;
	ag->lcap = cap;
	return 0;
}

/* The last values of (m, key), made zero if new; NULL without memory. */
static last_t *last_get(agg_state_t *ag, int m, const uint8_t *key)
{
	size_t j;

	if ((ag->lcount + 1) * 2 > ag->lcap && ltab_grow(ag) != 0)
		return NULL;
	j = key_hash(m, key) & (ag->lcap - 1);
	for (; ag->ltab[j] != NULL; j = (j + 1) & (ag->lcap - 1))
		if (ag->ltab[j]->lk_map == m &&
		    memcmp(ag->ltab[j]->lk_key, key, (size_t)ksize[m]) == 0)
			return ag->ltab[j];
	ag->ltab[j] = calloc(1, sizeof(last_t) + 8 * (size_t)ag->ncpu);
	if (ag->ltab[j] == NULL)
		return NULL;
	ag->ltab[j]->lk_map = (uint8_t)m;
	memcpy(ag->ltab[j]->lk_key, key, (size_t)ksize[m]);
	ag->lcount++;
	return ag->ltab[j];
}

/* Forget (m, key): backward-shift deletion keeps every other key
 * reachable from its home slot. */
static void last_del(agg_state_t *ag, int m, const uint8_t *key)
{
	size_t j, k, h;

	if (ag->lcap == 0)
		return;
	j = key_hash(m, key) & (ag->lcap - 1);
	for (; ag->ltab[j] != NULL; j = (j + 1) & (ag->lcap - 1))
		if (ag->ltab[j]->lk_map == m &&
		    memcmp(ag->ltab[j]->lk_key, key, (size_t)ksize[m]) == 0)
			break;
	if (ag->ltab[j] == NULL)
		return;
	free(ag->ltab[j]);
	ag->ltab[j] = NULL;
	ag->lcount--;
	for (k = (j + 1) & (ag->lcap - 1); ag->ltab[k] != NULL;
	    k = (k + 1) & (ag->lcap - 1)) {
		h = key_hash(ag->ltab[k]->lk_map, ag->ltab[k]->lk_key) &
		    (ag->lcap - 1);
		if (j < k ? (h <= j || h > k) : (h <= j && h > k)) {
			ag->ltab[j] = ag->ltab[k];
			ag->ltab[k] = NULL;
			j = k;
		}
	}
}

/* May plan ap's keys go (rlk, or a hint without it)? */
static int reclaimable(agg_state_t *ag, const aplan_t *ap, uint64_t now)
{
	return ap->ap_refs == 0 && ap->ap_idle != 0 &&
	    now - ap->ap_idle >= ag->reclaim_ns;
}

/* Queue key of map m for reclaim() after this pass. */
static void queue_dead(agg_state_t *ag, int m, const uint8_t *key)
{
	if (ag->ndead == ag->deadcap) {
		size_t cap = ag->deadcap ? ag->deadcap * 2 : 64;
		uint8_t *d = realloc(ag->dead, cap * (KEY_MAX + 1));

		if (d == NULL)
			return;			/* next pass retries */
		ag->dead = d;
		ag->deadcap = cap;
	}
	ag->dead[ag->ndead * (KEY_MAX + 1)] = (uint8_t)m;
	memcpy(ag->dead + ag->ndead * (KEY_MAX + 1) + 1, key, (size_t)ksize[m]);
	ag->ndead++;
}

/* Delete the queued keys whose plans are still unheld (dlk held). */
static void reclaim(agg_state_t *ag, uint64_t now)
{
	union bpf_attr at;

	pthread_mutex_lock(&ag->rlk);
	for (size_t i = 0; i < ag->ndead; i++) {
		const uint8_t *e = ag->dead + i * (KEY_MAX + 1);
		uint32_t id;

		memcpy(&id, e + 1, 4);
		if (ag->plans[id] == NULL ||
		    !reclaimable(ag, ag->plans[id], now))
			continue;
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)ag->kmaps[e[0]];
		at.key = (uint64_t)(uintptr_t)(e + 1);
		(void)prov_bpf_call(BPF_MAP_DELETE_ELEM, &at);
		last_del(ag, e[0], e + 1);
		if (ag->plans[id]->ap_spill) {	/* its budget back */
			uint64_t zero = 0;

			memset(&at, 0, sizeof(at));
			at.map_fd = (uint32_t)ag->budgetmap;
			at.key = (uint64_t)(uintptr_t)&id;
			at.value = (uint64_t)(uintptr_t)&zero;
			(void)prov_bpf_call(BPF_MAP_UPDATE_ELEM, &at);
		}
	}
	pthread_mutex_unlock(&ag->rlk);
	ag->ndead = 0;
}

/* Fire n firings of key's plan on cpu. */
static void fire(agg_state_t *ag, const aplan_t *ap, const uint8_t *key,
    int cpu, uint64_t n, uint64_t now, uint64_t wall)
{
	char str[STRK + 1];
	ks_ucapture_t cap;
	ks_probe_ctx_t ctx;
	ks_kresult_t kres[KS_KT_MAXCLAUSES];
	uint64_t w;

	memset(&ctx, 0, sizeof(ctx));
	ctx.kpc_id = ap->ap_probe;
	ctx.kpc_cpu = (uint32_t)cpu;
	ctx.kpc_timestamp = now;
	ctx.kpc_walltimestamp = wall;
	if (ap->ap_pt) {
		memcpy(&w, key + ap->ap_pt, 8);
		ctx.kpc_pid = (int32_t)(w >> 32);
		ctx.kpc_tid = (int32_t)(uint32_t)w;
	}
	if (ap->ap_ug) {
		memcpy(&w, key + ap->ap_ug, 8);
		ctx.kpc_gid = (uint32_t)(w >> 32);
		ctx.kpc_uid = (uint32_t)w;
	}
	if (ap->ap_comm)
		memcpy(ctx.kpc_execname, key + ap->ap_comm, 16);
	ctx.kpc_execname[15] = '\0';
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		if (ap->ap_args & (1u << i))
			memcpy(&ctx.kpc_args[i], key + ap->ap_arg[i], 8);
	if (ap->ap_errno) {
		memcpy(&w, key + ap->ap_errno, 8);
		ctx.kpc_errno = (int32_t)w;
	}
	if (ap->ap_str && ap->ap_skind) {	/* as prov_tp_args serves it */
		memcpy(str, key + ap->ap_str, STRK);
		str[STRK] = '\0';
		cap.kuc_addr = 0;
		cap.kuc_len = STRK + 1;
		cap.kuc_data = (const uint8_t *)str;
		ctx.kpc_args[ap->ap_strarg] = (uint64_t)(uintptr_t)str;
		ctx.kpc_kmem = &cap;
		ctx.kpc_nkmem = 1;
	} else if (ap->ap_str) {	/* as the record body's capture */
		memcpy(str, key + ap->ap_str, STRK);
		str[STRK] = '\0';
		cap.kuc_addr = ctx.kpc_args[ap->ap_strarg];
		cap.kuc_len = (uint32_t)strlen(str) + 1;
		cap.kuc_data = (const uint8_t *)str;
		ctx.kpc_ucap = &cap;
		ctx.kpc_nucap = 1;
	}
	for (int c = 0; c < ap->ap_nkc; c++) {	/* kernel clauses' results */
		const prov_bpf_kslots_t *ks = &ap->ap_ks[c];

		memset(&kres[c], 0, sizeof(kres[c]));
		kres[c].kkr_id = ap->ap_kc[c].kkc_id;
		if (ks->pks_pred != 0)	/* else nothing of it runs here */
			memcpy(&kres[c].kkr_pred, key + ks->pks_pred - KEY_AT,
			    8);
		for (int i = 0; i < KS_KT_MAXSTEPS; i++)
			if (ks->pks_val[i] != 0)
				memcpy(&kres[c].kkr_vals[i],
				    key + ks->pks_val[i] - KEY_AT, 8);
	}
	if (ap->ap_nkc > 0) {
		ctx.kpc_kres = kres;
		ctx.kpc_nkres = (uint32_t)ap->ap_nkc;
	}
	prov_fire_n(&ctx, n);
	ag->nfired += n;
	ag->ncalls++;
}

/* One entry read from map m: fire what each CPU gained. */
static void take(agg_state_t *ag, int m, const uint8_t *key,
    const uint64_t *vals, uint64_t now, uint64_t wall)
{
	uint32_t id;
	const aplan_t *ap;
	last_t *lk;

	memcpy(&id, key, 4);
	if (id == 0 || id >= MAX_PLANS ||
	    (ap = __atomic_load_n(&ag->plans[id], __ATOMIC_ACQUIRE)) == NULL ||
	    (lk = last_get(ag, m, key)) == NULL)
		return;
	for (int c = 0; c < ag->ncpu; c++) {
		uint64_t d = vals[c] - lk->lk_v[c];

		if (d == 0)
			continue;
		lk->lk_v[c] = vals[c];
		fire(ag, ap, key, c, d, now, wall);
	}
	if (reclaimable(ag, ap, now))
		queue_dead(ag, m, key);
}

/* Read map m one key at a time (kernels without batch lookups). */
static void drain_keys(agg_state_t *ag, int m, uint64_t now, uint64_t wall)
{
	uint8_t key[KEY_MAX], next[KEY_MAX];
	union bpf_attr at;
	int first = 1;

	for (;;) {
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)ag->kmaps[m];
		at.key = first ? 0 : (uint64_t)(uintptr_t)key;
		at.next_key = (uint64_t)(uintptr_t)next;
		if (prov_bpf_call(BPF_MAP_GET_NEXT_KEY, &at) != 0)
			return;
		first = 0;
		memcpy(key, next, (size_t)ksize[m]);
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)ag->kmaps[m];
		at.key = (uint64_t)(uintptr_t)key;
		at.value = (uint64_t)(uintptr_t)ag->bvals;
		if (prov_bpf_call(BPF_MAP_LOOKUP_ELEM, &at) == 0)
			take(ag, m, key, ag->bvals, now, wall);
	}
}

static void drain_map(agg_state_t *ag, int m, uint64_t now, uint64_t wall)
{
	uint8_t in[KEY_MAX], out[KEY_MAX];
	union bpf_attr at;
	int first = 1, err;

	for (;;) {
		memset(&at, 0, sizeof(at));
		at.batch.map_fd = (uint32_t)ag->kmaps[m];
		at.batch.in_batch = first ? 0 : (uint64_t)(uintptr_t)in;
		at.batch.out_batch = (uint64_t)(uintptr_t)out;
		at.batch.keys = (uint64_t)(uintptr_t)ag->bkeys;
		at.batch.values = (uint64_t)(uintptr_t)ag->bvals;
		at.batch.count = BATCH;
		err = prov_bpf_call(BPF_MAP_LOOKUP_BATCH, &at) == 0 ? 0 : errno;
		if (err != 0 && err != ENOENT) {
			if (first)		/* no batches here */
				drain_keys(ag, m, now, wall);
			return;
		}
		for (uint32_t i = 0; i < at.batch.count && i < BATCH; i++)
			take(ag, m, ag->bkeys + (size_t)i * (size_t)ksize[m],
			    ag->bvals + (size_t)i * (size_t)ag->ncpu, now,
			    wall);
		if (err == ENOENT)
			return;
		memcpy(in, out, sizeof(in));
		first = 0;
	}
}

/* Fire what each CPU gained in the fires array (plans whose key is their
 * id alone, ap_fires). */
static void drain_fires(agg_state_t *ag, uint64_t now, uint64_t wall)
{
	uint32_t top = __atomic_load_n(&ag->nextplan, __ATOMIC_ACQUIRE);
	uint8_t key[KEY_MAX];
	union bpf_attr at;

	for (uint32_t id = 1; id < top && id < FIRES; id++) {
		const aplan_t *ap = __atomic_load_n(&ag->plans[id],
		    __ATOMIC_ACQUIRE);
		uint64_t *last = ag->flast + (size_t)id * (size_t)ag->ncpu;

		if (ap == NULL || !ap->ap_fires)
			continue;
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)ag->firemap;
		at.key = (uint64_t)(uintptr_t)&id;
		at.value = (uint64_t)(uintptr_t)ag->bvals;
		if (prov_bpf_call(BPF_MAP_LOOKUP_ELEM, &at) != 0)
			continue;
		memset(key, 0, sizeof(key));
		memcpy(key, &id, 4);
		for (int c = 0; c < ag->ncpu; c++) {
			uint64_t d = ag->bvals[c] - last[c];

			if (d == 0)
				continue;
			last[c] = ag->bvals[c];
			fire(ag, ap, key, c, d, now, wall);
		}
	}
}

/* Report the map-full drops each CPU gained. */
static void drain_drops(agg_state_t *ag)
{
	union bpf_attr at;
	uint32_t key = 0;

	memset(&at, 0, sizeof(at));
	at.map_fd = (uint32_t)ag->dropmap;
	at.key = (uint64_t)(uintptr_t)&key;
	at.value = (uint64_t)(uintptr_t)ag->bvals;
	if (prov_bpf_call(BPF_MAP_LOOKUP_ELEM, &at) != 0)
		return;
	for (int c = 0; c < ag->ncpu; c++) {
		uint64_t d = ag->bvals[c] - ag->dlast[c];

		if (d == 0)
			continue;
		ag->dlast[c] = ag->bvals[c];
		ag->ndrops += d;
		ks_provider_aggdrops((uint32_t)c, d);
	}
}

void prov_bpf_agg_drain(int force)
{
	agg_state_t *ag = &prov_bpf_aggs;
	uint64_t now;

	if (!__atomic_load_n(&ag->started, __ATOMIC_ACQUIRE))
		return;
	if (force)
		pthread_mutex_lock(&ag->dlk);
	else if (pthread_mutex_trylock(&ag->dlk) != 0)
		return;			/* a flush is draining */
	now = ks_gethrtime();
	if (ag->started && (force || now - ag->lastdrain >= DRAIN_NS)) {
		uint64_t wall = ks_getwalltime();

		ag->lastdrain = now;
		for (int m = 0; m < NMAPS; m++)
			drain_map(ag, m, now, wall);
		if (ag->ndead > 0)
			reclaim(ag, now);
		drain_fires(ag, now, wall);
		drain_drops(ag);
		prov_bpf_tls_drain();
	}
	pthread_mutex_unlock(&ag->dlk);
}

/* ---- the rest ---- */

void prov_bpf_agg_shutdown(void)
{
	agg_state_t *ag = &prov_bpf_aggs;

	pthread_mutex_lock(&ag->plk);
	pthread_mutex_lock(&ag->dlk);
	prov_bpf_agg_maps_free(ag);
	prov_bpf_tls_shutdown();
	for (size_t i = 0; i < ag->lcap; i++)
		free(ag->ltab[i]);
	free(ag->ltab);
	ag->ltab = NULL;
	ag->lcap = ag->lcount = 0;
	for (uint32_t i = 1; i < ag->nextplan && i < MAX_PLANS; i++) {
		free(ag->plans[i]);	/* ids stay used: nextplan stays */
		ag->plans[i] = NULL;
	}
	pthread_mutex_unlock(&ag->dlk);
	pthread_mutex_unlock(&ag->plk);
}

/* Plan planid, published (NULL if none). */
static aplan_t *plan_at(agg_state_t *ag, int planid)
{
	if (planid <= 0 || planid >= MAX_PLANS)
		return NULL;
	return __atomic_load_n(&ag->plans[planid], __ATOMIC_ACQUIRE);
}

void prov_bpf_agg_hold(int planid)
{
	agg_state_t *ag = &prov_bpf_aggs;
	aplan_t *ap;

	if ((ap = plan_at(ag, planid)) == NULL)
		return;
	pthread_mutex_lock(&ag->rlk);
	ap->ap_refs++;
	ap->ap_idle = 0;
	pthread_mutex_unlock(&ag->rlk);
}

void prov_bpf_agg_release(int planid)
{
	agg_state_t *ag = &prov_bpf_aggs;
	aplan_t *ap;

	if ((ap = plan_at(ag, planid)) == NULL)
		return;
	pthread_mutex_lock(&ag->rlk);
	if (ap->ap_refs > 0 && --ap->ap_refs == 0)
		ap->ap_idle = ks_gethrtime() | 1;
	pthread_mutex_unlock(&ag->rlk);
}

void prov_bpf_agg_set_reclaim(uint64_t ns)
{
	agg_state_t *ag = &prov_bpf_aggs;

	pthread_mutex_lock(&ag->rlk);
	ag->reclaim_ns = ns ? ns : RECLAIM_NS;
	pthread_mutex_unlock(&ag->rlk);
}

size_t prov_bpf_agg_nkeys(int planid)
{
	agg_state_t *ag = &prov_bpf_aggs;
	size_t n = 0;
	uint32_t id;

	pthread_mutex_lock(&ag->dlk);
	for (size_t i = 0; i < ag->lcap; i++) {
		if (ag->ltab[i] == NULL)
			continue;
		memcpy(&id, ag->ltab[i]->lk_key, 4);
		n += planid == 0 || id == (uint32_t)planid;
	}
	pthread_mutex_unlock(&ag->dlk);
	return n;
}

void prov_bpf_agg_set_maxkeys(uint32_t n)
{
	agg_state_t *ag = &prov_bpf_aggs;

	ag->maxkeys = n ? n : DEFAULT_KEYS;
}

void prov_bpf_agg_set_plan_hook(int (*fn)(dtrace_id_t id, ks_aggplan_t *out))
{
	agg_state_t *ag = &prov_bpf_aggs;

	__atomic_store_n(&ag->plan_hook, fn, __ATOMIC_RELEASE);
}

void prov_bpf_agg_stats(uint64_t *fired, uint64_t *calls, uint64_t *drops)
{
	agg_state_t *ag = &prov_bpf_aggs;

	pthread_mutex_lock(&ag->dlk);
	*fired = ag->nfired;
	*calls = ag->ncalls;
	*drops = ag->ndrops;
	pthread_mutex_unlock(&ag->dlk);
}
