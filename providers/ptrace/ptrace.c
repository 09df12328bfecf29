/*
 * ptrace.c - the unprivileged route: syscall and proc probes for the
 * consumer's own -c/-p targets and their descendants, through ptrace.
 *
 * The tracer is a helper process forked on the first prov_target_add(),
 * not a thread: a thread tracer would share the dtrace command's thread
 * group, whose waitpid() on its -c child would then also see (and steal)
 * ptrace stops.  The helper seizes every thread of a target with fork,
 * vfork, clone, exec and exit events on, resumes it with PTRACE_SYSCALL
 * while any syscall probe is enabled (PTRACE_CONT otherwise), and at each
 * stop writes one prov_ptmsg_t into a pipe: syscall entry (arguments and, for
 * calls that take a path, the string read while the thread is stopped, so
 * it is exact), syscall return (value, errno), create, lwp-create,
 * exec-success, exit, lwp-exit.  A reader thread in this process turns
 * messages into firings.  While asked (sh_vtime, sh_uregs) a message
 * also carries the thread's CPU time (schedstat, for vtimestamp) and user
 * registers (uregs[]), read at the stop, so both are exact.
 *
 * Shared state: the helper sees which probes are enabled through an
 * anonymous MAP_SHARED page made before the fork.  The helper uses no
 * malloc (it is forked from a threaded process); its thread table is a
 * fixed array.  The helper's side is ptrace_helper.c (attaching, stops,
 * seccomp stops, i386/x32 calls, release and the passive tracer);
 * ptrace_impl.h has what both sides share.  A helper that exits at
 * release is reaped at once; a passive one (sh_passive) later, at the
 * next start or shutdown, or by init once this process has exited.
 *
 * Known limits: without a filter every system call stops the tracee
 * while syscall probes are enabled; the CPU reported is the helper's; -p
 * needs ptrace permission over the process (same user, no Yama restriction).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "providers.h"
#include "prov_impl.h"
#include "ptrace_impl.h"

static const char *const proc_names[] = {
	[PM_CREATE] = "create", [PM_LWP_CREATE] = "lwp-create",
	[PM_EXEC_SUCCESS] = "exec-success", [PM_EXIT] = "exit",
	[PM_LWP_EXIT] = "lwp-exit",
};

#define NPASSIVE 16		/* passive helpers remembered for reaping */
#define NTARGETS 64		/* targets remembered (prov_ptrace_is_target) */

/*
 * The ptrace route's state on this side: one instance (pt), passed to
 * the helpers below.  No lock: each field says which thread owns it.
 * "Register": set once by prov_ptrace_register, before any probe exists.
 * "Consumer": the engine's calls (prov_target_add, flush, shutdown),
 * made one at a time from the thread that drives the handle.  "Reader":
 * the reader thread, which the consumer starts and joins.  "Shim": the
 * provider ops (provide, enable, disable), which the shim serialises.
 * What the helper process reads or writes is in the shared page (sh),
 * whose fields say how they are accessed (ptrace_impl.h).
 */
typedef struct pt_state {
	prov_ptshared_t *sh;		/* register: the page shared with the
					 * helper (NULL: no ptrace route) */
	prov_ptsite_t *sites;		/* register: breakpoint slots, shared
					 * too (ptrace_up.c writes them) */
	pthread_mutex_t synclk;		/* nsyncs, started, unsynced: syncs
					 * come from the shim's and the
					 * consumer's threads */
	uint32_t nsyncs;		/* syncs asked for */
	int started, unsynced;		/* prov_ptrace_go came; a sync is
					 * due then */
	int targets[NTARGETS];		/* consumer: pids attached */
	pid_t helper;			/* consumer: the helper, 0 if none */
	int cmdfd, evfd, ackfd;		/* consumer: its pipes (evfd is read
					 * by the reader) */
	pthread_t reader;		/* consumer */
	uint64_t fired;			/* atomic, written by the reader:
					 * messages handled here */
	int ntargets;			/* consumer: targets the helper holds */
	uint32_t nreqs;			/* consumer: attach requests sent */
	pid_t passive[NPASSIVE];	/* consumer: passive helpers to reap */
	int closing;			/* atomic: the consumer is shutting
					 * the helper down (an EOF is due) */
	ks_provider_id_t sys_prov, proc_prov, sched_prov, sdt_prov;
					/* register */
	dtrace_id_t sys_ids[PT_NSYS][2];	/* shim writes (provide); the
					 * reader reads them once made */
	dtrace_id_t proc_ids[PM_NKINDS];	/* the same */
	ks_ucapture_t cap;		/* reader: a firing's string */
	ks_task_t task;			/* reader: create's new task */
	ks_ucapture_t taskmem;		/* reader: task as provider memory */
	uint64_t regs[PT_NREGS];	/* reader: its user registers */
} pt_state_t;

static pt_state_t pt = { .cmdfd = -1, .evfd = -1, .ackfd = -1,
	.synclk = PTHREAD_MUTEX_INITIALIZER };

/* Fork the helper with its pipes. */
static int helper_start(pt_state_t *ps)
{
	int cp[2], ep[2], ap[2];

	if (pipe2(cp, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(ep, O_CLOEXEC) != 0 || pipe2(ap, O_CLOEXEC) != 0) {
		close(cp[0]);
		close(cp[1]);
		return -1;
	}
	ps->sh->sh_passive = 0;
	ps->helper = prov_pt_helper_fork(ps->sh, ps->sites, cp[0], ep[1],
	    ap[0]);
	close(cp[0]);
	close(ep[1]);
	close(ap[0]);
	if (ps->helper < 0) {
		ps->helper = 0;
		close(cp[1]);
		close(ep[0]);
		close(ap[1]);
		return -1;
	}
	ps->cmdfd = cp[1];
	ps->evfd = ep[0];
	ps->ackfd = ap[1];
	return 0;
}

/* ---- this process: messages to firings ---- */

/* create's and lwp-create's new task as their psinfo_t * and lwpsinfo_t *
 * arguments see it (ks_provider.h): a copy of the creator's process, or
 * the creator's process, with the new task's id in arg0. */
static void offer_task(pt_state_t *ps, ks_probe_ctx_t *ctx, int thread)
{
	ks_task_t *t = &ps->task;
	int32_t id = (int32_t)ctx->kpc_args[0];

	memset(t, 0, sizeof(*t));
	t->kt_tid = id;
	t->kt_pid = thread ? ctx->kpc_pid : id;
	t->kt_ppid = thread ? ctx->kpc_ppid : ctx->kpc_pid;
	t->kt_uid = ctx->kpc_uid;
	t->kt_gid = ctx->kpc_gid;
	memcpy(t->kt_comm, ctx->kpc_execname, sizeof(t->kt_comm));
	t->kt_cpu = (int32_t)ctx->kpc_cpu;
	t->kt_sname = 'R';
	ps->taskmem.kuc_addr = 0;
	ps->taskmem.kuc_data = (const uint8_t *)t;
	ps->taskmem.kuc_len = sizeof(*t);
	ctx->kpc_args[KS_ARG_TASK] = (uint64_t)(uintptr_t)t;
	ctx->kpc_kmem = &ps->taskmem;
	ctx->kpc_nkmem = 1;
}

static void fire_msg(pt_state_t *ps, const prov_ptmsg_t *m)
{
	ks_probe_ctx_t ctx;
	dtrace_id_t id;

	if (m->pm_kind == PM_NOTE)
		prov_note("%s", m->pm_str);
	if (m->pm_kind == PM_BREAK || m->pm_kind == PM_BRET) {
		prov_ptup_fire(m);
		return;
	}
	if (m->pm_kind == PM_ENTRY || m->pm_kind == PM_RETURN)
		id = m->pm_nr < PT_NSYS ? ps->sys_ids[m->pm_nr][m->pm_kind] : 0;
	else if (m->pm_kind < PM_NKINDS && ps->sh->sh_proc[m->pm_kind])
		id = ps->proc_ids[m->pm_kind];
	else
		id = DTRACE_IDNONE;	/* only a sync point */
	if (id == DTRACE_IDNONE)
		return;
	memset(&ctx, 0, sizeof(ctx));
	ctx.kpc_id = id;
	ctx.kpc_cpu = m->pm_cpu;
	ctx.kpc_pid = m->pm_pid;
	ctx.kpc_tid = m->pm_tid;
	ctx.kpc_ppid = m->pm_ppid;
	ctx.kpc_uid = (uint32_t)getuid();
	ctx.kpc_gid = (uint32_t)getgid();
	ctx.kpc_timestamp = m->pm_time;
	ctx.kpc_walltimestamp = m->pm_time + ks_getwalltime() - ks_gethrtime();
	memcpy(ctx.kpc_execname, m->pm_comm, sizeof(ctx.kpc_execname));
	memcpy(ctx.kpc_args, m->pm_args, sizeof(m->pm_args));
	ctx.kpc_vtimestamp = m->pm_vtime;
	if (m->pm_nregs == PT_NREGS) {
		memcpy(ps->regs, m->pm_regs, sizeof(ps->regs));
		ctx.kpc_uregs = ps->regs;
		ctx.kpc_nuregs = PT_NREGS;
	}
	if (m->pm_kind == PM_RETURN) {
		int64_t r = m->pm_ret;

		if (r < 0 && r >= -4095) {
			ctx.kpc_errno = (int32_t)-r;
			r = -1;
		}
		ctx.kpc_args[0] = ctx.kpc_args[1] = (uint64_t)r;
	}
	if (m->pm_slen > 0) {
		ps->cap.kuc_addr = m->pm_saddr;
		ps->cap.kuc_len = sizeof(m->pm_str);	/* whole chunks */
		ps->cap.kuc_data = (const uint8_t *)m->pm_str;
		ctx.kpc_ucap = &ps->cap;
		ctx.kpc_nucap = 1;
	}
	if (m->pm_kind == PM_EXEC_SUCCESS && m->pm_slen > 0) {
		/* args[0] is a string: the path, read in place */
		ps->cap.kuc_addr = (uint64_t)(uintptr_t)m->pm_str;
		ctx.kpc_args[0] = ps->cap.kuc_addr;
		ctx.kpc_kmem = &ps->cap;
		ctx.kpc_nkmem = 1;
	}
	if (m->pm_kind == PM_CREATE || m->pm_kind == PM_LWP_CREATE)
		offer_task(ps, &ctx, m->pm_kind == PM_LWP_CREATE);
	prov_fire(&ctx);
}

/*
 * The event pipe ended while nobody asked the helper to stop: it died
 * (killed, or crashed).  Its targets' syscall and proc probes stop firing
 * (the rest of the session goes on), and the calls the seccomp filter
 * sends to the tracer fail with ENOSYS in them (the kernel's rule for a
 * SECCOMP_RET_TRACE without a tracer): say so, with how it ended and what
 * it had sent that never arrived.  The helper is left for the shutdown's
 * waitpid (WNOWAIT here).
 */
static void helper_died(pt_state_t *ps, size_t partial)
{
	siginfo_t si;
	uint64_t sent, lost;
	char how[64] = "exited";

	memset(&si, 0, sizeof(si));
	for (int i = 0; i < 200 && si.si_pid == 0; i++) {
		if (waitid(P_PID, (id_t)ps->helper, &si, WEXITED | WNOHANG |
		    WNOWAIT) != 0)
			break;
		if (si.si_pid == 0)
			usleep(5000);	/* closing its files, not yet dead */
	}
	if (si.si_pid != 0 && (si.si_code == CLD_KILLED ||
	    si.si_code == CLD_DUMPED))
		snprintf(how, sizeof(how), "was killed by signal %d",
		    si.si_status);
	else if (si.si_pid != 0)
		snprintf(how, sizeof(how), "exited with status %d",
		    si.si_status);
	sent = __atomic_load_n(&ps->sh->sh_sent, __ATOMIC_ACQUIRE);
	lost = sent > ps->fired ? sent - ps->fired : 0;
	lost += partial > 0;
	ks_provider_fault("the ptrace helper (pid %d) %s: syscall and proc "
	    "probes of the -c/-p targets fire no more, and the system calls "
	    "it traced fail in them from now on (%llu event%s it had sent "
	    "lost)", (int)ps->helper, how, (unsigned long long)lost,
	    lost == 1 ? "" : "s");
}

static void *reader_main(void *arg)
{
	pt_state_t *ps = arg;
	prov_ptmsg_t m;

	for (;;) {
		size_t got = 0;

		while (got < sizeof(m)) {
			ssize_t n = read(ps->evfd, (char *)&m + got,
			    sizeof(m) - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (!__atomic_load_n(&ps->closing,
				    __ATOMIC_ACQUIRE))
					helper_died(ps, got);
				/* what waits for the helper's messages
				 * (flush) waits no more */
				__atomic_store_n(&ps->fired,
				    __atomic_load_n(&ps->sh->sh_sent,
				    __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
				return NULL;
			}
			got += (size_t)n;
		}
		fire_msg(ps, &m);
		__atomic_add_fetch(&ps->fired, 1, __ATOMIC_RELEASE);
		if (m.pm_sync)
			(void)!write(ps->ackfd, "a", 1);
	}
}

void prov_ptrace_flush(void)
{
	pt_state_t *ps = &pt;

	if (ps->helper <= 0 || pthread_equal(pthread_self(), ps->reader))
		return;
	for (int i = 0; i < 2000 &&
	    __atomic_load_n(&ps->fired, __ATOMIC_ACQUIRE) <
	    __atomic_load_n(&ps->sh->sh_sent, __ATOMIC_ACQUIRE); i++)
		usleep(500);
}

int prov_ptrace_syscalls(int *nrs, int max)
{
	pt_state_t *ps = &pt;
	int n = 0;

	if (ps->sh == NULL)
		return -1;
	for (int i = 0; i < PT_NSYS; i++) {
		if (!ps->sh->sh_entry[i] && !ps->sh->sh_return[i])
			continue;
		if (n >= max)
			return -1;
		nrs[n++] = i;
	}
	for (int i = 0; i < n; i++)
		ps->sh->sh_filt[nrs[i]] = 1;
	return n;
}

/* Remember a passive helper (pid > 0), and reap those that are done. */
static void reap_passive(pt_state_t *ps, pid_t pid)
{
	for (int i = 0; i < NPASSIVE; i++) {
		if (ps->passive[i] > 0 &&
		    waitpid(ps->passive[i], NULL, WNOHANG) != 0)
			ps->passive[i] = 0;
		if (ps->passive[i] == 0 && pid > 0) {
			ps->passive[i] = pid;
			pid = 0;
		}
	}
}

int prov_ptrace_target_add(int pid, int held)
{
	pt_state_t *ps = &pt;
	int32_t p = pid | (held ? PT_HELD : 0), err;

	if (ps->sh == NULL) {
		errno = ENOTSUP;
		return -1;
	}
	if (ps->helper == 0) {
		reap_passive(ps, 0);
		if (helper_start(ps) != 0)
			return -1;
		if (pthread_create(&ps->reader, NULL, reader_main, ps) != 0)
			return -1;
	}
	if (write(ps->cmdfd, &p, sizeof(p)) != sizeof(p))
		return -1;
	ps->nreqs++;
	/* Return once the helper holds it: the caller may let it run. */
	for (int i = 0; i < 4000 && __atomic_load_n(&ps->sh->sh_attached,
	    __ATOMIC_ACQUIRE) < ps->nreqs; i++)
		usleep(500);
	if (__atomic_load_n(&ps->sh->sh_attached, __ATOMIC_ACQUIRE) >=
	    ps->nreqs && (err = __atomic_load_n(&ps->sh->sh_atterr,
	    __ATOMIC_RELAXED)) != 0) {
		errno = err;		/* none of its threads is ours */
		return -1;
	}
	if (ps->ntargets < NTARGETS)
		ps->targets[ps->ntargets] = pid;
	ps->ntargets++;
	return 0;
}

int prov_ptrace_evalhold(int pid, const prov_evalpt_t *ev)
{
	pt_state_t *ps = &pt;
	prov_ptshared_t *sh = ps->sh;

	if (sh == NULL || ps->helper <= 0 || !prov_ptrace_is_target(pid))
		return 0;
	__atomic_store_n(&sh->sh_evheld, 0, __ATOMIC_RELAXED);
	sh->sh_evdev = ev->pev_dev;
	sh->sh_evino = ev->pev_ino;
	sh->sh_evfoff = ev->pev_foff;
	sh->sh_evhits = ev->pev_hits;
	__atomic_store_n(&sh->sh_evpid, pid, __ATOMIC_RELEASE);
	return 1;
}

int prov_ptrace_evalheld(int pid)
{
	int32_t v = pt.sh != NULL ? __atomic_load_n(&pt.sh->sh_evheld,
	    __ATOMIC_ACQUIRE) : -1;

	return v == pid ? 1 : v == -1 ? -1 : 0;
}

void prov_ptrace_evalgo(int pid)
{
	pt_state_t *ps = &pt;
	int32_t c = PT_CMD_EVALGO;

	if (ps->sh == NULL || ps->helper <= 0 ||
	    __atomic_load_n(&ps->sh->sh_evheld, __ATOMIC_ACQUIRE) != pid)
		return;
	__atomic_store_n(&ps->sh->sh_evpid, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ps->sh->sh_evheld, 0, __ATOMIC_RELEASE);
	(void)!write(ps->cmdfd, &c, sizeof(c));
}

int prov_ptrace_is_target(int pid)
{
	pt_state_t *ps = &pt;

	for (int i = 0; i < ps->ntargets && i < NTARGETS; i++)
		if (ps->targets[i] == pid)
			return 1;
	return 0;
}

void prov_ptrace_bpstats(uint64_t *hits, uint64_t *ns)
{
	pt_state_t *ps = &pt;

	*hits = ps->sh != NULL ? __atomic_load_n(&ps->sh->sh_bphits,
	    __ATOMIC_RELAXED) : 0;
	*ns = ps->sh != NULL ? __atomic_load_n(&ps->sh->sh_bpns,
	    __ATOMIC_RELAXED) : 0;
}

prov_ptsite_t *prov_ptrace_sites(void)
{
	return pt.sites;
}

/* A sync (synclk held). */
static int sync_locked(pt_state_t *ps)
{
	int32_t c = PT_CMD_SYNC;
	uint32_t want;

	if (ps->helper <= 0)
		return -1;
	if (!ps->started) {
		ps->unsynced = 1;	/* planted at prov_ptrace_go */
		return 0;
	}
	want = ++ps->nsyncs;
	if (write(ps->cmdfd, &c, sizeof(c)) != sizeof(c))
		return -1;
	/* the helper may be waiting for the reader to fire a hit: long */
	for (int i = 0; i < 20000 && (int32_t)(__atomic_load_n(
	    &ps->sh->sh_synced, __ATOMIC_ACQUIRE) - want) < 0; i++)
		usleep(500);
	return (int32_t)(__atomic_load_n(&ps->sh->sh_synced,
	    __ATOMIC_ACQUIRE) - want) < 0 ? -1 : 0;
}

int prov_ptrace_sync(void)
{
	pt_state_t *ps = &pt;
	int rc;

	pthread_mutex_lock(&ps->synclk);
	rc = sync_locked(ps);
	pthread_mutex_unlock(&ps->synclk);
	return rc;
}

void prov_ptrace_go(void)
{
	pt_state_t *ps = &pt;

	pthread_mutex_lock(&ps->synclk);
	ps->started = 1;
	if (ps->unsynced) {
		ps->unsynced = 0;
		(void)sync_locked(ps);
	}
	pthread_mutex_unlock(&ps->synclk);
}

/* ---- providers ---- */

static int need_target(pt_state_t *ps)
{
	if (ps->ntargets > 0)
		return 0;
	ks_provider_error("without root or CAP_PERFMON these probes fire only "
	    "for processes traced with -c or -p");
	return -1;
}

static void sys_provide(void *parg, const dtrace_probedesc_t *desc)
{
	pt_state_t *ps = parg;

	for (unsigned nr = 0; nr < prov_sysname_count() && nr < PT_NSYS; nr++) {
		const char *name = prov_sysname(nr);

		if (name == NULL || ps->sys_ids[nr][0] != DTRACE_IDNONE)
			continue;
		ps->sys_ids[nr][PM_ENTRY] = ks_probe_create(ps->sys_prov, "",
		    name, "entry", 0, (void *)(uintptr_t)(nr * 2));
		ps->sys_ids[nr][PM_RETURN] = ks_probe_create(ps->sys_prov, "",
		    name, "return", 0, (void *)(uintptr_t)(nr * 2 + 1));
	}
}

/* The helper sends user registers from the first probe that wants
 * them on (one ptrace call a message). */
static void want_uregs(pt_state_t *ps, dtrace_id_t id)
{
	if (prov_perf_wants_stack(id) & PROV_SAMPLE_UREGS)
		__atomic_store_n(&ps->sh->sh_uregs, 1, __ATOMIC_RELAXED);
}

void prov_ptrace_vtime(int on)
{
	pt_state_t *ps = &pt;

	if (ps->sh != NULL)
		__atomic_store_n(&ps->sh->sh_vtime, on != 0, __ATOMIC_RELAXED);
}

static int sys_enable(void *parg, dtrace_id_t id, void *arg)
{
	pt_state_t *ps = parg;
	uintptr_t v = (uintptr_t)arg;

	if (need_target(ps) != 0)
		return -1;
	want_uregs(ps, id);
	if (v & 1)
		ps->sh->sh_return[v / 2] = 1;
	else
		ps->sh->sh_entry[v / 2] = 1;
	/* The first syscall probe: tracees resumed with PTRACE_CONT (no
	 * syscall stops) must stop once to be resumed with PTRACE_SYSCALL. */
	if (__atomic_add_fetch(&ps->sh->sh_nsys, 1, __ATOMIC_SEQ_CST) == 1 &&
	    ps->helper > 0) {
		int32_t c = PT_CMD_RESTOP;

		(void)!write(ps->cmdfd, &c, sizeof(c));
	}
	return 0;
}

static void sys_disable(void *parg, dtrace_id_t id, void *arg)
{
	pt_state_t *ps = parg;
	uintptr_t v = (uintptr_t)arg;

	if (v & 1)
		ps->sh->sh_return[v / 2] = 0;
	else
		ps->sh->sh_entry[v / 2] = 0;
	__atomic_sub_fetch(&ps->sh->sh_nsys, 1, __ATOMIC_SEQ_CST);
}

static void proc_provide(void *parg, const dtrace_probedesc_t *desc)
{
	pt_state_t *ps = parg;

	for (int k = PM_CREATE; k < PM_NKINDS; k++)
		if (ps->proc_ids[k] == DTRACE_IDNONE)
			ps->proc_ids[k] = ks_probe_create(ps->proc_prov, "", "",
			    proc_names[k], 0, (void *)(uintptr_t)k);
}

static int proc_enable(void *parg, dtrace_id_t id, void *arg)
{
	pt_state_t *ps = parg;

	if (need_target(ps) != 0)
		return -1;
	want_uregs(ps, id);
	ps->sh->sh_proc[(uintptr_t)arg] = 1;
	return 0;
}

static void proc_disable(void *parg, dtrace_id_t id, void *arg)
{
	pt_state_t *ps = parg;

	ps->sh->sh_proc[(uintptr_t)arg] = 0;
}

static const ks_provider_ops_t sys_ops = {
	.kpo_provide = sys_provide,
	.kpo_enable = sys_enable,
	.kpo_disable = sys_disable,
};

/* Argument types, as the perf route's proc provider has them (create's
 * and lwp-create's translated from the ks_task offer_task offers). */
static void proc_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc)
{
	static const char *const types[PM_NKINDS][2] = {
		[PM_CREATE] = { "psinfo_t *" },
		[PM_LWP_CREATE] = { "lwpsinfo_t *", "psinfo_t *" },
		[PM_EXEC_SUCCESS] = { "string" }, [PM_EXIT] = { "int" },
		[PM_LWP_EXIT] = { "pid_t" },
	};
	uintptr_t k = (uintptr_t)arg;

	if (k >= PM_NKINDS || desc->dtargd_ndx < 0 || desc->dtargd_ndx > 1 ||
	    types[k][desc->dtargd_ndx] == NULL) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	prov_tp_argtype(types[k][desc->dtargd_ndx], desc);
}

static const ks_provider_ops_t proc_ops = {
	.kpo_provide = proc_provide,
	.kpo_enable = proc_enable,
	.kpo_disable = proc_disable,
	.kpo_getargdesc = proc_getargdesc,
};

/* sched and sdt cannot work here: they are not listed, but a description
 * that names one of them exactly makes its probe, whose enabling then
 * says why it cannot fire. */
static void refuse_provide(void *parg, const dtrace_probedesc_t *desc)
{
	pt_state_t *ps = &pt;
	const char *prov = parg;
	ks_provider_id_t id = strcmp(prov, "sched") == 0 ? ps->sched_prov :
	    ps->sdt_prov;

	if (desc == NULL || strcmp(desc->dtpd_provider, prov) != 0 ||
	    desc->dtpd_name[0] == '\0' || prov_is_glob(desc->dtpd_name) ||
	    prov_is_glob(desc->dtpd_mod) || prov_is_glob(desc->dtpd_func))
		return;
	if (ks_probe_lookup(id, desc->dtpd_mod, desc->dtpd_func,
	    desc->dtpd_name) == DTRACE_IDNONE)
		ks_probe_create(id, desc->dtpd_mod, desc->dtpd_func,
		    desc->dtpd_name, 0, NULL);
}

static int refuse_enable(void *parg, dtrace_id_t id, void *arg)
{
	ks_provider_error("%s probes need root or CAP_PERFMON (kernel "
	    "tracepoints); without them only profile, and syscall and proc "
	    "for -c/-p targets, can fire", (const char *)parg);
	return -1;
}

static const ks_provider_ops_t refuse_ops = {
	.kpo_provide = refuse_provide,
	.kpo_enable = refuse_enable,
};

int prov_ptrace_init(void)
{
	pt_state_t *ps = &pt;
	size_t off = (sizeof(*ps->sh) + 63) & ~(size_t)63;
	void *v;

	if (ps->sh != NULL)
		return 0;
	/* both before any helper is forked: it inherits the mapping */
	v = mmap(NULL, off + sizeof(prov_ptsite_t) * PT_NSITES,
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED)
		return -1;
	ps->sites = (prov_ptsite_t *)((char *)v + off);
	ps->sh = v;
	return 0;
}

int prov_ptrace_register(void)
{
	pt_state_t *ps = &pt;

	if (prov_ptrace_init() != 0)
		return -1;
	if (ks_provider_register("syscall", &sys_ops, ps,
	    &ps->sys_prov) != 0 ||
	    ks_provider_register("proc", &proc_ops, ps,
	    &ps->proc_prov) != 0 ||
	    ks_provider_register("sched", &refuse_ops, (void *)"sched",
	    &ps->sched_prov) != 0 ||
	    ks_provider_register("sdt", &refuse_ops, (void *)"sdt",
	    &ps->sdt_prov) != 0)
		return errno == EEXIST ? 0 : -1;
	return 0;
}

void prov_ptrace_shutdown(void)
{
	pt_state_t *ps = &pt;

	reap_passive(ps, 0);
	if (ps->helper > 0) {
		/* On EOF the helper closes its end of the event pipe (it
		 * exits, or goes passive while tracees remain): the reader
		 * then ends.  A passive helper is reaped later (or by init
		 * once this process is gone). */
		__atomic_store_n(&ps->closing, 1, __ATOMIC_RELEASE);
		close(ps->cmdfd);
		pthread_join(ps->reader, NULL);
		__atomic_store_n(&ps->closing, 0, __ATOMIC_RELEASE);
		if (__atomic_load_n(&ps->sh->sh_passive, __ATOMIC_ACQUIRE))
			reap_passive(ps, ps->helper);
		else
			while (waitpid(ps->helper, NULL, 0) < 0 &&
			    errno == EINTR)
				;
		close(ps->evfd);
		close(ps->ackfd);
		ps->helper = 0;
	}
}
