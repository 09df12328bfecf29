/*
 * dif_subr.c - DIF subroutines (spec ch. 10): the CALL dispatcher and the
 * subroutines that are not string work (memory, user memory, numbers,
 * speculation).  String subroutines live in dif_str.c, json/inet/uuid in
 * dif_fmt.c.
 *
 * Arguments are the tuple stack entries, in push order (ks_dif_arg).
 * Every address is checked (dif_load.c); results that need memory come
 * from scratch, so a full scratch faults NOSCRATCH.  The verifier has
 * already refused the subroutines Linux cannot provide.
 */
#include <endian.h>
#include <string.h>
#include "dif_impl.h"

/*
 * getmajor/getminor decode the kernel's dev_t (MAJOR/MINOR in
 * linux/kdev_t.h: 12 bits of major above 20 bits of minor), the form
 * tracepoints and kernel structures carry, as Oracle's DTrace for Linux
 * does.  (stat()'s userland st_dev uses glibc's major()/minor() form.)
 */
#define KS_MINORBITS	20

/* Per-thread pseudo-random state (probe context: no locks, no syscalls). */
static __thread uint64_t rng_state;

static uint64_t rng_next(const ks_mstate_t *ms)
{
	uint64_t z;

	if (rng_state == 0)
		rng_state = (ms->kms_ctx ? ms->kms_ctx->kpc_timestamp : 0) ^
		    (uint64_t)(uintptr_t)&rng_state ^ 0x9e3779b97f4a7c15ull;
	rng_state += 0x9e3779b97f4a7c15ull;	/* splitmix64 */
	z = rng_state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* copyin(uaddr, size): a scratch copy of user memory. */
static uint64_t s_copyin(ks_dif_exec_t *x)
{
	uint64_t size = ks_dif_arg(x, 1);
	char *p = ks_dif_alloc(x, size);

	if (p == NULL || ks_dif_copyin(x, ks_dif_arg(x, 0), p, size) != 0)
		return 0;
	return (uint64_t)(uintptr_t)p;
}

/* copyinstr(uaddr [, maxlen]): at most strsize (and maxlen) bytes with
 * the NUL, as DTrace: copyinstr(a, 8) gives at most 7 characters. */
static uint64_t s_copyinstr(ks_dif_exec_t *x)
{
	uint64_t size = ks_dif_strmax(x);
	int64_t n;
	char *p;

	if (x->kdx_ntup > 1 && ks_dif_arg(x, 1) <= size)
		size = ks_dif_arg(x, 1) > 0 ? ks_dif_arg(x, 1) - 1 : 0;
	if ((p = ks_dif_alloc(x, size + 1)) == NULL)
		return 0;
	n = ks_dif_copyinstr(x, ks_dif_arg(x, 0), p, size);
	if (n < 0)
		return 0;
	p[n] = '\0';
	return (uint64_t)(uintptr_t)p;
}

/* copyinto(uaddr, size, dest): dest must be scratch. */
static uint64_t s_copyinto(ks_dif_exec_t *x)
{
	uint64_t size = ks_dif_arg(x, 1), dst = ks_dif_arg(x, 2);

	if (ks_dif_canstore(x, dst, size))
		ks_dif_copyin(x, ks_dif_arg(x, 0), (void *)(uintptr_t)dst, size);
	return 0;
}

/* copyout(buf, uaddr, size) and copyoutstr(str, uaddr, size). */
static uint64_t s_copyout(ks_dif_exec_t *x, int str)
{
	uint64_t buf = ks_dif_arg(x, 0), size = ks_dif_arg(x, 2);

	if (!x->kdx_ms->kms_destructive) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return 0;
	}
	if (str) {
		int64_t len = ks_dif_strlen(x, buf);

		if (len < 0)
			return 0;
		if ((uint64_t)len + 1 < size)
			size = (uint64_t)len + 1;
	}
	if (ks_dif_canload(x, buf, size))
		ks_dif_copyout(x, (const void *)(uintptr_t)buf,
		    ks_dif_arg(x, 1), size);
	return 0;
}

/* bcopy(src, dst, size): dst must be scratch. */
static uint64_t s_bcopy(ks_dif_exec_t *x)
{
	uint64_t src = ks_dif_arg(x, 0), dst = ks_dif_arg(x, 1);
	uint64_t size = ks_dif_arg(x, 2);

	if (size != 0 && ks_dif_canstore(x, dst, size) &&
	    ks_dif_canload(x, src, size))
		memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src,
		    size);
	return 0;
}

/* memref(ptr, len): two words in scratch. */
static uint64_t s_memref(ks_dif_exec_t *x)
{
	uint64_t *p = (uint64_t *)(void *)ks_dif_alloc(x, 16);

	if (p == NULL)
		return 0;
	p[0] = ks_dif_arg(x, 0);
	p[1] = ks_dif_arg(x, 1);
	return (uint64_t)(uintptr_t)p;
}

static uint64_t s_speculation(ks_dif_exec_t *x)
{
	const ks_mstate_t *ms = x->kdx_ms;

	if (ms->kms_ops == NULL || ms->kms_ops->kmo_speculation == NULL)
		return 0;
	return (uint64_t)(int64_t)ms->kms_ops->kmo_speculation(ms->kms_sarg);
}

static uint64_t s_progenyof(ks_dif_exec_t *x)
{
	const ks_mstate_t *ms = x->kdx_ms;
	int32_t pid = (int32_t)ks_dif_arg(x, 0);

	if (ms->kms_ops != NULL && ms->kms_ops->kmo_progenyof != NULL)
		return ms->kms_ops->kmo_progenyof(ms->kms_sarg, pid) != 0;
	return ms->kms_ctx != NULL && ms->kms_ctx->kpc_pid == pid;
}

static uint64_t s_alloca(ks_dif_exec_t *x)
{
	return (uint64_t)(uintptr_t)ks_dif_alloc(x, ks_dif_arg(x, 0));
}

uint64_t ks_dif_call(ks_dif_exec_t *x, uint32_t subr)
{
	uint64_t a0 = ks_dif_arg(x, 0);
	int handled = 1;
	uint64_t v;

	switch (subr) {
	case DIF_SUBR_rand: return rng_next(x->kdx_ms) >> 32;
	case DIF_SUBR_random: return rng_next(x->kdx_ms);
	case DIF_SUBR_copyin: return s_copyin(x);
	case DIF_SUBR_copyinstr: return s_copyinstr(x);
	case DIF_SUBR_copyinto: return s_copyinto(x);
	case DIF_SUBR_speculation: return s_speculation(x);
	case DIF_SUBR_progenyof: return s_progenyof(x);
	case DIF_SUBR_copyout: return s_copyout(x, 0);
	case DIF_SUBR_copyoutstr: return s_copyout(x, 1);
	case DIF_SUBR_alloca: return s_alloca(x);
	case DIF_SUBR_bcopy: return s_bcopy(x);
	case DIF_SUBR_memref: return s_memref(x);
	case DIF_SUBR_getmajor: return (a0 & 0xffffffffu) >> KS_MINORBITS;
	case DIF_SUBR_getminor: return a0 & ((1u << KS_MINORBITS) - 1);
	case DIF_SUBR_htons: case DIF_SUBR_ntohs:
		return htobe16((uint16_t)a0);
	case DIF_SUBR_htonl: case DIF_SUBR_ntohl:
		return htobe32((uint32_t)a0);
	case DIF_SUBR_htonll: case DIF_SUBR_ntohll:
		return htobe64(a0);
	default:
		break;
	}
	v = ks_dif_call_str(x, subr, &handled);
	if (!handled)
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
	return v;
}
