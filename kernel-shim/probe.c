/*
 * probe.c - the probe registry: providers, probes, lookup and matching.
 *
 * Central structure: probes live in a two-level id table (KS_CHUNKS chunks
 * of KS_CHUNK pointers), so ks_probe_get() in probe context is two loads
 * and no lock; a hash of (provider, module, function, name) finds a probe
 * by name for ks_probe_create/lookup.  Ids start at 1 and are never
 * reused; probes are never freed while the process runs (as in DTrace,
 * where a probe outlives any consumer that enabled it).
 *
 * Invariants: the dtrace provider registers first, so BEGIN, END and
 * ERROR are probes 1, 2 and 3; writers hold ks_reg_lock; a probe's ECB
 * list and enable count change only under ks_fire_lock (ecb.c, state.c).
 * kp_nstack, kp_nuregs, kp_narg0 and kp_nuarg count the enabled ECBs
 * whose clause needs call chains, user registers, arg0 or user memory at
 * argN, for ks_probe_wants; they change with kp_nenabled.  nvtime counts
 * enabled ECBs (all probes) that load vtimestamp, for ks_wants_vtime.  An
 * unregistered provider stays allocated (its probes point to it) but
 * leaves the name hash and its slot in providers[], which the next
 * registration reuses (same id).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ks_impl.h"

#define KS_CHUNK	1024
#define KS_CHUNKS	4096		/* up to 4M probes */
#define KS_HASH		65536

pthread_mutex_t ks_fire_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

static ks_provider_t *providers[KS_MAXPROVIDERS];
static unsigned nproviders;		/* atomic reads */
static ks_probe_t **chunks[KS_CHUNKS];
static dtrace_id_t nprobes;		/* highest id handed out */
static ks_probe_t *hash[KS_HASH];

static __thread char prov_err[KS_ERRLEN];
static __thread int prov_gone;		/* ks_provider_gone() since start */
static uint32_t nvtime;			/* enabled ECBs loading vtimestamp */
static void (*vtime_watcher)(void);

static void registry_once(void)
{
	ks_prov_dtrace_register();
}

void ks_registry_init(void)
{
	pthread_once(&reg_once, registry_once);
}

int ks_provider_register(const char *name, const ks_provider_ops_t *ops,
    void *parg, ks_provider_id_t *idp)
{
	ks_registry_init();
	return ks_provider_add(name, ops, parg, idp);
}

static int add(const char *name, const ks_provider_ops_t *ops,
    void *parg, ks_provider_id_t *idp, int meta);

int ks_provider_register_meta(const char *name, const ks_provider_ops_t *ops,
    void *parg, ks_provider_id_t *idp)
{
	ks_registry_init();
	return add(name, ops, parg, idp, 1);
}

int ks_provider_add(const char *name, const ks_provider_ops_t *ops,
    void *parg, ks_provider_id_t *idp)
{
	return add(name, ops, parg, idp, 0);
}

static int add(const char *name, const ks_provider_ops_t *ops,
    void *parg, ks_provider_id_t *idp, int meta)
{
	ks_provider_t *pv;
	unsigned i;

	if (name == NULL || *name == '\0' || ops == NULL ||
	    strlen(name) >= DTRACE_PROVNAMELEN) {
		errno = EINVAL;
		return -1;
	}
	unsigned slot = KS_MAXPROVIDERS;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < nproviders; i++) {
		if (providers[i]->kv_defunct) {
			if (slot == KS_MAXPROVIDERS)
				slot = i;
		} else if (strcmp(providers[i]->kv_name, name) == 0) {
			pthread_mutex_unlock(&reg_lock);
			errno = EEXIST;
			return -1;
		}
	}
	if (slot == KS_MAXPROVIDERS && nproviders < KS_MAXPROVIDERS)
		slot = nproviders;
	if (slot == KS_MAXPROVIDERS ||
	    (pv = ks_calloc(1, sizeof(*pv))) == NULL) {
		pthread_mutex_unlock(&reg_lock);
		errno = ENOMEM;
		return -1;
	}
	snprintf(pv->kv_name, sizeof(pv->kv_name), "%s", name);
	pv->kv_ops = *ops;
	pv->kv_arg = parg;
	pv->kv_meta = meta;
	pv->kv_id = slot + 1;
	__atomic_store_n(&providers[slot], pv, __ATOMIC_RELEASE);
	if (slot == nproviders)
		__atomic_store_n(&nproviders, nproviders + 1,
		    __ATOMIC_RELEASE);
	pthread_mutex_unlock(&reg_lock);
	if (idp != NULL)
		*idp = pv->kv_id;
	return 0;
}

static ks_provider_t *provider_get(ks_provider_id_t id)
{
	unsigned n = __atomic_load_n(&nproviders, __ATOMIC_ACQUIRE);
	ks_provider_t *pv;

	if (id < 1 || id > n)
		return NULL;
	pv = __atomic_load_n(&providers[id - 1], __ATOMIC_ACQUIRE);
	return pv->kv_defunct ? NULL : pv;
}

static uint32_t name_hash(const ks_provider_t *pv, const char *mod,
    const char *func, const char *name)
{
	const char *parts[3] = { mod, func, name };
	uint32_t h = 2166136261u ^ pv->kv_id;
	int i;

	for (i = 0; i < 3; i++) {
		const unsigned char *c = (const unsigned char *)parts[i];

		for (; *c != '\0'; c++)
			h = (h ^ *c) * 16777619u;
		h = (h ^ 0xff) * 16777619u;
	}
	return h & (KS_HASH - 1);
}

/* Find by name; reg_lock held. */
static ks_probe_t *find(const ks_provider_t *pv, const char *mod,
    const char *func, const char *name)
{
	ks_probe_t *p = hash[name_hash(pv, mod, func, name)];

	for (; p != NULL; p = p->kp_hnext) {
		if (p->kp_prov == pv && strcmp(p->kp_mod, mod) == 0 &&
		    strcmp(p->kp_func, func) == 0 &&
		    strcmp(p->kp_name, name) == 0)
			return p;
	}
	return NULL;
}

/* Allocate a probe with its three names in one block. */
static ks_probe_t *probe_new(ks_provider_t *pv, const char *mod,
    const char *func, const char *name)
{
	size_t lm = strlen(mod) + 1, lf = strlen(func) + 1;
	size_t ln = strlen(name) + 1;
	ks_probe_t *p = ks_calloc(1, sizeof(*p) + lm + lf + ln);

	if (p == NULL)
		return NULL;
	p->kp_prov = pv;
	p->kp_mod = (char *)(p + 1);
	p->kp_func = p->kp_mod + lm;
	p->kp_name = p->kp_func + lf;
	memcpy(p->kp_mod, mod, lm);
	memcpy(p->kp_func, func, lf);
	memcpy(p->kp_name, name, ln);
	return p;
}

/* Give p the next id; reg_lock held.  -1 if the table is full. */
static int probe_insert(ks_probe_t *p)
{
	dtrace_id_t id = nprobes + 1;
	unsigned c = (id - 1) / KS_CHUNK;

	if (c >= KS_CHUNKS)
		return -1;
	if (chunks[c] == NULL) {
		ks_probe_t **ch = ks_calloc(KS_CHUNK, sizeof(*ch));

		if (ch == NULL)
			return -1;
		__atomic_store_n(&chunks[c], ch, __ATOMIC_RELEASE);
	}
	p->kp_id = id;
	__atomic_store_n(&chunks[c][(id - 1) % KS_CHUNK], p, __ATOMIC_RELEASE);
	__atomic_store_n(&nprobes, id, __ATOMIC_RELEASE);
	return 0;
}

static int name_ok(const char *s, size_t max)
{
	return s != NULL && strlen(s) < max;
}

dtrace_id_t ks_probe_create(ks_provider_id_t prov, const char *mod,
    const char *func, const char *name, int aframes, void *probe_arg)
{
	ks_provider_t *pv = provider_get(prov);
	ks_probe_t *p;
	uint32_t h;

	if (pv == NULL || !name_ok(mod, DTRACE_MODNAMELEN) ||
	    !name_ok(func, DTRACE_FUNCNAMELEN) ||
	    !name_ok(name, DTRACE_NAMELEN) || *name == '\0')
		return DTRACE_IDNONE;
	pthread_mutex_lock(&reg_lock);
	if ((p = find(pv, mod, func, name)) != NULL) {
		pthread_mutex_unlock(&reg_lock);
		return p->kp_id;
	}
	if ((p = probe_new(pv, mod, func, name)) == NULL ||
	    probe_insert(p) != 0) {
		pthread_mutex_unlock(&reg_lock);
		free(p);
		return DTRACE_IDNONE;
	}
	p->kp_aframes = aframes;
	p->kp_arg = probe_arg;
	h = name_hash(pv, mod, func, name);
	p->kp_hnext = hash[h];
	hash[h] = p;
	pthread_mutex_unlock(&reg_lock);
	return p->kp_id;
}

dtrace_id_t ks_probe_lookup(ks_provider_id_t prov, const char *mod,
    const char *func, const char *name)
{
	ks_provider_t *pv = provider_get(prov);
	ks_probe_t *p;

	if (pv == NULL || mod == NULL || func == NULL || name == NULL)
		return DTRACE_IDNONE;
	pthread_mutex_lock(&reg_lock);
	p = find(pv, mod, func, name);
	pthread_mutex_unlock(&reg_lock);
	return p != NULL ? p->kp_id : DTRACE_IDNONE;
}

int ks_provider_unregister(ks_provider_id_t id)
{
	ks_provider_t *pv;

	pthread_mutex_lock(&reg_lock);
	if ((pv = provider_get(id)) == NULL || pv->kv_meta) {
		pthread_mutex_unlock(&reg_lock);
		errno = pv == NULL ? ENOENT : EINVAL;
		return -1;
	}
	/* out of the name hash: lookups and creation no longer find them */
	for (unsigned h = 0; h < KS_HASH; h++)
		for (ks_probe_t **pp = &hash[h]; *pp != NULL; )
			if ((*pp)->kp_prov == pv)
				*pp = (*pp)->kp_hnext;
			else
				pp = &(*pp)->kp_hnext;
	__atomic_store_n(&pv->kv_defunct, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&reg_lock);
	return 0;
}

ks_probe_t *ks_probe_get(dtrace_id_t id)
{
	ks_probe_t **ch;

	if (id == DTRACE_IDNONE || id > __atomic_load_n(&nprobes,
	    __ATOMIC_ACQUIRE))
		return NULL;
	ch = __atomic_load_n(&chunks[(id - 1) / KS_CHUNK], __ATOMIC_ACQUIRE);
	if (ch == NULL)
		return NULL;
	return __atomic_load_n(&ch[(id - 1) % KS_CHUNK], __ATOMIC_ACQUIRE);
}

dtrace_id_t ks_probe_count(void)
{
	return __atomic_load_n(&nprobes, __ATOMIC_ACQUIRE);
}

int ks_probe_is_enabled(dtrace_id_t id)
{
	ks_probe_t *p = ks_probe_get(id);

	return p != NULL && __atomic_load_n(&p->kp_nenabled,
	    __ATOMIC_RELAXED) != 0;
}

void ks_probe_provide(const dtrace_probedesc_t *desc)
{
	unsigned i, n;

	ks_registry_init();
	/* meta providers first: they may register the providers matched
	 * below */
	n = __atomic_load_n(&nproviders, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (!providers[i]->kv_defunct && providers[i]->kv_meta &&
		    providers[i]->kv_ops.kpo_provide != NULL)
			providers[i]->kv_ops.kpo_provide(providers[i]->kv_arg,
			    desc);
	n = __atomic_load_n(&nproviders, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		ks_provider_t *pv = providers[i];

		if (pv->kv_ops.kpo_provide == NULL || pv->kv_meta ||
		    pv->kv_defunct)
			continue;
		if (desc != NULL && !ks_glob_match(desc->dtpd_provider,
		    pv->kv_name))
			continue;
		pv->kv_ops.kpo_provide(pv->kv_arg, desc);
	}
}

int ks_probe_matches(const ks_probe_t *p, const dtrace_probedesc_t *desc)
{
	if (__atomic_load_n(&p->kp_prov->kv_defunct, __ATOMIC_ACQUIRE))
		return 0;
	return ks_glob_match(desc->dtpd_provider, p->kp_prov->kv_name) &&
	    ks_glob_match(desc->dtpd_mod, p->kp_mod) &&
	    ks_glob_match(desc->dtpd_func, p->kp_func) &&
	    ks_glob_match(desc->dtpd_name, p->kp_name);
}

void ks_probe_describe(const ks_probe_t *p, dtrace_probedesc_t *out)
{
	memset(out, 0, sizeof(*out));
	out->dtpd_id = p->kp_id;
	snprintf(out->dtpd_provider, sizeof(out->dtpd_provider), "%s",
	    p->kp_prov->kv_name);
	snprintf(out->dtpd_mod, sizeof(out->dtpd_mod), "%s", p->kp_mod);
	snprintf(out->dtpd_func, sizeof(out->dtpd_func), "%s", p->kp_func);
	snprintf(out->dtpd_name, sizeof(out->dtpd_name), "%s", p->kp_name);
}

/*
 * Count an ECB on p and start its event source on the first one.  Called
 * without the fire lock (the provider may fire at once); the count itself
 * is changed under it.
 */
/* Ask the provider to start p's source; 0, or -1 with err filled (-2:
 * the provider said the probe's process is gone). */
static int start(ks_probe_t *p, char *err, size_t errlen)
{
	const ks_provider_ops_t *ops = &p->kp_prov->kv_ops;

	prov_err[0] = '\0';
	prov_gone = 0;
	if (ops->kpo_enable(p->kp_prov->kv_arg, p->kp_id, p->kp_arg) == 0)
		return 0;
	snprintf(err, errlen, "%s:%s:%s:%s: %s", p->kp_prov->kv_name,
	    p->kp_mod, p->kp_func, p->kp_name,
	    prov_err[0] != '\0' ? prov_err : "provider could not enable it");
	return prov_gone ? -2 : -1;
}

/* What p's source samples now (KS_WANT_* bits), from its counts. */
static int sampled(const ks_probe_t *p)
{
	int w = (__atomic_load_n(&p->kp_nstack, __ATOMIC_RELAXED) ?
	    KS_WANT_STACK : 0) | (__atomic_load_n(&p->kp_nuregs,
	    __ATOMIC_RELAXED) ? KS_WANT_UREGS : 0);

	for (int i = 0; i < KS_WANT_NUARGS; i++)
		if (__atomic_load_n(&p->kp_nuarg[i], __ATOMIC_RELAXED))
			w |= KS_WANT_UARG(i);
	if (__atomic_load_n(&p->kp_narg0, __ATOMIC_RELAXED))
		w |= KS_WANT_ARG0;
	return w;
}

/* Count (or with d < 0, uncount) one ECB with needs on p; the old count
 * in *n, what the source sampled before in *had. */
static void count(ks_probe_t *p, int d, int needs, uint32_t *n, int *had)
{
	pthread_mutex_lock(&ks_fire_lock);
	*had = sampled(p);
	*n = __atomic_fetch_add(&p->kp_nenabled, (uint32_t)d,
	    __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->kp_nstack, (needs & KS_NEED_STACK) ?
	    (uint32_t)d : 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->kp_nuregs, (needs & KS_NEED_UREGS) ?
	    (uint32_t)d : 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->kp_narg0, (needs & KS_NEED_ARG0) ?
	    (uint32_t)d : 0, __ATOMIC_RELAXED);
	for (int i = 0; i < KS_WANT_NUARGS; i++)
		__atomic_fetch_add(&p->kp_nuarg[i],
		    (needs & KS_NEED_UARG(i)) ? (uint32_t)d : 0,
		    __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ks_fire_lock);
}

/* Count (d = 1) or uncount (-1) an ECB needing vtime; tell the watcher
 * when the first arrives or the last goes.  No lock held. */
static void vtime_count(int needs, int d)
{
	uint32_t old;
	void (*fn)(void);

	if (!(needs & KS_NEED_VTIME))
		return;
	old = __atomic_fetch_add(&nvtime, (uint32_t)d, __ATOMIC_ACQ_REL);
	fn = __atomic_load_n(&vtime_watcher, __ATOMIC_ACQUIRE);
	if (fn != NULL && ((d > 0 && old == 0) || (d < 0 && old == 1)))
		fn();
}

int ks_probe_enable_ecb(ks_probe_t *p, int needs, char *err,
    size_t errlen)
{
	const ks_provider_ops_t *ops = &p->kp_prov->kv_ops;
	int want = needs & (KS_WANT_STACK | KS_WANT_UREGS |
	    (ops->kpo_wants & (KS_WANT_UARGS | KS_WANT_ARG0))), had, rc;
	uint32_t n;

	count(p, 1, needs, &n, &had);
	vtime_count(needs, 1);
	if (ops->kpo_enable == NULL)
		return 0;
	if (n != 0 && (want & ~had) == 0)
		return 0;
	if (n != 0 && ops->kpo_disable != NULL) {
		/* running without what this ECB needs: restart it */
		ops->kpo_disable(p->kp_prov->kv_arg, p->kp_id, p->kp_arg);
		if (start(p, err, errlen) == 0)
			return 0;
		count(p, -1, needs, &n, &had);
		vtime_count(needs, -1);
		(void)start(p, err, errlen);	/* as it was, if it can */
		return -1;
	}
	if (n != 0 || (rc = start(p, err, errlen)) == 0)
		return 0;
	count(p, -1, needs, &n, &had);
	vtime_count(needs, -1);
	return rc;
}

int ks_probe_enable(ks_probe_t *p, char *err, size_t errlen)
{
	return ks_probe_enable_ecb(p, 0, err, errlen);
}

void ks_probe_disable_ecb(ks_probe_t *p, int needs)
{
	const ks_provider_ops_t *ops = &p->kp_prov->kv_ops;
	uint32_t n;
	int had;

	count(p, -1, needs, &n, &had);
	if (n == 1 && ops->kpo_disable != NULL)
		ops->kpo_disable(p->kp_prov->kv_arg, p->kp_id, p->kp_arg);
	vtime_count(needs, -1);
}

void ks_probe_disable(ks_probe_t *p)
{
	ks_probe_disable_ecb(p, 0);
}

int ks_probe_wants_stack(dtrace_id_t id)
{
	return (ks_probe_wants(id) & KS_WANT_STACK) != 0;
}

int ks_probe_wants(dtrace_id_t id)
{
	ks_probe_t *p = ks_probe_get(id);

	if (p == NULL)
		return 0;
	return sampled(p);
}

int ks_wants_vtime(void)
{
	return __atomic_load_n(&nvtime, __ATOMIC_ACQUIRE) != 0;
}

void ks_vtime_watch(void (*fn)(void))
{
	__atomic_store_n(&vtime_watcher, fn, __ATOMIC_RELEASE);
}

int ks_probe_argdesc(dtrace_argdesc_t *desc)
{
	ks_probe_t *p = ks_probe_get(desc->dtargd_id);
	const ks_provider_ops_t *ops;
	int ndx = desc->dtargd_ndx;

	if (p == NULL)
		return -1;
	ops = &p->kp_prov->kv_ops;
	desc->dtargd_native[0] = desc->dtargd_xlate[0] = '\0';
	desc->dtargd_mapping = ndx;
	if (ops->kpo_getargdesc == NULL || ndx < 0) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return 0;
	}
	ops->kpo_getargdesc(p->kp_prov->kv_arg, p->kp_id, p->kp_arg, desc);
	desc->dtargd_native[DTRACE_ARGTYPELEN - 1] = '\0';
	desc->dtargd_xlate[DTRACE_ARGTYPELEN - 1] = '\0';
	return 0;
}

const char *ks_provider_errmsg(void)
{
	return prov_err;
}

void ks_provider_gone(void)
{
	prov_gone = 1;
}

void ks_provider_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prov_err, sizeof(prov_err), fmt, ap);
	va_end(ap);
}
