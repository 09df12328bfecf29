/*
 * dofbuild.c - a small DOF image builder for tests (see dofbuild.h).
 *
 * Sections are kept as (header, owned data) pairs in order; the shared
 * string table grows as strings are added and is section 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dofbuild.h"

typedef struct sect {
	dof_sec_t hdr;
	char *data;
} sect_t;

struct dofb {
	sect_t *secs;
	uint32_t nsecs, cap;
	char *strs;			/* shared string table */
	uint32_t strlen, strcap;
	dof_optdesc_t opts[DTRACEOPT_MAX];
	uint32_t nopts;
};

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL) {
		fprintf(stderr, "dofbuild: out of memory\n");
		abort();
	}
	return q;
}

dofb_t *dofb_new(void)
{
	dofb_t *b = xrealloc(NULL, sizeof(*b));

	memset(b, 0, sizeof(*b));
	(void)dofb_sect(b, DOF_SECT_STRTAB, 1, 0, NULL, 0);
	(void)dofb_str(b, "");
	return b;
}

void dofb_free(dofb_t *b)
{
	uint32_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->nsecs; i++)
		free(b->secs[i].data);
	free(b->secs);
	free(b->strs);
	free(b);
}

uint32_t dofb_sect(dofb_t *b, uint32_t type, uint32_t align,
    uint32_t entsize, const void *data, uint64_t size)
{
	sect_t *s;

	if (b->nsecs == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->secs = xrealloc(b->secs, b->cap * sizeof(*b->secs));
	}
	s = &b->secs[b->nsecs];
	memset(s, 0, sizeof(*s));
	s->hdr.dofs_type = type;
	s->hdr.dofs_align = align;
	s->hdr.dofs_flags = DOF_SECF_LOAD;
	s->hdr.dofs_entsize = entsize;
	s->hdr.dofs_size = size;
	s->data = xrealloc(NULL, size);
	if (data != NULL && size != 0)
		memcpy(s->data, data, size);
	return b->nsecs++;
}

uint32_t dofb_str(dofb_t *b, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1, off, i;

	for (off = 0; off < b->strlen; off += (uint32_t)strlen(b->strs + off) + 1)
		if (strcmp(b->strs + off, s) == 0)
			return off;
	if (b->strlen + n > b->strcap) {
		b->strcap = (b->strlen + n) * 2;
		b->strs = xrealloc(b->strs, b->strcap);
	}
	off = b->strlen;
	for (i = 0; i < n; i++)
		b->strs[off + i] = s[i];
	b->strlen += n;
	return off;
}

uint32_t dofb_difo(dofb_t *b, const dif_instr_t *code, uint32_t n,
    const uint64_t *ints, uint32_t nints, const char *strs,
    uint32_t strslen, const dtrace_difv_t *vars, uint32_t nvars,
    dtrace_diftype_t rtype)
{
	uint32_t links[4], nl = 0;
	char buf[sizeof(dtrace_diftype_t) + sizeof(links)];

	links[nl++] = dofb_sect(b, DOF_SECT_DIF, 4, sizeof(dif_instr_t), code,
	    (uint64_t)n * sizeof(*code));
	if (nints != 0)
		links[nl++] = dofb_sect(b, DOF_SECT_INTTAB, 8, 8, ints,
		    (uint64_t)nints * 8);
	if (strslen != 0)
		links[nl++] = dofb_sect(b, DOF_SECT_STRTAB, 1, 0, strs, strslen);
	if (nvars != 0)
		links[nl++] = dofb_sect(b, DOF_SECT_VARTAB, 4,
		    sizeof(dtrace_difv_t), vars, (uint64_t)nvars * sizeof(*vars));
	memcpy(buf, &rtype, sizeof(rtype));
	memcpy(buf + sizeof(rtype), links, nl * sizeof(links[0]));
	return dofb_sect(b, DOF_SECT_DIFOHDR, 4, 0, buf,
	    sizeof(rtype) + nl * sizeof(links[0]));
}

static dtrace_diftype_t int_type(uint32_t size)
{
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, size };

	return t;
}

uint32_t dofb_difo_int(dofb_t *b, uint64_t value, uint32_t size)
{
	dif_instr_t code[] = { DIF_INSTR_SETX(0, 1), DIF_INSTR_RET(1) };

	return dofb_difo(b, code, 2, &value, 1, NULL, 0, NULL, 0,
	    int_type(size));
}

uint32_t dofb_difo_arg(dofb_t *b, unsigned n)
{
	dif_instr_t code[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0 + n, 1),
		DIF_INSTR_RET(1)
	};

	return dofb_difo(b, code, 2, NULL, 0, NULL, 0, NULL, 0, int_type(8));
}

uint32_t dofb_difo_str(dofb_t *b, const char *s)
{
	dif_instr_t code[] = { DIF_INSTR_SETS(0, 1), DIF_INSTR_RET(1) };
	dtrace_diftype_t t = { DIF_TYPE_STRING, 0, DIF_TF_BYREF, 0, 0 };

	t.dtdt_size = (uint32_t)strlen(s) + 1;
	return dofb_difo(b, code, 2, NULL, 0, s, (uint32_t)strlen(s) + 1,
	    NULL, 0, t);
}

uint32_t dofb_difo_argeq(dofb_t *b, unsigned n, uint64_t value)
{
	/* r1 = argN; r2 = value; cmp; be +2; r3 = 0; ret r3; r3 = 1 ... */
	dif_instr_t code[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0 + n, 1),
		DIF_INSTR_SETX(0, 2),
		DIF_INSTR_CMP(DIF_OP_CMP, 1, 2),
		DIF_INSTR_BRANCH(DIF_OP_BE, 5),
		DIF_INSTR_RET(0),
		DIF_INSTR_SETX(1, 3),
		DIF_INSTR_RET(3),
	};
	uint64_t ints[2] = { value, 1 };

	return dofb_difo(b, code, 7, ints, 2, NULL, 0, NULL, 0, int_type(4));
}

uint32_t dofb_probedesc(dofb_t *b, const char *prov, const char *mod,
    const char *func, const char *name)
{
	dof_probedesc_t p;

	memset(&p, 0, sizeof(p));
	p.dofp_strtab = DOFB_STRTAB;
	p.dofp_provider = dofb_str(b, prov);
	p.dofp_mod = dofb_str(b, mod);
	p.dofp_func = dofb_str(b, func);
	p.dofp_name = dofb_str(b, name);
	p.dofp_id = DTRACE_IDNONE;
	return dofb_sect(b, DOF_SECT_PROBEDESC, 4, 0, &p, sizeof(p));
}

dof_actdesc_t dofb_act(uint32_t kind, uint32_t difo, uint64_t arg)
{
	dof_actdesc_t a;

	memset(&a, 0, sizeof(a));
	a.dofa_kind = kind;
	a.dofa_difo = difo;
	a.dofa_strtab = DOF_SECIDX_NONE;
	a.dofa_arg = arg;
	return a;
}

uint32_t dofb_actions(dofb_t *b, const dof_actdesc_t *acts, uint32_t n)
{
	return dofb_sect(b, DOF_SECT_ACTDESC, 8, sizeof(dof_actdesc_t), acts,
	    (uint64_t)n * sizeof(*acts));
}

uint32_t dofb_ecb(dofb_t *b, uint32_t probes, uint32_t pred,
    uint32_t actions, uint64_t uarg)
{
	dof_ecbdesc_t e;

	memset(&e, 0, sizeof(e));
	e.dofe_probes = probes;
	e.dofe_pred = pred;
	e.dofe_actions = actions;
	e.dofe_uarg = uarg;
	return dofb_sect(b, DOF_SECT_ECBDESC, 8, 0, &e, sizeof(e));
}

void dofb_option(dofb_t *b, uint32_t opt, uint64_t value)
{
	dof_optdesc_t *o = &b->opts[b->nopts < DTRACEOPT_MAX ? b->nopts++ :
	    DTRACEOPT_MAX - 1];

	o->dofo_option = opt;
	o->dofo_strtab = DOF_SECIDX_NONE;
	o->dofo_value = value;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

void *dofb_finish(dofb_t *b, size_t *sizep)
{
	uint64_t off, total;
	dof_hdr_t *h;
	char *img;
	uint32_t i;

	if (b->nopts != 0) {
		(void)dofb_sect(b, DOF_SECT_OPTDESC, 8, sizeof(dof_optdesc_t),
		    b->opts, b->nopts * sizeof(dof_optdesc_t));
		b->nopts = 0;
	}
	free(b->secs[0].data);
	b->secs[0].data = xrealloc(NULL, b->strlen);
	memcpy(b->secs[0].data, b->strs, b->strlen);
	b->secs[0].hdr.dofs_size = b->strlen;
	off = sizeof(dof_hdr_t) + (uint64_t)b->nsecs * sizeof(dof_sec_t);
	for (i = 0; i < b->nsecs; i++) {
		off = align_up(off, b->secs[i].hdr.dofs_align);
		b->secs[i].hdr.dofs_offset = off;
		off += b->secs[i].hdr.dofs_size;
	}
	total = align_up(off, 8);
	img = xrealloc(NULL, total);
	memset(img, 0, total);
	h = (dof_hdr_t *)img;
	h->dofh_ident[DOF_ID_MAG0] = DOF_MAG_MAG0;
	h->dofh_ident[DOF_ID_MAG1] = DOF_MAG_MAG1;
	h->dofh_ident[DOF_ID_MAG2] = DOF_MAG_MAG2;
	h->dofh_ident[DOF_ID_MAG3] = DOF_MAG_MAG3;
	h->dofh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	h->dofh_ident[DOF_ID_ENCODING] = DOF_ENCODE_LSB;
	h->dofh_ident[DOF_ID_VERSION] = DOF_VERSION_2;
	h->dofh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
	h->dofh_ident[DOF_ID_DIFIREG] = DIF_DIR_NREGS;
	h->dofh_ident[DOF_ID_DIFTREG] = DIF_DTR_NREGS;
	h->dofh_hdrsize = sizeof(dof_hdr_t);
	h->dofh_secsize = sizeof(dof_sec_t);
	h->dofh_secnum = b->nsecs;
	h->dofh_secoff = sizeof(dof_hdr_t);
	h->dofh_loadsz = total;
	h->dofh_filesz = total;
	for (i = 0; i < b->nsecs; i++) {
		memcpy(img + sizeof(dof_hdr_t) + i * sizeof(dof_sec_t),
		    &b->secs[i].hdr, sizeof(dof_sec_t));
		memcpy(img + b->secs[i].hdr.dofs_offset, b->secs[i].data,
		    b->secs[i].hdr.dofs_size);
	}
	*sizep = total;
	return img;
}

dof_hdr_t *dofb_hdr(void *img)
{
	return img;
}

dof_sec_t *dofb_sechdr(void *img, uint32_t idx)
{
	return (dof_sec_t *)((char *)img + dofb_hdr(img)->dofh_secoff) + idx;
}

void *dofb_secdata(void *img, uint32_t idx)
{
	return (char *)img + dofb_sechdr(img, idx)->dofs_offset;
}
