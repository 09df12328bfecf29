/*
 * dif_emul.c - the DIF emulator: runs one verified DIF object for one
 * firing (spec ch. 7-8).
 *
 * The machine: 8 integer registers (%r0 = 0), condition codes cc_n, cc_z,
 * cc_v, cc_c (Table 7.1), a tuple stack of KS_DIF_TUPLE_MAX entries for
 * subroutine arguments and array keys.  The loop itself lives in
 * dif_loop.h and is compiled twice (switch and computed goto); the small
 * helpers it calls (loads, SCMP, clause-locals, tuple pushes, built-in
 * variables of ch. 9) are here so they can be inlined.
 *
 * What it assumes (proved by dif_verify.c): valid opcodes, registers and
 * table indices, %r0 never written, forward in-bounds branches, a final
 * RET, known variables and subroutines.  What it checks, because it
 * depends on run-time values: every address (dif_load.c), division by
 * zero, tuple depth, scratch space, clause-local slots.  A fault stops the
 * run with kms_fault, kms_fault_addr and kms_fault_pc set.
 *
 * cc_v is the real signed overflow of r1 - r2 (Table 7.1: "overflow
 * occurred"), so signed branches are right at the INT64_MIN/INT64_MAX
 * boundaries, where illumos (cc_v = 0) is not.
 */
#include <stdlib.h>
#include <string.h>
#include "dif_impl.h"

static inline uint64_t sdiv(uint64_t a, uint64_t b)
{
	if ((int64_t)b == -1)		/* INT64_MIN / -1 wraps */
		return 0 - a;
	return (uint64_t)((int64_t)a / (int64_t)b);
}

static inline uint64_t srem(uint64_t a, uint64_t b)
{
	if ((int64_t)b == -1)
		return 0;
	return (uint64_t)((int64_t)a % (int64_t)b);
}

/* A "kernel" load: aligned (BADALIGN) and inside a region (BADADDR). */
static inline int kload(ks_dif_exec_t *x, uint64_t addr, uint64_t size)
{
	if (addr & (size - 1)) {
		ks_dif_fault(x, DTRACEFLT_BADALIGN, addr);
		return 0;
	}
	return ks_dif_canload(x, addr, size);
}

/* A store: inside allocated scratch (BADADDR), aligned (BADALIGN). */
static inline int kstore(ks_dif_exec_t *x, uint64_t addr, uint64_t size)
{
	if (!ks_dif_canstore(x, addr, size))
		return 0;
	if (addr & (size - 1)) {
		ks_dif_fault(x, DTRACEFLT_BADALIGN, addr);
		return 0;
	}
	return 1;
}

/*
 * strncmp(a, b, strsize) over readable memory: a string that reaches the
 * end of its region before a NUL (and before strsize bytes) faults, and
 * the result is then 0.
 */
static int scmp(ks_dif_exec_t *x, uint64_t a, uint64_t b)
{
	const unsigned char *pa = (const unsigned char *)(uintptr_t)a;
	const unsigned char *pb = (const unsigned char *)(uintptr_t)b;
	uint64_t strsize = x->kdx_ms->kms_strsize;
	int64_t la, lb;

	if (a == b)
		return 0;
	if ((la = ks_dif_strlim(x, a)) < 0 || (lb = ks_dif_strlim(x, b)) < 0)
		return 0;
	for (uint64_t i = 0; i < strsize; i++) {
		if ((int64_t)i >= la || (int64_t)i >= lb) {
			ks_dif_fault(x, DTRACEFLT_BADADDR,
			    (int64_t)i >= la ? a + i : b + i);
			return 0;
		}
		if (pa[i] != pb[i])
			return pa[i] < pb[i] ? -1 : 1;
		if (pa[i] == 0)
			return 0;
	}
	return 0;
}

/* The type of clause-local id in the running DIF object's table. */
static const dtrace_diftype_t *local_type(const ks_dif_exec_t *x,
    uint32_t id)
{
	const ks_difo_t *dp = x->kdx_dp;

	for (uint32_t k = 0; k < dp->dtdo_varlen; k++)
		if (dp->dtdo_vartab[k].dtdv_id == id &&
		    dp->dtdo_vartab[k].dtdv_scope == DIFV_SCOPE_LOCAL)
			return &dp->dtdo_vartab[k].dtdv_type;
	return NULL;
}

/*
 * A struct or union clause-local lives in dtrace's static storage, zero
 * until stored: one never stored in this firing reads zeros, from zeroed
 * scratch that then holds it for the firing's later clauses.
 */
static uint64_t ldls(ks_dif_exec_t *x, uint32_t id)
{
	ks_mstate_t *ms = x->kdx_ms;
	uint32_t i = id - DIF_VAR_OTHER_UBASE;
	const dtrace_diftype_t *t;
	char *p;

	if (ms->kms_locals == NULL || i >= ms->kms_nlocals) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return 0;
	}
	if (ms->kms_locals[i] != 0 || (t = local_type(x, id)) == NULL ||
	    !(t->dtdt_flags & DIF_TF_BYREF) || t->dtdt_kind != DIF_TYPE_CTF)
		return ms->kms_locals[i];
	if ((p = ks_dif_alloc(x, t->dtdt_size > 0 ? t->dtdt_size : 1)) == NULL)
		return 0;
	ms->kms_scratch_keep = ms->kms_scratch_used;
	ms->kms_locals[i] = (uint64_t)(uintptr_t)p;
	return ms->kms_locals[i];
}

/*
 * A by-reference clause-local (a string, a struct) outlives the DIF object
 * that stores it (the firing's later clauses read it): what val points at
 * is copied into scratch, which lives for the whole firing, unless it is
 * there already.
 */
static uint64_t local_ref(ks_dif_exec_t *x, uint32_t id, uint64_t val)
{
	const ks_mstate_t *ms = x->kdx_ms;
	uintptr_t s = (uintptr_t)ms->kms_scratch;
	const dtrace_diftype_t *t = local_type(x, id);
	int64_t n;
	char *p;

	if (t == NULL || !(t->dtdt_flags & DIF_TF_BYREF) || val == 0 ||
	    (val >= s && val < s + ms->kms_scratch_used))
		return val;
	if (t->dtdt_kind == DIF_TYPE_STRING)
		n = ks_dif_strlen(x, val);
	else
		n = ks_dif_canload(x, val, t->dtdt_size) ?
		    (int64_t)t->dtdt_size : -1;
	if (n < 0 || (p = ks_dif_alloc(x, (uint64_t)n + 1)) == NULL)
		return 0;
	memcpy(p, (const void *)(uintptr_t)val, (size_t)n);
	return (uint64_t)(uintptr_t)p;
}

static void stls(ks_dif_exec_t *x, uint32_t id, uint64_t val)
{
	ks_mstate_t *ms = x->kdx_ms;
	uint32_t i = id - DIF_VAR_OTHER_UBASE;

	if (ms->kms_locals == NULL || i >= ms->kms_nlocals) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return;
	}
	val = local_ref(x, id, val);
	if (ms->kms_fault != 0)
		return;
	if (val >= (uintptr_t)ms->kms_scratch &&	/* string, alloca */
	    val < (uintptr_t)ms->kms_scratch + ms->kms_scratch_used)
		ms->kms_scratch_keep = ms->kms_scratch_used;
	ms->kms_locals[i] = val;
	x->kdx_klen = 0;
}

/* PUSHTV/PUSHTR: a string reference records its length (<= strsize);
 * a NULL string (strtok(NULL, ...)) is pushed as is. */
static void pusht(ks_dif_exec_t *x, unsigned type, uint64_t size,
    uint64_t val, int ref)
{
	ks_dif_tuple_t *t;

	if (x->kdx_ntup >= KS_DIF_TUPLE_MAX) {
		ks_dif_fault(x, DTRACEFLT_TUPOFLOW, 0);
		return;
	}
	x->kdx_klen = 0;
	t = &x->kdx_tup[x->kdx_ntup];
	t->kdt_val = val;
	t->kdt_type = (uint8_t)type;
	t->kdt_size = 0;
	t->kdt_ref = (uint8_t)ref;
	if (ref && type == DIF_TYPE_STRING) {
		int64_t len = val != 0 ? ks_dif_strlen(x, val) : 0;

		if (len < 0)
			return;
		t->kdt_size = (uint64_t)len;	/* string keys trust this */
	} else if (ref) {
		t->kdt_size = size;
	}
	x->kdx_ntup++;
}

/* Built-in variables (ch. 9), from the firing context and the mstate. */
static const ks_probe_ctx_t nullctx;

static uint64_t probestr(const ks_mstate_t *ms, int i)
{
	return ms->kms_probe[i] ? (uint64_t)(uintptr_t)ms->kms_probe[i] :
	    KS_DIF_EMPTY;
}

static uint64_t builtin(ks_dif_exec_t *x, uint32_t id)
{
	const ks_mstate_t *ms = x->kdx_ms;
	const ks_probe_ctx_t *c = ms->kms_ctx ? ms->kms_ctx : &nullctx;

	if (id >= DIF_VAR_ARG0 && id <= DIF_VAR_ARG9)
		return c->kpc_args[id - DIF_VAR_ARG0];
	switch (id) {
	case DIF_VAR_TIMESTAMP: return c->kpc_timestamp;
	case DIF_VAR_VTIMESTAMP: return c->kpc_vtimestamp;
	case DIF_VAR_WALLTIMESTAMP: return c->kpc_walltimestamp;
	case DIF_VAR_EPID: return ms->kms_epid;
	case DIF_VAR_ID: return c->kpc_id;
	case DIF_VAR_STACKDEPTH: return c->kpc_nkstack;
	case DIF_VAR_USTACKDEPTH: return c->kpc_nustack;
	case DIF_VAR_CALLER: return c->kpc_caller;
	case DIF_VAR_UCALLER: return c->kpc_ucaller;
	case DIF_VAR_PROBEPROV: return probestr(ms, 0);
	case DIF_VAR_PROBEMOD: return probestr(ms, 1);
	case DIF_VAR_PROBEFUNC: return probestr(ms, 2);
	case DIF_VAR_PROBENAME: return probestr(ms, 3);
	case DIF_VAR_PID: return (uint64_t)(int64_t)c->kpc_pid;
	case DIF_VAR_PPID: return (uint64_t)(int64_t)c->kpc_ppid;
	case DIF_VAR_TID: return (uint64_t)(int64_t)c->kpc_tid;
	case DIF_VAR_UID: return c->kpc_uid;
	case DIF_VAR_GID: return c->kpc_gid;
	case DIF_VAR_ERRNO: return (uint64_t)(int64_t)c->kpc_errno;
	case DIF_VAR_CPU: return c->kpc_cpu;
	case DIF_VAR_EXECNAME:
		return ms->kms_ctx ? (uint64_t)(uintptr_t)c->kpc_execname :
		    KS_DIF_EMPTY;
	case DIF_VAR_ZONENAME: return KS_DIF_GLOBAL;
	case DIF_VAR_PSARGS:
		return c->kpc_psargs != NULL ?
		    (uint64_t)(uintptr_t)c->kpc_psargs : KS_DIF_EMPTY;
	case DIF_VAR_ARGC: return c->kpc_argc;
	default: return 0;		/* curthread, ipl: no Linux meaning */
	}
}

static uint64_t builtin_array(ks_dif_exec_t *x, uint32_t id,
    uint64_t ndx)
{
	const ks_probe_ctx_t *c = x->kdx_ms->kms_ctx;

	if (c == NULL)
		c = &nullctx;
	switch (id) {
	case DIF_VAR_ARGS:
		return ndx < DTRACE_MAXARGS ? c->kpc_args[ndx] : 0;
	case DIF_VAR_UREGS:
		if (c->kpc_uregs == NULL || ndx >= c->kpc_nuregs) {
			ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
			return 0;
		}
		return c->kpc_uregs[ndx];
	default:
		return 0;		/* regs[]: kernel registers */
	}
}

#define DIF_LOOP_NAME	run_switch
#define DIF_LOOP_GOTO	0
#include "dif_loop.h"
#undef DIF_LOOP_NAME
#undef DIF_LOOP_GOTO

#if defined(__GNUC__)
#define KS_DIF_HAVE_GOTO 1
#define DIF_LOOP_NAME	run_goto
#define DIF_LOOP_GOTO	1
#include "dif_loop.h"
#undef DIF_LOOP_NAME
#undef DIF_LOOP_GOTO
#else
#define KS_DIF_HAVE_GOTO 0
#define run_goto run_switch
#endif

int ks_dif_have_goto(void)
{
	return KS_DIF_HAVE_GOTO;
}

uint64_t ks_dif_emulate_with(const ks_difo_t *dp, ks_mstate_t *ms,
    int dispatch)
{
	ks_dif_exec_t x;

	x.kdx_dp = dp;
	x.kdx_ms = ms;
	x.kdx_ntup = 0;
	x.kdx_klen = 0;
	ms->kms_fault = 0;
	ms->kms_fault_addr = 0;
	ms->kms_fault_pc = 0;
	if (dispatch == KS_DIF_DISPATCH_GOTO)
		return run_goto(&x);
	return run_switch(&x);
}

static int dispatch_default = KS_DIF_DISPATCH_GOTO;

void ks_dif_set_dispatch(int dispatch)
{
	dispatch_default = dispatch;
}

uint64_t ks_dif_emulate(const ks_difo_t *dp, ks_mstate_t *ms)
{
	return ks_dif_emulate_with(dp, ms, dispatch_default);
}

void ks_difo_free(ks_difo_t *dp)
{
	if (dp == NULL)
		return;
	free(dp->dtdo_buf);
	free(dp->dtdo_inttab);
	free(dp->dtdo_strtab);
	free(dp->dtdo_vartab);
	free(dp);
}
