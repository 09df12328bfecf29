/*
 * fuzz_dif_verify.c - libFuzzer target for the DIF verifier and emulator.
 *
 * Input layout (little-endian, every part optional; short inputs are
 * padded with zeros):
 *   byte 0   number of instructions - 1 (mod 64)
 *   byte 1   integer table entries (mod 8)
 *   byte 2   string table bytes (mod 64)
 *   byte 3   variable table entries (mod 6); bit 7: "tame" mode, which
 *            folds opcodes and registers into valid ranges and ends with
 *            RET so that more objects reach the emulator
 *   then     instructions (4 bytes each), integers (8 bytes each),
 *            strings, variable entries (8 bytes each: id low byte, kind,
 *            scope, type kind, type flags, size, 2 spare)
 * Every object goes through ks_dif_verify(); an accepted one is declared
 * in a fresh variable store and run under both dispatch styles with a
 * harmless mstate (no live process, copyout not allowed, a small
 * captured user range).  Nothing may crash or trip ASan/UBSan, every
 * refusal must name its place, and objects that compute only from
 * constants must give the same outcome under both dispatch styles.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dif.h"

#define MAXI	64

typedef struct input {
	const uint8_t *p;
	size_t n, i;
} input_t;

static uint8_t byte(input_t *in)
{
	return in->i < in->n ? in->p[in->i++] : 0;
}

static uint32_t word(input_t *in)
{
	uint32_t v = 0;

	for (int k = 0; k < 4; k++)
		v |= (uint32_t)byte(in) << (8 * k);
	return v;
}

/* Fold an instruction into valid opcode/register/index ranges. */
static dif_instr_t tame(dif_instr_t in, uint32_t pc, uint32_t len)
{
	uint32_t op = DIF_INSTR_OP(in) % 0x4e + 1;
	uint32_t idx = (in >> 8) & 0xffff, rd = in & 7;

	if (op >= DIF_OP_BA && op <= DIF_OP_BLEU)
		return DIF_INSTR_BRANCH(op, pc + 1 + DIF_INSTR_LABEL(in) %
		    (len - pc > 1 ? len - pc - 1 : 1));
	if (op == DIF_OP_SETX || op == DIF_OP_SETS)
		idx %= 64;
	else if (op == DIF_OP_CALL)
		idx %= DIF_SUBR_MAX + 1;
	else if ((op >= DIF_OP_LDGS && op <= DIF_OP_STTS) ||
	    (op >= DIF_OP_LDGAA && op <= DIF_OP_STLS))
		idx = (idx & 0x8000) ? DIF_VAR_OTHER_UBASE + idx % 8 :
		    DIF_VAR_CURTHREAD + idx % 0x21;
	else
		return (op << 24) | (in & 0x070707);
	return (op << 24) | (idx << 8) | rd;
}

static void fill_vars(input_t *in, dtrace_difv_t *v, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		v[k].dtdv_id = DIF_VAR_OTHER_UBASE + byte(in) % 8;
		v[k].dtdv_kind = byte(in) % 3;
		v[k].dtdv_scope = byte(in) % 4;
		v[k].dtdv_type.dtdt_kind = byte(in) % 3;
		v[k].dtdv_type.dtdt_flags = byte(in) % 4;
		v[k].dtdv_type.dtdt_size = byte(in);
		byte(in);
		byte(in);
	}
}

typedef struct outcome {
	uint64_t ret;
	uint32_t fault, pc;
	uint64_t addr;
} outcome_t;

static void run(const ks_difo_t *dp, int dispatch, outcome_t *o)
{
	static char scratch[4096] __attribute__((aligned(16)));
	static const uint8_t cap[32] = "captured user bytes";
	static const ks_ucapture_t uc = { 0x10000, sizeof (cap), cap };
	static const uint64_t uregs[4] = { 1, 2, 3, 4 };
	uint64_t locals[8] = { 0 };
	ks_probe_ctx_t ctx;
	ks_mstate_t ms;
	ks_vstate_t *vs = ks_vstate_create(4096, 64);
	char err[256];

	if (vs == NULL)
		return;
	if (ks_vstate_declare(vs, dp, err, sizeof (err)) != 0) {
		ks_vstate_destroy(vs);
		return;
	}
	memset(&ctx, 0, sizeof (ctx));
	strcpy(ctx.kpc_execname, "fuzz");
	ctx.kpc_tid = 7;
	ctx.kpc_ucap = &uc;
	ctx.kpc_nucap = 1;
	ctx.kpc_uregs = uregs;
	ctx.kpc_nuregs = 4;
	memset(&ms, 0, sizeof (ms));
	ms.kms_ctx = &ctx;
	ms.kms_probe[0] = "fuzz";
	ms.kms_vstate = vs;
	ms.kms_locals = locals;
	ms.kms_nlocals = 8;
	ms.kms_strsize = 64;
	ms.kms_scratch = scratch;
	ms.kms_scratch_size = sizeof (scratch);
	o->ret = ks_dif_emulate_with(dp, &ms, dispatch);
	o->fault = ms.kms_fault;
	o->pc = ms.kms_fault_pc;
	o->addr = ms.kms_fault_addr;
	ks_vstate_destroy(vs);
}

/*
 * Does dp only compute from constants, its string table and captured user
 * memory (no variables, subroutines, scratch or firing data)?  Then both
 * dispatch styles must give the same outcome.
 */
static int pure(const ks_difo_t *dp)
{
	for (uint32_t k = 0; k < dp->dtdo_len; k++) {
		unsigned op = DIF_INSTR_OP(dp->dtdo_buf[k]);

		if (op == DIF_OP_LDGA || (op >= DIF_OP_LDGS &&
		    op <= DIF_OP_STTS) || op == DIF_OP_CALL ||
		    (op >= DIF_OP_LDGAA && op <= DIF_OP_STX))
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	input_t in = { data, size, 0 };
	dif_instr_t text[MAXI];
	uint64_t ints[8];
	char strs[64];
	dtrace_difv_t vars[6];
	ks_difo_t d;
	char err[256];
	uint8_t h3;
	outcome_t a, b;

	memset(&d, 0, sizeof (d));
	memset(vars, 0, sizeof (vars));
	d.dtdo_len = byte(&in) % MAXI + 1;
	d.dtdo_intlen = byte(&in) % 8;
	d.dtdo_strlen = byte(&in) % 64;
	h3 = byte(&in);
	d.dtdo_varlen = (h3 & 0x7f) % 6;
	for (uint32_t k = 0; k < d.dtdo_len; k++) {
		text[k] = word(&in);
		if (h3 & 0x80)
			text[k] = tame(text[k], k, d.dtdo_len);
	}
	if (h3 & 0x80)
		text[d.dtdo_len - 1] = DIF_INSTR_RET(text[d.dtdo_len - 1] & 7);
	for (uint32_t k = 0; k < d.dtdo_intlen; k++)
		ints[k] = (uint64_t)word(&in) | (uint64_t)word(&in) << 32;
	for (uint32_t k = 0; k < d.dtdo_strlen; k++)
		strs[k] = (char)byte(&in);
	if ((h3 & 0x80) && d.dtdo_strlen > 0)
		strs[d.dtdo_strlen - 1] = '\0';
	fill_vars(&in, vars, d.dtdo_varlen);
	d.dtdo_buf = text;
	d.dtdo_inttab = ints;
	d.dtdo_strtab = strs;
	d.dtdo_vartab = vars;
	d.dtdo_rtype.dtdt_kind = DIF_TYPE_CTF;
	d.dtdo_rtype.dtdt_size = 8;
	if (ks_dif_verify(&d, err, sizeof (err)) != 0) {
		if (strncmp(err, "DIF ", 4) != 0)
			abort();	/* every refusal names its place */
		return 0;
	}
	memset(&a, 0, sizeof (a));
	memset(&b, 0, sizeof (b));
	run(&d, KS_DIF_DISPATCH_SWITCH, &a);
	run(&d, KS_DIF_DISPATCH_GOTO, &b);
	if (pure(&d) && memcmp(&a, &b, sizeof (a)) != 0)
		abort();		/* the two loops disagree */
	return 0;
}
