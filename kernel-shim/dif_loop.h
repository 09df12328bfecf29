/*
 * dif_loop.h - the emulator's instruction loop, included twice by
 * dif_emul.c: once with a plain switch, once with computed goto (Lua's
 * lvm.c/ljumptab.h trick), so both dispatch styles run the same cases.
 *
 * The includer defines DIF_LOOP_NAME (the function to define) and
 * DIF_LOOP_GOTO (0 or 1).  The three dispatch macros:
 *   vmdispatch(op)  jump to the case of op
 *   vmcase(OP)      the case of DIF_OP_OP
 *   vmbreak         end a case: stop on a fault, else the next instruction
 * Assumes a verified object (dif_verify.c): valid opcodes and registers,
 * %r0 never written, forward in-bounds branches, a final RET.
 */

#if DIF_LOOP_GOTO
#define vmdispatch(o)	goto *disp[o];
#define vmcase(l)	L_##l:
#define vmdefault	L_bad:
#define vmbreak		do { if (ms->kms_fault) goto out; \
			FETCH(); goto *disp[DIF_INSTR_OP(in)]; } while (0)
#else
#define vmdispatch(o)	switch (o)
#define vmcase(l)	case DIF_OP_##l:
#define vmdefault	default:
#define vmbreak		break
#endif

#define FETCH()	do { in = text[pc++]; r1 = DIF_INSTR_R1(in); \
		r2 = DIF_INSTR_R2(in); rd = DIF_INSTR_RD(in); } while (0)
#define CMPSET(a, b) do { uint64_t a_ = (a), b_ = (b), r_ = a_ - b_; \
		cc_n = (int64_t)r_ < 0; cc_z = r_ == 0; \
		cc_v = (((a_ ^ b_) & (a_ ^ r_)) >> 63) != 0; \
		cc_c = a_ < b_; } while (0)
#define BRANCH(cond) do { if (cond) pc = DIF_INSTR_LABEL(in); } while (0)
#define LOAD(T, check) do { T v_; \
		if (!check(x, reg[r1], sizeof (T))) vmbreak; \
		memcpy(&v_, (const void *)(uintptr_t)reg[r1], sizeof (T)); \
		reg[rd] = (uint64_t)v_; } while (0)
#define ULOAD(T) do { T v_; \
		if (ks_dif_copyin(x, reg[r1], &v_, sizeof (T)) != 0) vmbreak; \
		reg[rd] = (uint64_t)v_; } while (0)
#define STORE(T) do { T v_ = (T)reg[r1]; \
		if (!kstore(x, reg[rd], sizeof (T))) vmbreak; \
		memcpy((void *)(uintptr_t)reg[rd], &v_, sizeof (T)); \
		x->kdx_klen = 0; } while (0)

static uint64_t DIF_LOOP_NAME(ks_dif_exec_t *x)
{
	const dif_instr_t *text = x->kdx_dp->dtdo_buf;
	ks_mstate_t *ms = x->kdx_ms;
	uint64_t reg[DIF_DIR_NREGS] = { 0 };
	uint64_t ret = 0;
	uint32_t pc = 0, in;
	unsigned r1, r2, rd;
	int cc_n = 0, cc_z = 0, cc_v = 0, cc_c = 0;
#if DIF_LOOP_GOTO
	static const void *const disp[256] = {
		[0] = &&L_bad,	/* others unset: the verifier refuses them */
#define J(v, n, f, d) [v] = &&L_##n,
		DIF_OPCODES(J)
#undef J
	};
#endif

	for (;;) {
	FETCH();
	vmdispatch(DIF_INSTR_OP(in)) {
	vmcase(OR) reg[rd] = reg[r1] | reg[r2]; vmbreak;
	vmcase(XOR) reg[rd] = reg[r1] ^ reg[r2]; vmbreak;
	vmcase(AND) reg[rd] = reg[r1] & reg[r2]; vmbreak;
	vmcase(SLL) reg[rd] = reg[r2] >= 64 ? 0 : reg[r1] << reg[r2]; vmbreak;
	vmcase(SRL) reg[rd] = reg[r2] >= 64 ? 0 : reg[r1] >> reg[r2]; vmbreak;
	vmcase(SRA) reg[rd] = (uint64_t)((int64_t)reg[r1] >>
	    (reg[r2] >= 64 ? 63 : reg[r2])); vmbreak;
	vmcase(SUB) reg[rd] = reg[r1] - reg[r2]; vmbreak;
	vmcase(ADD) reg[rd] = reg[r1] + reg[r2]; vmbreak;
	vmcase(MUL) reg[rd] = reg[r1] * reg[r2]; vmbreak;
	vmcase(SDIV)
		if (reg[r2] == 0) { ks_dif_fault(x, DTRACEFLT_DIVZERO, 0); vmbreak; }
		reg[rd] = sdiv(reg[r1], reg[r2]); vmbreak;
	vmcase(UDIV)
		if (reg[r2] == 0) { ks_dif_fault(x, DTRACEFLT_DIVZERO, 0); vmbreak; }
		reg[rd] = reg[r1] / reg[r2]; vmbreak;
	vmcase(SREM)
		if (reg[r2] == 0) { ks_dif_fault(x, DTRACEFLT_DIVZERO, 0); vmbreak; }
		reg[rd] = srem(reg[r1], reg[r2]); vmbreak;
	vmcase(UREM)
		if (reg[r2] == 0) { ks_dif_fault(x, DTRACEFLT_DIVZERO, 0); vmbreak; }
		reg[rd] = reg[r1] % reg[r2]; vmbreak;
	vmcase(NOT) reg[rd] = ~reg[r1]; vmbreak;
	vmcase(MOV) reg[rd] = reg[r1]; vmbreak;
	vmcase(CMP) CMPSET(reg[r1], reg[r2]); vmbreak;
	vmcase(TST) cc_n = cc_v = cc_c = 0; cc_z = reg[r1] == 0; vmbreak;
	vmcase(BA) pc = DIF_INSTR_LABEL(in); vmbreak;
	vmcase(BE) BRANCH(cc_z); vmbreak;
	vmcase(BNE) BRANCH(!cc_z); vmbreak;
	vmcase(BG) BRANCH(!(cc_z | (cc_n ^ cc_v))); vmbreak;
	vmcase(BGU) BRANCH(!(cc_c | cc_z)); vmbreak;
	vmcase(BGE) BRANCH(!(cc_n ^ cc_v)); vmbreak;
	vmcase(BGEU) BRANCH(!cc_c); vmbreak;
	vmcase(BL) BRANCH(cc_n ^ cc_v); vmbreak;
	vmcase(BLU) BRANCH(cc_c); vmbreak;
	vmcase(BLE) BRANCH(cc_z | (cc_n ^ cc_v)); vmbreak;
	vmcase(BLEU) BRANCH(cc_c | cc_z); vmbreak;
	vmcase(LDSB) LOAD(int8_t, kload); vmbreak;
	vmcase(LDSH) LOAD(int16_t, kload); vmbreak;
	vmcase(LDSW) LOAD(int32_t, kload); vmbreak;
	vmcase(LDUB) LOAD(uint8_t, kload); vmbreak;
	vmcase(LDUH) LOAD(uint16_t, kload); vmbreak;
	vmcase(LDUW) LOAD(uint32_t, kload); vmbreak;
	vmcase(LDX) LOAD(uint64_t, kload); vmbreak;
	vmcase(RLDSB) LOAD(int8_t, kload); vmbreak;
	vmcase(RLDSH) LOAD(int16_t, kload); vmbreak;
	vmcase(RLDSW) LOAD(int32_t, kload); vmbreak;
	vmcase(RLDUB) LOAD(uint8_t, kload); vmbreak;
	vmcase(RLDUH) LOAD(uint16_t, kload); vmbreak;
	vmcase(RLDUW) LOAD(uint32_t, kload); vmbreak;
	vmcase(RLDX) LOAD(uint64_t, kload); vmbreak;
	vmcase(ULDSB) ULOAD(int8_t); vmbreak;
	vmcase(ULDSH) ULOAD(int16_t); vmbreak;
	vmcase(ULDSW) ULOAD(int32_t); vmbreak;
	vmcase(ULDUB) ULOAD(uint8_t); vmbreak;
	vmcase(ULDUH) ULOAD(uint16_t); vmbreak;
	vmcase(ULDUW) ULOAD(uint32_t); vmbreak;
	vmcase(ULDX) ULOAD(uint64_t); vmbreak;
	vmcase(RET) ret = reg[rd]; goto out;
	vmcase(NOP) vmbreak;
	vmcase(SETX) reg[rd] = x->kdx_dp->dtdo_inttab[DIF_INSTR_INTEGER(in)];
		vmbreak;
	vmcase(SETS) reg[rd] = (uint64_t)(uintptr_t)
	    (x->kdx_dp->dtdo_strtab + DIF_INSTR_STRING(in)); vmbreak;
	vmcase(SCMP) {
		int c = scmp(x, reg[r1], reg[r2]);

		cc_n = c < 0; cc_z = c == 0; cc_v = cc_c = 0;
		vmbreak;
	}
	vmcase(LDGA) reg[rd] = builtin_array(x, r1, reg[r2]); vmbreak;
	vmcase(LDGS) {
		uint32_t id = DIF_INSTR_VAR(in);

		reg[rd] = id < DIF_VAR_OTHER_UBASE ? builtin(x, id) :
		    ks_dif_ldgs(x, id);
		vmbreak;
	}
	vmcase(STGS) ks_dif_stgs(x, DIF_INSTR_VAR(in), reg[rd]); vmbreak;
	vmcase(LDTS) reg[rd] = ks_dif_lddyn(x, DIF_INSTR_VAR(in), 1, 0);
		vmbreak;
	vmcase(STTS) ks_dif_stdyn(x, DIF_INSTR_VAR(in), 1, 0, reg[rd]);
		vmbreak;
	vmcase(LDGAA) reg[rd] = ks_dif_lddyn(x, DIF_INSTR_VAR(in), 0, 1);
		vmbreak;
	vmcase(LDTAA) reg[rd] = ks_dif_lddyn(x, DIF_INSTR_VAR(in), 1, 1);
		vmbreak;
	vmcase(STGAA) ks_dif_stdyn(x, DIF_INSTR_VAR(in), 0, 1, reg[rd]);
		vmbreak;
	vmcase(STTAA) ks_dif_stdyn(x, DIF_INSTR_VAR(in), 1, 1, reg[rd]);
		vmbreak;
	vmcase(LDLS) reg[rd] = ldls(x, DIF_INSTR_VAR(in)); vmbreak;
	vmcase(STLS) stls(x, DIF_INSTR_VAR(in), reg[rd]); vmbreak;
	vmcase(CALL)
		x->kdx_klen = 0;	/* bcopy, copyinto... may write memory */
		reg[rd] = ks_dif_call(x, DIF_INSTR_SUBR(in));
		vmbreak;
	vmcase(PUSHTR) pusht(x, r1, reg[r2], reg[rd], 1); vmbreak;
	vmcase(PUSHTV) pusht(x, r1, reg[r2], reg[rd], 0); vmbreak;
	vmcase(POPTS)
		if (x->kdx_ntup > 0)
			x->kdx_ntup--;
		x->kdx_klen = 0;
		vmbreak;
	vmcase(FLUSHTS) x->kdx_ntup = 0; x->kdx_klen = 0; vmbreak;
	vmcase(ALLOCS) {
		char *p = ks_dif_alloc(x, reg[r1]);

		reg[rd] = (uint64_t)(uintptr_t)p;
		vmbreak;
	}
	vmcase(COPYS)
		x->kdx_klen = 0;
		if (reg[r2] != 0 && ks_dif_canstore(x, reg[rd], reg[r2]) &&
		    ks_dif_canload(x, reg[r1], reg[r2]))
			memmove((void *)(uintptr_t)reg[rd],
			    (const void *)(uintptr_t)reg[r1], reg[r2]);
		vmbreak;
	vmcase(STB) STORE(uint8_t); vmbreak;
	vmcase(STH) STORE(uint16_t); vmbreak;
	vmcase(STW) STORE(uint32_t); vmbreak;
	vmcase(STX) STORE(uint64_t); vmbreak;
	vmcase(LDTA)
	vmcase(XLATE)
	vmcase(XLARG)
	vmdefault
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0); vmbreak;
	}
	if (ms->kms_fault)
		break;
	}
out:
	if (ms->kms_fault) {
		ms->kms_fault_pc = (pc - 1) * (uint32_t)sizeof (dif_instr_t);
		return 0;
	}
	return ret;
}

#undef vmdispatch
#undef vmcase
#undef vmdefault
#undef vmbreak
#undef FETCH
#undef CMPSET
#undef BRANCH
#undef LOAD
#undef ULOAD
#undef STORE
