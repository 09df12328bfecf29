/*
 * dif_impl.h - what the DIF files (dif_*.c) share and nobody else sees:
 * the execution context of one ks_dif_emulate() call, the checked memory
 * helpers every load and subroutine goes through, and the entry points of
 * the variable and subroutine files.
 *
 * Invariants: everything here runs in probe context (no allocation, no
 * printing, no blocking).  A helper that faults records the fault in the
 * mstate (ks_dif_fault) and returns a failure value; the emulator loop
 * stops before the next instruction and fills in kms_fault_pc.
 */
#ifndef KS_DIF_IMPL_H
#define KS_DIF_IMPL_H

#include <stdint.h>
#include "dif.h"

/* One tuple stack entry (PUSHTV: size 0; PUSHTR: size of the referent). */
typedef struct ks_dif_tuple {
	uint64_t kdt_val;		/* value, or address of the referent */
	uint64_t kdt_size;		/* 0 for by-value entries */
	uint8_t kdt_type;		/* DIF_TYPE_CTF or DIF_TYPE_STRING */
	uint8_t kdt_ref;		/* pushed by PUSHTR */
} ks_dif_tuple_t;

/* The state of one run of one DIF object. */
typedef struct ks_dif_exec {
	const ks_difo_t *kdx_dp;
	ks_mstate_t *kdx_ms;
	ks_dif_tuple_t kdx_tup[KS_DIF_TUPLE_MAX];
	unsigned kdx_ntup;		/* entries on the tuple stack */
	/* The key last built in the vstate's key buffer, still valid while
	 * the tuple stack and the memory it refers to are unchanged: any
	 * push/pop, store, variable store or CALL forgets it, so
	 * x[k] = x[k] + 1 builds its key once and nothing reads a stale one. */
	uint64_t kdx_klen;		/* 0: none */
	uint32_t kdx_khash;
	uint32_t kdx_khead;		/* variable id, tls and array bits */
	/* The last lookup of that key, while no store has happened since. */
	int kdx_kfound;			/* kdx_kent/kdx_klink are valid */
	void *kdx_kent;			/* the variable's block, or NULL */
	uint32_t *kdx_klink;		/* the link pointing at it */
} ks_dif_exec_t;

/* ---- dif_load.c: faults, regions, checked access ---------------------- */

/* Constant strings DIF may read: "" at KS_DIF_EMPTY, "global" at
 * KS_DIF_GLOBAL (zonename). */
extern const char ks_dif_rodata[16];
#define KS_DIF_EMPTY	((uint64_t)(uintptr_t)&ks_dif_rodata[0])
#define KS_DIF_GLOBAL	((uint64_t)(uintptr_t)&ks_dif_rodata[1])

/* Record a fault (the first one wins). */
void ks_dif_fault(ks_dif_exec_t *x, uint32_t kind, uint64_t addr);
/* Is [addr, addr + size) inside one readable region?  Faults BADADDR if
 * not and returns 0. */
int ks_dif_canload(ks_dif_exec_t *x, uint64_t addr, uint64_t size);
/* Is [addr, addr + size) inside allocated scratch?  Faults BADADDR if not. */
int ks_dif_canstore(ks_dif_exec_t *x, uint64_t addr, uint64_t size);
/*
 * Length of the string at addr, at most strsize, reading only readable
 * memory: a string that runs off its region before a NUL and before
 * strsize bytes faults BADADDR and gives -1.
 */
int64_t ks_dif_strlen(ks_dif_exec_t *x, uint64_t addr);
/* Bytes of string that may be read at addr: the readable bytes, at most
 * strsize; -1 after a BADADDR fault if addr is not readable at all. */
int64_t ks_dif_strlim(ks_dif_exec_t *x, uint64_t addr);
/* 8-aligned scratch of size bytes, zeroed; NULL after a NOSCRATCH fault. */
char *ks_dif_alloc(ks_dif_exec_t *x, uint64_t size);
/* Read len bytes of the firing process's memory (captures first, then the
 * live process); faults BADADDR and returns -1 when it cannot. */
int ks_dif_copyin(ks_dif_exec_t *x, uint64_t uaddr, void *buf, uint64_t len);
/* Read up to len bytes, stopping after a NUL; returns bytes read (>= 0,
 * short at an unreadable page), -1 with BADADDR if none. */
int64_t ks_dif_copyinstr(ks_dif_exec_t *x, uint64_t uaddr, char *buf,
    uint64_t len);
/* Write len bytes into the firing process (copyout); -1 with BADADDR. */
int ks_dif_copyout(ks_dif_exec_t *x, const void *buf, uint64_t uaddr,
    uint64_t len);

/* ---- dif_var.c: variables ---------------------------------------------- */

uint64_t ks_dif_ldgs(ks_dif_exec_t *x, uint32_t id);
void ks_dif_stgs(ks_dif_exec_t *x, uint32_t id, uint64_t val);
/* Dynamic variables: thread-local scalars (tls = 1, no tuple) and
 * associative arrays (tuple stack is the key; tls adds the tid). */
uint64_t ks_dif_lddyn(ks_dif_exec_t *x, uint32_t id, int tls, int array);
void ks_dif_stdyn(ks_dif_exec_t *x, uint32_t id, int tls, int array,
    uint64_t val);
/* End of the variable-storage region holding a, or 0 (dif_load.c). */
uintptr_t ks_vstate_region_end(const ks_vstate_t *vs, uintptr_t a);
/* strtok's per-thread saved string: a buffer of strsize + 1 bytes and the
 * position in it, for tid (taken over from another thread if needed).
 * Without reset: NULL if tid has no string left (position UINT64_MAX). */
char *ks_vstate_strtok(ks_vstate_t *vs, int32_t tid, uint64_t **posp,
    int reset);

/* ---- dif_subr.c, dif_str.c: subroutines -------------------------------- */

/* Run subroutine subr with the tuple stack as arguments; the result. */
uint64_t ks_dif_call(ks_dif_exec_t *x, uint32_t subr);
/* String subroutines (dif_str.c); 0 if subr is not one of them, with
 * *handled = 0. */
uint64_t ks_dif_call_str(ks_dif_exec_t *x, uint32_t subr, int *handled);

/* json, inet_ntop/ntoa/ntoa6, uuidstr (dif_fmt.c); *handled as above. */
uint64_t ks_dif_call_fmt(ks_dif_exec_t *x, uint32_t subr, int *handled);
/* The string argument i: its address (checked readable, length in *lenp),
 * or NULL after a fault. */
const char *ks_dif_str_arg(ks_dif_exec_t *x, unsigned i, uint64_t *lenp);
/*
 * Strings DIF makes hold at most strsize - 1 characters and a NUL, so each
 * fits a strsize-byte record with its terminator (as DTrace's strjoin and
 * copyinstr).  ks_dif_newstr: scratch for len characters plus a NUL (NULL
 * after NOSCRATCH); ks_dif_strend: cut d at min(n, strsize - 1) and
 * return its address.
 */
char *ks_dif_newstr(ks_dif_exec_t *x, uint64_t len);
uint64_t ks_dif_strend(ks_dif_exec_t *x, char *d, uint64_t n);
/* The longest string DIF makes: strsize - 1 characters. */
static inline uint64_t ks_dif_strmax(const ks_dif_exec_t *x)
{
	return x->kdx_ms->kms_strsize > 0 ? x->kdx_ms->kms_strsize - 1 : 0;
}

/* Argument i of the current call (0 when absent). */
static inline uint64_t ks_dif_arg(const ks_dif_exec_t *x, unsigned i)
{
	return i < x->kdx_ntup ? x->kdx_tup[i].kdt_val : 0;
}

#endif /* KS_DIF_IMPL_H */
