/*
 * prov_pid.c - the pid provider: pid<PID>:<module>:<function>:<name>
 * probes on a process's functions, through uprobes (root or
 * CAP_PERFMON).
 *
 * The engine decides which probes exist (engine/pid.c walks the
 * process's objects and ELF symbols, as libdtrace's dt_pid does) and
 * creates each here with prov_pid_probe(): the object's path and the
 * file offset of the probed instruction.  A provider "pid<PID>" is
 * registered with the shim on the first probe of that process.
 * Enabling attaches a uprobe (uretprobe for :return) that delivers only
 * that process's hits; the firing's arguments follow the x86_64 calling
 * convention: entry and offset probes arg0..arg5 = rdi, rsi, rdx, rcx,
 * r8, r9; return probes arg0 = the offset of the returning instruction
 * in the function (as given by the engine) and arg1 = rax.
 *
 * Locking: the table of providers and each probe's attachment are
 * guarded by lock; hits run on the perf drain thread and read only what
 * is immutable while the probe is attached.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "providers.h"
#include "prov_impl.h"
#include "uprobe/uprobe.h"

typedef struct pidprobe {
	int pp_pid, pp_kind;
	uint64_t pp_foff;		/* file offset of the instruction */
	uint64_t pp_retoff;		/* return: arg0 */
	char *pp_path;
	dtrace_id_t pp_id;
	prov_uprobe_t *pp_up;		/* attached, guarded by lock */
} pidprobe_t;

#define MAXPROCS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int pid;
	ks_provider_id_t id;
} provs[MAXPROCS];			/* guarded by lock */
static int nprovs;

#define MAXFRAMES 128
static uint64_t frames[MAXFRAMES];	/* drain thread only */

/*
 * At a function's first instruction the frame pointer is still the
 * caller's, so the kernel's frame walk goes from the caller's caller:
 * the return address at the stack pointer is the missing frame (what
 * fasttrap adds for entry probes).  It is also ucaller.
 */
static void entry_frames(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s)
{
	uint64_t ret;
	uint32_t n = ctx->kpc_nustack;

	if (n == 0 || prov_uprobe_read(s, prov_perf_ureg(s, PROV_UREG_RSP),
	    &ret, sizeof (ret)) != 0)
		return;
	frames[0] = ctx->kpc_ustack[0];
	frames[1] = ret;
	for (uint32_t i = 1; i < n && i + 1 < MAXFRAMES; i++)
		frames[i + 1] = ctx->kpc_ustack[i];
	ctx->kpc_ustack = frames;
	ctx->kpc_nustack = n + 1 < MAXFRAMES ? n + 1 : MAXFRAMES;
	ctx->kpc_ucaller = ret;
}

static void on_hit(void *arg, uint64_t cookie, const prov_perf_sample_t *s)
{
	const pidprobe_t *pp = (const pidprobe_t *)(uintptr_t)cookie;
	static const int argregs[6] = { PROV_UREG_RDI, PROV_UREG_RSI,
	    PROV_UREG_RDX, PROV_UREG_RCX, PROV_UREG_R8, PROV_UREG_R9 };
	ks_probe_ctx_t ctx;

	(void)arg;
	prov_uprobe_ctx(&ctx, pp->pp_id, s);
	if (pp->pp_kind == PROV_PID_RETURN) {
		ctx.kpc_args[0] = pp->pp_retoff;
		ctx.kpc_args[1] = prov_perf_ureg(s, PROV_UREG_RAX);
	} else {
		for (int i = 0; i < 6; i++)
			ctx.kpc_args[i] = prov_perf_ureg(s, argregs[i]);
		if (pp->pp_kind == PROV_PID_ENTRY)
			entry_frames(&ctx, s);
	}
	prov_fire(&ctx);
}

static int pid_enable(void *parg, dtrace_id_t id, void *arg)
{
	pidprobe_t *pp = arg;
	prov_uprobe_site_t site = { .pus_offset = pp->pp_foff,
	    .pus_cookie = (uint64_t)(uintptr_t)pp };
	int flags = prov_perf_wants_stack(id);

	(void)parg;
	if (!prov_uprobe_available())
		return -1;		/* the reason is in ks_provider_error */
	if (pp->pp_kind == PROV_PID_RETURN)
		flags |= PROV_UPROBE_RETURN;
	else if (flags & PROV_SAMPLE_CHAIN)
		flags |= PROV_SAMPLE_USTACK;	/* the return address */
	pthread_mutex_lock(&lock);
	if (pp->pp_up == NULL)
		pp->pp_up = prov_uprobe_attach(pp->pp_path, &site, 1,
		    pp->pp_pid, flags, on_hit, NULL);
	pthread_mutex_unlock(&lock);
	return pp->pp_up != NULL ? 0 : -1;
}

static void pid_disable(void *parg, dtrace_id_t id, void *arg)
{
	pidprobe_t *pp = arg;
	prov_uprobe_t *u;

	(void)parg;
	(void)id;
	pthread_mutex_lock(&lock);
	u = pp->pp_up;
	pp->pp_up = NULL;
	pthread_mutex_unlock(&lock);
	if (u != NULL)
		prov_uprobe_detach(u);
}

static void pid_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc)
{
	const pidprobe_t *pp = arg;
	int n = pp->pp_kind == PROV_PID_RETURN ? 2 : 6;

	(void)parg;
	(void)id;
	if (desc->dtargd_ndx >= n) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	snprintf(desc->dtargd_native, sizeof (desc->dtargd_native),
	    "uint64_t");
	desc->dtargd_xlate[0] = '\0';
	desc->dtargd_mapping = desc->dtargd_ndx;
}

static void pid_destroy(void *parg, dtrace_id_t id, void *arg)
{
	pidprobe_t *pp = arg;

	(void)parg;
	(void)id;
	pid_disable(parg, id, arg);
	free(pp->pp_path);
	free(pp);
}

static const ks_provider_ops_t pid_ops = {
	.kpo_enable = pid_enable,
	.kpo_disable = pid_disable,
	.kpo_getargdesc = pid_getargdesc,
	.kpo_destroy = pid_destroy,
};

/* The shim provider of pid's probes (registered on first use). */
static int provider(int pid, ks_provider_id_t *id)
{
	char name[DTRACE_PROVNAMELEN];
	int rc = 0;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < nprovs; i++)
		if (provs[i].pid == pid) {
			*id = provs[i].id;
			pthread_mutex_unlock(&lock);
			return 0;
		}
	snprintf(name, sizeof (name), "pid%d", pid);
	if (nprovs == MAXPROCS ||
	    ks_provider_register(name, &pid_ops, NULL, id) != 0) {
		rc = -1;
	} else {
		provs[nprovs].pid = pid;
		provs[nprovs++].id = *id;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

uint32_t prov_pid_probe(const prov_pid_site_t *ps)
{
	ks_provider_id_t prov;
	dtrace_id_t id;
	pidprobe_t *pp;

	if (provider(ps->pps_pid, &prov) != 0)
		return DTRACE_IDNONE;
	if ((id = ks_probe_lookup(prov, ps->pps_mod, ps->pps_func,
	    ps->pps_name)) != DTRACE_IDNONE)
		return id;
	if ((pp = calloc(1, sizeof (*pp))) == NULL ||
	    (pp->pp_path = strdup(ps->pps_path)) == NULL) {
		free(pp);
		return DTRACE_IDNONE;
	}
	pp->pp_pid = ps->pps_pid;
	pp->pp_kind = ps->pps_kind;
	pp->pp_foff = ps->pps_foff;
	pp->pp_retoff = ps->pps_retoff;
	/* no artificial frames: the uprobe fires in user context */
	id = ks_probe_create(prov, ps->pps_mod, ps->pps_func, ps->pps_name, 0,
	    pp);
	if (id == DTRACE_IDNONE) {
		free(pp->pp_path);
		free(pp);
		return DTRACE_IDNONE;
	}
	pp->pp_id = id;
	return id;
}
