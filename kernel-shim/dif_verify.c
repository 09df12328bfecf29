/*
 * dif_verify.c - the DIF verifier: every load-time constraint of spec
 * ch. 8, checked once when a DIF object is loaded.
 *
 * What it proves, so the emulator (dif_emul.c) need not re-check:
 *   - every opcode is one the emulator implements (XLATE, XLARG, LDTA and
 *     unknown values are refused);
 *   - every register field names one of the 8 registers, unused register
 *     fields are zero, and nothing writes %r0 (so %r0 stays 0);
 *   - branches go strictly forward to an instruction inside the object,
 *     and the last instruction is RET (so every run ends, at a RET);
 *   - SETX/SETS indices are inside the integer/string tables and the
 *     string table ends with a NUL (so SETS gives a terminated string);
 *   - variable ids are known built-ins, or user ids present in the vartab
 *     with the scope and kind the opcode needs;
 *   - subroutine ids are known and available on Linux;
 *   - tuple pushes carry a valid type.
 * Messages name the instruction index and the rule, e.g.
 * "DIF instruction 5: branch to 3 goes backward".
 */
#include <stdarg.h>
#include <stdio.h>
#include "dif_impl.h"

/* Operand format of each opcode plus 1 (0: no such opcode). */
static const unsigned char opfmt1[256] = {
#define F(v, n, f, d) [v] = DIF_FMT_##f + 1,
	DIF_OPCODES(F)
#undef F
};

static const char *const opname[256] = {
#define N(v, n, f, d) [v] = #n,
	DIF_OPCODES(N)
#undef N
};

static const char *const subrname[DIF_SUBR_MAX + 1] = {
#define S(v, n) [v] = #n,
	DIF_SUBRS(S)
#undef S
};

typedef struct vctx {
	const ks_difo_t *dp;
	uint32_t pc;
	char *err;
	size_t errlen;
} vctx_t;

static int refuse(vctx_t *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Format "DIF instruction N: <rule>" into the caller's buffer; -1. */
static int refuse(vctx_t *v, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (v->errlen == 0)
		return -1;
	if (v->pc != UINT32_MAX)
		n = snprintf(v->err, v->errlen, "DIF instruction %u: ", v->pc);
	else
		n = snprintf(v->err, v->errlen, "DIF object: ");
	if (n < 0 || (size_t)n >= v->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(v->err + n, v->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int reg_ok(vctx_t *v, const char *field, unsigned r)
{
	if (r >= DIF_DIR_NREGS)
		return refuse(v, "%s register %%r%u does not exist (%u registers)",
		    field, r, DIF_DIR_NREGS);
	return 0;
}

static int zero_ok(vctx_t *v, const char *field, unsigned r)
{
	if (r != 0)
		return refuse(v, "%s field must be 0 (reserved), not %u",
		    field, r);
	return 0;
}

static int dest_ok(vctx_t *v, unsigned rd)
{
	if (reg_ok(v, "destination", rd) != 0)
		return -1;
	if (rd == DIF_REG_R0)
		return refuse(v, "%s writes %%r0, which is always 0",
		    opname[DIF_INSTR_OP(v->dp->dtdo_buf[v->pc])]);
	return 0;
}

/* Is id one of the built-in scalar variables of ch. 9? */
static int builtin_scalar(uint32_t id)
{
	return (id >= DIF_VAR_CURTHREAD && id <= DIF_VAR_ERRNO) ||
	    id == DIF_VAR_CPU || id == DIF_VAR_PSARGS || id == DIF_VAR_ARGC;
}

static int builtin_array(uint32_t id)
{
	return id == DIF_VAR_ARGS || id == DIF_VAR_REGS || id == DIF_VAR_UREGS;
}

static const char *scope_name(unsigned scope)
{
	switch (scope) {
	case DIFV_SCOPE_GLOBAL: return "global";
	case DIFV_SCOPE_THREAD: return "thread-local";
	case DIFV_SCOPE_LOCAL: return "clause-local";
	default: return "unknown-scope";
	}
}

static const dtrace_difv_t *vartab_find(const ks_difo_t *dp, uint32_t id,
    unsigned scope)
{
	for (uint32_t i = 0; i < dp->dtdo_varlen; i++) {
		const dtrace_difv_t *dv = &dp->dtdo_vartab[i];

		if (dv->dtdv_id == id && dv->dtdv_scope == scope)
			return dv;
	}
	return NULL;
}

/* A user variable used by the opcode at pc: declared with scope/kind. */
static int uservar_ok(vctx_t *v, uint32_t id, unsigned scope, unsigned kind)
{
	const dtrace_difv_t *dv;

	if (id < DIF_VAR_OTHER_UBASE)
		return refuse(v, "%s variable id %#x is not a user variable "
		    "(ids start at %#x)", scope_name(scope), id,
		    DIF_VAR_OTHER_UBASE);
	dv = vartab_find(v->dp, id, scope);
	if (dv == NULL)
		return refuse(v, "%s variable %#x is not in the variable table",
		    scope_name(scope), id);
	if (dv->dtdv_kind != kind)
		return refuse(v, "%s variable %#x is declared as %s, used as %s",
		    scope_name(scope), id,
		    dv->dtdv_kind == DIFV_KIND_ARRAY ? "an array" : "a scalar",
		    kind == DIFV_KIND_ARRAY ? "an array" : "a scalar");
	return 0;
}

/* The variable field of VAR_RD and RS_VAR opcodes. */
static int var_ok(vctx_t *v, unsigned op, uint32_t id)
{
	switch (op) {
	case DIF_OP_LDGS:
		if (id < DIF_VAR_OTHER_UBASE) {
			if (!builtin_scalar(id))
				return refuse(v, "unknown built-in variable "
				    "%#x", id);
			return 0;
		}
		return uservar_ok(v, id, DIFV_SCOPE_GLOBAL, DIFV_KIND_SCALAR);
	case DIF_OP_STGS:
		return uservar_ok(v, id, DIFV_SCOPE_GLOBAL, DIFV_KIND_SCALAR);
	case DIF_OP_LDTS: case DIF_OP_STTS:
		return uservar_ok(v, id, DIFV_SCOPE_THREAD, DIFV_KIND_SCALAR);
	case DIF_OP_LDLS: case DIF_OP_STLS:
		return uservar_ok(v, id, DIFV_SCOPE_LOCAL, DIFV_KIND_SCALAR);
	case DIF_OP_LDGAA: case DIF_OP_STGAA:
		return uservar_ok(v, id, DIFV_SCOPE_GLOBAL, DIFV_KIND_ARRAY);
	case DIF_OP_LDTAA: case DIF_OP_STTAA:
		return uservar_ok(v, id, DIFV_SCOPE_THREAD, DIFV_KIND_ARRAY);
	default:
		return refuse(v, "opcode %#x has no variable operand", op);
	}
}

static int subr_ok(vctx_t *v, uint32_t subr)
{
	if (subr > DIF_SUBR_MAX || subrname[subr] == NULL)
		return refuse(v, "unknown subroutine %u", subr);
	switch (subr) {
	case DIF_SUBR_mutex_owned: case DIF_SUBR_mutex_owner:
	case DIF_SUBR_mutex_type_adaptive: case DIF_SUBR_mutex_type_spin:
	case DIF_SUBR_rw_read_held: case DIF_SUBR_rw_write_held:
	case DIF_SUBR_rw_iswriter: case DIF_SUBR_sx_shared_held:
	case DIF_SUBR_sx_exclusive_held: case DIF_SUBR_sx_isexclusive:
	case DIF_SUBR_msgsize: case DIF_SUBR_msgdsize:
	case DIF_SUBR_ddi_pathname: case DIF_SUBR_getf:
		return refuse(v, "subroutine %s is not available on Linux",
		    subrname[subr]);
	default:
		return 0;
	}
}

static int branch_ok(vctx_t *v, uint32_t label)
{
	if (label <= v->pc)
		return refuse(v, "branch to %u goes backward", label);
	if (label >= v->dp->dtdo_len)
		return refuse(v, "branch to %u is past the last instruction "
		    "(%u)", label, v->dp->dtdo_len - 1);
	return 0;
}

/* Check one instruction against its operand format. */
static int instr_ok(vctx_t *v, dif_instr_t in)
{
	unsigned op = DIF_INSTR_OP(in), r1 = DIF_INSTR_R1(in);
	unsigned r2 = DIF_INSTR_R2(in), rd = DIF_INSTR_RD(in);
	const ks_difo_t *dp = v->dp;

	if (opfmt1[op] == 0)
		return refuse(v, "invalid opcode %#x", op);
	switch (opfmt1[op] - 1) {
	case DIF_FMT_R1_R2_RD:
		return (reg_ok(v, "r1", r1) || reg_ok(v, "r2", r2) ||
		    dest_ok(v, rd)) ? -1 : 0;
	case DIF_FMT_R1_RD:
		return (reg_ok(v, "r1", r1) || zero_ok(v, "r2", r2) ||
		    dest_ok(v, rd)) ? -1 : 0;
	case DIF_FMT_R1_R2:
		return (reg_ok(v, "r1", r1) || reg_ok(v, "r2", r2) ||
		    zero_ok(v, "rd", rd)) ? -1 : 0;
	case DIF_FMT_R1:
		return (reg_ok(v, "r1", r1) || zero_ok(v, "r2", r2) ||
		    zero_ok(v, "rd", rd)) ? -1 : 0;
	case DIF_FMT_LABEL:
		return branch_ok(v, DIF_INSTR_LABEL(in));
	case DIF_FMT_RD:
		return (zero_ok(v, "r1", r1) || zero_ok(v, "r2", r2) ||
		    reg_ok(v, "return", rd)) ? -1 : 0;
	case DIF_FMT_NONE:
		return 0;
	case DIF_FMT_INT_RD:
		if (DIF_INSTR_INTEGER(in) >= dp->dtdo_intlen)
			return refuse(v, "integer table index %u out of range "
			    "(%u entries)", DIF_INSTR_INTEGER(in),
			    dp->dtdo_intlen);
		return dest_ok(v, rd);
	case DIF_FMT_STR_RD:
		if (DIF_INSTR_STRING(in) >= dp->dtdo_strlen)
			return refuse(v, "string table offset %u out of range "
			    "(%u bytes)", DIF_INSTR_STRING(in),
			    dp->dtdo_strlen);
		return dest_ok(v, rd);
	case DIF_FMT_VAR_RD:
		return (var_ok(v, op, DIF_INSTR_VAR(in)) || dest_ok(v, rd)) ?
		    -1 : 0;
	case DIF_FMT_RS_VAR:
		return (var_ok(v, op, DIF_INSTR_VAR(in)) ||
		    reg_ok(v, "source", rd)) ? -1 : 0;
	case DIF_FMT_AVAR_R2_RD:
		if (op == DIF_OP_LDTA)
			return refuse(v, "LDTA (thread-local built-in arrays) "
			    "is not implemented");
		if (!builtin_array(r1))
			return refuse(v, "unknown built-in array variable %#x",
			    r1);
		return (reg_ok(v, "index", r2) || dest_ok(v, rd)) ? -1 : 0;
	case DIF_FMT_SUBR_RD:
		return (subr_ok(v, DIF_INSTR_SUBR(in)) || dest_ok(v, rd)) ?
		    -1 : 0;
	case DIF_FMT_TUPLE:
		if (r1 != DIF_TYPE_CTF && r1 != DIF_TYPE_STRING)
			return refuse(v, "invalid tuple type %u", r1);
		if (op == DIF_OP_PUSHTV && r1 != DIF_TYPE_CTF)
			return refuse(v, "PUSHTV of a string (strings are "
			    "pushed by reference)");
		return (reg_ok(v, "size", r2) || reg_ok(v, "value", rd)) ?
		    -1 : 0;
	case DIF_FMT_R1_RD_ST:
		return (reg_ok(v, "value", r1) || zero_ok(v, "r2", r2) ||
		    reg_ok(v, "address", rd)) ? -1 : 0;
	case DIF_FMT_XLATE:
		return refuse(v, "%s is not supported (translators are "
		    "applied by the compiler)", opname[op]);
	default:
		return refuse(v, "opcode %#x has no operand format", op);
	}
}

static int type_ok(vctx_t *v, const dtrace_diftype_t *t, const char *what)
{
	if (t->dtdt_kind != DIF_TYPE_CTF && t->dtdt_kind != DIF_TYPE_STRING)
		return refuse(v, "%s has invalid type kind %u", what,
		    t->dtdt_kind);
	if (t->dtdt_flags & ~(DIF_TF_BYREF | DIF_TF_BYUREF))
		return refuse(v, "%s has unknown type flags %#x", what,
		    t->dtdt_flags);
	return 0;
}

/* The tables themselves: vartab entries, strtab termination. */
static int tables_ok(vctx_t *v)
{
	const ks_difo_t *dp = v->dp;

	if (dp->dtdo_strlen > 0 && dp->dtdo_strtab[dp->dtdo_strlen - 1] != 0)
		return refuse(v, "string table does not end with a NUL");
	if (type_ok(v, &dp->dtdo_rtype, "return value") != 0)
		return -1;
	for (uint32_t i = 0; i < dp->dtdo_varlen; i++) {
		const dtrace_difv_t *dv = &dp->dtdo_vartab[i];
		char what[48];

		snprintf(what, sizeof (what), "variable table entry %u", i);
		if (dv->dtdv_id < DIF_VAR_OTHER_UBASE)
			return refuse(v, "%s: id %#x is below %#x", what,
			    dv->dtdv_id, DIF_VAR_OTHER_UBASE);
		if (dv->dtdv_id > DIF_VAR_OTHER_MAX)
			return refuse(v, "%s: id %#x is above %#x", what,
			    dv->dtdv_id, DIF_VAR_OTHER_MAX);
		if (dv->dtdv_kind > DIFV_KIND_SCALAR)
			return refuse(v, "%s: invalid kind %u", what,
			    dv->dtdv_kind);
		if (dv->dtdv_scope > DIFV_SCOPE_LOCAL)
			return refuse(v, "%s: invalid scope %u", what,
			    dv->dtdv_scope);
		if (dv->dtdv_scope == DIFV_SCOPE_LOCAL &&
		    dv->dtdv_kind == DIFV_KIND_ARRAY)
			return refuse(v, "%s: clause-local arrays do not exist",
			    what);
		if (vartab_find(dp, dv->dtdv_id, dv->dtdv_scope) != dv)
			return refuse(v, "%s: %s variable %#x appears twice",
			    what, scope_name(dv->dtdv_scope), dv->dtdv_id);
		if (type_ok(v, &dv->dtdv_type, what) != 0)
			return -1;
	}
	return 0;
}

int ks_dif_verify(const ks_difo_t *dp, char *err, size_t errlen)
{
	vctx_t v = { dp, UINT32_MAX, err, errlen };

	if (errlen > 0)
		err[0] = '\0';
	if (dp == NULL || dp->dtdo_buf == NULL || dp->dtdo_len == 0)
		return refuse(&v, "no instructions");
	if (dp->dtdo_len > DIF_LABEL_MAX)
		return refuse(&v, "%u instructions is more than %u",
		    dp->dtdo_len, DIF_LABEL_MAX);
	if ((dp->dtdo_intlen && !dp->dtdo_inttab) ||
	    (dp->dtdo_strlen && !dp->dtdo_strtab) ||
	    (dp->dtdo_varlen && !dp->dtdo_vartab))
		return refuse(&v, "a table has a length but no data");
	if (tables_ok(&v) != 0)
		return -1;
	for (v.pc = 0; v.pc < dp->dtdo_len; v.pc++) {
		if (instr_ok(&v, dp->dtdo_buf[v.pc]) != 0)
			return -1;
	}
	v.pc = dp->dtdo_len - 1;
	if (DIF_INSTR_OP(dp->dtdo_buf[v.pc]) != DIF_OP_RET)
		return refuse(&v, "the last instruction must be RET, not %s",
		    opname[DIF_INSTR_OP(dp->dtdo_buf[v.pc])]);
	return 0;
}

uint32_t ks_dif_nlocals(const ks_difo_t *dp)
{
	uint32_t n = 0;

	for (uint32_t i = 0; dp != NULL && i < dp->dtdo_varlen; i++) {
		const dtrace_difv_t *dv = &dp->dtdo_vartab[i];

		if (dv->dtdv_scope == DIFV_SCOPE_LOCAL &&
		    dv->dtdv_id >= DIF_VAR_OTHER_UBASE &&
		    dv->dtdv_id - DIF_VAR_OTHER_UBASE + 1 > n)
			n = dv->dtdv_id - DIF_VAR_OTHER_UBASE + 1;
	}
	return n;
}
