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
 * stop writes one ptmsg_t into a pipe: syscall entry (arguments and, for
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
 * fixed array.  It is forked through a middle process (not dtrace's
 * child), in its own session, ignoring terminal signals, holding none of
 * dtrace's descriptors but its pipes (and stderr until release).
 *
 * Release: when this process closes the command pipe (or dies: EOF too)
 * the helper closes the event pipes (the reader here ends) and exits if
 * no tracee is left.  Else it goes passive: threads under our seccomp
 * filter (descendants of the -c command that outlive dtrace; RET_TRACE
 * without a tracer would fail their trapped calls with ENOSYS) stay
 * traced and are continued at every stop without reports, forks
 * followed; the others (-p targets) are detached.  It exits when the
 * last tracee is gone.
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
 * in the environment makes the helper print its stop count at exit.
 *
 * Only stops whose filter data is PROV_SECCOMP_DATA count (a process may
 * have a filter of its own).  The filter also traps every i386 and x32
 * call; their numbers are mapped to the x86_64 probe of the same name
 * (prov_sysnr_native), and one without such a probe is reported once per
 * number as a provider note (prov_note), not fired.  Syscall-entry stops
 * (no filter) are mapped the same way.
 *
 * Known limits: without a filter every system call stops the tracee
 * while syscall probes are enabled; the CPU reported is the helper's; -p
 * needs ptrace permission over the process (same user, no Yama restriction).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/ptrace.h>
#include "providers.h"
#include "prov_impl.h"

#define NSYS 512
#if defined(__x86_64__)
#define PT_NREGS 21			/* user_regs_struct up to ss: the
					 * R_* (pt_regs) order of uregs[] */
#else
#define PT_NREGS 1
#endif
#define MAXT 4096			/* threads the helper tracks */
#define PT_OPTS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | \
	PTRACE_O_TRACEEXIT | PTRACE_O_TRACESECCOMP)

enum { PM_ENTRY, PM_RETURN, PM_CREATE, PM_LWP_CREATE, PM_EXEC_SUCCESS,
	PM_EXIT, PM_LWP_EXIT, PM_NKINDS, PM_NOTE = PM_NKINDS };

static const char *const proc_names[] = {
	[PM_CREATE] = "create", [PM_LWP_CREATE] = "lwp-create",
	[PM_EXEC_SUCCESS] = "exec-success", [PM_EXIT] = "exit",
	[PM_LWP_EXIT] = "lwp-exit",
};

typedef struct ptmsg {
	uint32_t pm_kind, pm_cpu;
	int32_t pm_pid, pm_tid, pm_ppid;
	uint32_t pm_nr;
	uint64_t pm_time;
	uint64_t pm_args[6];
	int64_t pm_ret;
	char pm_comm[16];
	uint32_t pm_sync;		/* the helper waits for an ack */
	uint64_t pm_saddr;		/* captured string: its address */
	uint32_t pm_slen;		/* and length incl. NUL (0: none) */
	char pm_str[256];
	uint64_t pm_vtime;		/* thread CPU ns at the stop */
	uint32_t pm_nregs;		/* user registers at the stop, */
	uint64_t pm_regs[PT_NREGS];	/* uregs[] order (0: none) */
} ptmsg_t;

typedef struct shared {
	uint8_t sh_entry[NSYS], sh_return[NSYS];
	uint8_t sh_proc[PM_NKINDS];
	uint32_t sh_nsys;		/* enabled syscall probes */
	uint64_t sh_sent;		/* messages the helper wrote */
	uint32_t sh_attached;		/* attach requests handled */
	uint8_t sh_filt[NSYS];		/* calls a seccomp filter traps */
	int32_t sh_helper;		/* the helper's pid */
	uint8_t sh_vtime;		/* send CPU time (vtimestamp) */
	uint8_t sh_uregs;		/* send user registers (uregs[]) */
} shared_t;

typedef struct tinfo {			/* helper side */
	int32_t ti_tid, ti_pid, ti_ppid;
	uint32_t ti_nr;			/* syscall in progress */
	uint8_t ti_filt;		/* under our seccomp filter */
	uint8_t ti_inent;		/* in a syscall-entry stop's call */
	uint8_t ti_keep;		/* passive: 0 unknown, 1 keep, 2 let go */
	int32_t ti_sbase;		/* Seccomp_filters when attached */
	char ti_comm[16];
} tinfo_t;

static shared_t *sh;
static pid_t helper;
static int cmdfd = -1, evfd = -1, ackfd = -1;
static uint64_t fired;			/* messages handled here */
static pthread_t reader;
static ks_provider_id_t sys_prov, proc_prov, sched_prov, sdt_prov;
static dtrace_id_t sys_ids[NSYS][2], proc_ids[PM_NKINDS];
static int ntargets;
static tinfo_t tinfo[MAXT];
static uint64_t nstops;			/* helper: wait stops handled */

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

static tinfo_t *tget(int32_t tid, int create)
{
	tinfo_t *t = &tinfo[(uint32_t)tid % MAXT];

	if (t->ti_tid == tid)
		return t;
	if (!create)
		return NULL;
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
static void read_regs(ptmsg_t *m, pid_t tid)
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

static void send_msg(ptmsg_t *m, const tinfo_t *t, uint32_t kind)
{
	struct timespec ts;
	int cpu = sched_getcpu();

	clock_gettime(CLOCK_MONOTONIC, &ts);
	m->pm_kind = kind;
	m->pm_cpu = cpu < 0 ? 0 : (uint32_t)cpu;
	m->pm_time = (uint64_t)ts.tv_sec * 1000000000ull +
	    (uint64_t)ts.tv_nsec;
	m->pm_pid = t->ti_pid;
	m->pm_tid = t->ti_tid;
	m->pm_ppid = t->ti_ppid;
	memcpy(m->pm_comm, t->ti_comm, sizeof(m->pm_comm));
	if (__atomic_load_n(&sh->sh_vtime, __ATOMIC_RELAXED))
		m->pm_vtime = read_vtime(t);
	if (__atomic_load_n(&sh->sh_uregs, __ATOMIC_RELAXED))
		read_regs(m, t->ti_tid);
	__atomic_add_fetch(&sh->sh_sent, 1, __ATOMIC_RELEASE);
	(void)!write(evfd, m, sizeof(*m));
	if (m->pm_sync) {
		char c;

		(void)!read(ackfd, &c, 1);
	}
}

static void capture(ptmsg_t *m, pid_t tid, uint64_t addr)
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

static void on_entry(tinfo_t *t, uint32_t nr, const void *args)
{
	ptmsg_t m;
	int pa;

	t->ti_nr = nr;
	if (nr >= NSYS || !sh->sh_entry[nr])
		return;
	memset(&m, 0, sizeof(m));
	m.pm_nr = nr;
	memcpy(m.pm_args, args, sizeof(m.pm_args));
	pa = prov_sysname(nr) != NULL ? path_arg(prov_sysname(nr)) : -1;
	if (pa >= 0)
		capture(&m, t->ti_tid, m.pm_args[pa]);
	send_msg(&m, t, PM_ENTRY);
}

/* The x86_64 number of a call (i386 and x32 mapped by name); a call with
 * no syscall probe is reported once per number (PM_NOTE) and gives
 * UINT32_MAX: it is not traced. */
static uint32_t native_nr(tinfo_t *t, uint32_t arch, uint64_t nr)
{
	static uint8_t noted[2][1024];
	int x32 = arch == AUDIT_ARCH_X86_64 && (nr & PROV_X32_BIT) != 0;
	int n = nr > UINT32_MAX ? -1 : prov_sysnr_native(arch, (uint32_t)nr);
	uint32_t i = (uint32_t)(nr & 1023);
	const char *name, *abi;
	ptmsg_t m;

	if (n >= 0 && n < NSYS)
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
	send_msg(&m, t, PM_NOTE);
	return UINT32_MAX;
}

/* A seccomp stop: the entry, unless a syscall-entry stop saw it.  ti_nr
 * stays set when the exit must be caught (PTRACE_SYSCALL once). */
static void on_seccomp(tinfo_t *t)
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
	on_entry(t, native_nr(t, si.arch, si.seccomp.nr), si.seccomp.args);
	if (t->ti_nr >= NSYS || !sh->sh_return[t->ti_nr])
		t->ti_nr = UINT32_MAX;
}

/* Does the filter trap every call whose probe is enabled? */
static int covered(void)
{
	for (int i = 0; i < NSYS; i++)
		if ((sh->sh_entry[i] || sh->sh_return[i]) && !sh->sh_filt[i])
			return 0;
	return 1;
}

static void on_syscall(tinfo_t *t)
{
	struct ptrace_syscall_info si;
	ptmsg_t m;

	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->ti_tid, sizeof(si), &si) <= 0)
		return;
	memset(&m, 0, sizeof(m));
	if (si.op == PTRACE_SYSCALL_INFO_ENTRY) {
		t->ti_inent = 1;
		on_entry(t, native_nr(t, si.arch, si.entry.nr), si.entry.args);
	} else if (si.op == PTRACE_SYSCALL_INFO_EXIT) {
		uint32_t nr = t->ti_nr;

		t->ti_nr = UINT32_MAX;
		t->ti_inent = 0;
		if (nr >= NSYS || !sh->sh_return[nr])
			return;
		m.pm_nr = nr;
		m.pm_ret = si.exit.rval;
		send_msg(&m, t, PM_RETURN);
	}
}

/* A number from /proc/tid/status ("\nTgid:"...), or dflt if unknown. */
static int32_t status_num(int32_t tid, const char *key, int32_t dflt)
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
	return p != NULL ? (int32_t)atoi(p + strlen(key)) : dflt;
}

static int32_t tgid_of(int32_t tid)
{
	return status_num(tid, "\nTgid:", 0);
}

static void on_newtask(tinfo_t *t, int event)
{
	unsigned long msg = 0;
	tinfo_t *c;
	ptmsg_t m;
	int thread;

	ptrace(PTRACE_GETEVENTMSG, t->ti_tid, 0, &msg);
	c = tget((int32_t)msg, 1);
	thread = event == PTRACE_EVENT_CLONE && tgid_of((int32_t)msg) ==
	    t->ti_pid;
	c->ti_pid = thread ? t->ti_pid : (int32_t)msg;
	c->ti_ppid = thread ? t->ti_ppid : t->ti_pid;
	memcpy(c->ti_comm, t->ti_comm, sizeof(c->ti_comm));
	c->ti_filt = t->ti_filt;
	c->ti_sbase = t->ti_sbase;
	memset(&m, 0, sizeof(m));
	m.pm_args[0] = msg;
	if (sh->sh_proc[thread ? PM_LWP_CREATE : PM_CREATE])
		send_msg(&m, t, thread ? PM_LWP_CREATE : PM_CREATE);
}

static void on_exec(tinfo_t *t)
{
	char path[64];
	ptmsg_t m;
	ssize_t n;

	read_comm(t);
	t->ti_nr = UINT32_MAX;
	if (!sh->sh_proc[PM_EXEC_SUCCESS])
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
	send_msg(&m, t, PM_EXEC_SUCCESS);
}

static void on_exit_event(tinfo_t *t)
{
	unsigned long st = 0;
	ptmsg_t m;
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
	if (sh->sh_proc[last ? PM_EXIT : PM_LWP_EXIT] || last)
		send_msg(&m, t, last ? PM_EXIT : PM_LWP_EXIT);
}

/* Handle one wait status of tid and resume it. */
static void on_stop(pid_t tid, int st)
{
	tinfo_t *t = tget(tid, 1);
	int sig = 0, event = st >> 16, req;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		t->ti_tid = 0;
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	nstops++;
	if (t->ti_comm[0] == '\0')
		read_comm(t);
	if (event == PTRACE_EVENT_SECCOMP)
		on_seccomp(t);
	else if (WSTOPSIG(st) == (SIGTRAP | 0x80))
		on_syscall(t);
	else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE)
		on_newtask(t, event);
	else if (event == PTRACE_EVENT_EXEC)
		on_exec(t);
	else if (event == PTRACE_EVENT_EXIT)
		on_exit_event(t);
	else if (event == 0)
		sig = WSTOPSIG(st);	/* a signal to deliver */
	if (__atomic_load_n(&sh->sh_nsys, __ATOMIC_RELAXED) == 0)
		req = PTRACE_CONT;
	else if (t->ti_filt && covered() && !t->ti_inent)
		req = t->ti_nr != UINT32_MAX ? PTRACE_SYSCALL : PTRACE_CONT;
	else
		req = PTRACE_SYSCALL;
	ptrace(req, tid, 0, (void *)(uintptr_t)sig);
}

/* Seize every thread of pid and stop it once to start syscall stops. */
static void attach(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (dir == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		pid_t tid = (pid_t)atoi(d->d_name);
		tinfo_t *t;

		if (tid <= 0 || ptrace(PTRACE_SEIZE, tid, 0, PT_OPTS) != 0)
			continue;
		t = tget(tid, 1);
		t->ti_pid = pid;
		t->ti_ppid = status_num(tid, "\nPPid:", 0);
		t->ti_sbase = status_num(tid, "\nSeccomp_filters:", 0);
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	}
	closedir(dir);
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

/* Passive: resume (or let go of) tid after a stop, reporting nothing:
 * a seccomp stop lets its call run; a signal is delivered; a group stop
 * stays one (PTRACE_LISTEN). */
static void passive_stop(pid_t tid, int st)
{
	tinfo_t *t = tget(tid, 1);
	int event = st >> 16, sig = 0;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		t->ti_tid = 0;
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	if (event == 0 && WSTOPSIG(st) != (SIGTRAP | 0x80))
		sig = WSTOPSIG(st);
	if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE) {
		unsigned long msg = 0;
		tinfo_t *c;

		ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
		c = tget((int32_t)msg, 1);
		c->ti_sbase = t->ti_sbase;
		c->ti_filt = t->ti_filt;
		c->ti_keep = t->ti_keep;
	}
	if (!keep(t))
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
static void helper_release(void)
{
	const char *e = getenv("DTUI_PTRACE_STOPS");
	int st, fd;
	pid_t tid;

	if (e != NULL && *e == '1')
		dprintf(2, "dtrace: ptrace helper: %llu stops\n",
		    (unsigned long long)nstops);
	close(evfd);
	close(ackfd);
	evfd = ackfd = -1;
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, 2);
		close(fd);
	}
	for (int i = 0; i < MAXT; i++)
		if (tinfo[i].ti_tid > 0)
			ptrace(PTRACE_INTERRUPT, tinfo[i].ti_tid, 0, 0);
	for (;;) {
		tid = waitpid(-1, &st, __WALL);
		if (tid < 0 && errno == EINTR)
			continue;
		if (tid < 0)
			_exit(0);	/* ECHILD: no tracee left */
		passive_stop(tid, st);
	}
}

static void helper_main(int cmd, int sigfd)
{
	struct pollfd pf[2] = { { cmd, POLLIN, 0 }, { sigfd, POLLIN, 0 } };

	for (;;) {
		int st;
		pid_t tid;

		while ((tid = waitpid(-1, &st, __WALL | WNOHANG)) > 0)
			on_stop(tid, st);
		if (poll(pf, 2, 1000) < 0 && errno != EINTR)
			_exit(1);
		if (pf[0].revents & (POLLIN | POLLHUP)) {
			int32_t pid;

			if (read(cmd, &pid, sizeof(pid)) != sizeof(pid))
				helper_release();
			attach(pid);
			__atomic_add_fetch(&sh->sh_attached, 1,
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
static void helper_run(int cmd)
{
	static const int ign[] = { SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP,
	    SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2, SIGALRM };
	int keepfd[3] = { cmd, evfd, ackfd }, fd, sigfd;
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
	helper_main(cmd, sigfd);
	_exit(0);
}

/* Fork the helper, through a middle process that exits at once: the
 * helper is not dtrace's child, so nothing has to wait for it when it
 * outlives dtrace (see helper_release). */
static int helper_start(void)
{
	int cp[2], ep[2], ap[2], st;
	pid_t mid;

	if (pipe2(cp, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(ep, O_CLOEXEC) != 0 || pipe2(ap, O_CLOEXEC) != 0) {
		close(cp[0]);
		close(cp[1]);
		return -1;
	}
	mid = fork();
	if (mid < 0)
		return -1;
	if (mid == 0) {
		if (fork() != 0)
			_exit(0);
		close(cp[1]);
		close(ep[0]);
		close(ap[1]);
		evfd = ep[1];
		ackfd = ap[0];
		sh->sh_helper = getpid();
		helper_run(cp[0]);
	}
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	helper = mid;
	close(cp[0]);
	close(ep[1]);
	close(ap[0]);
	cmdfd = cp[1];
	evfd = ep[0];
	ackfd = ap[1];
	return 0;
}

/* ---- this process: messages to firings ---- */

static void fire_msg(const ptmsg_t *m)
{
	static ks_ucapture_t cap;
	static uint64_t regs[PT_NREGS];
	ks_probe_ctx_t ctx;
	dtrace_id_t id;

	if (m->pm_kind == PM_NOTE)
		prov_note("%s", m->pm_str);
	if (m->pm_kind == PM_ENTRY || m->pm_kind == PM_RETURN)
		id = m->pm_nr < NSYS ? sys_ids[m->pm_nr][m->pm_kind] : 0;
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
	ptmsg_t m;

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
	for (int i = 0; i < NSYS; i++) {
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

int prov_ptrace_target_add(int pid)
{
	int32_t p = pid;

	if (sh == NULL) {
		errno = ENOTSUP;
		return -1;
	}
	if (helper == 0) {
		if (helper_start() != 0)
			return -1;
		if (pthread_create(&reader, NULL, reader_main, NULL) != 0)
			return -1;
	}
	if (write(cmdfd, &p, sizeof(p)) != sizeof(p))
		return -1;
	ntargets++;
	/* Return once the helper holds it: the caller may let it run. */
	for (int i = 0; i < 4000 && __atomic_load_n(&sh->sh_attached,
	    __ATOMIC_ACQUIRE) < (uint32_t)ntargets; i++)
		usleep(500);
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
	for (unsigned nr = 0; nr < prov_sysname_count() && nr < NSYS; nr++) {
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
	__atomic_add_fetch(&sh->sh_nsys, 1, __ATOMIC_SEQ_CST);
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
	if (helper > 0) {
		/* On EOF the helper closes its end of the event pipe (it
		 * exits, or goes passive while tracees remain): the reader
		 * then ends. */
		close(cmdfd);
		pthread_join(reader, NULL);
		close(evfd);
		close(ackfd);
		helper = 0;
	}
}
