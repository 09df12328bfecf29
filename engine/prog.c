/*
 * prog.c - programs after compilation (eng_prog_*), probe matching and
 * listing through the shim (PROBEMATCH, PROBES, PROBEARG), ENABLE, and
 * the accessors the consumer uses to describe statements and
 * aggregations (eng_cc_stmtinfo, eng_cc_agginfo, eng_cc_aggname).
 *
 * eng_prog_exec() enables, once per handle, the engine's own ERROR clause
 * (dofe_uarg = DT_ECB_ERROR, recording arg1..arg5 as 8-byte values) so
 * the consumer can print fault messages, then hands the program's DOF to
 * the shim.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "providers.h"
#include "exp.h"

static void copy_glob(dtrace_probedesc_t *q, const dtrace_probedesc_t *pd,
    dtrace_id_t id)
{
	*q = *pd;
	q->dtpd_id = id;
}

/* Count probes matching pd; *first gets the first one.  0 or -1. */
int eng_prog_match(eng_hdl_t *h, const dtrace_probedesc_t *pd,
    dtrace_probedesc_t *first, unsigned *count)
{
	dtrace_probedesc_t q;
	dtrace_id_t id = 1;

	*count = 0;
	if (h->eh_ks == NULL)
		return 0;
	if (eng_pid_provide(h, pd) != 0)
		return -1;
	for (;;) {
		copy_glob(&q, pd, id);
		if (eng_ks_ioctl(h, DTRACEIOC_PROBEMATCH, &q) != 0) {
			if (errno == ENOENT || errno == ESRCH)
				return 0;
			return eng_error(h, "%s", ks_errmsg(h->eh_ks));
		}
		if (*count == 0 && first != NULL)
			*first = q;
		(*count)++;
		if (q.dtpd_id < id)
			return 0;	/* a shim that does not advance */
		id = q.dtpd_id + 1;
	}
}

const void *eng_prog_dof(const eng_prog_t *prog, size_t *sizep)
{
	if (prog == NULL)
		return NULL;
	if (sizep != NULL)
		*sizep = prog->p_dofsize;
	return prog->p_dof;
}

unsigned eng_prog_nprobes(const eng_prog_t *prog)
{
	return prog != NULL ? prog->p_nprobes : 0;
}

void eng_prog_free(eng_prog_t *prog)
{
	if (prog == NULL)
		return;
	free(prog->p_dof);
	free(prog->p_src);
	eng_arena_free(&prog->p_arena);
	free(prog);
}

static int enable(eng_hdl_t *h, eng_prog_t *prog, unsigned *nmatched)
{
	dtrace_enable_arg_t ea;
	char err[256];

	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = prog->p_dof;
	ea.dtea_size = prog->p_dofsize;
	if (eng_ks_ioctl(h, DTRACEIOC_ENABLE, &ea) != 0)
		return eng_error(h, "could not enable tracing: %s",
		    ea.dtea_errmsg[0] ? ea.dtea_errmsg : ks_errmsg(h->eh_ks));
	/* pid probes are attached a file at a time, after the ENABLE */
	if (prov_pid_commit(err, sizeof(err)) != 0)
		return eng_error(h, "could not enable tracing: %s", err);
	/* pieces of split clauses are not probes matched: count the clauses' */
	if (nmatched != NULL)
		*nmatched = ea.dtea_nmatched > prog->p_nprobes &&
		    prog->p_nprobes > 0 ? prog->p_nprobes : ea.dtea_nmatched;
	prog->p_enabled = 1;
	prog->p_enabling = ea.dtea_enabling;
	return 0;
}

/* The engine's ERROR clause: arg1..arg5 as 8-byte values. */
static int error_clause(eng_hdl_t *h)
{
	struct eng_cc *cc = eng_cc_get(h);
	static const char text[] = "dtrace:::ERROR { trace(arg1); "
	    "trace(arg2); trace(arg3); trace(arg4); trace(arg5); }";
	char save[sizeof(h->eh_errmsg)];
	eng_prog_t *p;

	if (cc == NULL)
		return eng_error(h, "failed to allocate memory");
	if (cc->cc_error_enabled)
		return 0;
	memcpy(save, h->eh_errmsg, sizeof(save));
	p = eng_compile_str(h, text, NULL, ENG_C_ZDEFS | ENG_C_ERRCLAUSE,
	    NULL);
	if (p == NULL)
		return -1;
	if (enable(h, p, NULL) != 0) {
		eng_prog_free(p);
		return -1;
	}
	cc->cc_errprog = p;
	cc->cc_error_enabled = 1;
	memcpy(h->eh_errmsg, save, sizeof(save));
	return 0;
}

int eng_prog_exec(eng_hdl_t *h, eng_prog_t *prog, unsigned *nmatched)
{
	if (h == NULL || prog == NULL || prog->p_dof == NULL)
		return h != NULL ? eng_error(h, "no program to enable") : -1;
	if (h->eh_ks == NULL)
		return eng_error(h, "could not enable tracing: no shim state");
	if (eng_exp_create(h) != 0 || error_clause(h) != 0)
		return -1;
	if (enable(h, prog, nmatched) != 0)
		return -1;
	eng_exp_note_enabling(h, prog->p_src, nmatched != NULL ? *nmatched :
	    prog->p_nprobes);
	return 0;
}

int eng_prog_has_clause(const eng_prog_t *prog, uint64_t clause)
{
	for (const struct eng_stmt *s = prog != NULL ? prog->p_stmts : NULL;
	    s != NULL; s = s->s_next)
		if (s->s_id == clause)
			return 1;
	return 0;
}

const char *eng_prog_clause_pred(const eng_prog_t *prog, uint64_t clause)
{
	for (const struct eng_stmt *s = prog != NULL ? prog->p_stmts : NULL;
	    s != NULL; s = s->s_next)
		if (s->s_id == clause)
			return s->s_predsrc;
	return NULL;
}

int eng_prog_aggonly(const eng_prog_t *prog)
{
	int aggs = 0;

	for (const struct eng_stmt *s = prog != NULL ? prog->p_stmts : NULL;
	    s != NULL; s = s->s_next) {
		int covered = 0;	/* actions up to here that feed an agg */

		for (int i = 0; i < s->s_nacts; i++) {
			const struct eng_act *a = &s->s_acts[i];

			if (!DTRACEACT_ISAGG(a->a_kind))
				continue;
			if ((int)a->a_ntuple != i - covered)
				return 0;	/* something else came first */
			covered = i + 1;
			aggs++;
		}
		if (covered != s->s_nacts)
			return 0;
	}
	return aggs > 0;
}

/* Stop prog's ECBs firing; what they collected stays (and prints). */
int eng_prog_disable(eng_hdl_t *h, eng_prog_t *prog)
{
	if (prog == NULL || !prog->p_enabled)
		return eng_error(h, "program is not enabled");
	if (eng_ks_ioctl(h, DTRACEIOC_DISABLE, &prog->p_enabling) != 0)
		return eng_error(h, "could not disable: %s",
		    ks_errmsg(h->eh_ks));
	prog->p_enabled = 0;
	return 0;
}

/* ---- probes -------------------------------------------------------------- */

/* Split "a:b:c:d" into a description, fields filled from the right. */
static int split_pattern(const char *pat, dtrace_probedesc_t *pd)
{
	char buf[DTRACE_FULLNAMELEN + 8], *f[4] = { NULL }, *s, *c;
	char *dst[4] = { pd->dtpd_provider, pd->dtpd_mod, pd->dtpd_func,
	    pd->dtpd_name };
	static const size_t lens[4] = { DTRACE_PROVNAMELEN,
	    DTRACE_MODNAMELEN, DTRACE_FUNCNAMELEN, DTRACE_NAMELEN };
	int n = 0;

	memset(pd, 0, sizeof(*pd));
	if (pat == NULL || *pat == '\0')
		return 0;
	if (strlen(pat) >= sizeof(buf))
		return -1;
	strcpy(buf, pat);
	for (s = buf; n < 4; s = c + 1) {
		f[n++] = s;
		if ((c = strchr(s, ':')) == NULL)
			break;
		*c = '\0';
	}
	if (c != NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		int k = 4 - n + i;

		if (strlen(f[i]) >= lens[k])
			return -1;
		strcpy(dst[k], f[i]);
	}
	return 0;
}

struct usdt_list {
	eng_probe_f *cb;
	void *arg;
};

static void usdt_one(void *arg, const char *prov, const char *mod,
    const char *func, const char *name)
{
	struct usdt_list *ul = arg;
	dtrace_probedesc_t pd;

	memset(&pd, 0, sizeof (pd));
	snprintf(pd.dtpd_provider, sizeof (pd.dtpd_provider), "%s", prov);
	snprintf(pd.dtpd_mod, sizeof (pd.dtpd_mod), "%s", mod);
	snprintf(pd.dtpd_func, sizeof (pd.dtpd_func), "%s", func);
	snprintf(pd.dtpd_name, sizeof (pd.dtpd_name), "%s", name);
	(void)ul->cb(&pd, ul->arg);
}

int eng_usdt_list(eng_hdl_t *h, eng_probe_f *cb, void *arg)
{
	struct usdt_list ul = { cb, arg };

	if (h == NULL || h->eh_ks == NULL)
		return h != NULL ? eng_error(h, "no shim state") : -1;
	if (!(h->eh_flags & ENG_O_NOPROVIDERS))
		prov_usdt_list(usdt_one, &ul);
	return 0;
}

int eng_probe_iter(eng_hdl_t *h, const char *pattern, eng_probe_f *cb,
    void *arg)
{
	dtrace_probedesc_t pd;

	if (h == NULL || h->eh_ks == NULL)
		return h != NULL ? eng_error(h, "no shim state") : -1;
	if (split_pattern(pattern, &pd) != 0)
		return eng_error(h, "invalid probe description \"%s\"", pattern);
	if (pattern != NULL && eng_pid_provide(h, &pd) != 0)
		return -1;
	return eng_probe_iter_desc(h, &pd, cb, arg);
}

int eng_probe_iter_desc(eng_hdl_t *h, const dtrace_probedesc_t *pd,
    eng_probe_f *cb, void *arg)
{
	dtrace_probedesc_t q;
	dtrace_id_t id = 1;
	int n = 0;

	if (h == NULL || h->eh_ks == NULL)
		return h != NULL ? eng_error(h, "no shim state") : -1;
	for (;;) {
		copy_glob(&q, pd, id);
		if (eng_ks_ioctl(h, DTRACEIOC_PROBEMATCH, &q) != 0) {
			if (errno == ENOENT || errno == ESRCH)
				return n;
			return eng_error(h, "%s", ks_errmsg(h->eh_ks));
		}
		n++;
		if (cb != NULL && cb(&q, arg) != 0)
			return n;
		if (q.dtpd_id < id)
			return n;
		id = q.dtpd_id + 1;
	}
}

int eng_prog_desc_iter(const eng_prog_t *prog, eng_probe_f *cb, void *arg)
{
	int n = 0;

	if (prog == NULL)
		return 0;
	for (const struct eng_stmt *s = prog->p_stmts; s != NULL;
	    s = s->s_next) {
		if (s->s_piece > 1)
			continue;	/* a later piece of the same clause */
		for (int i = 0; i < s->s_npd; i++, n++)
			if (cb(&s->s_pd[i], arg) != 0)
				return n + 1;
	}
	return n;
}

int eng_probe_info(eng_hdl_t *h, dtrace_id_t id, eng_probeinfo_t *out)
{
	dtrace_probedesc_t pd;

	if (h == NULL || h->eh_ks == NULL || out == NULL)
		return -1;
	memset(out, 0, sizeof(*out));
	memset(&pd, 0, sizeof(pd));
	pd.dtpd_id = id;
	if (eng_ks_ioctl(h, DTRACEIOC_PROBES, &pd) != 0 || pd.dtpd_id != id) {
		/* not provided yet: a walk from id 0 has every provider
		 * provide its probes, as DTrace's does */
		memset(&pd, 0, sizeof(pd));
		(void)eng_ks_ioctl(h, DTRACEIOC_PROBES, &pd);
		memset(&pd, 0, sizeof(pd));
		pd.dtpd_id = id;
		if (eng_ks_ioctl(h, DTRACEIOC_PROBES, &pd) != 0 ||
		    pd.dtpd_id != id)
			return eng_error(h, "no probe with id %u", id);
	}
	out->epi_desc = pd;
	for (int i = 0; i < DTRACE_MAXARGS; i++) {
		dtrace_argdesc_t ad;

		memset(&ad, 0, sizeof(ad));
		ad.dtargd_id = id;
		ad.dtargd_ndx = i;
		if (eng_ks_ioctl(h, DTRACEIOC_PROBEARG, &ad) != 0 ||
		    ad.dtargd_ndx == DTRACE_ARGNONE || ad.dtargd_native[0] == '\0')
			break;
		snprintf(out->epi_argtypes[i], DTRACE_ARGTYPELEN, "%s",
		    ad.dtargd_xlate[0] ? ad.dtargd_xlate : ad.dtargd_native);
		if (ad.dtargd_xlate[0] != '\0')
			snprintf(out->epi_argnative[i], DTRACE_ARGTYPELEN, "%s",
			    ad.dtargd_native);
		out->epi_argmap[i] = ad.dtargd_mapping >= 0 &&
		    ad.dtargd_mapping < DTRACE_MAXARGS ? ad.dtargd_mapping : i;
		out->epi_nargs = i + 1;
	}
	return 0;
}

int eng_count_matches(eng_hdl_t *h, const char *clause_text)
{
	eng_cargs_t args;
	eng_prog_t *p;
	char *cut;
	size_t n;
	int r;

	if (h == NULL || clause_text == NULL)
		return -1;
	n = strcspn(clause_text, "/{");
	cut = strndup(clause_text, n);
	if (cut == NULL)
		return -1;
	memset(&args, 0, sizeof(args));
	args.spec_kind = ENG_SPEC_NAME;
	p = eng_compile_str(h, cut, NULL, ENG_C_LIST | ENG_C_ZDEFS |
	    ENG_C_PROBESPEC | ENG_C_ARGREF, &args);
	free(cut);
	if (p == NULL)
		return -1;
	r = (int)p->p_nprobes;
	eng_prog_free(p);
	return r;
}

/* ---- for the consumer ---------------------------------------------------- */

const eng_cc_stmtinfo_t *eng_cc_stmtinfo(eng_hdl_t *h, uint64_t stmtid)
{
	struct eng_cc *cc = h != NULL ? h->eh_cc : NULL;

	if (cc == NULL || stmtid == 0 || stmtid > cc->cc_nstmts)
		return NULL;
	return cc->cc_stmts[stmtid - 1];
}

const eng_cc_agginfo_t *eng_cc_agginfo(eng_hdl_t *h, dtrace_aggvarid_t varid)
{
	struct eng_cc *cc = h != NULL ? h->eh_cc : NULL;
	struct eng_ident *id;
	eng_cc_agginfo_t *ai;
	int *ks, *sg, nk;

	if (cc == NULL || varid <= 0 || (size_t)varid > cc->cc_naggv)
		return NULL;
	id = cc->cc_aggv[varid - 1];
	if (id->i_info != NULL && id->i_info->eai_func == id->i_aggfunc)
		return id->i_info;
	nk = id->i_nkeys < 0 ? 0 : id->i_nkeys;
	ai = eng_arena_alloc(&cc->cc_arena, sizeof(*ai));
	ks = eng_arena_alloc(&cc->cc_arena, sizeof(int) * (size_t)(nk + 1));
	sg = eng_arena_alloc(&cc->cc_arena, sizeof(int) * (size_t)(nk + 1));
	if (ai == NULL || ks == NULL || sg == NULL)
		return NULL;
	for (int i = 0; i < nk; i++) {
		const struct eng_type *t = id->i_keys[i];

		ks[i] = t != NULL && t->t_kind == TY_STRING;
		sg[i] = t != NULL && eng_type_is_int(t) && t->t_signed;
	}
	ai->eai_name = id->i_name;
	ai->eai_varid = varid;
	ai->eai_func = id->i_aggfunc;
	ai->eai_arg = id->i_aggarg;
	ai->eai_nkeys = nk;
	ai->eai_keystring = ks;
	ai->eai_keysigned = sg;
	id->i_info = ai;
	return ai;
}

const char *eng_cc_aggname(eng_hdl_t *h, dtrace_aggvarid_t varid)
{
	struct eng_cc *cc = h != NULL ? h->eh_cc : NULL;

	if (cc == NULL || varid <= 0 || (size_t)varid > cc->cc_naggv)
		return NULL;
	return cc->cc_aggv[varid - 1]->i_name;
}
