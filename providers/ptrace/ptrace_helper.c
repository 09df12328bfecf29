/*
 * ptrace_helper.c - the tracer process of the ptrace route (ptrace.c has
 * the overview): it attaches to targets, turns each ptrace stop into one
 * prov_ptmsg_t on the event pipe, and resumes the thread.  Forked from a
 * threaded process, it uses no malloc; its thread table (tinfo) is a fixed
 * array, hashed by tid (tget).  It runs in its own session, ignoring terminal
 * signals, holding none of dtrace's descriptors but its pipes (and stderr
 * until release).
 *
 * Release: when dtrace's process closes the command pipe (or dies: EOF too)
 * the helper closes the event pipes (the reader there ends) and exits if
 * no tracee is left.  Else it goes passive: threads under our seccomp
 * filter (descendants of the -c command that outlive dtrace; RET_TRACE
 * without a tracer would fail their trapped calls with ENOSYS) stay
 * traced and are continued at every stop without reports, forks
 * followed; the others (-p targets) are detached.  It exits when the
 * last tracee is gone (sh_passive tells ptrace.c whether to reap it now).
 *
 * Seccomp: a -c target installs, just before its execve, a filter that
 * returns SECCOMP_RET_TRACE only for the calls prov_ptrace_syscalls()
 * handed out (recorded in sh_filt).  Its first seccomp stop marks the
 * thread filtered (inherited by its children); a filtered thread is
 * resumed with PTRACE_CONT while every enabled syscall probe is in
 * sh_filt: a seccomp stop is then the entry, and PTRACE_SYSCALL once
 * catches the exit when that call's return probe is enabled.  Otherwise
 * (-p, or more probes enabled later) PTRACE_SYSCALL as before; a seccomp
 * stop after a syscall-entry stop is then ignored.  DTUI_PTRACE_STOPS=1
 * in the environment makes the helper print its stop count at exit,
 * and how many new tasks it held (see hold()).
 *
 * Only stops whose filter data is PROV_SECCOMP_DATA count (a process may
 * have a filter of its own).  The filter also traps every i386 and x32
 * call; their numbers are mapped to the x86_64 probe of the same name
 * (prov_sysnr_native), and one without such a probe is reported once per
 * number as a provider note (prov_note), not fired.  Syscall-entry stops
 * (no filter) are mapped the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/ptrace.h>
#include "providers.h"
#include "prov_impl.h"
#include "ptrace_impl.h"

#define HOLD_NS 200000000ull		/* longest wait for a creator's event */
#define PT_OPTS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | \
	PTRACE_O_TRACEEXIT | PTRACE_O_TRACESECCOMP)

static helper_state_t hs = { .evfd = -1, .ackfd = -1 };

/* Which argument of a system call is a path (x86_64), -1 if none. */
static int path_arg(const char *name)
{
	static const char *const first[] = {
		"open", "stat", "lstat", "access", "execve", "truncate",
		"chdir", "rename", "mkdir", "rmdir", "creat", "link",
		"unlink", "symlink", "readlink", "chmod", "chown", "lchown",
		"statfs", "chroot", "acct", "mknod", "uselib", "swapon",
		"swapoff", "setxattr", "getxattr", "listxattr", "removexattr",
		"utime", "utimes",
	};
	static const char *const second[] = {
		"openat", "newfstatat", "faccessat", "faccessat2", "mkdirat",
		"mknodat", "unlinkat", "renameat", "renameat2", "readlinkat",
		"fchmodat", "fchownat", "execveat", "statx", "openat2",
		"utimensat", "futimesat", "linkat",
	};

	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++)
		if (strcmp(name, first[i]) == 0)
			return 0;
	for (size_t i = 0; i < sizeof(second) / sizeof(second[0]); i++)
		if (strcmp(name, second[i]) == 0)
			return 1;
	return -1;
}

/* ---- the helper process ---- */

/*
 * The entry of tid (create: a new one if there is none).  Open
 * addressing from tid % MAXT: a slot is free (ti_tid 0, ends a search),
 * freed (TI_GONE, skipped) or used; two live tids never share an entry.
 * With every slot used, a new tid gets a scratch entry (its state is not
 * kept).
 */
tinfo_t *pt_tget(helper_state_t *hp, int32_t tid, int create)
{
	tinfo_t *t = NULL;

	for (uint32_t i = 0, h = (uint32_t)tid % MAXT; i < MAXT; i++) {
		tinfo_t *e = &hp->tinfo[(h + i) % MAXT];

		if (e->ti_tid == tid)
			return e;
		if (e->ti_tid == TI_GONE && t == NULL)
			t = e;
		if (e->ti_tid == 0) {
			if (t == NULL)
				t = e;
			break;
		}
	}
	if (!create)
		return NULL;
	if (t == NULL)
		t = &hp->tscratch;
	memset(t, 0, sizeof(*t));
	t->ti_tid = tid;
	t->ti_pid = tid;
	t->ti_nr = UINT32_MAX;
	return t;
}

static void read_comm(tinfo_t *t)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", t->ti_pid,
	    t->ti_tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, t->ti_comm, sizeof(t->ti_comm) - 1);
	close(fd);
	if (n > 0 && t->ti_comm[n - 1] == '\n')
		n--;
	t->ti_comm[n > 0 ? n : 0] = '\0';
}

/* The thread's CPU time (ns) from schedstat, read while it is stopped,
 * so exact; 0 if the kernel has no schedstat. */
static uint64_t read_vtime(const tinfo_t *t)
{
	char path[64], buf[96];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", t->ti_pid,
	    t->ti_tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strtoull(buf, NULL, 10);
}

/* The stopped thread's user registers into m (x86_64 only). */
static void read_regs(prov_ptmsg_t *m, pid_t tid)
{
#if defined(__x86_64__)
	uint64_t r[27];			/* struct user_regs_struct */
	struct iovec io = { r, sizeof(r) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)1 /* NT_PRSTATUS */, &io)
	    != 0 || io.iov_len < sizeof(m->pm_regs))
		return;
	memcpy(m->pm_regs, r, sizeof(m->pm_regs));
	m->pm_nregs = PT_NREGS;
#else
	(void)m;
	(void)tid;
#endif
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pt_send(helper_state_t *hp, prov_ptmsg_t *m, const tinfo_t *t,
    uint32_t kind)
{
	int cpu = sched_getcpu();

	m->pm_kind = kind;
	m->pm_cpu = cpu < 0 ? 0 : (uint32_t)cpu;
	m->pm_time = now_ns();
	m->pm_pid = t->ti_pid;
	m->pm_tid = t->ti_tid;
	m->pm_ppid = t->ti_ppid;
	memcpy(m->pm_comm, t->ti_comm, sizeof(m->pm_comm));
	if (__atomic_load_n(&hp->sh->sh_vtime, __ATOMIC_RELAXED))
		m->pm_vtime = read_vtime(t);
	if (__atomic_load_n(&hp->sh->sh_uregs, __ATOMIC_RELAXED) &&
	    m->pm_nregs == 0)
		read_regs(m, t->ti_tid);
	__atomic_add_fetch(&hp->sh->sh_sent, 1, __ATOMIC_RELEASE);
	(void)!write(hp->evfd, m, sizeof(*m));
	if (m->pm_sync) {
		char c;

		(void)!read(hp->ackfd, &c, 1);
	}
}

static void capture(prov_ptmsg_t *m, pid_t tid, uint64_t addr)
{
	struct iovec local = { m->pm_str, sizeof(m->pm_str) - 1 };
	struct iovec remote = { (void *)(uintptr_t)addr,
	    sizeof(m->pm_str) - 1 };
	ssize_t n;

	/* A path may end before the end of its page: read what is there. */
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n <= 0) {
		remote.iov_len = 4096 - (addr & 4095);
		if (remote.iov_len > local.iov_len)
			remote.iov_len = local.iov_len;
		n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	}
	if (n <= 0)
		return;
	memset(m->pm_str + n, 0, sizeof(m->pm_str) - (size_t)n);
	m->pm_saddr = addr;
	m->pm_slen = (uint32_t)strlen(m->pm_str) + 1;
}

static void on_entry(helper_state_t *hp, tinfo_t *t, uint32_t nr,
    const void *args)
{
	prov_ptmsg_t m;
	int pa;

	/* dtrace's -c child before its exec: its calls (the gate's, the
	 * filter's prctl, the getppid it checks its parent with) are
	 * dtrace's, not the command's, whenever the seize catches them */
	t->ti_nr = t->ti_prexec ? UINT32_MAX : nr;
	if (t->ti_prexec || nr >= PT_NSYS || !hp->sh->sh_entry[nr])
		return;
	memset(&m, 0, sizeof(m));
	m.pm_nr = nr;
	memcpy(m.pm_args, args, sizeof(m.pm_args));
	pa = prov_sysname(nr) != NULL ? path_arg(prov_sysname(nr)) : -1;
	if (pa >= 0)
		capture(&m, t->ti_tid, m.pm_args[pa]);
	pt_send(hp, &m, t, PM_ENTRY);
}

/* The x86_64 number of a call (i386 and x32 mapped by name); a call with
 * no syscall probe is reported once per number (PM_NOTE) and gives
 * UINT32_MAX: it is not traced. */
static uint32_t native_nr(helper_state_t *hp, tinfo_t *t, uint32_t arch,
    uint64_t nr)
{
	static uint8_t noted[2][1024];
	int x32 = arch == AUDIT_ARCH_X86_64 && (nr & PROV_X32_BIT) != 0;
	int n = nr > UINT32_MAX ? -1 : prov_sysnr_native(arch, (uint32_t)nr);
	uint32_t i = (uint32_t)(nr & 1023);
	const char *name, *abi;
	prov_ptmsg_t m;

	if (n >= 0 && n < PT_NSYS)
		return (uint32_t)n;
	if (arch == AUDIT_ARCH_X86_64 && !x32)
		return UINT32_MAX;	/* unknown native call: no probe */
	if (noted[x32][i])
		return UINT32_MAX;
	noted[x32][i] = 1;
	memset(&m, 0, sizeof(m));
	name = !x32 ? prov_sysname_i386((unsigned)nr) : NULL;
	abi = x32 ? "x32" : arch == AUDIT_ARCH_I386 ? "i386" : "non-x86_64";
	if (name != NULL)
		snprintf(m.pm_str, sizeof(m.pm_str), "%s system call %s is not "
		    "traced (no syscall probe matches it)", abi, name);
	else
		snprintf(m.pm_str, sizeof(m.pm_str), "%s system call number "
		    "%llu is not traced (no syscall probe matches it)", abi,
		    (unsigned long long)(nr & ~PROV_X32_BIT));
	pt_send(hp, &m, t, PM_NOTE);
	return UINT32_MAX;
}

/* A seccomp stop: the entry, unless a syscall-entry stop saw it.  ti_nr
 * stays set when the exit must be caught (PTRACE_SYSCALL once). */
static void on_seccomp(helper_state_t *hp, tinfo_t *t)
{
	struct ptrace_syscall_info si;

	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->ti_tid, sizeof(si), &si) <= 0 ||
	    si.op != PTRACE_SYSCALL_INFO_SECCOMP ||
	    si.seccomp.ret_data != PROV_SECCOMP_DATA)
		return;
	t->ti_filt = 1;
	if (t->ti_inent)
		return;
	on_entry(hp, t, native_nr(hp, t, si.arch, si.seccomp.nr),
	    si.seccomp.args);
	if (t->ti_nr >= PT_NSYS || !hp->sh->sh_return[t->ti_nr])
		t->ti_nr = UINT32_MAX;
}

/* Does the filter trap every call whose probe is enabled? */
static int covered(helper_state_t *hp)
{
	for (int i = 0; i < PT_NSYS; i++)
		if ((hp->sh->sh_entry[i] || hp->sh->sh_return[i]) &&
		    !hp->sh->sh_filt[i])
			return 0;
	return 1;
}

/* Resume t after a stop, delivering sig: PTRACE_SYSCALL while a syscall
 * probe needs syscall stops, else PTRACE_CONT. */
void pt_resume(helper_state_t *hp, tinfo_t *t, int sig)
{
	int req;

	if (__atomic_load_n(&hp->sh->sh_nsys, __ATOMIC_RELAXED) == 0)
		req = PTRACE_CONT;
	else if (t->ti_filt && covered(hp) && !t->ti_inent)
		req = t->ti_nr != UINT32_MAX ? PTRACE_SYSCALL : PTRACE_CONT;
	else
		req = PTRACE_SYSCALL;
	ptrace(req, t->ti_tid, 0, (void *)(uintptr_t)sig);
}

static void on_syscall(helper_state_t *hp, tinfo_t *t)
{
	struct ptrace_syscall_info si;
	prov_ptmsg_t m;

	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->ti_tid, sizeof(si), &si) <= 0)
		return;
	memset(&m, 0, sizeof(m));
	if (si.op == PTRACE_SYSCALL_INFO_ENTRY) {
		t->ti_inent = 1;
		on_entry(hp, t, native_nr(hp, t, si.arch, si.entry.nr),
		    si.entry.args);
	} else if (si.op == PTRACE_SYSCALL_INFO_EXIT) {
		uint32_t nr = t->ti_nr;

		t->ti_nr = UINT32_MAX;
		t->ti_inent = 0;
		if (nr >= PT_NSYS || !hp->sh->sh_return[nr])
			return;
		m.pm_nr = nr;
		m.pm_ret = si.exit.rval;
		pt_send(hp, &m, t, PM_RETURN);
	}
}

/* A field of /proc/tid/status ("\nTgid:", "\nSigPnd:"...) read in the
 * given base, or dflt if unknown. */
static uint64_t status_field(int32_t tid, const char *key, int base,
    uint64_t dflt)
{
	char path[64], buf[2048], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = '\0';
	p = strstr(buf, key);
	return p != NULL ? strtoull(p + strlen(key), NULL, base) : dflt;
}

/* A number from /proc/tid/status, or dflt if unknown. */
static int32_t status_num(int32_t tid, const char *key, int32_t dflt)
{
	return (int32_t)status_field(tid, key, 10, (uint64_t)(int64_t)dflt);
}

/* A hexadecimal mask from /proc/tid/status, 0 if unknown. */
static uint64_t status_mask(int32_t tid, const char *key)
{
	return status_field(tid, key, 16, 0);
}

static int32_t tgid_of(int32_t tid)
{
	return status_num(tid, "\nTgid:", 0);
}

static void on_newtask(helper_state_t *hp, tinfo_t *t, int event)
{
	unsigned long msg = 0;
	tinfo_t *c;
	prov_ptmsg_t m;
	int thread;

	ptrace(PTRACE_GETEVENTMSG, t->ti_tid, 0, &msg);
	c = pt_tget(hp, (int32_t)msg, 1);
	thread = event == PTRACE_EVENT_CLONE && tgid_of((int32_t)msg) ==
	    t->ti_pid;
	c->ti_pid = thread ? t->ti_pid : (int32_t)msg;
	c->ti_ppid = thread ? t->ti_ppid : t->ti_pid;
	memcpy(c->ti_comm, t->ti_comm, sizeof(c->ti_comm));
	c->ti_filt = t->ti_filt;
	c->ti_sbase = t->ti_sbase;
	memset(&m, 0, sizeof(m));
	m.pm_args[0] = msg;
	if (hp->sh->sh_proc[thread ? PM_LWP_CREATE : PM_CREATE])
		pt_send(hp, &m, t, thread ? PM_LWP_CREATE : PM_CREATE);
	if (!thread && event != PTRACE_EVENT_VFORK)
		ptbp_fork(hp, t, c);	/* its copy of our breakpoints */
	if (c->ti_held) {		/* its first stop came first */
		c->ti_held = 0;
		hp->nheld--;
		ptbp_settle(hp, c, 0);
	}
}

static void on_exec(helper_state_t *hp, tinfo_t *t)
{
	char path[64];
	prov_ptmsg_t m;
	ssize_t n;
	int held;

	read_comm(t);
	t->ti_nr = UINT32_MAX;
	/* dtrace's -c child installed our filter just before this exec:
	 * no need to wait for its first seccomp stop (threads it makes
	 * before that one would not know either) */
	if (t->ti_prexec && status_num(t->ti_tid, "\nSeccomp_filters:", 0) >
	    t->ti_sbase)
		t->ti_filt = 1;
	/* -x evaltime past exec: untraced (ti_prexec kept) until the point
	 * (ptbp_evalplant), so the loader's calls and its exec are not seen,
	 * as dtrace(1M) starts tracing a created process there */
	held = t->ti_prexec && ptbp_evalplant(hp, t);
	if (!held)
		t->ti_prexec = 0;
	ptbp_exec(hp, t);		/* a new image: plant in it */
	if (held || !hp->sh->sh_proc[PM_EXEC_SUCCESS])
		return;
	memset(&m, 0, sizeof(m));
	snprintf(path, sizeof(path), "/proc/%d/exe", t->ti_pid);
	n = readlink(path, m.pm_str, sizeof(m.pm_str) - 1);
	if (n > 0) {
		m.pm_str[n] = '\0';
		m.pm_saddr = 0xffffff7000000000ull;	/* not a user address */
		m.pm_slen = (uint32_t)n + 1;
		m.pm_args[0] = m.pm_saddr;
	}
	pt_send(hp, &m, t, PM_EXEC_SUCCESS);
}

static void on_exit_event(helper_state_t *hp, tinfo_t *t)
{
	unsigned long st = 0;
	prov_ptmsg_t m;
	int last = t->ti_tid == t->ti_pid;

	ptrace(PTRACE_GETEVENTMSG, t->ti_tid, 0, &st);
	memset(&m, 0, sizeof(m));
	if (last) {
		int s = (int)st;

		m.pm_args[0] = WIFEXITED(s) ? 1 : WCOREDUMP(s) ? 3 : 2;
		m.pm_args[1] = WIFEXITED(s) ? (uint64_t)WEXITSTATUS(s) :
		    (uint64_t)WTERMSIG(s);
	} else {
		m.pm_args[0] = (uint64_t)t->ti_tid;
	}
	/* The leader's exit waits until this process fired everything the
	 * helper sent: its parent cannot reap it (and stop tracing) before
	 * the firings are in. */
	m.pm_sync = last;
	if (hp->sh->sh_proc[last ? PM_EXIT : PM_LWP_EXIT] || last)
		pt_send(hp, &m, t, last ? PM_EXIT : PM_LWP_EXIT);
}

/*
 * A new task's first stop can reach us before its creator's clone, fork
 * or vfork event (the kernel queues both; waitpid() reports the newest
 * tracee first).  The task is held in that stop until the event has
 * given it its pid, parent and filter state (on_newtask), so that none
 * of its calls is reported under a wrong pid and create/lwp-create come
 * first.  If the event does not come (the creator died with a fatal
 * signal pending: no event stop), unhold() takes what /proc says.
 */
static void hold(helper_state_t *hp, tinfo_t *t)
{
	t->ti_held = 1;
	t->ti_hns = now_ns();
	hp->nheld++;
	hp->nholds++;
}

/* Fill in a task we saw no creator's event for, from /proc. */
static void resolve(helper_state_t *hp, tinfo_t *t)
{
	int32_t tgid = tgid_of(t->ti_tid);
	tinfo_t *p;

	t->ti_pid = tgid > 0 ? tgid : t->ti_tid;
	t->ti_ppid = status_num(t->ti_tid, "\nPPid:", 0);
	p = pt_tget(hp, t->ti_pid != t->ti_tid ? t->ti_pid : t->ti_ppid, 0);
	if (p != NULL) {
		if (t->ti_pid != t->ti_tid)
			t->ti_ppid = p->ti_ppid;
		t->ti_filt = p->ti_filt;
		t->ti_sbase = p->ti_sbase;
	}
	read_comm(t);
}

/* Let go, as /proc describes them (resolve), the tasks held since
 * before 'before' (monotonic ns; UINT64_MAX: all). */
static void unhold(helper_state_t *hp, uint64_t before)
{
	for (int i = 0; i < MAXT && hp->nheld > 0; i++) {
		tinfo_t *t = &hp->tinfo[i];

		if (t->ti_tid <= 0 || !t->ti_held || t->ti_hns >= before)
			continue;
		t->ti_held = 0;
		hp->nheld--;
		hp->nunheard++;
		resolve(hp, t);
		ptbp_settle(hp, t, 0);
	}
}

/* Handle one wait status of tid and resume it. */
static void on_stop(helper_state_t *hp, pid_t tid, int st)
{
	tinfo_t *t = pt_tget(hp, tid, 0);
	int sig = 0, event = st >> 16;

	if (t == NULL) {
		t = pt_tget(hp, tid, 1);
		if (WIFSTOPPED(st) && event == PTRACE_EVENT_STOP &&
		    t != &hp->tscratch) {
			hp->nstops++;
			hold(hp, t);	/* new: its creator's event is due */
			return;
		}
	}
	if (t->ti_held) {		/* killed while held */
		t->ti_held = 0;
		hp->nheld--;
	}
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		ptbp_gone(hp, t, t->ti_tid == t->ti_pid);
		t->ti_tid = TI_GONE;
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	hp->nstops++;
	if (t->ti_comm[0] == '\0')
		read_comm(t);
	if (ptbp_stop(hp, t, st))
		return;			/* a breakpoint's: handled there */
	if (event == PTRACE_EVENT_SECCOMP)
		on_seccomp(hp, t);
	else if (WSTOPSIG(st) == (SIGTRAP | 0x80))
		on_syscall(hp, t);
	else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE)
		on_newtask(hp, t, event);
	else if (event == PTRACE_EVENT_EXEC)
		on_exec(hp, t);
	else if (event == PTRACE_EVENT_EXIT)
		on_exit_event(hp, t);
	else if (event == 0)
		sig = WSTOPSIG(st);	/* a signal to deliver */
	ptbp_settle(hp, t, sig);
}

/* Seize tid (a thread of pid) and stop it once to start syscall stops.
 * Returns 0 or errno. */
static int seize(helper_state_t *hp, pid_t pid, pid_t tid, int held)
{
	tinfo_t *t;

	if (ptrace(PTRACE_SEIZE, tid, 0, PT_OPTS) != 0)
		return errno;
	t = pt_tget(hp, tid, 1);
	t->ti_pid = pid;
	t->ti_ppid = status_num(tid, "\nPPid:", 0);
	t->ti_sbase = status_num(tid, "\nSeccomp_filters:", 0);
	t->ti_prexec = held;		/* dtrace's -c child before its exec */
	ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	return 0;
}

/* Seize every thread of pid; again while a pass seizes one (a thread not
 * yet seized may have made more; those of seized ones come by their
 * creator's event).  Returns 0 once one is ours, else errno (ESRCH: no
 * such process; EPERM: not allowed, or traced by another). */
static int attach(helper_state_t *hp, pid_t pid, int held)
{
	char path[64];
	int err = ESRCH, again = 1;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	for (int pass = 0; again && pass < 16; pass++) {
		struct dirent *d;
		DIR *dir = opendir(path);

		if (dir == NULL)
			break;
		again = 0;
		while ((d = readdir(dir)) != NULL) {
			pid_t tid = (pid_t)atoi(d->d_name);
			int e;

			if (tid <= 0)
				continue;
			if (pt_tget(hp, tid, 0) != NULL)
				e = 0;
			else if ((e = seize(hp, pid, tid, held)) == 0)
				again = 1;
			if (err != 0)
				err = e;
		}
		closedir(dir);
	}
	return err;
}

/* Passive: should tid stay traced?  Only threads under our seccomp
 * filter need a tracer (RET_TRACE without one fails every trapped call
 * with ENOSYS); the others are let go. */
static int keep(tinfo_t *t)
{
	if (t->ti_keep == 0)
		t->ti_keep = t->ti_filt || status_num(t->ti_tid,
		    "\nSeccomp_filters:", 0) > t->ti_sbase ? 1 : 2;
	return t->ti_keep == 1;
}

/*
 * Passive: has the stopped tid a breakpoint trap or a trampoline fault
 * queued (SIGTRAP or SIGSEGV pending to the thread, not blocked)?  The
 * kernel reports a PTRACE_INTERRUPT stop (or a group stop) before it
 * dequeues a signal already pending: a thread that hit an int3, or
 * returned to TRAMP, just before its interrupt arrived, stops first for
 * the interrupt with the signal still queued.  Detached there, it would
 * take the signal untraced and die; continued, it stops again at once
 * for that signal, which ptbp_passive undoes.  Read while it is stopped,
 * so nothing can be added meanwhile.
 */
static int trap_queued(pid_t tid)
{
	const uint64_t traps = 1ull << (SIGTRAP - 1) | 1ull << (SIGSEGV - 1);

	return (status_mask(tid, "\nSigPnd:") &
	    ~status_mask(tid, "\nSigBlk:") & traps) != 0;
}

/* Passive: resume (or let go of) tid after a stop, reporting nothing:
 * a seccomp stop lets its call run; a signal is delivered; a group stop
 * stays one (PTRACE_LISTEN). */
static void passive_stop(helper_state_t *hp, pid_t tid, int st)
{
	tinfo_t *t = pt_tget(hp, tid, 1);
	int event = st >> 16, sig = 0;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		t->ti_tid = TI_GONE;
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	if (event == 0 && WSTOPSIG(st) != (SIGTRAP | 0x80))
		sig = WSTOPSIG(st);
	if (ptbp_passive(hp, t, st))
		sig = 0;		/* a breakpoint's trap, undone */
	if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE) {
		unsigned long msg = 0;
		tinfo_t *c;

		ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
		c = pt_tget(hp, (int32_t)msg, 1);
		c->ti_sbase = t->ti_sbase;
		c->ti_filt = t->ti_filt;
		c->ti_keep = t->ti_keep;
	}
	if (!keep(t) && event != 0 && trap_queued(tid))
		ptrace(PTRACE_CONT, tid, 0, 0);	/* its trap stops it next */
	else if (!keep(t))
		ptrace(PTRACE_DETACH, tid, 0, (void *)(uintptr_t)sig);
	else if (event == PTRACE_EVENT_STOP && WSTOPSIG(st) != SIGTRAP)
		ptrace(PTRACE_LISTEN, tid, 0, 0);
	else
		ptrace(PTRACE_CONT, tid, 0, (void *)(uintptr_t)sig);
}

/*
 * dtrace let go (closed the command pipe, or died).  With no tracee left
 * the helper exits; else it stops talking to dtrace (closes the event
 * pipes and its stderr) and goes on as a tracer that reports nothing:
 * every thread is interrupted once, those not under our seccomp filter
 * are detached, the others (descendants of the -c command that outlive
 * dtrace) are continued at every stop, forks followed, until the last
 * one is gone.
 */
static void helper_release(helper_state_t *hp)
{
	const char *e = getenv("DTUI_PTRACE_STOPS");
	int st, fd, none;
	pid_t tid;

	ptbp_release(hp);		/* every breakpoint out */
	tid = waitpid(-1, &st, __WALL | WNOHANG);
	none = tid < 0 && errno == ECHILD;
	if (none)
		hp->nheld = 0;		/* no tracee: nothing held */
	unhold(hp, UINT64_MAX);
	if (e != NULL && *e == '1')
		dprintf(2, "dtrace: ptrace helper: %llu stops\n"
		    "dtrace: ptrace helper: %llu new tasks held for their "
		    "creator's event, %llu let go without it\n",
		    (unsigned long long)hp->nstops,
		    (unsigned long long)hp->nholds,
		    (unsigned long long)hp->nunheard);
	if (none)
		_exit(0);		/* no tracee: dtrace reaps us */
	__atomic_store_n(&hp->sh->sh_passive, 1, __ATOMIC_RELEASE);
	if (tid > 0)
		passive_stop(hp, tid, st);
	close(hp->evfd);
	close(hp->ackfd);
	hp->evfd = hp->ackfd = -1;
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, 2);
		close(fd);
	}
	for (int i = 0; i < MAXT; i++)
		if (hp->tinfo[i].ti_tid > 0)
			ptrace(PTRACE_INTERRUPT, hp->tinfo[i].ti_tid, 0, 0);
	for (;;) {
		tid = waitpid(-1, &st, __WALL);
		if (tid < 0 && errno == EINTR)
			continue;
		if (tid < 0)
			_exit(0);	/* ECHILD: no tracee left */
		passive_stop(hp, tid, st);
	}
}

/* Syscall probes were enabled while none were: a tracee resumed with
 * PTRACE_CONT makes no syscall stops; interrupt each (its next stop
 * resumes it with PTRACE_SYSCALL).  A held task waits for its event;
 * dtrace's -c child before its exec is left alone (its calls there are
 * dtrace's, not the command's: they are not traced, as in dtrace(1M)). */
static void restop(helper_state_t *hp)
{
	for (int i = 0; i < MAXT; i++)
		if (hp->tinfo[i].ti_tid > 0 && !hp->tinfo[i].ti_held &&
		    !hp->tinfo[i].ti_prexec)
			ptrace(PTRACE_INTERRUPT, hp->tinfo[i].ti_tid, 0, 0);
}

static void helper_main(helper_state_t *hp, int cmd, int sigfd)
{
	struct pollfd pf[2] = { { cmd, POLLIN, 0 }, { sigfd, POLLIN, 0 } };

	for (;;) {
		int st;
		pid_t tid;

		while ((tid = waitpid(-1, &st, __WALL | WNOHANG)) > 0)
			on_stop(hp, tid, st);
		if (hp->nheld > 0)		/* creator's event overdue */
			unhold(hp, now_ns() - HOLD_NS);
		if (poll(pf, 2, hp->nheld > 0 ? 20 : 1000) < 0 &&
		    errno != EINTR)
			_exit(1);
		if (pf[0].revents & (POLLIN | POLLHUP)) {
			int32_t pid;

			if (read(cmd, &pid, sizeof(pid)) != sizeof(pid))
				helper_release(hp);
			if (pid == PT_CMD_RESTOP) {
				restop(hp);
				continue;
			}
			if (pid == PT_CMD_EVALGO) {
				ptbp_evalgo(hp);
				continue;
			}
			if (pid == PT_CMD_SYNC) {
				ptbp_sync(hp);
				__atomic_add_fetch(&hp->sh->sh_synced, 1,
				    __ATOMIC_RELEASE);
				continue;
			}
			__atomic_store_n(&hp->sh->sh_atterr, attach(hp,
			    pid & ~PT_HELD, (pid & PT_HELD) != 0),
			    __ATOMIC_RELAXED);
			__atomic_add_fetch(&hp->sh->sh_attached, 1,
			    __ATOMIC_RELEASE);
		}
		if (pf[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			(void)!read(sigfd, &si, sizeof(si));
		}
	}
}

/* Close every descriptor from 3 on but the n in keep (sorted). */
static void close_others(const int *keepfd, int n)
{
	unsigned lo = 3;

	for (int i = 0; i < n; i++) {
		if ((unsigned)keepfd[i] > lo)
			close_range(lo, (unsigned)keepfd[i] - 1, 0);
		if ((unsigned)keepfd[i] + 1 > lo)
			lo = (unsigned)keepfd[i] + 1;
	}
	close_range(lo, ~0u, 0);
}

/* The helper's setup: its own session (no terminal signals), terminal
 * signals ignored, no descriptor of dtrace's but its pipes (stderr is
 * kept for DTUI_PTRACE_STOPS until release), SIGCHLD by signalfd. */
static void helper_run(helper_state_t *hp, int cmd)
{
	static const int ign[] = { SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP,
	    SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2, SIGALRM };
	int keepfd[3] = { cmd, hp->evfd, hp->ackfd }, fd, sigfd;
	sigset_t set;

	setsid();
	for (size_t i = 0; i < sizeof(ign) / sizeof(ign[0]); i++)
		signal(ign[i], SIG_IGN);
	for (int i = 1; i < 3; i++)	/* sort three */
		for (int j = i; j > 0 && keepfd[j] < keepfd[j - 1]; j--) {
			int x = keepfd[j];

			keepfd[j] = keepfd[j - 1];
			keepfd[j - 1] = x;
		}
	close_others(keepfd, 3);
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		close(fd);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_SETMASK, &set, NULL);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	helper_main(hp, cmd, sigfd);
	_exit(0);
}

pid_t prov_pt_helper_fork(prov_ptshared_t *shp, prov_ptsite_t *sites,
    int cmd, int ev, int ack)
{
	helper_state_t *hp = &hs;
	pid_t pid;

	hp->sh = shp;
	hp->sites = sites;
	pid = fork();
	if (pid != 0)
		return pid;
	hp->evfd = ev;
	hp->ackfd = ack;
	helper_run(hp, cmd);
	_exit(0);
}
