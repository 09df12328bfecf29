/*
 * dif_fold.c - what the shim's two static readings of DIF share: the
 * predicate-to-filter translation (filter.c) and the aggregation-only
 * analysis (aggplan.c).  Both fold ALU operations on known constants,
 * with the results the emulator computes (dif_loop.h: a shift by 64 or
 * more gives 0, or the sign for sra), and both ask which of the
 * variables a provider can see (ks_filter.h's enum ks_fvar) a builtin
 * variable is.
 */
#include "ks_filter.h"
#include "ks_impl.h"

int ks_dif_fold(int op, uint64_t x, uint64_t y, uint64_t *out)
{
	switch (op) {
	case DIF_OP_OR: *out = x | y; break;
	case DIF_OP_XOR: *out = x ^ y; break;
	case DIF_OP_AND: *out = x & y; break;
	case DIF_OP_SUB: *out = x - y; break;
	case DIF_OP_ADD: *out = x + y; break;
	case DIF_OP_MUL: *out = x * y; break;
	case DIF_OP_SLL: *out = y >= 64 ? 0 : x << y; break;
	case DIF_OP_SRL: *out = y >= 64 ? 0 : x >> y; break;
	case DIF_OP_SRA:
		*out = (uint64_t)((int64_t)x >> (y >= 64 ? 63 : y));
		break;
	default:
		return 0;
	}
	return 1;
}

int ks_dif_fold_fvar(uint32_t id, uint8_t *arg)
{
	if (id >= DIF_VAR_ARG0 && id <= DIF_VAR_ARG9) {
		*arg = (uint8_t)(id - DIF_VAR_ARG0);
		return KS_FV_ARG;
	}
	switch (id) {
	case DIF_VAR_PID: return KS_FV_PID;
	case DIF_VAR_TID: return KS_FV_TID;
	case DIF_VAR_CPU: return KS_FV_CPU;
	case DIF_VAR_UID: return KS_FV_UID;
	case DIF_VAR_GID: return KS_FV_GID;
	case DIF_VAR_EXECNAME: return KS_FV_EXECNAME;
	case DIF_VAR_ERRNO: return KS_FV_ERRNO;
	default: return -1;
	}
}
