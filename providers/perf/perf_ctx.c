/*
 * perf_ctx.c - the firing context of a perf sample (prov_perf_ctx): the
 * process fields from the process cache, the call chain split into
 * kernel and user stacks, the user registers put in uregs[] order, the
 * wall clock and vtimestamp.  The samples come from perf.c's rings; this
 * runs on its drain thread, in the sources' callbacks.
 */
#include <string.h>
#include <linux/perf_event.h>
#include "prov_impl.h"
#include "perf_impl.h"

#define MAX_CHAIN 256

/* Scratch the context points into: one instance (fctx), touched only
 * by the drain thread, valid until its next firing. */
typedef struct ctx_state {
	uint64_t kstack[MAX_CHAIN];	/* the firing's kernel stack */
	uint64_t ustack[MAX_CHAIN];	/* and user stack */
	uint64_t uregs[NUREGS];		/* its user registers */
} ctx_state_t;

static ctx_state_t fctx;

/* Split a perf call chain at its context markers. */
static void split_chain(ctx_state_t *fc, ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s)
{
	uint64_t *dst = NULL;
	uint32_t *np = NULL;

	for (uint32_t i = 0; i < s->pps_nchain; i++) {
		uint64_t pc = s->pps_chain[i];

		if (pc >= (uint64_t)PERF_CONTEXT_MAX) {
			if (pc == (uint64_t)PERF_CONTEXT_KERNEL) {
				dst = fc->kstack;
				np = &ctx->kpc_nkstack;
			} else if (pc == (uint64_t)PERF_CONTEXT_USER) {
				dst = fc->ustack;
				np = &ctx->kpc_nustack;
			} else {
				dst = NULL;
			}
			continue;
		}
		if (dst != NULL && *np < MAX_CHAIN)
			dst[(*np)++] = pc;
	}
	ctx->kpc_kstack = fc->kstack;
	ctx->kpc_ustack = fc->ustack;
	if (ctx->kpc_nkstack > 0)
		ctx->kpc_caller = ctx->kpc_nkstack > 1 ? fc->kstack[1] : 0;
	if (ctx->kpc_nustack > 1)
		ctx->kpc_ucaller = fc->ustack[1];
}

/*
 * User registers: perf samples those of UREGS_MASK in its own order (x86
 * asm/perf_regs.h: AX BX CX DX SI DI BP SP IP FLAGS CS SS, then R8-R15;
 * DS-GS are refused for 64-bit tasks); uregs[] indexes them as R_* in
 * struct pt_regs order.  orig_ax (R_ERR) is not in perf's set: 0.
 */
#if defined(__x86_64__)
static const int8_t uregs_from[NUREGS] = {
	19, 18, 17, 16, 6, 1, 15, 14, 13, 12,	/* r15 .. r8 (pt_regs) */
	0, 2, 3, 4, 5, -1, 8, 10, 9, 7, 11,	/* ax cx dx si di orig_ax ip
						 * cs flags sp ss */
};
#else
static const int8_t uregs_from[NUREGS] = { -1 };
#endif

uint64_t prov_perf_ureg(const prov_perf_sample_t *s, int reg)
{
	if (reg < 0 || reg >= NUREGS || uregs_from[reg] < 0 ||
	    (uint32_t)uregs_from[reg] >= s->pps_nuregs)
		return 0;
	return s->pps_uregs[uregs_from[reg]];
}

static void map_uregs(ctx_state_t *fc, ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s)
{
	if (UREGS_N == 0)
		return;
	for (int i = 0; i < NUREGS; i++)
		fc->uregs[i] = uregs_from[i] >= 0 &&
		    (uint32_t)uregs_from[i] < s->pps_nuregs ?
		    s->pps_uregs[uregs_from[i]] : 0;
	ctx->kpc_uregs = fc->uregs;
	ctx->kpc_nuregs = NUREGS;
}

void prov_perf_ctx(ks_probe_ctx_t *ctx, dtrace_id_t id,
    const prov_perf_sample_t *s)
{
	ctx_state_t *fc = &fctx;
	const prov_pinfo_t *pi = prov_pcache_get(s->pps_tid, s->pps_pid);

	memset(ctx, 0, sizeof(*ctx));
	ctx->kpc_id = id;
	ctx->kpc_cpu = s->pps_cpu;
	ctx->kpc_pid = s->pps_pid;
	ctx->kpc_tid = s->pps_tid;
	ctx->kpc_timestamp = s->pps_time;
	ctx->kpc_walltimestamp = s->pps_time + prov_perf_wall_off();
	if (pi != NULL) {
		ctx->kpc_ppid = pi->ppi_ppid;
		ctx->kpc_uid = pi->ppi_uid;
		ctx->kpc_gid = pi->ppi_gid;
		memcpy(ctx->kpc_execname, pi->ppi_comm, sizeof(pi->ppi_comm));
		ctx->kpc_psargs = pi->ppi_psargs;
		ctx->kpc_argc = pi->ppi_argc;
	}
	if (s->pps_nchain > 0)
		split_chain(fc, ctx, s);
	if (s->pps_nuregs > 0)
		map_uregs(fc, ctx, s);
	if (prov_vtime_active())
		ctx->kpc_vtimestamp = prov_vtime_get(s->pps_cpu, s->pps_tid,
		    s->pps_time, 1);
}
