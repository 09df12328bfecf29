/*
 * dif_load.c - memory access for DIF: faults, the regions of shim memory a
 * DIF program may read or write, and user memory through the firing.
 *
 * DIF runs inside our process, so "kernel" loads must be safe by
 * construction (DESIGN.md): an address is readable only inside
 *   - the DIF object's string table,
 *   - the scratch space allocated so far in this clause (also writable),
 *   - the consumer's variable storage (ks_vstate_region_end),
 *   - the probe-name strings of the mstate and the firing's execname,
 *   - the provider memory the firing offers (kpc_kmem: string args),
 *   - the clause-local slots.
 * and a few constant strings ("", "global").  Regions are checked afresh
 * on each access (scratch grows during a run).  User memory is read only
 * through the firing context: captured ranges first, then the provider's
 * kpc_copyin, else process_vm_readv on kpc_pid.  copyin wants a capture
 * holding the whole range; copyinstr takes a capture's bytes however
 * short (it ends at the string's NUL) and reads on live past its end.
 */
#include <string.h>
#include <sys/uio.h>
#include "dif_impl.h"

const char ks_dif_rodata[16] = "\0global";

void ks_dif_fault(ks_dif_exec_t *x, uint32_t kind, uint64_t addr)
{
	ks_mstate_t *ms = x->kdx_ms;

	if (ms->kms_fault != 0)
		return;
	ms->kms_fault = kind;
	ms->kms_fault_addr = addr;
}

const char *ks_dif_fault_name(uint32_t fault)
{
	switch (fault) {
#define FAULT_CASE(code, words) case code: return words;
	DTRACEFLT_NAMES(FAULT_CASE)
#undef FAULT_CASE
	default: return "unknown fault";
	}
}

uint64_t ks_dif_scratch_size(uint64_t strsize)
{
	uint64_t n = 16 * (strsize + 16);

	return n < 65536 ? 65536 : n;
}

/* End of [p, p + n) if it holds a, else 0. */
static inline uintptr_t in(uintptr_t a, const void *p, uint64_t n)
{
	uintptr_t lo = (uintptr_t)p;

	return (p != NULL && a >= lo && a - lo < n) ? lo + n : 0;
}

/* End of a NUL-terminated string s if it holds a, else 0. */
static uintptr_t in_str(uintptr_t a, const char *s)
{
	uintptr_t lo = (uintptr_t)s;

	if (s == NULL || a < lo || a - lo >= DTRACE_FUNCNAMELEN)
		return 0;
	return in(a, s, strlen(s) + 1);
}

/*
 * End of the readable region holding addr, or 0 if none does.  Checked in
 * order of likely use; nothing is cached, so regions that grow during a
 * run (scratch) are always current.
 */
static uintptr_t region_end(ks_dif_exec_t *x, uint64_t addr)
{
	const ks_mstate_t *ms = x->kdx_ms;
	const ks_difo_t *dp = x->kdx_dp;
	uintptr_t a = (uintptr_t)addr, e;

	if ((e = in(a, ms->kms_scratch, ms->kms_scratch_used)) != 0 ||
	    (e = in(a, dp->dtdo_strtab, dp->dtdo_strlen)) != 0 ||
	    (e = in(a, ks_dif_rodata, sizeof (ks_dif_rodata))) != 0)
		return e;
	if (ms->kms_ctx != NULL && (e = in(a, ms->kms_ctx->kpc_execname,
	    sizeof (ms->kms_ctx->kpc_execname))) != 0)
		return e;
	if (ms->kms_ctx != NULL &&
	    (e = in_str(a, ms->kms_ctx->kpc_psargs)) != 0)
		return e;
	for (uint32_t i = 0; ms->kms_ctx != NULL &&
	    i < ms->kms_ctx->kpc_nkmem; i++)
		if ((e = in(a, ms->kms_ctx->kpc_kmem[i].kuc_data,
		    ms->kms_ctx->kpc_kmem[i].kuc_len)) != 0)
			return e;
	if (ms->kms_vstate != NULL &&
	    (e = ks_vstate_region_end(ms->kms_vstate, a)) != 0)
		return e;
	if ((e = in(a, ms->kms_locals, (uint64_t)ms->kms_nlocals * 8)) != 0)
		return e;
	for (int i = 0; i < 4; i++) {
		if ((e = in_str(a, ms->kms_probe[i])) != 0)
			return e;
	}
	return 0;
}

int ks_dif_canload(ks_dif_exec_t *x, uint64_t addr, uint64_t size)
{
	uintptr_t end;

	if (size == 0)
		return 1;
	end = region_end(x, addr);
	if (end == 0 || size > end - (uintptr_t)addr) {
		ks_dif_fault(x, DTRACEFLT_BADADDR, addr);
		return 0;
	}
	return 1;
}

int64_t ks_dif_readable(const ks_difo_t *dp, ks_mstate_t *ms, uint64_t addr,
    uint64_t len, int string)
{
	ks_dif_exec_t x;

	x.kdx_dp = dp;
	x.kdx_ms = ms;
	x.kdx_ntup = 0;
	x.kdx_klen = 0;
	if (string)
		return ks_dif_strlen(&x, addr);
	return ks_dif_canload(&x, addr, len) ? (int64_t)len : -1;
}

int ks_dif_canstore(ks_dif_exec_t *x, uint64_t addr, uint64_t size)
{
	const ks_mstate_t *ms = x->kdx_ms;
	uintptr_t s = (uintptr_t)ms->kms_scratch;
	uintptr_t a = (uintptr_t)addr;

	if (s != 0 && a >= s && a <= s + ms->kms_scratch_used &&
	    size <= s + ms->kms_scratch_used - a)
		return 1;
	ks_dif_fault(x, DTRACEFLT_BADADDR, addr);
	return 0;
}

int64_t ks_dif_strlim(ks_dif_exec_t *x, uint64_t addr)
{
	uint64_t lim = x->kdx_ms->kms_strsize;
	uintptr_t end = region_end(x, addr);

	if (end == 0) {
		ks_dif_fault(x, DTRACEFLT_BADADDR, addr);
		return -1;
	}
	return (int64_t)(end - (uintptr_t)addr < lim ?
	    end - (uintptr_t)addr : lim);
}

int64_t ks_dif_strlen(ks_dif_exec_t *x, uint64_t addr)
{
	uint64_t lim = x->kdx_ms->kms_strsize;
	uintptr_t end = region_end(x, addr);
	const char *nul;

	if (end == 0) {
		ks_dif_fault(x, DTRACEFLT_BADADDR, addr);
		return -1;
	}
	if (end - (uintptr_t)addr < lim)
		lim = end - (uintptr_t)addr;
	for (uint64_t i = 0; i < lim && i < 16; i++) {	/* short strings */
		if (((const char *)(uintptr_t)addr)[i] == '\0')
			return (int64_t)i;
	}
	nul = lim > 16 ? memchr((const void *)(uintptr_t)(addr + 16), 0,
	    lim - 16) : NULL;
	if (nul != NULL)
		return nul - (const char *)(uintptr_t)addr;
	if (lim == x->kdx_ms->kms_strsize)
		return (int64_t)lim;
	ks_dif_fault(x, DTRACEFLT_BADADDR, addr + lim);
	return -1;
}

char *ks_dif_alloc(ks_dif_exec_t *x, uint64_t size)
{
	ks_mstate_t *ms = x->kdx_ms;
	uint64_t used = (ms->kms_scratch_used + 7) & ~(uint64_t)7;
	char *p;

	/* whole words: the last word of an object (a bit-field's unit at
	 * the end of a struct) is loadable */
	if (size > UINT64_MAX - 7) {
		ks_dif_fault(x, DTRACEFLT_NOSCRATCH, 0);
		return NULL;
	}
	size = (size + 7) & ~(uint64_t)7;
	if (ms->kms_scratch == NULL || used > ms->kms_scratch_size ||
	    size > ms->kms_scratch_size - used) {
		ks_dif_fault(x, DTRACEFLT_NOSCRATCH, 0);
		return NULL;
	}
	p = ms->kms_scratch + used;
	memset(p, 0, size);
	ms->kms_scratch_used = used + size;
	return p;
}

/* Read exactly len bytes of user memory; 0 or -1 (no fault recorded). */
static int uread(const ks_probe_ctx_t *ctx, uint64_t uaddr, void *buf,
    uint64_t len)
{
	for (uint32_t i = 0; i < ctx->kpc_nucap; i++) {
		const ks_ucapture_t *c = &ctx->kpc_ucap[i];

		if (c->kuc_data != NULL && uaddr >= c->kuc_addr &&
		    uaddr - c->kuc_addr <= c->kuc_len &&
		    len <= c->kuc_len - (uaddr - c->kuc_addr)) {
			memcpy(buf, c->kuc_data + (uaddr - c->kuc_addr), len);
			return 0;
		}
	}
	if (ctx->kpc_copyin != NULL)
		return ctx->kpc_copyin(ctx->kpc_copyin_arg, ctx->kpc_pid, uaddr,
		    buf, len) == (int64_t)len ? 0 : -1;
	if (ctx->kpc_pid <= 0)
		return -1;
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)uaddr, len };
	return process_vm_readv(ctx->kpc_pid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)len ? 0 : -1;
}

int ks_dif_copyin(ks_dif_exec_t *x, uint64_t uaddr, void *buf, uint64_t len)
{
	const ks_probe_ctx_t *ctx = x->kdx_ms->kms_ctx;

	if (len == 0)
		return 0;
	if (ctx == NULL || uaddr + len < uaddr ||
	    uread(ctx, uaddr, buf, len) != 0) {
		ks_dif_fault(x, DTRACEFLT_BADADDR, uaddr);
		return -1;
	}
	return 0;
}

/*
 * Captured bytes at uaddr for copyinstr: up to len of them from the first
 * capture holding uaddr, even fewer than len (a capture ends at its
 * string's NUL, or is cut short and the rest is read live).  The count
 * copied, or -1 if no capture holds uaddr.
 */
static int64_t capread(const ks_probe_ctx_t *ctx, uint64_t uaddr, char *buf,
    uint64_t len)
{
	for (uint32_t i = 0; i < ctx->kpc_nucap; i++) {
		const ks_ucapture_t *c = &ctx->kpc_ucap[i];
		uint64_t n;

		if (c->kuc_data == NULL || uaddr < c->kuc_addr ||
		    uaddr - c->kuc_addr >= c->kuc_len)
			continue;
		n = c->kuc_len - (uaddr - c->kuc_addr);
		n = n < len ? n : len;
		memcpy(buf, c->kuc_data + (uaddr - c->kuc_addr), n);
		return (int64_t)n;
	}
	return -1;
}

int64_t ks_dif_copyinstr(ks_dif_exec_t *x, uint64_t uaddr, char *buf,
    uint64_t len)
{
	const ks_probe_ctx_t *ctx = x->kdx_ms->kms_ctx;
	uint64_t got = 0;

	while (ctx != NULL && got < len) {
		uint64_t a = uaddr + got;
		uint64_t chunk = 4096 - (a & 4095);
		int64_t n;

		if (chunk > len - got)
			chunk = len - got;
		if (a < uaddr)
			break;
		if ((n = capread(ctx, a, buf + got, chunk)) > 0)
			chunk = (uint64_t)n;
		else if (uread(ctx, a, buf + got, chunk) != 0)
			break;
		const char *nul = memchr(buf + got, 0, chunk);
		if (nul != NULL)
			return (int64_t)(nul - buf);
		got += chunk;
	}
	if (got == 0 && len > 0) {
		ks_dif_fault(x, DTRACEFLT_BADADDR, uaddr);
		return -1;
	}
	return (int64_t)got;
}

int ks_dif_copyout(ks_dif_exec_t *x, const void *buf, uint64_t uaddr,
    uint64_t len)
{
	const ks_probe_ctx_t *ctx = x->kdx_ms->kms_ctx;
	struct iovec local = { (void *)(uintptr_t)buf, len };
	struct iovec remote = { (void *)(uintptr_t)uaddr, len };

	if (len == 0)
		return 0;
	if (ctx == NULL || ctx->kpc_pid <= 0 || uaddr + len < uaddr ||
	    process_vm_writev(ctx->kpc_pid, &local, 1, &remote, 1, 0) !=
	    (ssize_t)len) {
		ks_dif_fault(x, DTRACEFLT_BADADDR, uaddr);
		return -1;
	}
	return 0;
}
