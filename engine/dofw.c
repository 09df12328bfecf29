/*
 * dofw.c - the DOF writer: a compiled program -> one DOF image (spec
 * ch. 6), laid out as the clause protocol of dtrace_abi.h says.
 *
 * Sections are collected in a list (struct sect) and laid out after the
 * header and section headers, each at its alignment.  Per DIF object:
 * DIF, INTTAB, STRTAB, VARTAB (those not empty) and a DIFOHDR linking
 * them.  Per statement: one ACTDESC section (if it has actions); per
 * (statement, description): one PROBEDESC and one ECBDESC sharing the
 * statement's predicate and actions.  One program-wide STRTAB holds
 * probe names and format strings; one OPTDESC carries the options the
 * shim needs.  The image is malloc'd and owned by the program.  After
 * writing, the statement and aggregation descriptions the consumer reads
 * (eng_cc_stmtinfo, eng_cc_agginfo) are registered on the handle.
 */
#include <stdlib.h>
#include <string.h>
#include "cc.h"

struct sect {
	uint32_t type, align, entsize;
	const void *data;
	size_t size;
};

#define STRHASH	1024

struct dofw {
	struct eng_pcb *pc;
	struct sect *s;
	uint32_t n, cap;
	char *str;			/* program string table */
	uint32_t slen, scap;
	uint32_t strsec;
	uint32_t shash[STRHASH];	/* offset + 1 of a string, 0 = empty */
};

static uint32_t add(struct dofw *w, uint32_t type, uint32_t align,
    uint32_t entsize, const void *data, size_t size)
{
	if (w->n == w->cap) {
		uint32_t nc = w->cap ? w->cap * 2 : 64;
		struct sect *ns = eng_cc_alloc(w->pc, sizeof(*ns) * nc);

		if (w->s != NULL)
			memcpy(ns, w->s, sizeof(*ns) * w->n);
		w->s = ns;
		w->cap = nc;
	}
	w->s[w->n] = (struct sect){ type, align, entsize, data, size };
	return w->n++;
}

/* Offset of s in the program string table, added once. */
static uint32_t str(struct dofw *w, const char *s)
{
	size_t n = strlen(s) + 1;
	unsigned h = 5381;

	for (const char *c = s; *c != '\0'; c++)
		h = h * 33 + (unsigned char)*c;
	h %= STRHASH;
	if (w->shash[h] != 0 && strcmp(w->str + w->shash[h] - 1, s) == 0)
		return w->shash[h] - 1;
	w->shash[h] = w->slen + 1;

	if (w->slen + n > w->scap) {
		uint32_t nc = w->scap ? w->scap * 2 : 1024;
		char *ns;

		while (nc < w->slen + n)
			nc *= 2;
		ns = eng_cc_alloc(w->pc, nc);
		if (w->str != NULL)
			memcpy(ns, w->str, w->slen);
		w->str = ns;
		w->scap = nc;
	}
	memcpy(w->str + w->slen, s, n);
	w->slen += (uint32_t)n;
	return w->slen - (uint32_t)n;
}

/* The sections of one DIF object; returns its DIFOHDR index. */
static dof_secidx_t difo(struct dofw *w, const struct eng_difo *d)
{
	dof_secidx_t links[4];
	int n = 0;
	size_t sz;
	dof_difohdr_t *h;

	links[n++] = add(w, DOF_SECT_DIF, 4, sizeof(dif_instr_t), d->dd_buf,
	    d->dd_len * sizeof(dif_instr_t));
	if (d->dd_intlen > 0)
		links[n++] = add(w, DOF_SECT_INTTAB, 8, sizeof(uint64_t),
		    d->dd_inttab, d->dd_intlen * sizeof(uint64_t));
	if (d->dd_strlen > 0)
		links[n++] = add(w, DOF_SECT_STRTAB, 1, 0, d->dd_strtab,
		    d->dd_strlen);
	if (d->dd_varlen > 0)
		links[n++] = add(w, DOF_SECT_VARTAB, 4, sizeof(dtrace_difv_t),
		    d->dd_vartab, d->dd_varlen * sizeof(dtrace_difv_t));
	sz = sizeof(dof_difohdr_t) + (size_t)(n - 1) * sizeof(dof_secidx_t);
	h = eng_cc_alloc(w->pc, sz);
	h->dofd_rtype = d->dd_rtype;
	memcpy(h->dofd_links, links, (size_t)n * sizeof(dof_secidx_t));
	return add(w, DOF_SECT_DIFOHDR, 4, 0, h, sz);
}

static dof_secidx_t actions(struct dofw *w, const struct eng_stmt *s)
{
	dof_actdesc_t *ad;

	if (s->s_nacts == 0)
		return DOF_SECIDX_NONE;
	ad = eng_cc_alloc(w->pc, sizeof(*ad) * (size_t)s->s_nacts);
	for (int i = 0; i < s->s_nacts; i++) {
		const struct eng_act *a = &s->s_acts[i];

		ad[i].dofa_difo = a->a_difo != NULL ? difo(w, a->a_difo) :
		    DOF_SECIDX_NONE;
		ad[i].dofa_strtab = DOF_SECIDX_NONE;
		ad[i].dofa_kind = a->a_kind;
		ad[i].dofa_ntuple = a->a_ntuple;
		ad[i].dofa_arg = a->a_arg;
		ad[i].dofa_uarg = a->a_uarg;
		if (DTRACEACT_ISPRINTFLIKE(a->a_kind)) {
			ad[i].dofa_strtab = w->strsec;
			ad[i].dofa_arg = a->a_str != NULL ? str(w, a->a_str) :
			    DOF_STRIDX_NONE;
		}
	}
	return add(w, DOF_SECT_ACTDESC, 8, sizeof(dof_actdesc_t), ad,
	    sizeof(*ad) * (size_t)s->s_nacts);
}

static void ecbs(struct dofw *w, const struct eng_stmt *s)
{
	dof_secidx_t pred = s->s_pred != NULL ? difo(w, s->s_pred) :
	    DOF_SECIDX_NONE;
	dof_secidx_t acts = actions(w, s);

	for (int i = 0; i < s->s_npd; i++) {
		dof_probedesc_t *pd = eng_cc_alloc(w->pc, sizeof(*pd));
		dof_ecbdesc_t *e = eng_cc_alloc(w->pc, sizeof(*e));

		pd->dofp_strtab = w->strsec;
		pd->dofp_provider = str(w, s->s_pd[i].dtpd_provider);
		pd->dofp_mod = str(w, s->s_pd[i].dtpd_mod);
		pd->dofp_func = str(w, s->s_pd[i].dtpd_func);
		pd->dofp_name = str(w, s->s_pd[i].dtpd_name);
		pd->dofp_id = DTRACE_IDNONE;
		e->dofe_probes = add(w, DOF_SECT_PROBEDESC, 4,
		    sizeof(dof_probedesc_t), pd, sizeof(*pd));
		e->dofe_pred = pred;
		e->dofe_actions = acts;
		e->dofe_uarg = s->s_id;
		add(w, DOF_SECT_ECBDESC, 8, 0, e, sizeof(*e));
	}
}

static void options(struct dofw *w)
{
	static const int opts[] = { DTRACEOPT_BUFSIZE, DTRACEOPT_BUFPOLICY,
	    DTRACEOPT_AGGSIZE, DTRACEOPT_DYNVARSIZE, DTRACEOPT_SPECSIZE,
	    DTRACEOPT_NSPEC, DTRACEOPT_STRSIZE, DTRACEOPT_CLEANRATE,
	    DTRACEOPT_CPU, DTRACEOPT_DESTRUCTIVE, DTRACEOPT_STACKFRAMES,
	    DTRACEOPT_USTACKFRAMES, DTRACEOPT_BUFRESIZE,
	    DTRACEOPT_SCRATCHSIZE };
	const dtrace_optval_t *ov = w->pc->pc_hdl->eh_opt;
	dof_optdesc_t *o = eng_cc_alloc(w->pc, sizeof(*o) *
	    (sizeof(opts) / sizeof(opts[0])));
	int n = 0;

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (ov[opts[i]] == DTRACEOPT_UNSET)
			continue;
		o[n].dofo_option = (uint32_t)opts[i];
		o[n].dofo_strtab = DOF_SECIDX_NONE;
		o[n].dofo_value = (uint64_t)ov[opts[i]];
		n++;
	}
	if (n > 0)
		add(w, DOF_SECT_OPTDESC, 8, sizeof(dof_optdesc_t), o,
		    sizeof(*o) * (size_t)n);
}

static void *layout(struct dofw *w, size_t *sizep)
{
	size_t off = sizeof(dof_hdr_t) + w->n * sizeof(dof_sec_t);
	dof_sec_t *sh;
	dof_hdr_t *h;
	char *img;

	for (uint32_t i = 0; i < w->n; i++)
		off = (off + w->s[i].align - 1) / w->s[i].align * w->s[i].align +
		    w->s[i].size;
	off = (off + 7) & ~(size_t)7;
	img = calloc(1, off);
	if (img == NULL)
		return NULL;
	h = (dof_hdr_t *)(void *)img;
	h->dofh_ident[DOF_ID_MAG0] = DOF_MAG_MAG0;
	h->dofh_ident[DOF_ID_MAG1] = DOF_MAG_MAG1;
	h->dofh_ident[DOF_ID_MAG2] = DOF_MAG_MAG2;
	h->dofh_ident[DOF_ID_MAG3] = DOF_MAG_MAG3;
	h->dofh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	h->dofh_ident[DOF_ID_ENCODING] = DOF_ENCODE_LSB;
	h->dofh_ident[DOF_ID_VERSION] = DOF_VERSION;
	h->dofh_ident[DOF_ID_DIFVERS] = DIF_VERSION;
	h->dofh_ident[DOF_ID_DIFIREG] = DIF_DIR_NREGS;
	h->dofh_ident[DOF_ID_DIFTREG] = DIF_DTR_NREGS;
	h->dofh_hdrsize = sizeof(dof_hdr_t);
	h->dofh_secsize = sizeof(dof_sec_t);
	h->dofh_secnum = w->n;
	h->dofh_secoff = sizeof(dof_hdr_t);
	h->dofh_loadsz = h->dofh_filesz = off;
	sh = (dof_sec_t *)(void *)(img + sizeof(dof_hdr_t));
	off = sizeof(dof_hdr_t) + w->n * sizeof(dof_sec_t);
	for (uint32_t i = 0; i < w->n; i++) {
		off = (off + w->s[i].align - 1) / w->s[i].align * w->s[i].align;
		sh[i].dofs_type = w->s[i].type;
		sh[i].dofs_align = w->s[i].align;
		sh[i].dofs_flags = DOF_SECF_LOAD;
		sh[i].dofs_entsize = w->s[i].entsize;
		sh[i].dofs_offset = off;
		sh[i].dofs_size = w->s[i].size;
		if (w->s[i].size > 0)
			memcpy(img + off, w->s[i].data, w->s[i].size);
		off += w->s[i].size;
	}
	*sizep = h->dofh_filesz;
	return img;
}

/* Record what the consumer needs to know about s and its aggregations. */
static void register_stmt(struct eng_pcb *pc, const struct eng_stmt *s)
{
	struct eng_cc *cc = pc->pc_cc;
	eng_cc_stmtinfo_t *si;

	if (s->s_id == DT_ECB_ERROR)
		return;
	if (cc->cc_nstmts < s->s_id) {
		if (s->s_id > cc->cc_capstmts) {
			size_t nc = cc->cc_capstmts ? cc->cc_capstmts * 2 : 64;
			eng_cc_stmtinfo_t **nv;

			while (nc < s->s_id)
				nc *= 2;
			nv = realloc(cc->cc_stmts, nc * sizeof(*nv));
			if (nv == NULL)
				eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
			memset(nv + cc->cc_capstmts, 0, (nc - cc->cc_capstmts) *
			    sizeof(*nv));
			cc->cc_stmts = nv;
			cc->cc_capstmts = nc;
		}
		cc->cc_nstmts = s->s_id;
	}
	si = eng_arena_alloc(&cc->cc_arena, sizeof(*si));
	si->esi_acts = eng_arena_alloc(&cc->cc_arena, sizeof(*si->esi_acts) *
	    (size_t)(s->s_nacts + 1));
	if (si == NULL || si->esi_acts == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	si->esi_id = s->s_id;
	si->esi_piece = s->s_piece;
	si->esi_pred = NULL;
	if (s->s_predsrc != NULL) {
		size_t n = strlen(s->s_predsrc);
		char *t = eng_arena_alloc(&cc->cc_arena, n + 1);

		if (t != NULL)
			memcpy(t, s->s_predsrc, n);
		si->esi_pred = t;
	}
	si->esi_nacts = s->s_nacts;
	for (int i = 0; i < s->s_nacts; i++) {
		const struct eng_act *a = &s->s_acts[i];
		eng_cc_actinfo_t *ai = &si->esi_acts[i];

		ai->eca_kind = a->a_kind;
		if (a->a_difo != NULL) {
			ai->eca_string = a->a_difo->dd_rtype.dtdt_kind ==
			    DIF_TYPE_STRING;
			ai->eca_size = a->a_difo->dd_rtype.dtdt_size;
			ai->eca_signed = a->a_difo->dd_signed;
		}
		if (a->a_str != NULL) {
			size_t n = strlen(a->a_str);
			char *f = eng_arena_alloc(&cc->cc_arena, n + 1);

			if (f != NULL)
				memcpy(f, a->a_str, n);
			ai->eca_fmt = f;
		}
	}
	cc->cc_stmts[s->s_id - 1] = si;
}

/* Write the program's DOF image (p->p_dof, malloc'd). */
int eng_dof_write(struct eng_pcb *pc, struct eng_prog *p)
{
	struct dofw w;

	memset(&w, 0, sizeof(w));
	w.pc = pc;
	str(&w, "");
	w.strsec = add(&w, DOF_SECT_STRTAB, 1, 0, NULL, 0);
	for (struct eng_stmt *s = p->p_stmts; s != NULL; s = s->s_next)
		ecbs(&w, s);
	options(&w);
	w.s[w.strsec].data = w.str;
	w.s[w.strsec].size = w.slen;
	free(p->p_dof);
	p->p_dof = layout(&w, &p->p_dofsize);
	if (p->p_dof == NULL)
		return -1;
	for (struct eng_stmt *s = p->p_stmts; s != NULL; s = s->s_next)
		register_stmt(pc, s);
	return 0;
}
