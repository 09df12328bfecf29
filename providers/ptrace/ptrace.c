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

static prov_ptshared_t *sh;
static pid_t helper;
static int cmdfd = -1, evfd = -1, ackfd = -1;
static uint64_t fired;			/* messages handled here */
static pthread_t reader;
static ks_provider_id_t sys_prov, proc_prov, sched_prov, sdt_prov;
static dtrace_id_t sys_ids[PT_NSYS][2], proc_ids[PM_NKINDS];
static int ntargets;			/* targets the helper holds */
static uint32_t nreqs;			/* attach requests sent */

/* Fork the helper with its pipes. */
static int helper_start(void)
{
	int cp[2], ep[2], ap[2];

	if (pipe2(cp, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(ep, O_CLOEXEC) != 0 || pipe2(ap, O_CLOEXEC) != 0) {
		close(cp[0]);
		close(cp[1]);
		return -1;
	}
	sh->sh_passive = 0;
	helper = prov_pt_helper_fork(sh, cp[0], ep[1], ap[0]);
	close(cp[0]);
	close(ep[1]);
	close(ap[0]);
	if (helper < 0) {
		helper = 0;
		close(cp[1]);
		close(ep[0]);
		close(ap[1]);
		return -1;
	}
	cmdfd = cp[1];
	evfd = ep[0];
	ackfd = ap[1];
	return 0;
}

/* ---- this process: messages to firings ---- */

static void fire_msg(const prov_ptmsg_t *m)
{
	static ks_ucapture_t cap;
	static uint64_t regs[PT_NREGS];
	ks_probe_ctx_t ctx;
	dtrace_id_t id;

	if (m->pm_kind == PM_NOTE)
		prov_note("%s", m->pm_str);
	if (m->pm_kind == PM_ENTRY || m->pm_kind == PM_RETURN)
		id = m->pm_nr < PT_NSYS ? sys_ids[m->pm_nr][m->pm_kind] : 0;
	else if (m->pm_kind < PM_NKINDS && sh->sh_proc[m->pm_kind])
		id = proc_ids[m->pm_kind];
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
		memcpy(regs, m->pm_regs, sizeof(regs));
		ctx.kpc_uregs = regs;
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
		cap.kuc_addr = m->pm_saddr;
		cap.kuc_len = sizeof(m->pm_str);	/* whole chunks */
		cap.kuc_data = (const uint8_t *)m->pm_str;
		ctx.kpc_ucap = &cap;
		ctx.kpc_nucap = 1;
	}
	if (m->pm_kind == PM_EXEC_SUCCESS && m->pm_slen > 0) {
		/* args[0] is a string: the path, read in place */
		cap.kuc_addr = (uint64_t)(uintptr_t)m->pm_str;
		ctx.kpc_args[0] = cap.kuc_addr;
		ctx.kpc_kmem = &cap;
		ctx.kpc_nkmem = 1;
	}
	prov_fire(&ctx);
}

static void *reader_main(void *arg)
{
	prov_ptmsg_t m;

	for (;;) {
		size_t got = 0;

		while (got < sizeof(m)) {
			ssize_t n = read(evfd, (char *)&m + got,
			    sizeof(m) - got);

			if (n <= 0)
				return NULL;
			got += (size_t)n;
		}
		fire_msg(&m);
		__atomic_add_fetch(&fired, 1, __ATOMIC_RELEASE);
		if (m.pm_sync)
			(void)!write(ackfd, "a", 1);
	}
}

void prov_ptrace_flush(void)
{
	if (helper <= 0 || pthread_equal(pthread_self(), reader))
		return;
	for (int i = 0; i < 2000 && __atomic_load_n(&fired, __ATOMIC_ACQUIRE)
	    < __atomic_load_n(&sh->sh_sent, __ATOMIC_ACQUIRE); i++)
		usleep(500);
}

int prov_ptrace_syscalls(int *nrs, int max)
{
	int n = 0;

	if (sh == NULL)
		return -1;
	for (int i = 0; i < PT_NSYS; i++) {
		if (!sh->sh_entry[i] && !sh->sh_return[i])
			continue;
		if (n >= max)
			return -1;
		nrs[n++] = i;
	}
	for (int i = 0; i < n; i++)
		sh->sh_filt[nrs[i]] = 1;
	return n;
}

/* Remember a passive helper (pid > 0), and reap those that are done. */
static void reap_passive(pid_t pid)
{
	static pid_t passive[16];

	for (int i = 0; i < 16; i++) {
		if (passive[i] > 0 && waitpid(passive[i], NULL, WNOHANG) != 0)
			passive[i] = 0;
		if (passive[i] == 0 && pid > 0) {
			passive[i] = pid;
			pid = 0;
		}
	}
}

int prov_ptrace_target_add(int pid)
{
	int32_t p = pid, err;

	if (sh == NULL) {
		errno = ENOTSUP;
		return -1;
	}
	if (helper == 0) {
		reap_passive(0);
		if (helper_start() != 0)
			return -1;
		if (pthread_create(&reader, NULL, reader_main, NULL) != 0)
			return -1;
	}
	if (write(cmdfd, &p, sizeof(p)) != sizeof(p))
		return -1;
	nreqs++;
	/* Return once the helper holds it: the caller may let it run. */
	for (int i = 0; i < 4000 && __atomic_load_n(&sh->sh_attached,
	    __ATOMIC_ACQUIRE) < nreqs; i++)
		usleep(500);
	if (__atomic_load_n(&sh->sh_attached, __ATOMIC_ACQUIRE) >= nreqs &&
	    (err = __atomic_load_n(&sh->sh_atterr, __ATOMIC_RELAXED)) != 0) {
		errno = err;		/* none of its threads is ours */
		return -1;
	}
	ntargets++;
	return 0;
}

/* ---- providers ---- */

static int need_target(void)
{
	if (ntargets > 0)
		return 0;
	ks_provider_error("without root or CAP_PERFMON these probes fire only "
	    "for processes traced with -c or -p");
	return -1;
}

static void sys_provide(void *parg, const dtrace_probedesc_t *desc)
{
	for (unsigned nr = 0; nr < prov_sysname_count() && nr < PT_NSYS; nr++) {
		const char *name = prov_sysname(nr);

		if (name == NULL || sys_ids[nr][0] != DTRACE_IDNONE)
			continue;
		sys_ids[nr][PM_ENTRY] = ks_probe_create(sys_prov, "", name,
		    "entry", 0, (void *)(uintptr_t)(nr * 2));
		sys_ids[nr][PM_RETURN] = ks_probe_create(sys_prov, "", name,
		    "return", 0, (void *)(uintptr_t)(nr * 2 + 1));
	}
}

/* The helper sends user registers from the first probe that wants
 * them on (one ptrace call a message). */
static void want_uregs(dtrace_id_t id)
{
	if (prov_perf_wants_stack(id) & PROV_SAMPLE_UREGS)
		__atomic_store_n(&sh->sh_uregs, 1, __ATOMIC_RELAXED);
}

void prov_ptrace_vtime(int on)
{
	if (sh != NULL)
		__atomic_store_n(&sh->sh_vtime, on != 0, __ATOMIC_RELAXED);
}

static int sys_enable(void *parg, dtrace_id_t id, void *arg)
{
	uintptr_t v = (uintptr_t)arg;

	if (need_target() != 0)
		return -1;
	want_uregs(id);
	if (v & 1)
		sh->sh_return[v / 2] = 1;
	else
		sh->sh_entry[v / 2] = 1;
	/* The first syscall probe: tracees resumed with PTRACE_CONT (no
	 * syscall stops) must stop once to be resumed with PTRACE_SYSCALL. */
	if (__atomic_add_fetch(&sh->sh_nsys, 1, __ATOMIC_SEQ_CST) == 1 &&
	    helper > 0) {
		int32_t c = PT_CMD_RESTOP;

		(void)!write(cmdfd, &c, sizeof(c));
	}
	return 0;
}

static void sys_disable(void *parg, dtrace_id_t id, void *arg)
{
	uintptr_t v = (uintptr_t)arg;

	if (v & 1)
		sh->sh_return[v / 2] = 0;
	else
		sh->sh_entry[v / 2] = 0;
	__atomic_sub_fetch(&sh->sh_nsys, 1, __ATOMIC_SEQ_CST);
}

static void proc_provide(void *parg, const dtrace_probedesc_t *desc)
{
	for (int k = PM_CREATE; k < PM_NKINDS; k++)
		if (proc_ids[k] == DTRACE_IDNONE)
			proc_ids[k] = ks_probe_create(proc_prov, "", "",
			    proc_names[k], 0, (void *)(uintptr_t)k);
}

static int proc_enable(void *parg, dtrace_id_t id, void *arg)
{
	if (need_target() != 0)
		return -1;
	want_uregs(id);
	sh->sh_proc[(uintptr_t)arg] = 1;
	return 0;
}

static void proc_disable(void *parg, dtrace_id_t id, void *arg)
{
	sh->sh_proc[(uintptr_t)arg] = 0;
}

static const ks_provider_ops_t sys_ops = {
	.kpo_provide = sys_provide,
	.kpo_enable = sys_enable,
	.kpo_disable = sys_disable,
};

/* Argument types, as the perf route's proc provider has them. */
static void proc_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc)
{
	static const char *const types[PM_NKINDS][2] = {
		[PM_CREATE] = { "pid_t" }, [PM_LWP_CREATE] = { "pid_t" },
		[PM_EXEC_SUCCESS] = { "string" }, [PM_EXIT] = { "int", "int" },
		[PM_LWP_EXIT] = { "pid_t" },
	};
	uintptr_t k = (uintptr_t)arg;

	if (k >= PM_NKINDS || desc->dtargd_ndx < 0 || desc->dtargd_ndx > 1 ||
	    types[k][desc->dtargd_ndx] == NULL) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	snprintf(desc->dtargd_native, sizeof(desc->dtargd_native), "%s",
	    types[k][desc->dtargd_ndx]);
	desc->dtargd_mapping = desc->dtargd_ndx;
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
	const char *prov = parg;
	ks_provider_id_t id = strcmp(prov, "sched") == 0 ? sched_prov :
	    sdt_prov;

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

int prov_ptrace_register(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		sh = NULL;
		return -1;
	}
	if (ks_provider_register("syscall", &sys_ops, NULL, &sys_prov) != 0 ||
	    ks_provider_register("proc", &proc_ops, NULL, &proc_prov) != 0 ||
	    ks_provider_register("sched", &refuse_ops, (void *)"sched",
	    &sched_prov) != 0 ||
	    ks_provider_register("sdt", &refuse_ops, (void *)"sdt",
	    &sdt_prov) != 0)
		return errno == EEXIST ? 0 : -1;
	return 0;
}

void prov_ptrace_shutdown(void)
{
	reap_passive(0);
	if (helper > 0) {
		/* On EOF the helper closes its end of the event pipe (it
		 * exits, or goes passive while tracees remain): the reader
		 * then ends.  A passive helper is reaped later (or by init
		 * once this process is gone). */
		close(cmdfd);
		pthread_join(reader, NULL);
		if (__atomic_load_n(&sh->sh_passive, __ATOMIC_ACQUIRE))
			reap_passive(helper);
		else
			while (waitpid(helper, NULL, 0) < 0 && errno == EINTR)
				;
		close(evfd);
		close(ackfd);
		helper = 0;
	}
}
