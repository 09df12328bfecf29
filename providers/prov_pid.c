/*
 * prov_pid.c - the pid provider: pid<PID>:<module>:<function>:<name>
 * probes on a process's functions, through uprobes (root or
 * CAP_PERFMON): uprobe_multi links when the kernel has them (breakpoints
 * in that process only), else the perf uprobe PMU.
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
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "providers.h"
#include "prov_impl.h"
#include "uprobe/uprobe.h"
#include "uprobe/umulti.h"

typedef struct pidprobe {
	int pp_pid, pp_kind;
	uint64_t pp_foff;		/* file offset of the instruction */
	uint64_t pp_retoff;		/* return: arg0 */
	char *pp_path;
	dtrace_id_t pp_id;
	int pp_flags;			/* PROV_SAMPLE_*, PROV_UPROBE_RETURN */
	int pp_wanted;			/* enabled; guarded by lock */
	struct batch *pp_batch;		/* attached in; guarded by lock */
	struct pidprobe *pp_next;	/* in pending; guarded by lock */
} pidprobe_t;

/* Probes of one file and kind attached together: one uprobe_multi link
 * (or one perf uprobe set).  A member disabled stays attached until the
 * last one goes (its hits find no ECB in the shim). */
typedef struct batch {
	prov_uprobe_t *b_up;
	prov_umulti_t *b_um;
	pidprobe_t **b_members;
	int b_n, b_wanted;
} batch_t;

#define MAXPROCS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int pid;
	ks_provider_id_t id;
} provs[MAXPROCS];			/* guarded by lock */
static int nprovs;
static pidprobe_t *pending;		/* enabled, not attached: lock */

#define MAXFRAMES 128
static uint64_t frames[MAXFRAMES];	/* drain thread only */

/*
 * At a function's first instruction the frame pointer is still the
 * caller's, so the kernel's frame walk goes from the caller's caller:
 * the return address at the stack pointer is the missing frame (what
 * fasttrap adds for entry probes).  It is also ucaller.
 */
static void entry_frames(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    uint64_t rsp)
{
	uint64_t ret;
	uint32_t n = ctx->kpc_nustack;

	if (n == 0 || prov_uprobe_read(s, rsp, &ret, sizeof (ret)) != 0)
		return;
	frames[0] = ctx->kpc_ustack[0];
	frames[1] = ret;
	for (uint32_t i = 1; i < n && i + 1 < MAXFRAMES; i++)
		frames[i + 1] = ctx->kpc_ustack[i];
	ctx->kpc_ustack = frames;
	ctx->kpc_nustack = n + 1 < MAXFRAMES ? n + 1 : MAXFRAMES;
	ctx->kpc_ucaller = ret;
}

/*
 * A return probe seen through a uprobe_multi link knows its function's
 * address (ip): as fasttrap's return probes, the firing is at the
 * returning instruction (ip + arg0): that is uregs[R_PC] and the top
 * frame, above the caller the kernel's frame walk starts from (the
 * return address, also ucaller).
 */
static void return_frames(ks_probe_ctx_t *ctx, uint64_t *uregs,
    uint64_t at)
{
	uint32_t n = ctx->kpc_nustack;

	ctx->kpc_ucaller = uregs[PROV_UREG_RIP];
	uregs[PROV_UREG_RIP] = at;
	if (n == 0)
		return;
	frames[0] = at;
	for (uint32_t i = 0; i < n && i + 1 < MAXFRAMES; i++)
		frames[i + 1] = ctx->kpc_ustack[i];
	ctx->kpc_ustack = frames;
	ctx->kpc_nustack = n + 1 < MAXFRAMES ? n + 1 : MAXFRAMES;
}

/* Arguments by the probe's kind, from registers in uregs[] order. */
static void fire(const pidprobe_t *pp, ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const uint64_t *regs)
{
	static const int argregs[6] = { PROV_UREG_RDI, PROV_UREG_RSI,
	    PROV_UREG_RDX, PROV_UREG_RCX, PROV_UREG_R8, PROV_UREG_R9 };

	if (pp->pp_kind == PROV_PID_RETURN) {
		ctx->kpc_args[0] = pp->pp_retoff;
		ctx->kpc_args[1] = regs[PROV_UREG_RAX];
	} else {
		for (int i = 0; i < 6; i++)
			ctx->kpc_args[i] = regs[argregs[i]];
		if (pp->pp_kind == PROV_PID_ENTRY)
			entry_frames(ctx, s, regs[PROV_UREG_RSP]);
	}
	prov_fire(ctx);
}

/* A hit through the perf uprobe PMU (registers in the sample). */
static void on_hit(void *arg, uint64_t cookie, const prov_perf_sample_t *s)
{
	const pidprobe_t *pp = (const pidprobe_t *)(uintptr_t)cookie;
	uint64_t regs[PROV_UREG_COUNT];
	ks_probe_ctx_t ctx;

	(void)arg;
	prov_uprobe_ctx(&ctx, pp->pp_id, s);
	for (int i = 0; i < PROV_UREG_COUNT; i++)
		regs[i] = prov_perf_ureg(s, i);
	fire(pp, &ctx, s, regs);
}

/* A hit through a uprobe_multi link (registers from its program). */
static void on_multi(void *arg, uint64_t cookie, const prov_perf_sample_t *s,
    const uint64_t *regs, uint64_t ip)
{
	const pidprobe_t *pp = (const pidprobe_t *)(uintptr_t)cookie;
	static uint64_t uregs[PROV_UREG_COUNT];	/* drain thread only */
	ks_probe_ctx_t ctx;

	(void)arg;
	prov_perf_ctx(&ctx, pp->pp_id, s);
	memcpy(uregs, regs, sizeof (uregs));
	if (pp->pp_kind == PROV_PID_RETURN && ip != 0)
		return_frames(&ctx, uregs, ip + pp->pp_retoff);
	ctx.kpc_uregs = uregs;
	ctx.kpc_nuregs = PROV_UREG_COUNT;
	fire(pp, &ctx, s, regs);
}

static int pid_enable(void *parg, dtrace_id_t id, void *arg)
{
	pidprobe_t *pp = arg;
	int flags = prov_perf_wants_stack(id);

	(void)parg;
	if (!prov_umulti_available() && !prov_uprobe_available())
		return -1;		/* the reason is in ks_provider_error */
	if (pp->pp_kind == PROV_PID_RETURN)
		flags |= PROV_UPROBE_RETURN;
	pthread_mutex_lock(&lock);
	if (!pp->pp_wanted) {
		pp->pp_wanted = 1;
		if (pp->pp_batch != NULL && pp->pp_flags == flags) {
			pp->pp_batch->b_wanted++;
		} else if (pp->pp_batch == NULL) {
			pp->pp_flags = flags;
			pp->pp_next = pending;	/* prov_pid_commit attaches */
			pending = pp;
		}
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Detach b and forget it in its members (lock held). */
static void batch_free(batch_t *b)
{
	for (int i = 0; i < b->b_n; i++)
		b->b_members[i]->pp_batch = NULL;
	prov_uprobe_detach(b->b_up);
	prov_umulti_detach(b->b_um);
	free(b->b_members);
	free(b);
}

static void pid_disable(void *parg, dtrace_id_t id, void *arg)
{
	pidprobe_t *pp = arg;

	(void)parg;
	(void)id;
	pthread_mutex_lock(&lock);
	if (pp->pp_wanted) {
		pp->pp_wanted = 0;
		if (pp->pp_batch != NULL && --pp->pp_batch->b_wanted == 0)
			batch_free(pp->pp_batch);
		for (pidprobe_t **q = &pending; *q != NULL; q = &(*q)->pp_next)
			if (*q == pp) {
				*q = pp->pp_next;
				break;
			}
	}
	pthread_mutex_unlock(&lock);
}

/* One link (or perf set) for the n probes in v; NULL if refused. */
static batch_t *attach_one(pidprobe_t **v, int n)
{
	prov_uprobe_site_t *sites = calloc((size_t)n, sizeof (*sites));
	batch_t *b = calloc(1, sizeof (*b));
	int flags = v[0]->pp_flags;

	if (sites == NULL || b == NULL) {
		free(sites);
		free(b);
		ks_provider_error("pid provider: out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		sites[i].pus_offset = v[i]->pp_foff;
		sites[i].pus_cookie = (uint64_t)(uintptr_t)v[i];
	}
	/* uprobe_multi: breakpoints in this process only; else the perf
	 * PMU's system-wide uprobes */
	if (prov_umulti_available())
		b->b_um = prov_umulti_attach(v[0]->pp_path, sites, n,
		    v[0]->pp_pid, flags, on_multi, NULL);
	else if (prov_uprobe_available())
		b->b_up = prov_uprobe_attach(v[0]->pp_path, sites, n,
		    v[0]->pp_pid, flags | (!(flags & PROV_UPROBE_RETURN) &&
		    (flags & PROV_SAMPLE_CHAIN) ? PROV_SAMPLE_USTACK : 0),
		    on_hit, NULL);
	free(sites);
	if (b->b_um == NULL && b->b_up == NULL) {
		free(b);
		return NULL;
	}
	if ((b->b_members = malloc((size_t)n * sizeof (*v))) == NULL) {
		batch_free(b);
		ks_provider_error("pid provider: out of memory");
		return NULL;
	}
	memcpy(b->b_members, v, (size_t)n * sizeof (*v));
	b->b_n = b->b_wanted = n;
	for (int i = 0; i < n; i++)
		v[i]->pp_batch = b;
	return b;
}

/*
 * Attach the n pending probes in v (same pid, file and flags).  The
 * kernel refuses a whole link for one instruction it cannot probe
 * (ENOTSUPP), so a refused set is split in halves until the refused
 * sites stand alone; those stay unattached and are counted in *bad.
 * 0, or -1 when nothing could be attached (lock held).
 */
static int attach(pidprobe_t **v, int n, int *bad)
{
	int l, r;

	if (attach_one(v, n) != NULL)
		return 0;
	if (n == 1) {
		(*bad)++;
		return -1;
	}
	l = attach(v, n / 2, bad);
	r = attach(v + n / 2, n - n / 2, bad);
	return l == 0 || r == 0 ? 0 : -1;
}

/*
 * Leave out of v the sites whose instruction starts with a lock prefix:
 * the kernel refuses to probe those (ENOTSUPP), and a refused site costs
 * a failed link over the whole set.  The new count.
 */
static int probeable(pidprobe_t **v, int n, int *bad)
{
	int fd = open(v[0]->pp_path, O_RDONLY | O_CLOEXEC), k = 0;

	for (int i = 0; i < n; i++) {
		unsigned char c = 0;

		if (fd >= 0 && pread(fd, &c, 1, (off_t)v[i]->pp_foff) == 1 &&
		    c == 0xf0) {
			(*bad)++;
			continue;
		}
		v[k++] = v[i];
	}
	if (fd >= 0)
		close(fd);
	return k;
}

static int same_site_set(const pidprobe_t *a, const pidprobe_t *b)
{
	return a->pp_pid == b->pp_pid && a->pp_flags == b->pp_flags &&
	    strcmp(a->pp_path, b->pp_path) == 0;
}

int prov_pid_commit(char *err, size_t errlen)
{
	int rc = 0, bad = 0;

	pthread_mutex_lock(&lock);
	while (pending != NULL && rc == 0) {
		pidprobe_t **v, *pp, **q;
		int n = 0;

		for (pp = pending; pp != NULL; pp = pp->pp_next)
			n++;
		if ((v = malloc((size_t)n * sizeof (*v))) == NULL) {
			ks_provider_error("pid provider: out of memory");
			rc = -1;
			break;
		}
		/* the first pending probe's set, out of the list */
		n = 0;
		pp = pending;
		for (q = &pending; *q != NULL; ) {
			if (same_site_set(*q, pp)) {
				v[n++] = *q;
				*q = (*q)->pp_next;
			} else {
				q = &(*q)->pp_next;
			}
		}
		if ((n = probeable(v, n, &bad)) > 0 && attach(v, n, &bad) != 0)
			rc = -1;
		free(v);
	}
	pthread_mutex_unlock(&lock);
	if (rc != 0)
		snprintf(err, errlen, "%s", ks_provider_errmsg());
	else if (bad > 0)
		prov_note("pid provider: %d probe%s at instructions uprobes "
		    "cannot probe", bad, bad == 1 ? "" : "s");
	return rc;
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
	pthread_mutex_lock(&lock);
	if (pp->pp_batch != NULL)	/* its site would name freed memory */
		batch_free(pp->pp_batch);
	pthread_mutex_unlock(&lock);
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
