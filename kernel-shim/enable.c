/*
 * enable.c - adding a loaded enabling to a consumer state (ENABLE).
 *
 * Steps, each undone if a later one fails, so a refused ENABLE leaves the
 * state as it was:
 *   1. merge the enabling's options with the state's (sizes must agree;
 *      nothing may change what is already allocated);
 *   2. create the variable storage on the first ENABLE and declare every
 *      DIF object's variables;
 *   3. match each probe description (providers provide first), make one
 *      ECB per matched probe and start the providers' event sources;
 *   4. under the fire lock: grow the EPID, aggregation and format tables
 *      and the staging areas, give ids, and link the ECBs onto their
 *      probes, in enabling order.  From then on the probes may fire.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ks_filter.h"
#include "ks_impl.h"

/* Options whose value fixes memory or layout. */
static int opt_fixed(int opt)
{
	switch (opt) {
	case DTRACEOPT_BUFSIZE: case DTRACEOPT_AGGSIZE:
	case DTRACEOPT_DYNVARSIZE: case DTRACEOPT_SPECSIZE:
	case DTRACEOPT_NSPEC: case DTRACEOPT_STRSIZE:
	case DTRACEOPT_BUFPOLICY:
		return 1;
	default:
		return 0;
	}
}

static const char *opt_name(int opt)
{
	switch (opt) {
	case DTRACEOPT_BUFSIZE: return "bufsize";
	case DTRACEOPT_AGGSIZE: return "aggsize";
	case DTRACEOPT_DYNVARSIZE: return "dynvarsize";
	case DTRACEOPT_SPECSIZE: return "specsize";
	case DTRACEOPT_NSPEC: return "nspec";
	case DTRACEOPT_STRSIZE: return "strsize";
	case DTRACEOPT_BUFPOLICY: return "bufpolicy";
	default: return "option";
	}
}

/* Merge en's options into opts; -1 if a fixed one would change. */
static int merge_options(ks_state_t *st, const ks_enabling_t *en,
    dtrace_optval_t *opts)
{
	int i;

	memcpy(opts, st->st_opts, sizeof(st->st_opts));
	for (i = 0; i < DTRACEOPT_MAX; i++) {
		dtrace_optval_t v = en->en_opts[i];
		int started = st->st_allocated || (st->st_vstate != NULL &&
		    (i == DTRACEOPT_STRSIZE || i == DTRACEOPT_DYNVARSIZE));

		if (v == DTRACEOPT_UNSET)
			continue;
		if (opt_fixed(i) && v != ks_state_opt(st, i) &&
		    (opts[i] != DTRACEOPT_UNSET || started))
			return ks_state_seterr(st, EINVAL, "%s cannot change "
			    "from %lld to %lld once set", opt_name(i),
			    (long long)ks_state_opt(st, i), (long long)v);
		opts[i] = v;
	}
	return 0;
}

static int declare_vars(ks_state_t *st, const ks_enabling_t *en)
{
	char err[KS_ERRLEN];
	uint32_t i;

	if (st->st_vstate == NULL) {
		st->st_vstate = ks_vstate_create(
		    (uint64_t)ks_state_opt(st, DTRACEOPT_DYNVARSIZE),
		    (uint64_t)ks_state_opt(st, DTRACEOPT_STRSIZE));
		if (st->st_vstate == NULL)
			return ks_state_seterr(st, ENOMEM, "not enough memory "
			    "for dynamic variables");
	}
	/* probes may be firing on this storage: declare under the lock */
	pthread_mutex_lock(&ks_fire_lock);
	for (i = 0; i < en->en_nsecs; i++) {
		if (en->en_difos[i] != NULL && ks_vstate_declare(st->st_vstate,
		    en->en_difos[i], err, sizeof(err)) != 0) {
			pthread_mutex_unlock(&ks_fire_lock);
			return ks_state_seterr(st, EINVAL, "DOF section %u: %s",
			    i, err);
		}
	}
	pthread_mutex_unlock(&ks_fire_lock);
	return 0;
}

/* ECBs made by this ENABLE, before they are attached. */
typedef struct newecbs {
	ks_ecb_t **v;
	uint32_t n, cap;
} newecbs_t;

static int push_ecb(newecbs_t *ne, ks_state_t *st, ks_probe_t *p,
    ks_clause_t *c)
{
	ks_ecb_t *e;

	if (ne->n == ne->cap) {
		uint32_t cap = ne->cap ? ne->cap * 2 : 16;
		ks_ecb_t **v = ks_realloc(ne->v, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		ne->v = v;
		ne->cap = cap;
	}
	if ((e = ks_ecb_new(st)) == NULL)
		return -1;
	e->ke_probe = p;
	e->ke_clause = c;
	ne->v[ne->n++] = e;
	return 0;
}

static void drop_ecbs(newecbs_t *ne, uint32_t nenabled)
{
	uint32_t i;

	for (i = 0; i < ne->n; i++) {
		if (i < nenabled)
			ks_probe_disable_ecb(ne->v[i]->ke_probe,
			    ne->v[i]->ke_clause->kc_needs);
		ks_ecb_free(ne->v[i]);
	}
	free(ne->v);
}

/* Make ECBs for every probe matching every description. */
static int match_probes(ks_state_t *st, const ks_enabling_t *en,
    newecbs_t *ne)
{
	int d;

	for (d = 0; d < en->en_ndescs; d++) {
		const dtrace_probedesc_t *desc = &en->en_descs[d].ked_desc;
		dtrace_id_t id, n;

		ks_probe_provide(desc);
		n = ks_probe_count();
		for (id = 1; id <= n; id++) {
			ks_probe_t *p = ks_probe_get(id);

			if (p == NULL || !ks_probe_matches(p, desc) ||
			    (desc->dtpd_id != DTRACE_IDNONE &&
			    desc->dtpd_id != id))
				continue;
			if (push_ecb(ne, st, p, en->en_descs[d].ked_clause))
				return ks_state_seterr(st, ENOMEM,
				    "out of memory");
		}
	}
	return 0;
}

static int grow(void **v, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t c = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if ((p = ks_realloc(*v, c * size)) == NULL)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

/* Grow the staging record, aggregation key and clause-local areas. */
static int staging(ks_state_t *st, uint32_t rec, uint32_t key, uint32_t loc)
{
	if (rec > st->st_recmax) {
		char *p = ks_realloc(st->st_rec, rec);

		if (p == NULL)
			goto nomem;
		st->st_rec = p;
		st->st_recmax = rec;
	}
	if (key > st->st_keymax) {
		char *p = ks_realloc(st->st_key, key);

		if (p == NULL)
			goto nomem;
		memset(p, 0, key);
		st->st_key = p;
		st->st_keymax = key;
	}
	if (loc > st->st_nlocals) {
		/* twice: the second half keeps a copy (ecb.c, fire_error) */
		uint64_t *p = ks_realloc(st->st_locals, 2 * loc * sizeof(*p));

		if (p == NULL)
			goto nomem;
		st->st_locals = p;
		st->st_nlocals = loc;
	}
	return 0;
nomem:
	return ks_state_seterr(st, ENOMEM, "out of memory");
}

/* Room for the new ids and the largest record. */
static int reserve_tables(ks_state_t *st, const ks_enabling_t *en,
    const newecbs_t *ne)
{
	uint32_t naggs = 0, nfmts = 0, rec = st->st_recmax, key = st->st_keymax;
	uint32_t loc = st->st_nlocals;
	int i, k;

	for (i = 0; i < en->en_nclauses; i++) {
		const ks_clause_t *c = en->en_clauses[i];

		naggs += (uint32_t)c->kc_naggs;
		for (k = 0; k < c->kc_nacts; k++)
			nfmts += c->kc_acts[k].ka_fmt != NULL;
		rec = c->kc_size > rec ? c->kc_size : rec;
		key = c->kc_keymax > key ? c->kc_keymax : key;
		loc = c->kc_nlocals > loc ? c->kc_nlocals : loc;
	}
	/* fire lock held: probe context reads these tables */
	if (grow((void **)&st->st_ecbs, &st->st_ecbcap, st->st_necbs + ne->n,
	    sizeof(*st->st_ecbs)) || grow((void **)&st->st_aggs,
	    &st->st_aggcap, st->st_naggs + naggs, sizeof(*st->st_aggs)) ||
	    grow((void **)&st->st_formats, &st->st_fmtcap,
	    st->st_nformats + nfmts, sizeof(*st->st_formats)))
		return ks_state_seterr(st, ENOMEM, "out of memory");
	return staging(st, rec, key, loc);
}

/* Give a clause's aggregations and formats their ids (once). */
static void attach_clause(ks_state_t *st, ks_clause_t *c)
{
	int i, r = 0;

	if (c->kc_attached)
		return;
	c->kc_attached = 1;
	for (i = 0; i < c->kc_naggs; i++) {
		ks_agg_t *g = &c->kc_aggs[i];

		g->kg_id = ++st->st_naggs;
		g->kg_recs[0].dtrd_uarg = 0;
		st->st_aggs[g->kg_id - 1] = g;
	}
	for (i = 0; i < c->kc_nacts; i++) {
		const ks_act_t *a = &c->kc_acts[i];

		if (a->ka_role != KS_ROLE_RECORD)
			continue;
		if (a->ka_fmt != NULL) {
			st->st_formats[st->st_nformats++] = a->ka_fmt;
			c->kc_recs[r].dtrd_format = (uint16_t)st->st_nformats;
		}
		r++;
	}
}

/* Give each new ECB its EPID and put it last on its probe. */
static void attach(ks_state_t *st, ks_enabling_t *en, const newecbs_t *ne)
{
	uint32_t i;
	int k;

	for (k = 0; k < en->en_nclauses; k++)
		attach_clause(st, en->en_clauses[k]);
	for (i = 0; i < ne->n; i++) {
		ks_ecb_t *e = ne->v[i], **pp = &e->ke_probe->kp_ecbs;
		ks_clause_t *c = e->ke_clause;

		e->ke_epid = ++st->st_necbs;
		e->ke_enabling = en;
		st->st_ecbs[e->ke_epid - 1] = e;
		for (k = 0; k < c->kc_naggs; k++)
			if (c->kc_aggs[k].kg_epid == DTRACE_EPIDNONE)
				c->kc_aggs[k].kg_epid = e->ke_epid;
		if (e->ke_probe->kp_id == KS_PROBE_END && c->kc_writes)
			st->st_endreserve += c->kc_size;
		while (*pp != NULL)
			pp = &(*pp)->ke_pnext;
		*pp = e;
	}
	en->en_id = st->st_enablings != NULL ?
	    st->st_enablings->en_id + 1 : 1;
	en->en_next = st->st_enablings;
	st->st_enablings = en;
}

/* Bytes END's new ECBs would add to the fill reservation. */
static uint64_t end_bytes(const newecbs_t *ne)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < ne->n; i++)
		if (ne->v[i]->ke_probe->kp_id == KS_PROBE_END &&
		    ne->v[i]->ke_clause->kc_writes)
			n += ne->v[i]->ke_clause->kc_size;
	return n;
}

/* The KS_NEED_* bits of the built-ins dp loads: those that come from
 * call chains, uregs[], vtimestamp; whether it reads user memory and
 * which of arg0..arg5 it loads (args[] with an index only known at run
 * time: all of them); whether it loads arg0. */
static int difo_needs(const ks_difo_t *dp)
{
	int needs = 0;

	if (dp == NULL)
		return 0;
	for (uint32_t i = 0; i < dp->dtdo_len; i++) {
		dif_instr_t in = dp->dtdo_buf[i];
		uint8_t op = DIF_INSTR_OP(in);
		uint32_t var;

		if (op == DIF_OP_CALL && (DIF_INSTR_SUBR(in) ==
		    DIF_SUBR_copyin || DIF_INSTR_SUBR(in) == DIF_SUBR_copyinstr ||
		    DIF_INSTR_SUBR(in) == DIF_SUBR_copyinto))
			needs |= KS_NEED_UMEM;
		if (op == DIF_OP_LDGS)
			var = DIF_INSTR_VAR(in);
		else if (op == DIF_OP_LDGA)
			var = DIF_INSTR_R1(in);	/* the array's id */
		else
			continue;
		if (var >= DIF_VAR_ARG0 && var < DIF_VAR_ARG0 + KS_WANT_NUARGS)
			needs |= KS_NEED_UARG(var - DIF_VAR_ARG0);
		if (var == DIF_VAR_ARG0)
			needs |= KS_NEED_ARG0;
		if (op == DIF_OP_LDGA && var == DIF_VAR_ARGS)
			needs |= KS_WANT_UARGS | KS_NEED_ARG0;
		switch (var) {
		case DIF_VAR_STACKDEPTH: case DIF_VAR_USTACKDEPTH:
		case DIF_VAR_CALLER: case DIF_VAR_UCALLER:
			needs |= KS_NEED_STACK;
			break;
		case DIF_VAR_UREGS:
			needs |= KS_NEED_UREGS;
			break;
		case DIF_VAR_VTIMESTAMP:
			needs |= KS_NEED_VTIME;
			break;
		default:
			break;
		}
	}
	return needs;
}

int ks_clause_needs(const ks_clause_t *c)
{
	int needs = difo_needs(c->kc_pred);

	for (int i = 0; i < c->kc_nacts; i++) {
		const ks_act_t *a = &c->kc_acts[i];

		if (a->ka_kind == DTRACEACT_STACK ||
		    a->ka_kind == DTRACEACT_USTACK ||
		    a->ka_kind == DTRACEACT_JSTACK)
			needs |= KS_NEED_STACK;
		needs |= difo_needs(a->ka_difo);
	}
	if (!(needs & KS_NEED_UMEM))	/* arguments read, not memory */
		needs &= ~KS_WANT_UARGS;
	return needs;
}

/* Remove new ECB i (not enabled) from ne, keeping the order. */
static void ecb_forget(newecbs_t *ne, uint32_t i)
{
	free(ne->v[i]);
	memmove(&ne->v[i], &ne->v[i + 1], (ne->n - i - 1) * sizeof(ne->v[0]));
	ne->n--;
}

/* Start the new ECBs' sources; *done of them are.  A probe whose process
 * is gone (it exited between being matched and now: a glob over the
 * processes of a provider) loses its ECB quietly; any other refusal
 * fails the ENABLE. */
static int enable_probes(ks_state_t *st, newecbs_t *ne, uint32_t *done)
{
	char err[KS_ERRLEN];
	int rc;

	for (*done = 0; *done < ne->n; ) {
		rc = ks_probe_enable_ecb(ne->v[*done]->ke_probe,
		    ne->v[*done]->ke_clause->kc_needs, err, sizeof(err));
		if (rc == 0)
			(*done)++;
		else if (rc == -2)
			ecb_forget(ne, *done);
		else
			return ks_state_seterr(st, EINVAL, "%s", err);
	}
	return 0;
}

int ks_enable_add(ks_state_t *st, ks_enabling_t *en, uint32_t *nmatched)
{
	dtrace_optval_t saved[DTRACEOPT_MAX], opts[DTRACEOPT_MAX];
	int had_vstate = st->st_vstate != NULL;
	newecbs_t ne = { 0 };
	uint32_t enabled = 0;

	if (merge_options(st, en, opts) != 0)
		return -1;
	memcpy(saved, st->st_opts, sizeof(saved));
	memcpy(st->st_opts, opts, sizeof(opts));
	if (declare_vars(st, en) != 0 || match_probes(st, en, &ne) != 0)
		goto fail;
	for (int i = 0; i < en->en_nclauses; i++) {
		en->en_clauses[i]->kc_needs =
		    ks_clause_needs(en->en_clauses[i]);
		if (en->en_clauses[i]->kc_aggok == 0) {
			ks_clause_aggplan(en->en_clauses[i]);
			ks_clause_tlsplan(en->en_clauses[i]);
		}
	}
	if (ks_state_opt(st, DTRACEOPT_BUFPOLICY) == DTRACEOPT_BUFPOLICY_FILL &&
	    st->st_endreserve + end_bytes(&ne) >
	    (uint64_t)ks_state_opt(st, DTRACEOPT_BUFSIZE)) {
		ks_state_seterr(st, E2BIG,
		    "END enablings exceed size of principal buffer");
		goto fail;
	}
	if (enable_probes(st, &ne, &enabled) != 0)
		goto fail;
	pthread_mutex_lock(&ks_fire_lock);
	if (reserve_tables(st, en, &ne) != 0) {
		pthread_mutex_unlock(&ks_fire_lock);
		goto fail;
	}
	attach(st, en, &ne);
	pthread_mutex_unlock(&ks_fire_lock);
	if (nmatched != NULL)
		*nmatched = ne.n;
	free(ne.v);
	return 0;
fail:
	drop_ecbs(&ne, enabled);
	memcpy(st->st_opts, saved, sizeof(saved));
	if (!had_vstate && st->st_vstate != NULL) {
		ks_vstate_destroy(st->st_vstate);
		st->st_vstate = NULL;
	}
	return -1;
}

/*
 * DTRACEIOC_DISABLE: unlink the ECBs of enabling id from their probes so
 * they stop firing, then let the providers stop sources no ECB needs.
 * The ECBs stay in st_ecbs, so EPROBE/AGGDESC still describe the records
 * and aggregation data already collected.
 */
int ks_enable_disable(ks_state_t *st, uint32_t id)
{
	ks_enabling_t *en;
	uint32_t i;

	for (en = st->st_enablings; en != NULL; en = en->en_next)
		if (en->en_id == id)
			break;
	if (en == NULL || en->en_disabled)
		return ks_state_seterr(st, ENOENT, "no enabling %u%s", id,
		    en != NULL ? " (already disabled)" : "");
	pthread_mutex_lock(&ks_fire_lock);
	for (i = 0; i < st->st_necbs; i++) {
		ks_ecb_t *e = st->st_ecbs[i], **pp = &e->ke_probe->kp_ecbs;

		if (e->ke_enabling != en)
			continue;
		while (*pp != NULL && *pp != e)
			pp = &(*pp)->ke_pnext;
		if (*pp == e)
			*pp = e->ke_pnext;
		e->ke_disabled = 1;
		if (e->ke_probe->kp_id == KS_PROBE_END &&
		    e->ke_clause->kc_writes)
			st->st_endreserve -= e->ke_clause->kc_size;
	}
	en->en_disabled = 1;
	pthread_mutex_unlock(&ks_fire_lock);
	for (i = 0; i < st->st_necbs; i++)
		if (st->st_ecbs[i]->ke_enabling == en)
			ks_probe_disable_ecb(st->st_ecbs[i]->ke_probe,
			    st->st_ecbs[i]->ke_clause->kc_needs);
	ks_filter_changed();		/* kernel filters may tighten */
	return 0;
}

/* ---- retained enablings ---------------------------------------------- */

/* Has p an ECB of clause c made by enabling en? (consumer thread: the
 * only writer of the chain) */
static int has_ecb(const ks_probe_t *p, const ks_enabling_t *en,
    const ks_clause_t *c)
{
	for (const ks_ecb_t *e = p->kp_ecbs; e != NULL; e = e->ke_pnext)
		if (e->ke_enabling == en && e->ke_clause == c)
			return 1;
	return 0;
}

/* Was p's source refused for a retained enabling before? */
static int unstarted(const ks_state_t *st, const ks_probe_t *p)
{
	for (uint32_t i = 0; i < st->st_nunstarted; i++)
		if (st->st_unstarted[i] == p->kp_id)
			return 1;
	return 0;
}

/*
 * Start the sources of the new ECBs one by one.  One that cannot start
 * (its process gone already, or the source refused: out of descriptors,
 * say) loses only its own ECB: the probe is remembered so as not to be
 * tried again at every look for new probes, the failure (unless the
 * process is simply gone) is reported as a fault, and the other new
 * probes go on.
 */
static void start_retained(ks_state_t *st, newecbs_t *ne)
{
	char err[KS_ERRLEN];
	uint32_t i = 0;

	while (i < ne->n) {
		const ks_ecb_t *e = ne->v[i];
		ks_probe_t *p = e->ke_probe;
		int rc = unstarted(st, p) ? -2 : ks_probe_enable_ecb(p,
		    e->ke_clause->kc_needs, err, sizeof(err));

		if (rc == 0) {
			i++;
			continue;
		}
		if (rc == -1)
			ks_provider_fault("%s (the probe will not fire)", err);
		if (!unstarted(st, p) && grow((void **)&st->st_unstarted,
		    &st->st_unstartcap, st->st_nunstarted + 1,
		    sizeof(*st->st_unstarted)) == 0)
			st->st_unstarted[st->st_nunstarted++] = p->kp_id;
		ecb_forget(ne, i);
	}
}

/*
 * Probes made after an enabling (a pid provider's probes in an object a
 * process loaded later) get the enabling's ECBs, as DTrace's retained
 * enablings do: every description of every enabling still on is matched
 * again, and a matching probe without that clause's ECB gets one.  The
 * clauses are attached already (aggregation ids, formats, staging
 * sizes), so only the ECB table grows.  A probe whose source cannot
 * start costs only its own ECB (start_retained).
 */
int ks_enable_retained(ks_state_t *st, uint32_t *nnew)
{
	newecbs_t ne = { 0 };
	uint32_t enabled = 0, i;
	dtrace_id_t n = ks_probe_count();

	for (ks_enabling_t *en = st->st_enablings; en != NULL;
	    en = en->en_next) {
		if (en->en_disabled)
			continue;
		for (int d = 0; d < en->en_ndescs; d++) {
			const dtrace_probedesc_t *desc =
			    &en->en_descs[d].ked_desc;
			ks_clause_t *c = en->en_descs[d].ked_clause;

			for (dtrace_id_t id = 1; id <= n; id++) {
				ks_probe_t *p = ks_probe_get(id);

				if (p == NULL || desc->dtpd_id != DTRACE_IDNONE ||
				    !ks_probe_matches(p, desc) ||
				    has_ecb(p, en, c) || unstarted(st, p))
					continue;
				if (push_ecb(&ne, st, p, c) != 0) {
					drop_ecbs(&ne, 0);
					return ks_state_seterr(st, ENOMEM,
					    "out of memory");
				}
				ne.v[ne.n - 1]->ke_enabling = en;
			}
		}
	}
	start_retained(st, &ne);
	enabled = ne.n;
	if (nnew != NULL)
		*nnew = ne.n;
	if (ne.n == 0) {
		free(ne.v);
		return 0;
	}
	pthread_mutex_lock(&ks_fire_lock);
	if (grow((void **)&st->st_ecbs, &st->st_ecbcap, st->st_necbs + ne.n,
	    sizeof(*st->st_ecbs)) != 0) {
		pthread_mutex_unlock(&ks_fire_lock);
		drop_ecbs(&ne, enabled);
		return ks_state_seterr(st, ENOMEM, "out of memory");
	}
	for (i = 0; i < ne.n; i++) {
		ks_ecb_t *e = ne.v[i], **pp = &e->ke_probe->kp_ecbs;

		e->ke_epid = ++st->st_necbs;
		st->st_ecbs[e->ke_epid - 1] = e;
		while (*pp != NULL)
			pp = &(*pp)->ke_pnext;
		*pp = e;
	}
	pthread_mutex_unlock(&ks_fire_lock);
	free(ne.v);
	return 0;
}
