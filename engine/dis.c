/*
 * dis.c - the DIF disassembler behind -S (eng_prog_dis): every DIF object
 * of a program as readable assembly in the spirit of dtrace -S, with the
 * opcode names of the spec, operands, the integer/string/variable tables
 * and the names of the variables referenced.
 */
#include <string.h>
#include "cc.h"

static const struct opinfo {
	const char *name;
	int fmt;
} ops[256] = {
#define DIS_OP(v, n, f, d) [v] = { #n, DIF_FMT_##f },
	DIF_OPCODES(DIS_OP)
#undef DIS_OP
};

static const char *const subrs[DIF_SUBR_MAX + 1] = {
#define DIS_SUBR(v, n) [v] = #n,
	DIF_SUBRS(DIS_SUBR)
#undef DIS_SUBR
};

static void lower(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < len; i++)
		buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' :
		    s[i]);
	buf[i] = '\0';
}

static const char *varname(const struct eng_difo *d, unsigned id)
{
	if (id < DIF_VAR_OTHER_UBASE)
		return eng_ident_builtin_name(id);
	for (uint32_t i = 0; i < d->dd_varlen; i++)
		if (d->dd_vartab[i].dtdv_id == id &&
		    d->dd_vartab[i].dtdv_name < d->dd_strlen)
			return d->dd_strtab + d->dd_vartab[i].dtdv_name;
	return NULL;
}

static void type_str(const dtrace_diftype_t *t, char *buf, size_t len)
{
	if (t->dtdt_kind == DIF_TYPE_STRING)
		snprintf(buf, len, "string (size %u)", t->dtdt_size);
	else if (t->dtdt_size == 0)
		snprintf(buf, len, "void");
	else
		snprintf(buf, len, "D type (%s) (size %u)", t->dtdt_ckind ==
		    CTF_K_POINTER ? "pointer" : t->dtdt_ckind == CTF_K_STRUCT ?
		    "struct" : t->dtdt_ckind == CTF_K_ARRAY ? "array" :
		    "integer", t->dtdt_size);
}

/* One instruction's operands into buf. */
static void operands(const struct eng_difo *d, dif_instr_t in, int fmt,
    char *buf, size_t len)
{
	unsigned r1 = DIF_INSTR_R1(in), r2 = DIF_INSTR_R2(in);
	unsigned rd = DIF_INSTR_RD(in), v = DIF_INSTR_VAR(in);
	const char *vn;

	switch (fmt) {
	case DIF_FMT_R1_R2_RD:
		snprintf(buf, len, "%%r%u, %%r%u, %%r%u", r1, r2, rd);
		break;
	case DIF_FMT_R1_RD: case DIF_FMT_R2_RD:
		snprintf(buf, len, "%%r%u, %%r%u", r1, rd);
		break;
	case DIF_FMT_R1_R2:
		snprintf(buf, len, "%%r%u, %%r%u", r1, r2);
		break;
	case DIF_FMT_R1:
		snprintf(buf, len, "%%r%u", r1);
		break;
	case DIF_FMT_LABEL:
		snprintf(buf, len, "%u", DIF_INSTR_LABEL(in));
		break;
	case DIF_FMT_RD:
		snprintf(buf, len, "%%r%u", rd);
		break;
	case DIF_FMT_INT_RD:
		snprintf(buf, len, "DT_INTEGER[%u], %%r%u\t! 0x%llx", v, rd,
		    v < d->dd_intlen ? (unsigned long long)d->dd_inttab[v] : 0ULL);
		break;
	case DIF_FMT_STR_RD:
		snprintf(buf, len, "DT_STRING[%u], %%r%u\t! \"%s\"", v, rd,
		    v < d->dd_strlen ? d->dd_strtab + v : "?");
		break;
	case DIF_FMT_VAR_RD: case DIF_FMT_RS_VAR:
		vn = varname(d, v);
		if (fmt == DIF_FMT_VAR_RD)
			snprintf(buf, len, "DT_VAR(%u), %%r%u%s%s", v, rd,
			    vn ? "\t! " : "", vn ? vn : "");
		else
			snprintf(buf, len, "%%r%u, DT_VAR(%u)%s%s", rd, v,
			    vn ? "\t! " : "", vn ? vn : "");
		break;
	case DIF_FMT_AVAR_R2_RD:
		vn = eng_ident_builtin_name(r1);
		snprintf(buf, len, "DT_VAR(%u), %%r%u, %%r%u%s%s", r1, r2, rd,
		    vn ? "\t! " : "", vn ? vn : "");
		break;
	case DIF_FMT_SUBR_RD:
		snprintf(buf, len, "DIF_SUBR(%u), %%r%u\t! %s", v, rd,
		    v <= DIF_SUBR_MAX && subrs[v] ? subrs[v] : "?");
		break;
	case DIF_FMT_TUPLE:
		snprintf(buf, len, "DT_TYPE(%u), %%r%u, %%r%u", r1, r2, rd);
		break;
	case DIF_FMT_R1_RD_ST:
		snprintf(buf, len, "%%r%u, [%%r%u]", r1, rd);
		break;
	default:
		buf[0] = '\0';
	}
}

/* Write one DIF object: header, instructions, variable table. */
void eng_dis_difo(const struct eng_difo *d, FILE *fp)
{
	char t[64], name[16], opnd[160];

	type_str(&d->dd_rtype, t, sizeof(t));
	fprintf(fp, "\nDIFO %s returns %s\n", d->dd_what ? d->dd_what : "",
	    t);
	fprintf(fp, "OFF OPCODE      INSTRUCTION\n");
	for (uint32_t i = 0; i < d->dd_len; i++) {
		dif_instr_t in = d->dd_buf[i];
		const struct opinfo *o = &ops[DIF_INSTR_OP(in)];

		lower(o->name ? o->name : "???", name, sizeof(name));
		operands(d, in, o->fmt, opnd, sizeof(opnd));
		fprintf(fp, "%02u: %08x    %-6s %s\n", i, in, name, opnd);
	}
	if (d->dd_intlen > 0) {
		fprintf(fp, "\nINTEGER TABLE\n");
		for (uint32_t i = 0; i < d->dd_intlen; i++)
			fprintf(fp, "%02u: 0x%llx\n", i,
			    (unsigned long long)d->dd_inttab[i]);
	}
	if (d->dd_strlen > 0) {
		fprintf(fp, "\nSTRING TABLE\n");
		for (uint32_t i = 0; i < d->dd_strlen;
		    i += (uint32_t)strlen(d->dd_strtab + i) + 1)
			fprintf(fp, "%02u: \"%s\"\n", i, d->dd_strtab + i);
	}
	if (d->dd_varlen == 0)
		return;
	fprintf(fp, "\nNAME             ID   KND SCP FLAG TYPE\n");
	for (uint32_t i = 0; i < d->dd_varlen; i++) {
		const dtrace_difv_t *v = &d->dd_vartab[i];
		static const char *const scp[] = { "glb", "tls", "loc" };

		type_str(&v->dtdv_type, t, sizeof(t));
		fprintf(fp, "%-16s %-4x %s %s %s%s %s\n",
		    v->dtdv_name < d->dd_strlen ? d->dd_strtab + v->dtdv_name :
		    "?", v->dtdv_id, v->dtdv_kind == DIFV_KIND_ARRAY ? "arr" :
		    "scl", scp[v->dtdv_scope < 3 ? v->dtdv_scope : 0],
		    (v->dtdv_flags & DIFV_F_REF) ? "r" : "",
		    (v->dtdv_flags & DIFV_F_MOD) ? "w" : "", t);
	}
}

static const char *actname(uint32_t k)
{
	switch (k) {
	case DTRACEACT_DIFEXPR: return "DIFEXPR";
	case DTRACEACT_EXIT: return "EXIT";
	case DTRACEACT_PRINTF: return "PRINTF";
	case DTRACEACT_PRINTA: return "PRINTA";
	case DTRACEACT_LIBACT: return "LIBACT";
	case DTRACEACT_TRACEMEM: return "TRACEMEM";
	case DTRACEACT_TRACEMEM_DYNSIZE: return "TRACEMEM_DYNSIZE";
	case DTRACEACT_USTACK: return "USTACK";
	case DTRACEACT_JSTACK: return "JSTACK";
	case DTRACEACT_USYM: return "USYM";
	case DTRACEACT_UMOD: return "UMOD";
	case DTRACEACT_UADDR: return "UADDR";
	case DTRACEACT_STOP: return "STOP";
	case DTRACEACT_RAISE: return "RAISE";
	case DTRACEACT_SYSTEM: return "SYSTEM";
	case DTRACEACT_FREOPEN: return "FREOPEN";
	case DTRACEACT_STACK: return "STACK";
	case DTRACEACT_SYM: return "SYM";
	case DTRACEACT_MOD: return "MOD";
	case DTRACEACT_BREAKPOINT: return "BREAKPOINT";
	case DTRACEACT_PANIC: return "PANIC";
	case DTRACEACT_CHILL: return "CHILL";
	case DTRACEACT_SPECULATE: return "SPECULATE";
	case DTRACEACT_COMMIT: return "COMMIT";
	case DTRACEACT_DISCARD: return "DISCARD";
	case DTRACEAGG_COUNT: return "COUNT";
	case DTRACEAGG_MIN: return "MIN";
	case DTRACEAGG_MAX: return "MAX";
	case DTRACEAGG_AVG: return "AVG";
	case DTRACEAGG_SUM: return "SUM";
	case DTRACEAGG_STDDEV: return "STDDEV";
	case DTRACEAGG_QUANTIZE: return "QUANTIZE";
	case DTRACEAGG_LQUANTIZE: return "LQUANTIZE";
	case DTRACEAGG_LLQUANTIZE: return "LLQUANTIZE";
	default: return "?";
	}
}

/* -S: every statement's predicate and actions. */
int eng_prog_dis(eng_hdl_t *h, const eng_prog_t *prog, FILE *fp)
{
	(void)h;
	if (prog == NULL || fp == NULL)
		return -1;
	for (const struct eng_stmt *s = prog->p_stmts; s; s = s->s_next) {
		fprintf(fp, "\n! statement %llu: %s:%s:%s:%s%s\n",
		    (unsigned long long)s->s_id, s->s_npd ?
		    s->s_pd[0].dtpd_provider : "", s->s_npd ? s->s_pd[0].dtpd_mod :
		    "", s->s_npd ? s->s_pd[0].dtpd_func : "", s->s_npd ?
		    s->s_pd[0].dtpd_name : "", s->s_npd > 1 ? " ..." : "");
		if (s->s_pred != NULL)
			eng_dis_difo(s->s_pred, fp);
		for (int i = 0; i < s->s_nacts; i++) {
			const struct eng_act *a = &s->s_acts[i];

			fprintf(fp, "\n! action %d: %s", i + 1, actname(a->a_kind));
			if (a->a_str != NULL)
				fprintf(fp, " \"%s\"", a->a_str);
			if (a->a_arg != 0)
				fprintf(fp, " arg=0x%llx",
				    (unsigned long long)a->a_arg);
			if (a->a_ntuple != 0)
				fprintf(fp, " ntuple=%u", a->a_ntuple);
			if (a->a_uarg != 0 && a->a_uarg != ENG_UARG_STRING)
				fprintf(fp, " uarg=%llu",
				    (unsigned long long)a->a_uarg);
			fputc('\n', fp);
			if (a->a_difo != NULL)
				eng_dis_difo(a->a_difo, fp);
		}
	}
	return ferror(fp) ? -1 : 0;
}
