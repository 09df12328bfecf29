/*
 * dif_subr.c - DIF subroutines (first version: stubs).
 */
#include "dif_impl.h"

uint64_t ks_dif_call(ks_dif_exec_t *x, uint32_t subr)
{
	ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
	return 0;
}
