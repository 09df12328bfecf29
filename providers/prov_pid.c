/*
 * prov_pid.c - the pid provider: pid<PID>:<module>:<function>:<name>
 * probes on a process's functions, through uprobes (root or
 * CAP_PERFMON, uprobe/uprobe.h: uprobe_multi links when the kernel has
 * them, with breakpoints in that process only, else the perf uprobe PMU).
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
 * in the function and arg1 = rax.  A return probe is a uprobe at each
 * returning instruction the engine found (fasttrap's way: it fires at
 * the ret, before it pops the return address), or, for a function the
 * engine could not decode, a uretprobe (fires at the return address,
 * arg0 0).
 *
 * Locking: the state is one pid_state_t (below), whose fields say
 * what guards them; hits run on the perf drain thread and read only what
 * is immutable while the probe is attached.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "providers.h"
#include "prov_impl.h"
#include "uprobe/uprobe.h"

struct pidprobe;

/* One probed instruction of a probe: a uprobe site's cookie. */
typedef struct pidsite {
	struct pidprobe *ps_pp;
	uint64_t ps_off;		/* from pp_foff; a return's arg0 */
} pidsite_t;

typedef struct pidprobe {
	int pp_pid, pp_kind;
	int pp_uret;			/* return probe by uretprobe only
					 * (its rets are not known) */
	int pp_asuret;			/* attached as a uretprobe (lock;
					 * fixed while attached) */
	pidsite_t pp_fsite;		/* the function's entry: its site
					 * then (ps_off 0) */
	uint64_t pp_foff;		/* file offset of the instruction, or
					 * of the function (return) */
	pidsite_t *pp_sites;		/* where it fires */
	int pp_nsites;
	char *pp_path;
	dtrace_id_t pp_id;
	int pp_flags;			/* PROV_SAMPLE_*, PROV_UPROBE_RETURN */
	unsigned pp_caps;		/* bit N: copy argN's memory at each
					 * hit (prov_uprobe_capargs) */
	int pp_wanted;			/* enabled; guarded by lock */
	struct batch *pp_batch;		/* attached in; guarded by lock */
	struct pidprobe *pp_next;	/* in pending; guarded by lock */
} pidprobe_t;

/* Probes of one file and kind attached together: one uprobe attachment.
 * A member disabled stays attached until the last one goes (its hits
 * find no ECB in the shim). */
typedef struct batch {
	prov_uprobe_t *b_up;
	pidprobe_t **b_members;
	int b_n, b_wanted;
} batch_t;

#define MAXPROCS 64
#define MAXFRAMES 128

/* The state of the pid provider: one instance (pid_state). */
typedef struct pid_state {
	pthread_mutex_t lock;		/* the fields below to pending, and
					 * each probe's pp_wanted, pp_batch,
					 * pp_next */
	struct {
		int pid;
		ks_provider_id_t id;
		uint64_t start;		/* the process's start time */
		uint64_t seen;		/* when it was last seen alive (ns) */
	} provs[MAXPROCS];		/* lock: providers registered */
	int nprovs;			/* lock */
	pidprobe_t *pending;		/* lock: enabled, not attached */
	uint64_t frames[MAXFRAMES];	/* drain thread only: ustack() with
					 * the frame a hit adds */
	uint64_t uregs[PROV_UREG_COUNT];	/* drain thread only: a return
					 * hit's registers, rip moved */
} pid_state_t;

static pid_state_t pid_state = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * At a function's first instruction the frame pointer is still the
 * caller's, so the kernel's frame walk goes from the caller's caller:
 * the return address at the stack pointer is the missing frame (what
 * fasttrap adds for entry probes).  It is also ucaller.
 */
static void entry_frames(pid_state_t *pst, ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, uint64_t rsp)
{
	uint64_t ret;
	uint32_t n = ctx->kpc_nustack;

	if (n == 0 || prov_uprobe_read(s, rsp, &ret, sizeof (ret)) != 0)
		return;
	pst->frames[0] = ctx->kpc_ustack[0];
	pst->frames[1] = ret;
	for (uint32_t i = 1; i < n && i + 1 < MAXFRAMES; i++)
		pst->frames[i + 1] = ctx->kpc_ustack[i];
	ctx->kpc_ustack = pst->frames;
	ctx->kpc_nustack = n + 1 < MAXFRAMES ? n + 1 : MAXFRAMES;
	ctx->kpc_ucaller = ret;
}

/* Where an entry's arg0..arg5 are (x86_64 calling convention). */
static const int argregs[6] = { PROV_UREG_RDI, PROV_UREG_RSI,
    PROV_UREG_RDX, PROV_UREG_RCX, PROV_UREG_R8, PROV_UREG_R9 };

/* A hit: arguments by the probe's kind, from the sampled registers. */
static void on_hit(void *arg, uint64_t cookie, const prov_perf_sample_t *s)
{
	const pidsite_t *site = (const pidsite_t *)(uintptr_t)cookie;
	const pidprobe_t *pp = site->ps_pp;
	pid_state_t *pst = arg;
	ks_probe_ctx_t ctx;

	prov_uprobe_ctx(&ctx, pp->pp_id, s);
	for (int i = 0; i < PROV_UREG_COUNT; i++)
		pst->uregs[i] = prov_perf_ureg(s, i);
	if (pp->pp_kind == PROV_PID_RETURN) {
		ctx.kpc_args[0] = site->ps_off;
		ctx.kpc_args[1] = pst->uregs[PROV_UREG_RAX];
		/* at a ret (or tail jump) the frame is gone: the return
		 * address is at the stack pointer, as at an entry; after a
		 * uretprobe's return it is where we are */
		if (pp->pp_asuret)
			ctx.kpc_ucaller = pst->uregs[PROV_UREG_RIP];
		else
			entry_frames(pst, &ctx, s, pst->uregs[PROV_UREG_RSP]);
	} else {
		for (int i = 0; i < 6; i++)
			ctx.kpc_args[i] = pst->uregs[argregs[i]];
		if (pp->pp_kind == PROV_PID_ENTRY)
			entry_frames(pst, &ctx, s, pst->uregs[PROV_UREG_RSP]);
	}
	prov_fire(&ctx);
}

/*
 * A return probe is placed at each returning instruction (arg0 says
 * which), or as a uretprobe when no ECB reads arg0, uregs[] or stacks
 * (all they could tell apart): the kernel then shares the function's
 * entry breakpoint with an entry probe there and returns through its
 * trampoline, so the entry/return pair costs one trap where it cost
 * two.  DTUI_PID_RETSITES=1 keeps the returning instructions, as the
 * ptrace route does.
 */
static int as_uretprobe(const pidprobe_t *pp, int wants)
{
	const char *e = getenv("DTUI_PID_RETSITES");

	if (pp->pp_uret)
		return 1;
	return pp->pp_kind == PROV_PID_RETURN && !prov_ptup_route() &&
	    (e == NULL ||
	    strcmp(e, "1") != 0) && !(wants & (KS_WANT_STACK |
	    KS_WANT_UREGS | KS_WANT_ARG0));
}

static int pid_enable(void *parg, dtrace_id_t id, void *arg)
{
	pid_state_t *pst = parg;
	pidprobe_t *pp = arg;
	int flags = prov_perf_wants_stack(id), uret;
	unsigned caps = prov_uprobe_capargs(id);

	if (!prov_uprobe_available())
		return -1;		/* the reason is in ks_provider_error */
	uret = as_uretprobe(pp, ks_probe_wants(id));
	if (uret)
		flags |= PROV_UPROBE_RETURN;
	else if (pp->pp_kind != PROV_PID_OFFSET && (flags & PROV_SAMPLE_CHAIN))
		flags |= PROV_SAMPLE_USTACK;	/* entry_frames reads there */
	pthread_mutex_lock(&pst->lock);
	if (!pp->pp_wanted) {
		pp->pp_wanted = 1;
		if (pp->pp_batch != NULL && pp->pp_flags == flags) {
			pp->pp_batch->b_wanted++;
		} else if (pp->pp_batch == NULL) {
			pp->pp_flags = flags;
			pp->pp_caps = caps;
			pp->pp_asuret = uret;
			pp->pp_next = pst->pending; /* prov_pid_commit attaches */
			pst->pending = pp;
		}
	}
	pthread_mutex_unlock(&pst->lock);
	return 0;
}

/* Detach b and forget it in its members (lock held). */
static void batch_free(batch_t *b)
{
	for (int i = 0; i < b->b_n; i++)
		b->b_members[i]->pp_batch = NULL;
	prov_uprobe_detach(b->b_up);
	free(b->b_members);
	free(b);
}

static void pid_disable(void *parg, dtrace_id_t id, void *arg)
{
	pid_state_t *pst = parg;
	pidprobe_t *pp = arg;

	(void)id;
	pthread_mutex_lock(&pst->lock);
	if (pp->pp_wanted) {
		pp->pp_wanted = 0;
		if (pp->pp_batch != NULL && --pp->pp_batch->b_wanted == 0)
			batch_free(pp->pp_batch);
		for (pidprobe_t **q = &pst->pending; *q != NULL;
		    q = &(*q)->pp_next)
			if (*q == pp) {
				*q = pp->pp_next;
				break;
			}
	}
	pthread_mutex_unlock(&pst->lock);
}

/* The memory site k of probe pp copies at each hit: what its arguments
 * in pp_caps point to (a return probe's arg1 only: arg0 is an offset). */
static void site_caps(const pidprobe_t *pp, prov_uprobe_site_t *site)
{
	int k = 0;

	for (int a = 0; a < 6 && k < PROV_UPROBE_NCAP; a++) {
		if (!(pp->pp_caps & (1u << a)) ||
		    (pp->pp_kind == PROV_PID_RETURN && a != 1))
			continue;
		site->pus_caps[k].puc_kind = PROV_UCAP_REG;
		site->pus_caps[k++].puc_reg = (uint8_t)(pp->pp_kind ==
		    PROV_PID_RETURN ? PROV_UREG_RAX : argregs[a]);
	}
}

/*
 * Attach the n pending probes in v (same pid, file and flags) as one
 * batch (lock held).  Sites at instructions uprobes cannot probe stay
 * unattached and are counted in *bad.  0 or -1.
 */
static int attach(pid_state_t *pst, pidprobe_t **v, int n, int *bad)
{
	prov_uprobe_site_t *sites;
	batch_t *b = calloc(1, sizeof (*b));
	int nsites = 0, k = 0;

	for (int i = 0; i < n; i++)
		nsites += v[i]->pp_asuret ? 1 : v[i]->pp_nsites;
	sites = calloc((size_t)nsites, sizeof (*sites));

	if (sites == NULL || b == NULL ||
	    (b->b_members = malloc((size_t)n * sizeof (*v))) == NULL) {
		free(sites);
		free(b);
		ks_provider_error("pid provider: out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < (v[i]->pp_asuret ? 1 : v[i]->pp_nsites);
		    j++, k++) {
			const pidsite_t *ps = v[i]->pp_asuret ?
			    &v[i]->pp_fsite : &v[i]->pp_sites[j];

			sites[k].pus_offset = v[i]->pp_foff + ps->ps_off;
			sites[k].pus_cookie = (uint64_t)(uintptr_t)ps;
			/* each hit fires it once (on_hit): its predicates
			 * and aggregations may be done in the kernel */
			sites[k].pus_probe = v[i]->pp_id;
			sites[k].pus_regargs = v[i]->pp_kind ==
			    PROV_PID_RETURN ? PROV_UPROBE_ARGS_RETURN :
			    PROV_UPROBE_ARGS_ENTRY;
			site_caps(v[i], &sites[k]);
		}
	b->b_up = prov_uprobe_attach(v[0]->pp_path, sites, nsites, v[0]->pp_pid,
	    v[0]->pp_flags, on_hit, pst);
	free(sites);
	if (b->b_up == NULL) {
		free(b->b_members);
		free(b);
		return -1;
	}
	*bad += prov_uprobe_refused(b->b_up);
	memcpy(b->b_members, v, (size_t)n * sizeof (*v));
	b->b_n = b->b_wanted = n;
	for (int i = 0; i < n; i++)
		v[i]->pp_batch = b;
	return 0;
}

static int same_site_set(const pidprobe_t *a, const pidprobe_t *b)
{
	return a->pp_pid == b->pp_pid && a->pp_flags == b->pp_flags &&
	    strcmp(a->pp_path, b->pp_path) == 0;
}

int prov_pid_commit(char *err, size_t errlen)
{
	pid_state_t *pst = &pid_state;
	int rc = 0, bad = 0, attached;

	pthread_mutex_lock(&pst->lock);
	attached = pst->pending != NULL;
	while (pst->pending != NULL && rc == 0) {
		pidprobe_t **v, *pp, **q;
		int n = 0;

		for (pp = pst->pending; pp != NULL; pp = pp->pp_next)
			n++;
		if ((v = malloc((size_t)n * sizeof (*v))) == NULL) {
			ks_provider_error("pid provider: out of memory");
			rc = -1;
			break;
		}
		/* the first pending probe's set, out of the list */
		n = 0;
		pp = pst->pending;
		for (q = &pst->pending; *q != NULL; ) {
			if (same_site_set(*q, pp)) {
				v[n++] = *q;
				*q = (*q)->pp_next;
			} else {
				q = &(*q)->pp_next;
			}
		}
		if (attach(pst, v, n, &bad) != 0)
			rc = -1;
		free(v);
	}
	pthread_mutex_unlock(&pst->lock);
	if (rc == 0 && attached)
		prov_uprobe_settle();
	if (rc != 0)
		snprintf(err, errlen, "%s", ks_provider_errmsg());
	else if (bad > 0)
		prov_note("pid provider: %d site%s at instructions uprobes "
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
	pid_state_t *pst = parg;
	pidprobe_t *pp = arg;

	pid_disable(parg, id, arg);
	pthread_mutex_lock(&pst->lock);
	if (pp->pp_batch != NULL)	/* its site would name freed memory */
		batch_free(pp->pp_batch);
	pthread_mutex_unlock(&pst->lock);
	free(pp->pp_sites);
	free(pp->pp_path);
	free(pp);
}

static const ks_provider_ops_t pid_ops = {
	.kpo_enable = pid_enable,
	.kpo_disable = pid_disable,
	.kpo_getargdesc = pid_getargdesc,
	.kpo_wants = KS_WANT_UARGS | KS_WANT_ARG0,	/* strings captured
					 * at the event; return sites */
	.kpo_destroy = pid_destroy,
};

/* pid's start time (clock ticks after boot, /proc/PID/stat's 22nd
 * field), 0 if it is gone or a zombie: with the pid it names one
 * process, a reused pid another. */
static uint64_t start_time(int pid)
{
	char path[40], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof (path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof (buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* "pid (comm) S ...": the fields after the last ')' */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == 'Z' ||
	    p[2] == 'X')
		return 0;
	p += 2;
	for (int f = 3; f < 22 && p != NULL; f++)
		if ((p = strchr(p, ' ')) != NULL)
			p++;
	return p != NULL ? strtoull(p, NULL, 10) : 0;
}

/* Is provs[i]'s process still there (lock held)?  A reaped one is seen
 * gone at once; a zombie or a reused pid within 100 ms (its start time
 * read no more often: probes are made by the thousand). */
static int prov_alive(pid_state_t *pst, int i, uint64_t now)
{
	uint64_t st;

	if (kill(pst->provs[i].pid, 0) != 0 && errno == ESRCH)
		return 0;		/* gone and reaped */
	if (now - pst->provs[i].seen < 100000000ull)
		return 1;
	if ((st = start_time(pst->provs[i].pid)) == 0 ||
	    st != pst->provs[i].start)
		return 0;
	pst->provs[i].seen = now;
	return 1;
}

/* Unregister provs[i], whose process is gone (lock held): its probes
 * match no description from now on, its name may come back for another
 * process with that pid, and it counts no more against MAXPROCS.  Its
 * probes stay (an enabled one is still disabled through pid_ops). */
static void prov_forget(pid_state_t *pst, int i)
{
	(void)ks_provider_unregister(pst->provs[i].id);
	pst->provs[i] = pst->provs[--pst->nprovs];
}

/* The shim provider of pid's probes (registered on first use); the
 * providers of processes gone are unregistered first. */
static int provider(int pid, ks_provider_id_t *id)
{
	pid_state_t *pst = &pid_state;
	char name[DTRACE_PROVNAMELEN];
	uint64_t now = ks_gethrtime();
	int rc = 0;

	pthread_mutex_lock(&pst->lock);
	for (int i = 0; i < pst->nprovs; i++)
		if (pst->provs[i].pid == pid) {
			if (!prov_alive(pst, i, now)) {
				prov_forget(pst, i);	/* a reused pid */
				break;
			}
			*id = pst->provs[i].id;
			pthread_mutex_unlock(&pst->lock);
			return 0;
		}
	for (int i = pst->nprovs - 1; i >= 0; i--)
		if (!prov_alive(pst, i, now))
			prov_forget(pst, i);
	snprintf(name, sizeof (name), "pid%d", pid);
	if (pst->nprovs == MAXPROCS ||
	    ks_provider_register(name, &pid_ops, pst, id) != 0) {
		rc = -1;
	} else {
		pst->provs[pst->nprovs].pid = pid;
		pst->provs[pst->nprovs].start = start_time(pid);
		pst->provs[pst->nprovs].seen = now;
		pst->provs[pst->nprovs++].id = *id;
	}
	pthread_mutex_unlock(&pst->lock);
	return rc;
}

/* A probe's state and sites from the engine's description; NULL if
 * out of memory. */
static pidprobe_t *probe_new(const prov_pid_site_t *ps)
{
	int n = ps->pps_kind == PROV_PID_RETURN && ps->pps_nrets > 0 ?
	    (int)ps->pps_nrets : 1;
	pidprobe_t *pp = calloc(1, sizeof (*pp));

	if (pp == NULL || (pp->pp_sites = calloc((size_t)n,
	    sizeof (pidsite_t))) == NULL ||
	    (pp->pp_path = strdup(ps->pps_path)) == NULL) {
		if (pp != NULL)
			free(pp->pp_sites);
		free(pp);
		return NULL;
	}
	pp->pp_pid = ps->pps_pid;
	pp->pp_kind = ps->pps_kind;
	pp->pp_foff = ps->pps_foff;
	pp->pp_uret = ps->pps_kind == PROV_PID_RETURN && ps->pps_nrets == 0;
	pp->pp_nsites = n;
	pp->pp_fsite.ps_pp = pp;
	for (int i = 0; i < n; i++) {
		pp->pp_sites[i].ps_pp = pp;
		pp->pp_sites[i].ps_off = pp->pp_uret ||
		    ps->pps_kind != PROV_PID_RETURN ? 0 : ps->pps_rets[i];
	}
	return pp;
}

void prov_pid_undecoded(const char *mod, const char *func, uint64_t off)
{
	static int said;	/* once: a library may have many */

	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED) == 0)
		prov_note("pid provider: instructions not decoded from "
		    "%.24s`%.32s+0x%llx on (uretprobe returns there)", mod,
		    func, (unsigned long long)off);
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
	if ((pp = probe_new(ps)) == NULL)
		return DTRACE_IDNONE;
	/* no artificial frames: the uprobe fires in user context */
	id = ks_probe_create(prov, ps->pps_mod, ps->pps_func, ps->pps_name, 0,
	    pp);
	if (id == DTRACE_IDNONE) {
		free(pp->pp_sites);
		free(pp->pp_path);
		free(pp);
		return DTRACE_IDNONE;
	}
	pp->pp_id = id;
	return id;
}
