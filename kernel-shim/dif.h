/*
 * dif.h - the shim's internal interface to DIF: loaded DIF objects, the
 * verifier, the emulator and variable storage.  Shared by the DIF files
 * (dif_*.c) and the rest of the shim (DOF loader, ECBs).  Not public.
 *
 * Division of labour: the DOF loader builds ks_difo_t from DOF sections and
 * calls ks_dif_verify() once; ECB code fills a ks_mstate_t per firing and
 * calls ks_dif_emulate() for each predicate and action, which trusts the
 * verifier (STYLE.md section 9: verify once, execute without re-checking)
 * and checks only what depends on run-time values (addresses, sizes,
 * division by zero, tuple depth, scratch).
 */
#ifndef KS_DIF_H
#define KS_DIF_H

#include <stddef.h>
#include <stdint.h>
#include "dtrace_abi.h"
#include "ks_provider.h"

/* A loaded DIF object.  Owns its tables (copied out of the DOF). */
typedef struct ks_difo {
	dif_instr_t *dtdo_buf;		/* instructions */
	uint32_t dtdo_len;		/* number of instructions */
	uint64_t *dtdo_inttab;		/* integer table */
	uint32_t dtdo_intlen;
	char *dtdo_strtab;		/* string table */
	uint32_t dtdo_strlen;
	dtrace_difv_t *dtdo_vartab;	/* variables referenced */
	uint32_t dtdo_varlen;
	dtrace_diftype_t dtdo_rtype;	/* type of the returned value */
} ks_difo_t;

struct ks_vstate;			/* variable storage of one consumer */
struct ks_mstate;			/* machine state of one firing */

/*
 * Check every load-time constraint of spec ch. 8.  Returns 0, or -1 with a
 * message naming the instruction index and the rule in err.
 */
int ks_dif_verify(const ks_difo_t *dp, char *err, size_t errlen);

/*
 * Run dp.  Returns the value of RET's register.  On a fault, sets
 * ms->kms_fault (DTRACEFLT_*), kms_fault_addr and kms_fault_pc (the DIF
 * offset in bytes) and returns 0; the caller fires ERROR.  Never
 * allocates; probe-context safe.
 */
uint64_t ks_dif_emulate(const ks_difo_t *dp, struct ks_mstate *ms);

/*
 * Free dp's tables and dp itself.  dp and every table must come from
 * malloc (calloc); NULL is ignored.
 */
void ks_difo_free(ks_difo_t *dp);

/*
 * Dispatch variants of the emulator, for tests and the benchmark: the
 * plain switch and the computed-goto loop run the same cases (STYLE.md
 * section 9).  ks_dif_emulate() uses KS_DIF_DISPATCH_GOTO where the
 * compiler supports it.
 */
#define KS_DIF_DISPATCH_SWITCH	0
#define KS_DIF_DISPATCH_GOTO	1
uint64_t ks_dif_emulate_with(const ks_difo_t *dp, struct ks_mstate *ms,
    int dispatch);
/* 1 if the computed-goto loop is compiled in (else GOTO runs the switch) */
int ks_dif_have_goto(void);
/* The loop every firing uses from now on (default GOTO): a whole session
 * can be run under either, and the two compared (tests/fuzz/pipeline). */
void ks_dif_set_dispatch(int dispatch);

/*
 * Helpers for whoever fills a ks_mstate_t (ecb.c):
 *  - ks_dif_nlocals: how many uint64_t slots of clause-local storage dp
 *    uses (clause-local id v lives in kms_locals[v - DIF_VAR_OTHER_UBASE]);
 *    take the maximum over a clause's predicate and actions.
 *  - ks_dif_scratch_size: scratch bytes to give each firing for strsize
 *    (string results, alloca, copyin).  A firing's first clause starts
 *    with kms_scratch_used 0, each later one where the previous left
 *    kms_scratch_keep (what its clause-locals point into); strings stay
 *    valid until their clause ends.
 *  - ks_dif_fault_name: "invalid address", "divide-by-zero" ... as
 *    dtrace(1M) words them, for messages.
 */
uint32_t ks_dif_nlocals(const ks_difo_t *dp);
/*
 * For recording a by-ref result of dp (ecb.c): is [addr, addr + len)
 * memory DIF may read in this firing?  With string != 0, the length of
 * the string at addr (at most kms_strsize, len ignored).  Returns len or
 * that length, or -1 after recording a BADADDR fault in ms.  Probe-context
 * safe.
 */
int64_t ks_dif_readable(const ks_difo_t *dp, struct ks_mstate *ms,
    uint64_t addr, uint64_t len, int string);
uint64_t ks_dif_scratch_size(uint64_t strsize);
const char *ks_dif_fault_name(uint32_t fault);

/* ---- variable storage (dif_var.c) ------------------------------------ */

/*
 * One consumer's variables: global scalars, global and thread-local
 * associative arrays and thread-local scalars (keyed by tid) in a dynamic
 * variable space of dynvarsize bytes, allocated once at creation.  When
 * the space is exhausted a store is dropped and counted (dtst_dyndrops);
 * a store of zero deletes a dynamic variable, as in DTrace.
 * Safe under concurrent firings (the shim serialises them; see ecb.c).
 */
typedef struct ks_vstate ks_vstate_t;
/* NULL when out of memory or strsize is 0 or above 16 MB. */
ks_vstate_t *ks_vstate_create(uint64_t dynvarsize, uint64_t strsize);
void ks_vstate_destroy(ks_vstate_t *vs);
/*
 * Declare the variables of a verified DIF object (sizes and types), at
 * load time, for every DIF object of the consumer.  Global and
 * thread-local ids are separate spaces; declaring an id again with the
 * same type is a no-op.  Refused with a message: the same id with another
 * type, more than 512 variables, a by-ref size above max(strsize + 1,
 * 4096), global storage full.  Allocates nothing.
 */
int ks_vstate_declare(ks_vstate_t *vs, const ks_difo_t *dp, char *err,
    size_t errlen);
/* Drop counters. */
uint64_t ks_vstate_dyndrops(const ks_vstate_t *vs);
/* Count n drops made elsewhere (self-> variables held in the kernel). */
void ks_vstate_add_dyndrops(ks_vstate_t *vs, uint64_t n);
/* How many integer self-> variables the arena holds when it holds
 * nothing else (the kernel's map gets that room). */
uint64_t ks_vstate_tls_capacity(const ks_vstate_t *vs);
/* Bytes of dynamic variable space in use (memory-bound tests). */
uint64_t ks_vstate_used(const ks_vstate_t *vs);
/* The strsize the storage was created with. */
uint64_t ks_vstate_strsize(const ks_vstate_t *vs);

/* ---- machine state of one firing -------------------------------------- */

/* Callbacks from subroutines into the consumer state (ecb.c/spec.c). */
typedef struct ks_mstate_ops {
	/* speculation(): a free speculation id, 0 if none (drops counted) */
	int (*kmo_speculation)(void *sarg);
	/* progenyof(pid): is the firing process a descendant of pid? */
	int (*kmo_progenyof)(void *sarg, int32_t pid);
} ks_mstate_ops_t;

#define KS_DIF_TUPLE_MAX	DIF_DTR_NREGS	/* tuple stack depth */

typedef struct ks_mstate {
	const ks_probe_ctx_t *kms_ctx;	/* the firing */
	dtrace_epid_t kms_epid;		/* enabled probe id */
	const char *kms_probe[4];	/* provider, module, function, name */
	ks_vstate_t *kms_vstate;	/* variables of the consumer */
	uint64_t *kms_locals;		/* clause-local storage of the ECB */
	uint32_t kms_nlocals;
	uint64_t kms_strsize;		/* strsize option */
	char *kms_scratch;		/* scratch for strings, alloca, copyin */
	uint64_t kms_scratch_size;
	uint64_t kms_scratch_used;
	uint64_t kms_scratch_keep;	/* scratch a clause-local points
					 * into: kept for the firing's next
					 * clauses, the rest is rewound */
	uint32_t kms_fault;		/* DTRACEFLT_*, 0 if none */
	uint64_t kms_fault_addr;
	uint32_t kms_fault_pc;		/* DIF offset in bytes */
	int kms_destructive;		/* destructive subroutines allowed */
	const ks_mstate_ops_t *kms_ops;
	void *kms_sarg;			/* argument for kms_ops */
	uint64_t kms_weight;		/* identical firings this run stands
					 * for (ks_probe_fire_n); ecb.c only */
} ks_mstate_t;

#endif /* KS_DIF_H */
