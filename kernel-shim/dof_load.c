/*
 * dof_load.c - the DOF loader: validate a DOF image completely, then build
 * an enabling from it (spec ch. 6).
 *
 * Order of checks: header (magic, model, encoding, versions, register
 * counts, flags, sizes), then every section header (type, alignment,
 * bounds, overlap with the header and the section table, entry size),
 * then options, DIF objects (links, tables, ks_dif_verify), and ECB
 * descriptions with their probe descriptions and actions (kinds, links,
 * strings, destructive actions, aggregation tuples), and finally record
 * layout.  Every refusal names the section index, its type and the rule.
 * Nothing reaches a consumer state from here: the caller receives a
 * finished ks_enabling_t or NULL, and a refused image leaves no trace.
 *
 * The image is first copied into an 8-aligned buffer owned by the
 * enabling, so that structures inside it are read aligned and format
 * strings can point into it for the enabling's lifetime.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ks_impl.h"

typedef struct loader {
	const char *base;		/* aligned copy of the image */
	uint64_t loadsz;
	const dof_hdr_t *hdr;
	const dof_sec_t *secs;
	uint32_t nsecs;
	ks_enabling_t *en;
	char *err;
	size_t errlen;
} loader_t;

static const char *const sect_names[] = {
	"NONE", "COMMENTS", "SOURCE", "ECBDESC", "PROBEDESC", "ACTDESC",
	"DIFOHDR", "DIF", "STRTAB", "VARTAB", "RELTAB", "TYPTAB", "URELHDR",
	"KRELHDR", "OPTDESC", "PROVIDER", "PROBES", "PRARGS", "PROFFS",
	"INTTAB", "UTSNAME", "XLTAB", "XLMEMBERS", "XLIMPORT", "XLEXPORT",
	"PREXPORT", "PRENOFFS",
};

static const char *sect_name(uint32_t type)
{
	return type < sizeof(sect_names) / sizeof(sect_names[0]) ?
	    sect_names[type] : "unknown";
}

static int fail(loader_t *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(loader_t *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->err, l->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A refusal about section i: "DOF section i (TYPE): ...". */
static int sfail(loader_t *l, uint32_t i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int sfail(loader_t *l, uint32_t i, const char *fmt, ...)
{
	char msg[KS_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fail(l, "DOF section %u (%s): %s", i,
	    i < l->nsecs ? sect_name(l->secs[i].dofs_type) : "none", msg);
}

static const void *sec_data(const loader_t *l, uint32_t i)
{
	return l->base + l->secs[i].dofs_offset;
}

/* ---- header and section table ----------------------------------------- */

static int check_ident(loader_t *l, const dof_hdr_t *h)
{
	const uint8_t *id = h->dofh_ident;
	int i;

	if (id[DOF_ID_MAG0] != DOF_MAG_MAG0 || id[DOF_ID_MAG1] != DOF_MAG_MAG1 ||
	    id[DOF_ID_MAG2] != DOF_MAG_MAG2 || id[DOF_ID_MAG3] != DOF_MAG_MAG3)
		return fail(l, "DOF header: bad magic (not a DOF image)");
	if (id[DOF_ID_MODEL] != DOF_MODEL_LP64)
		return fail(l, "DOF header: data model %u is not LP64",
		    id[DOF_ID_MODEL]);
	if (id[DOF_ID_ENCODING] != DOF_ENCODE_LSB)
		return fail(l, "DOF header: encoding %u is not little-endian",
		    id[DOF_ID_ENCODING]);
	if (id[DOF_ID_VERSION] != DOF_VERSION_1 &&
	    id[DOF_ID_VERSION] != DOF_VERSION_2)
		return fail(l, "DOF header: unsupported DOF version %u",
		    id[DOF_ID_VERSION]);
	if (id[DOF_ID_DIFVERS] != DIF_VERSION_1 &&
	    id[DOF_ID_DIFVERS] != DIF_VERSION_2)
		return fail(l, "DOF header: unsupported DIF version %u",
		    id[DOF_ID_DIFVERS]);
	if (id[DOF_ID_DIFIREG] > DIF_DIR_NREGS)
		return fail(l, "DOF header: %u integer registers exceed %u",
		    id[DOF_ID_DIFIREG], DIF_DIR_NREGS);
	if (id[DOF_ID_DIFTREG] > DIF_DTR_NREGS)
		return fail(l, "DOF header: %u tuple registers exceed %u",
		    id[DOF_ID_DIFTREG], DIF_DTR_NREGS);
	for (i = DOF_ID_PAD; i < DOF_ID_SIZE; i++)
		if (id[i] != 0)
			return fail(l, "DOF header: ident byte %d must be 0", i);
	return 0;
}

static int check_header(loader_t *l, uint64_t size)
{
	const dof_hdr_t *h = l->hdr;
	uint64_t tab;

	if (size < sizeof(dof_hdr_t))
		return fail(l, "DOF header: image of %llu bytes is truncated",
		    (unsigned long long)size);
	if (check_ident(l, h) != 0)
		return -1;
	if (h->dofh_flags != 0)
		return fail(l, "DOF header: unknown flags 0x%x", h->dofh_flags);
	if (h->dofh_hdrsize != sizeof(dof_hdr_t))
		return fail(l, "DOF header: header size %u, expected %zu",
		    h->dofh_hdrsize, sizeof(dof_hdr_t));
	if (h->dofh_secsize != sizeof(dof_sec_t))
		return fail(l, "DOF header: section header size %u, expected "
		    "%zu", h->dofh_secsize, sizeof(dof_sec_t));
	if (h->dofh_filesz > size || h->dofh_loadsz > h->dofh_filesz)
		return fail(l, "DOF header: load size %llu / file size %llu "
		    "exceed the %llu bytes given",
		    (unsigned long long)h->dofh_loadsz,
		    (unsigned long long)h->dofh_filesz,
		    (unsigned long long)size);
	tab = (uint64_t)h->dofh_secnum * sizeof(dof_sec_t);
	if (h->dofh_secoff < sizeof(dof_hdr_t) || (h->dofh_secoff & 7) != 0 ||
	    h->dofh_secoff > h->dofh_loadsz ||
	    tab > h->dofh_loadsz - h->dofh_secoff)
		return fail(l, "DOF header: section headers at %llu (%u of "
		    "them) lie outside the loadable part or are misaligned",
		    (unsigned long long)h->dofh_secoff, h->dofh_secnum);
	l->loadsz = h->dofh_loadsz;
	l->secs = (const dof_sec_t *)(l->base + h->dofh_secoff);
	l->nsecs = h->dofh_secnum;
	return 0;
}

/* Entry size and alignment the loader needs per loadable type; entsize
 * (unsigned)-1 means "0 or the structure size" (a single structure). */
static int sect_shape(uint32_t type, uint32_t *entsize, uint32_t *align,
    uint32_t *minsize)
{
	switch (type) {
	case DOF_SECT_ECBDESC:
		*entsize = (uint32_t)-1; *align = 8;
		*minsize = sizeof(dof_ecbdesc_t); return 1;
	case DOF_SECT_PROBEDESC:
		*entsize = (uint32_t)-1; *align = 4;
		*minsize = sizeof(dof_probedesc_t); return 1;
	case DOF_SECT_ACTDESC:
		*entsize = sizeof(dof_actdesc_t); *align = 8;
		*minsize = 0; return 1;
	case DOF_SECT_DIFOHDR:
		*entsize = (uint32_t)-1; *align = 4;
		*minsize = sizeof(dof_difohdr_t); return 1;
	case DOF_SECT_DIF:
		*entsize = sizeof(dif_instr_t); *align = 4;
		*minsize = sizeof(dif_instr_t); return 1;
	case DOF_SECT_STRTAB:
		*entsize = 0; *align = 1; *minsize = 1; return 1;
	case DOF_SECT_INTTAB:
		*entsize = sizeof(uint64_t); *align = 8;
		*minsize = 0; return 1;
	case DOF_SECT_VARTAB:
		*entsize = sizeof(dtrace_difv_t); *align = 4;
		*minsize = 0; return 1;
	case DOF_SECT_TYPTAB:
		*entsize = sizeof(dtrace_diftype_t); *align = 4;
		*minsize = 0; return 1;
	case DOF_SECT_OPTDESC:
		*entsize = sizeof(dof_optdesc_t); *align = 8;
		*minsize = 0; return 1;
	default:
		return 0;
	}
}

static int check_shape(loader_t *l, uint32_t i)
{
	const dof_sec_t *s = &l->secs[i];
	uint32_t ent, align, min;
	uint32_t single = (uint32_t)-1;

	if (!sect_shape(s->dofs_type, &ent, &align, &min))
		return 0;
	if (s->dofs_align < align)
		return sfail(l, i, "alignment %u is below the %u its entries "
		    "need", s->dofs_align, align);
	if (ent == single) {
		if (s->dofs_entsize != 0 && s->dofs_entsize != min)
			return sfail(l, i, "entry size %u, expected %u",
			    s->dofs_entsize, min);
	} else if (s->dofs_entsize != ent) {
		return sfail(l, i, "entry size %u, expected %u",
		    s->dofs_entsize, ent);
	} else if (ent != 0 && s->dofs_size % ent != 0) {
		return sfail(l, i, "size %llu is not a multiple of the entry "
		    "size %u", (unsigned long long)s->dofs_size, ent);
	}
	if (s->dofs_size < min)
		return sfail(l, i, "size %llu is below the minimum %u",
		    (unsigned long long)s->dofs_size, min);
	if (s->dofs_type == DOF_SECT_STRTAB &&
	    l->base[s->dofs_offset + s->dofs_size - 1] != '\0')
		return sfail(l, i, "string table does not end with NUL");
	return 0;
}

static int check_section(loader_t *l, uint32_t i)
{
	const dof_sec_t *s = &l->secs[i];
	const dof_hdr_t *h = l->hdr;
	uint64_t end, tab_end;

	if (!(s->dofs_flags & DOF_SECF_LOAD)) {
		if (s->dofs_offset > h->dofh_filesz ||
		    s->dofs_size > h->dofh_filesz - s->dofs_offset)
			return sfail(l, i, "data lies outside the %llu bytes "
			    "of the file", (unsigned long long)h->dofh_filesz);
		return 0;
	}
	if (s->dofs_align == 0 || (s->dofs_align & (s->dofs_align - 1)) != 0)
		return sfail(l, i, "alignment %u is not a power of two",
		    s->dofs_align);
	if ((s->dofs_offset & (s->dofs_align - 1)) != 0)
		return sfail(l, i, "offset %llu is not aligned to %u",
		    (unsigned long long)s->dofs_offset, s->dofs_align);
	if (s->dofs_offset > l->loadsz ||
	    s->dofs_size > l->loadsz - s->dofs_offset)
		return sfail(l, i, "data [%llu, +%llu) lies outside the %llu "
		    "loadable bytes", (unsigned long long)s->dofs_offset,
		    (unsigned long long)s->dofs_size,
		    (unsigned long long)l->loadsz);
	end = s->dofs_offset + s->dofs_size;
	tab_end = h->dofh_secoff + (uint64_t)h->dofh_secnum * sizeof(*s);
	if (s->dofs_size != 0 && (s->dofs_offset < sizeof(dof_hdr_t) ||
	    (s->dofs_offset < tab_end && end > h->dofh_secoff)))
		return sfail(l, i, "data overlaps the DOF header or the "
		    "section headers");
	return check_shape(l, i);
}

static int check_sections(loader_t *l)
{
	uint32_t i;

	for (i = 0; i < l->nsecs; i++)
		if (check_section(l, i) != 0)
			return -1;
	return 0;
}

/* Section idx must exist, be loadable and of type (used for links). */
static int check_link(loader_t *l, uint32_t from, const char *what,
    uint32_t idx, uint32_t type)
{
	if (idx >= l->nsecs)
		return sfail(l, from, "%s link %u is out of range (%u sections)",
		    what, idx, l->nsecs);
	if (l->secs[idx].dofs_type != type)
		return sfail(l, from, "%s link %u is a %s section, expected %s",
		    what, idx, sect_name(l->secs[idx].dofs_type),
		    sect_name(type));
	if (!(l->secs[idx].dofs_flags & DOF_SECF_LOAD))
		return sfail(l, from, "%s link %u is not loadable", what, idx);
	return 0;
}

/* A string of the STRTAB section st at offset off, or NULL (refused). */
static const char *strtab_get(loader_t *l, uint32_t from, uint32_t st,
    uint32_t off, size_t maxlen, const char *what)
{
	const char *s;

	if (check_link(l, from, what, st, DOF_SECT_STRTAB) != 0)
		return NULL;
	if (off >= l->secs[st].dofs_size) {
		sfail(l, from, "%s: string offset %u is past the end of "
		    "string table %u", what, off, st);
		return NULL;
	}
	s = (const char *)sec_data(l, st) + off;
	if (strlen(s) >= maxlen) {
		sfail(l, from, "%s: string \"%.32s...\" is longer than %zu",
		    what, s, maxlen - 1);
		return NULL;
	}
	return s;
}

/* ---- options ----------------------------------------------------------- */

/* Upper bounds that keep one state's memory sane. */
static dtrace_optval_t opt_max(uint32_t opt)
{
	switch (opt) {
	case DTRACEOPT_BUFSIZE:
	case DTRACEOPT_AGGSIZE:
	case DTRACEOPT_DYNVARSIZE:	return (dtrace_optval_t)1 << 30;
	case DTRACEOPT_SPECSIZE:
	case DTRACEOPT_SCRATCHSIZE:	return (dtrace_optval_t)64 << 20;
	case DTRACEOPT_NSPEC:		return 4096;
	case DTRACEOPT_STRSIZE:		return 65536;
	case DTRACEOPT_STACKFRAMES:
	case DTRACEOPT_USTACKFRAMES:	return 1024;
	case DTRACEOPT_BUFPOLICY:	return DTRACEOPT_BUFPOLICY_SWITCH;
	default:			return INT64_MAX;
	}
}

static int opt_min(uint32_t opt)
{
	switch (opt) {
	case DTRACEOPT_BUFSIZE:
	case DTRACEOPT_AGGSIZE:
	case DTRACEOPT_DYNVARSIZE:
	case DTRACEOPT_SPECSIZE:
	case DTRACEOPT_SCRATCHSIZE:
	case DTRACEOPT_STRSIZE:		return 1;
	case DTRACEOPT_CPU:		return -1;
	default:			return 0;
	}
}

static int load_options(loader_t *l, uint32_t i)
{
	const dof_optdesc_t *o = sec_data(l, i);
	uint64_t n = l->secs[i].dofs_size / sizeof(*o), k;

	for (k = 0; k < n; k++, o++) {
		dtrace_optval_t v = (dtrace_optval_t)o->dofo_value;

		if (o->dofo_option >= DTRACEOPT_MAX)
			return sfail(l, i, "option %u is unknown",
			    o->dofo_option);
		if (o->dofo_strtab != DOF_SECIDX_NONE)
			return sfail(l, i, "option %u: string values are not "
			    "supported", o->dofo_option);
		if (v == DTRACEOPT_UNSET)
			continue;
		if (v < opt_min(o->dofo_option) ||
		    v > opt_max(o->dofo_option))
			return sfail(l, i, "option %u: value %lld out of range",
			    o->dofo_option, (long long)v);
		l->en->en_opts[o->dofo_option] = v;
	}
	return 0;
}

/* ---- DIF objects ------------------------------------------------------- */

/* Copy a table section into a fresh allocation (NULL, 0 for none). */
static void *copy_table(loader_t *l, uint32_t idx, uint32_t *count,
    size_t entsize)
{
	const dof_sec_t *s = &l->secs[idx];
	void *p = ks_malloc(s->dofs_size ? s->dofs_size : 1);

	if (p != NULL)
		memcpy(p, sec_data(l, idx), s->dofs_size);
	*count = (uint32_t)(s->dofs_size / entsize);
	return p;
}

/* Which member of ks_difo_t a link fills; -1 for TYPTAB (ignored). */
static int link_slot(uint32_t type)
{
	switch (type) {
	case DOF_SECT_DIF:	return 0;
	case DOF_SECT_INTTAB:	return 1;
	case DOF_SECT_STRTAB:	return 2;
	case DOF_SECT_VARTAB:	return 3;
	case DOF_SECT_TYPTAB:	return -1;
	default:		return -2;
	}
}

static int difo_tables(loader_t *l, uint32_t i, ks_difo_t *dp,
    const uint32_t *links)
{
	if (links[0] == DOF_SECIDX_NONE)
		return sfail(l, i, "DIF object has no DIF section");
	dp->dtdo_buf = copy_table(l, links[0], &dp->dtdo_len,
	    sizeof(dif_instr_t));
	if (links[1] != DOF_SECIDX_NONE)
		dp->dtdo_inttab = copy_table(l, links[1], &dp->dtdo_intlen, 8);
	if (links[2] != DOF_SECIDX_NONE)
		dp->dtdo_strtab = copy_table(l, links[2], &dp->dtdo_strlen, 1);
	if (links[3] != DOF_SECIDX_NONE)
		dp->dtdo_vartab = copy_table(l, links[3], &dp->dtdo_varlen,
		    sizeof(dtrace_difv_t));
	if (dp->dtdo_buf == NULL ||
	    (links[1] != DOF_SECIDX_NONE && dp->dtdo_inttab == NULL) ||
	    (links[2] != DOF_SECIDX_NONE && dp->dtdo_strtab == NULL) ||
	    (links[3] != DOF_SECIDX_NONE && dp->dtdo_vartab == NULL))
		return sfail(l, i, "out of memory");
	return 0;
}

static int check_varnames(loader_t *l, uint32_t i, const ks_difo_t *dp)
{
	uint32_t k;

	for (k = 0; k < dp->dtdo_varlen; k++) {
		uint32_t name = dp->dtdo_vartab[k].dtdv_name;

		if (dp->dtdo_strtab == NULL ? name != 0 && name !=
		    DOF_STRIDX_NONE : name >= dp->dtdo_strlen)
			return sfail(l, i, "variable %u: name offset %u is past "
			    "the string table", k, name);
	}
	return 0;
}

/* Sort the links of DIFOHDR section i into DIF, INTTAB, STRTAB, VARTAB. */
static int difo_links(loader_t *l, uint32_t i, uint32_t links[4])
{
	const dof_sec_t *s = &l->secs[i];
	const dof_difohdr_t *h = sec_data(l, i);
	uint32_t n = (uint32_t)((s->dofs_size - sizeof(h->dofd_rtype)) /
	    sizeof(dof_secidx_t)), k;

	for (k = 0; k < 4; k++)
		links[k] = DOF_SECIDX_NONE;
	for (k = 0; k < n; k++) {
		uint32_t x = h->dofd_links[k];
		int slot;

		if (x >= l->nsecs)
			return sfail(l, i, "link %u is out of range", x);
		slot = link_slot(l->secs[x].dofs_type);
		if (slot == -2 || !(l->secs[x].dofs_flags & DOF_SECF_LOAD))
			return sfail(l, i, "link %u is a %s section", x,
			    sect_name(l->secs[x].dofs_type));
		if (slot >= 0 && links[slot] != DOF_SECIDX_NONE)
			return sfail(l, i, "more than one %s section",
			    sect_name(l->secs[x].dofs_type));
		if (slot >= 0)
			links[slot] = x;
	}
	return 0;
}

/* Build and verify the DIF object of DIFOHDR section i. */
static ks_difo_t *load_difo(loader_t *l, uint32_t i)
{
	const dof_difohdr_t *h = sec_data(l, i);
	uint32_t links[4];
	char verr[KS_ERRLEN];
	ks_difo_t *dp;

	if (difo_links(l, i, links) != 0)
		return NULL;
	if ((dp = ks_calloc(1, sizeof(*dp))) == NULL) {
		sfail(l, i, "out of memory");
		return NULL;
	}
	dp->dtdo_rtype = h->dofd_rtype;
	if (difo_tables(l, i, dp, links) != 0 || check_varnames(l, i, dp)) {
		ks_difo_free(dp);
		return NULL;
	}
	if (ks_dif_verify(dp, verr, sizeof(verr)) != 0) {
		sfail(l, i, "DIF object refused: %s", verr);
		ks_difo_free(dp);
		return NULL;
	}
	return dp;
}

/* The DIF object of DIFOHDR section idx (loaded once), NULL if refused. */
static ks_difo_t *difo_get(loader_t *l, uint32_t from, const char *what,
    uint32_t idx)
{
	if (check_link(l, from, what, idx, DOF_SECT_DIFOHDR) != 0)
		return NULL;
	if (l->en->en_difos[idx] == NULL)
		l->en->en_difos[idx] = load_difo(l, idx);
	return l->en->en_difos[idx];
}

/* ---- actions, clauses, ECB descriptions --------------------------------- */

static int kind_known(uint32_t k)
{
	switch (k) {
	case DTRACEACT_DIFEXPR: case DTRACEACT_EXIT: case DTRACEACT_PRINTF:
	case DTRACEACT_PRINTA: case DTRACEACT_LIBACT:
	case DTRACEACT_TRACEMEM: case DTRACEACT_TRACEMEM_DYNSIZE:
	case DTRACEACT_USTACK: case DTRACEACT_JSTACK: case DTRACEACT_USYM:
	case DTRACEACT_UMOD: case DTRACEACT_UADDR: case DTRACEACT_STOP:
	case DTRACEACT_RAISE: case DTRACEACT_SYSTEM: case DTRACEACT_FREOPEN:
	case DTRACEACT_STACK: case DTRACEACT_SYM: case DTRACEACT_MOD:
	case DTRACEACT_BREAKPOINT: case DTRACEACT_PANIC: case DTRACEACT_CHILL:
	case DTRACEACT_SPECULATE: case DTRACEACT_COMMIT:
	case DTRACEACT_DISCARD:
		return 1;
	default:
		return k > DTRACEACT_AGGREGATION && k <= DTRACEAGG_LLQUANTIZE;
	}
}

static int needs_difo(uint32_t k)
{
	switch (k) {
	case DTRACEACT_DIFEXPR: case DTRACEACT_EXIT: case DTRACEACT_TRACEMEM:
	case DTRACEACT_TRACEMEM_DYNSIZE: case DTRACEACT_USYM:
	case DTRACEACT_UMOD: case DTRACEACT_UADDR: case DTRACEACT_RAISE:
	case DTRACEACT_SYM: case DTRACEACT_MOD: case DTRACEACT_CHILL:
	case DTRACEACT_SPECULATE: case DTRACEACT_COMMIT:
	case DTRACEACT_DISCARD:
		return 1;
	default:
		return DTRACEACT_ISAGG(k) && k != DTRACEAGG_COUNT;
	}
}

/* Kinds that may be aggregation keys (their record is the key). */
static int key_kind(uint32_t k)
{
	switch (k) {
	case DTRACEACT_DIFEXPR: case DTRACEACT_STACK: case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK: case DTRACEACT_SYM: case DTRACEACT_MOD:
	case DTRACEACT_USYM: case DTRACEACT_UMOD: case DTRACEACT_UADDR:
		return 1;
	default:
		return 0;
	}
}

/* Claim the ntuple actions before aggregation k as its keys/increment. */
static int claim_tuple(loader_t *l, uint32_t sec, ks_act_t *acts, uint32_t k,
    uint32_t ntuple)
{
	uint32_t kind = acts[k].ka_kind, j;
	int quant = kind == DTRACEAGG_QUANTIZE || kind == DTRACEAGG_LQUANTIZE ||
	    kind == DTRACEAGG_LLQUANTIZE;

	if (ntuple > k || (quant && ntuple == 0))
		return sfail(l, sec, "action %u: ntuple %u is inconsistent "
		    "with the %u actions before it", k + 1, ntuple, k);
	for (j = k - ntuple; j < k; j++) {
		if (acts[j].ka_role != KS_ROLE_RECORD ||
		    !key_kind(acts[j].ka_kind) || acts[j].ka_fmt != NULL)
			return sfail(l, sec, "action %u: ntuple %u is "
			    "inconsistent with action %u before it", k + 1,
			    ntuple, j + 1);
		acts[j].ka_role = KS_ROLE_KEY;
	}
	if (quant) {
		if (acts[k - 1].ka_kind != DTRACEACT_DIFEXPR)
			return sfail(l, sec, "action %u: the increment must "
			    "be a DIF expression", k + 1);
		acts[k - 1].ka_role = KS_ROLE_INCR;
	}
	acts[k].ka_role = KS_ROLE_AGG;
	return 0;
}

/* One action description into a (kind, DIFO, format, destructive). */
static int load_action(loader_t *l, uint32_t sec, uint32_t k,
    const dof_actdesc_t *d, ks_act_t *a)
{
	a->ka_kind = (dtrace_actkind_t)d->dofa_kind;
	a->ka_arg = d->dofa_arg;
	a->ka_uarg = d->dofa_uarg;
	a->ka_ntuple = d->dofa_ntuple;
	a->ka_role = KS_ROLE_RECORD;
	if (!kind_known(d->dofa_kind))
		return sfail(l, sec, "action %u: unknown action kind 0x%x",
		    k + 1, d->dofa_kind);
	if (d->dofa_difo != DOF_SECIDX_NONE &&
	    (a->ka_difo = difo_get(l, sec, "DIF object", d->dofa_difo)) == NULL)
		return -1;
	if (a->ka_difo == NULL && needs_difo(d->dofa_kind))
		return sfail(l, sec, "action %u: kind 0x%x needs a DIF object",
		    k + 1, d->dofa_kind);
	if (DTRACEACT_ISPRINTFLIKE(d->dofa_kind)) {
		if (d->dofa_arg == DOF_STRIDX_NONE &&
		    d->dofa_kind == DTRACEACT_PRINTA)
			return 0;
		if (d->dofa_arg > UINT32_MAX)
			return sfail(l, sec, "action %u: format offset %llu is "
			    "out of range", k + 1,
			    (unsigned long long)d->dofa_arg);
		a->ka_fmt = strtab_get(l, sec, d->dofa_strtab,
		    (uint32_t)d->dofa_arg, 65536, "format");
		return a->ka_fmt != NULL ? 0 : -1;
	}
	if (DTRACEACT_ISAGG(d->dofa_kind) &&
	    ks_agg_check(a->ka_kind, a->ka_arg, l->err, l->errlen) != 0) {
		char why[KS_ERRLEN];

		snprintf(why, sizeof(why), "%s", l->err);
		return sfail(l, sec, "action %u: %s", k + 1, why);
	}
	return 0;
}

/* Does d call a destructive subroutine (copyout, copyoutstr)?  dtrace's
 * dtrace_difo_validate marks such a DIFO destructive. */
static int difo_destructive(const ks_difo_t *d)
{
	for (uint32_t i = 0; d != NULL && i < d->dtdo_len; i++) {
		dif_instr_t in = d->dtdo_buf[i];

		if (DIF_INSTR_OP(in) == DIF_OP_CALL &&
		    (DIF_INSTR_SUBR(in) == DIF_SUBR_copyout ||
		    DIF_INSTR_SUBR(in) == DIF_SUBR_copyoutstr))
			return 1;
	}
	return 0;
}

static int load_actions(loader_t *l, uint32_t sec, ks_clause_t *c)
{
	const dof_actdesc_t *d = sec_data(l, sec);
	uint32_t n = (uint32_t)(l->secs[sec].dofs_size / sizeof(*d)), k;

	c->kc_acts = ks_calloc(n ? n : 1, sizeof(*c->kc_acts));
	if (c->kc_acts == NULL)
		return sfail(l, sec, "out of memory");
	c->kc_nacts = (int)n;
	for (k = 0; k < n; k++) {
		ks_act_t *a = &c->kc_acts[k];

		if (load_action(l, sec, k, &d[k], a) != 0)
			return -1;
		if (DTRACEACT_ISAGG(a->ka_kind)) {
			if (claim_tuple(l, sec, c->kc_acts, k,
			    d[k].dofa_ntuple) != 0)
				return -1;
		} else if (d[k].dofa_ntuple != 0) {
			return sfail(l, sec, "action %u: ntuple %u on an action "
			    "that does not aggregate", k + 1, d[k].dofa_ntuple);
		}
		if (DTRACEACT_ISDESTRUCTIVE(a->ka_kind) ||
		    difo_destructive(a->ka_difo))
			c->kc_destructive = 1;
		if (a->ka_difo != NULL && ks_dif_nlocals(a->ka_difo) >
		    c->kc_nlocals)
			c->kc_nlocals = ks_dif_nlocals(a->ka_difo);
	}
	return 0;
}

static uint64_t strsize_of(const loader_t *l, dtrace_optval_t fixed)
{
	if (l->en->en_opts[DTRACEOPT_STRSIZE] != DTRACEOPT_UNSET)
		return (uint64_t)l->en->en_opts[DTRACEOPT_STRSIZE];
	return fixed > 0 ? (uint64_t)fixed : 256;
}

/* The clause of (pred, actions, uarg), built on first use. */
static ks_clause_t *clause_get(loader_t *l, uint32_t sec,
    const dof_ecbdesc_t *e, dtrace_optval_t fixed)
{
	ks_enabling_t *en = l->en;
	ks_clause_t *c;
	char why[KS_ERRLEN];
	int i;

	for (i = 0; i < en->en_nclauses; i++) {
		c = en->en_clauses[i];
		if (c->kc_predsec == e->dofe_pred &&
		    c->kc_actsec == e->dofe_actions &&
		    c->kc_uarg == e->dofe_uarg)
			return c;
	}
	if ((c = ks_calloc(1, sizeof(*c))) == NULL) {
		sfail(l, sec, "out of memory");
		return NULL;
	}
	en->en_clauses[en->en_nclauses++] = c;
	c->kc_predsec = e->dofe_pred;
	c->kc_actsec = e->dofe_actions;
	c->kc_uarg = e->dofe_uarg;
	if (e->dofe_pred != DOF_SECIDX_NONE) {
		c->kc_pred = difo_get(l, sec, "predicate", e->dofe_pred);
		if (c->kc_pred == NULL)
			return NULL;
		c->kc_nlocals = ks_dif_nlocals(c->kc_pred);
		c->kc_destructive = difo_destructive(c->kc_pred);
	}
	if (e->dofe_actions != DOF_SECIDX_NONE &&
	    (check_link(l, sec, "actions", e->dofe_actions,
	    DOF_SECT_ACTDESC) != 0 || load_actions(l, e->dofe_actions, c)))
		return NULL;
	if (ks_clause_layout(c, strsize_of(l, fixed), why, sizeof(why))) {
		sfail(l, e->dofe_actions, "%s", why);
		return NULL;
	}
	return c;
}

/* A probe description's four globs into out. */
static int load_probedesc(loader_t *l, uint32_t sec, uint32_t idx,
    dtrace_probedesc_t *out)
{
	const dof_probedesc_t *p;
	const char *s[4];
	uint32_t offs[4];
	size_t max[4] = { DTRACE_PROVNAMELEN, DTRACE_MODNAMELEN,
	    DTRACE_FUNCNAMELEN, DTRACE_NAMELEN };
	char *dst[4] = { out->dtpd_provider, out->dtpd_mod, out->dtpd_func,
	    out->dtpd_name };
	int i;

	if (check_link(l, sec, "probes", idx, DOF_SECT_PROBEDESC) != 0)
		return -1;
	p = sec_data(l, idx);
	offs[0] = p->dofp_provider;
	offs[1] = p->dofp_mod;
	offs[2] = p->dofp_func;
	offs[3] = p->dofp_name;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < 4; i++) {
		s[i] = strtab_get(l, idx, p->dofp_strtab, offs[i], max[i],
		    "probe description");
		if (s[i] == NULL)
			return -1;
		memcpy(dst[i], s[i], strlen(s[i]) + 1);
	}
	out->dtpd_id = p->dofp_id;
	return 0;
}

static int load_ecbdescs(loader_t *l, dtrace_optval_t fixed)
{
	ks_enabling_t *en = l->en;
	uint32_t i, n = 0;

	for (i = 0; i < l->nsecs; i++)
		n += l->secs[i].dofs_type == DOF_SECT_ECBDESC &&
		    (l->secs[i].dofs_flags & DOF_SECF_LOAD);
	en->en_descs = ks_calloc(n + 1, sizeof(*en->en_descs));
	en->en_clauses = ks_calloc(n + 1, sizeof(*en->en_clauses));
	if (en->en_descs == NULL || en->en_clauses == NULL)
		return fail(l, "out of memory");
	for (i = 0; i < l->nsecs; i++) {
		const dof_ecbdesc_t *e;
		ks_ecbdesc_t *d = &en->en_descs[en->en_ndescs];

		if (l->secs[i].dofs_type != DOF_SECT_ECBDESC ||
		    !(l->secs[i].dofs_flags & DOF_SECF_LOAD))
			continue;
		e = sec_data(l, i);
		if (load_probedesc(l, i, e->dofe_probes, &d->ked_desc) != 0)
			return -1;
		if ((d->ked_clause = clause_get(l, i, e, fixed)) == NULL)
			return -1;
		en->en_ndescs++;
	}
	return 0;
}

ks_enabling_t *ks_dof_load(const void *dof, uint64_t size,
    dtrace_optval_t strsize_fixed, char *err, size_t errlen)
{
	ks_enabling_t *en = ks_calloc(1, sizeof(*en));
	loader_t l = { .err = err, .errlen = errlen, .en = en };
	uint32_t i;

	if (en == NULL || dof == NULL || size > ((uint64_t)1 << 32) ||
	    (en->en_image = ks_malloc(size + 8)) == NULL) {
		snprintf(err, errlen, dof == NULL ? "no DOF image" :
		    "DOF image of %llu bytes: out of memory",
		    (unsigned long long)size);
		ks_enabling_free(en);
		return NULL;
	}
	memcpy(en->en_image, dof, size);
	for (i = 0; i < DTRACEOPT_MAX; i++)
		en->en_opts[i] = DTRACEOPT_UNSET;
	l.base = en->en_image;
	l.hdr = (const dof_hdr_t *)l.base;
	if (check_header(&l, size) != 0 || check_sections(&l) != 0)
		goto fail;
	if ((en->en_difos = ks_calloc(l.nsecs + 1,
	    sizeof(*en->en_difos))) == NULL) {
		fail(&l, "DOF image: out of memory");
		goto fail;
	}
	en->en_nsecs = l.nsecs;
	for (i = 0; i < l.nsecs; i++)
		if (l.secs[i].dofs_type == DOF_SECT_OPTDESC &&
		    (l.secs[i].dofs_flags & DOF_SECF_LOAD) &&
		    load_options(&l, i) != 0)
			goto fail;
	if (load_ecbdescs(&l, strsize_fixed) != 0)
		goto fail;
	return en;
fail:
	ks_enabling_free(en);
	return NULL;
}

/* Does any clause of en take a destructive action? */
int ks_enabling_destructive(const ks_enabling_t *en)
{
	for (int i = 0; i < en->en_nclauses; i++)
		if (en->en_clauses[i] != NULL && en->en_clauses[i]->kc_destructive)
			return 1;
	return 0;
}

void ks_enabling_free(ks_enabling_t *en)
{
	uint32_t i;
	int k;

	if (en == NULL)
		return;
	for (i = 0; i < en->en_nsecs; i++)
		ks_difo_free(en->en_difos[i]);
	for (k = 0; k < en->en_nclauses; k++)
		ks_clause_free(en->en_clauses[k]);
	free(en->en_difos);
	free(en->en_clauses);
	free(en->en_descs);
	free(en->en_image);
	free(en);
}
