/*
 * proc.c - the processes a session traces (libdtrace's dt_proc role):
 * -c commands created here, -p processes grabbed, both watched until
 * they exit and let go of as dtrace(1M) does.
 *
 * A created process is forked at once and held on a gate pipe before its
 * exec, so nothing of the command runs until tracing has started.
 * eng_proc_continue writes "g", an int32 count and that many x86_64
 * syscall numbers (eng_target_syscalls) into the gate; with a count > 0
 * the child installs a seccomp filter trapping (SECCOMP_RET_TRACE) only
 * those and every i386 or x32 call (the ptrace helper maps them), so the
 * ptrace route stops it only at enabled system calls; then it execs.
 * Closing the gate without "g" (release before go) makes it exit 127.
 * A created process dies with the tracer (PR_SET_PDEATHSIG), as
 * dtrace(1M) sets kill-on-last-close on the processes it creates; its
 * descendants do not, and keep the ptrace helper as their tracer.
 *
 * Exit: a created process is our child and is reaped here (waitpid);
 * a grabbed one is gone once it cannot be signalled or is a zombie.
 * Each process keeps its mappings over time (pmap.c) so that the pid
 * provider and the symbol lookups find its objects: eng_proc_pmap.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "engine.h"
#include "eng_impl.h"
#include "elfsym.h"
#include "providers.h"

#define MAXNR 512			/* syscall numbers handed over */

struct eng_proc {
	int ep_pid;
	int ep_created;			/* our child (-c) */
	int ep_gate;			/* write end of the hold pipe, or -1 */
	char *ep_exe;			/* what a held process will exec */
	int ep_predicted;		/* ep_map lists what exe will map */
	int ep_execd;			/* a -c child is past its exec */
	int ep_evheld;			/* held at -x evaltime's point: 1 by
					 * us (our tracee), 2 by the ptrace
					 * route's helper, 0 not */
	eng_pmwatch_t *ep_watch;	/* -c: its mappings as reported */
	enum eng_proc_state ep_state;
	int ep_status;			/* exit code or signal, once known */
	eng_pmap_t *ep_map;		/* guarded by procs_lock */
	struct eng_proc *ep_next;	/* guarded by procs_lock */
};

static pthread_mutex_t procs_lock = PTHREAD_MUTEX_INITIALIZER;
static eng_proc_t *procs;		/* live handles, guarded by procs_lock */

static void enlist(eng_proc_t *p)
{
	pthread_mutex_lock(&procs_lock);
	p->ep_next = procs;
	procs = p;
	pthread_mutex_unlock(&procs_lock);
}

static void delist(eng_proc_t *p)
{
	pthread_mutex_lock(&procs_lock);
	for (eng_proc_t **pp = &procs; *pp != NULL; pp = &(*pp)->ep_next)
		if (*pp == p) {
			*pp = p->ep_next;
			break;
		}
	pthread_mutex_unlock(&procs_lock);
}

/* Has a released -c child exec'd?  Until then it is a copy of this
 * program, whose mappings are not the command's. */
static int execd(eng_proc_t *p)
{
	char a[PATH_MAX], b[PATH_MAX];
	ssize_t na, nb;
	char path[64];

	if (!p->ep_created || p->ep_execd)
		return 1;
	snprintf(path, sizeof (path), "/proc/%d/exe", p->ep_pid);
	na = readlink(path, a, sizeof (a));
	nb = readlink("/proc/self/exe", b, sizeof (b));
	if (na < 0 || nb < 0 || na != nb || memcmp(a, b, (size_t)na) != 0)
		p->ep_execd = 1;
	return p->ep_execd;
}

int eng_proc_with_pmap(int pid, void (*fn)(eng_pmap_t *, void *), void *arg)
{
	int found = 0;

	pthread_mutex_lock(&procs_lock);
	for (eng_proc_t *p = procs; p != NULL && !found; p = p->ep_next) {
		if (p->ep_pid != pid || p->ep_map == NULL)
			continue;
		/* held before its exec: what the command will map, from
		 * its file; else what it maps now */
		if (p->ep_state == ENG_PROC_HELD && p->ep_exe != NULL) {
			if (!p->ep_predicted)
				(void)eng_pmap_predict(p->ep_map, p->ep_exe);
			p->ep_predicted = 1;
		} else if (p->ep_state != ENG_PROC_HELD && execd(p)) {
			size_t seen = p->ep_watch != NULL ?
			    eng_pmwatch_drain(p->ep_watch) : 0;

			if (eng_pmap_update(p->ep_map) >= 0) {
				if (p->ep_watch != NULL) {
					eng_pmwatch_gone(p->ep_watch, seen,
					    p->ep_map);
					eng_pmwatch_forget(p->ep_watch, seen);
				}
			} else if (p->ep_watch != NULL &&
			    eng_pmwatch_fill(p->ep_watch, p->ep_map) > 0) {
				p->ep_map->pm_gen++;	/* gone: what it mapped
							 * since it was read */
			}
		}
		fn(p->ep_map, arg);
		found = 1;
	}
	pthread_mutex_unlock(&procs_lock);
	return found ? 0 : -1;
}

int eng_proc_created(int pid)
{
	int created = 0;

	pthread_mutex_lock(&procs_lock);
	for (eng_proc_t *p = procs; p != NULL; p = p->ep_next)
		if (p->ep_pid == pid)
			created = p->ep_created;
	pthread_mutex_unlock(&procs_lock);
	return created;
}

int eng_proc_held(int pid)
{
	int held = 0;

	pthread_mutex_lock(&procs_lock);
	for (eng_proc_t *p = procs; p != NULL; p = p->ep_next)
		if (p->ep_pid == pid)
			held = p->ep_state == ENG_PROC_HELD;
	pthread_mutex_unlock(&procs_lock);
	return held;
}

/* ---- creating ---------------------------------------------------------- */

/* A regular file we may execute; else *err = why not (ENOENT/EACCES). */
static int runnable(const char *path, int *err)
{
	struct stat sb;

	if (stat(path, &sb) != 0) {
		*err = errno == ENOENT || errno == ENOTDIR ? ENOENT : EACCES;
		return 0;
	}
	if (!S_ISREG(sb.st_mode) || access(path, X_OK) != 0) {
		*err = EACCES;
		return 0;
	}
	return 1;
}

/*
 * Can file be executed as execvp would find it?  dtrace creates the -c
 * process before compiling and fails if exec fails, with libproc's
 * Pcreate_error() words: "cannot find executable file" when the last
 * attempt found nothing, else "cannot execute file".  The child here
 * execs only after tracing starts, so the search is done first.
 */
static const char *exec_error(const char *file, char *found, size_t flen)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];
	int err = ENOENT;

	snprintf(found, flen, "%s", file);
	if (strchr(file, '/') != NULL)
		return runnable(file, &err) ? NULL : err == ENOENT ?
		    "cannot find executable file" : "cannot execute file";
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path; ; p += strcspn(p, ":") + 1) {
		int n = (int)strcspn(p, ":");

		snprintf(buf, sizeof (buf), "%.*s%s%s", n, p, n ? "/" : "",
		    file);
		if (runnable(buf, &err)) {
			snprintf(found, flen, "%s", buf);
			return NULL;
		}
		if (p[n] == '\0')
			break;
	}
	return err == ENOENT ? "cannot find executable file" :
	    "cannot execute file";
}

/* cmd split at blanks, as dtrace -c does (no shell); NULL if empty. */
static char **split(const char *cmd, char **copy)
{
	char *s = strdup(cmd), **v = calloc(strlen(cmd) / 2 + 2, sizeof (*v));
	int n = 0;

	if (s != NULL && v != NULL)
		for (char *t = strtok(s, " \t\n"); t != NULL;
		    t = strtok(NULL, " \t\n"))
			v[n++] = t;
	if (n == 0) {
		free(s);
		free(v);
		return NULL;
	}
	*copy = s;
	return v;
}

/* In the child: read the syscall list from the gate and install a filter
 * that stops the child (for the ptrace helper) only on those.  Nothing
 * is installed when the list is empty, unknown or refused. */
static void seccomp_hold(int fd)
{
	int32_t n = -1, nrs[MAXNR];
	struct sock_filter f[2 * MAXNR + 7];
	struct sock_fprog prog;
	unsigned short k = 0;

	if (read(fd, &n, sizeof (n)) != sizeof (n) || n <= 0 || n > MAXNR ||
	    read(fd, nrs, (size_t)n * sizeof (*nrs)) !=
	    (ssize_t)((size_t)n * sizeof (*nrs)))
		return;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	/* i386 and x32 calls go to the tracer, which maps their numbers */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    AUDIT_ARCH_X86_64, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_TRACE | ENG_SECCOMP_DATA);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
	    0x40000000u, 0, 1);		/* __X32_SYSCALL_BIT */
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_TRACE | ENG_SECCOMP_DATA);
	for (int32_t i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
		    BPF_K, (uint32_t)nrs[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		    SECCOMP_RET_TRACE | ENG_SECCOMP_DATA);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	prog.len = k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		(void)prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* The child: its stdio, the hold, the filter, the exec. */
static void child(int gate, const int fds[3], int flags, char **argv,
    const char *cmd)
{
	char c;

	/* Killed if the tracer dies, as dtrace's created processes are
	 * (kill on last close): the signal survives the exec.  A tracer
	 * gone before this took effect closed the gate's write end: the
	 * read below ends the child.  (No getppid() to ask: a system call
	 * made here is one the ptrace route may trace, and tests count
	 * getppid.) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		_exit(127);

	for (int i = 0; fds != NULL && i < 3; i++)
		if (fds[i] >= 0 && fds[i] != i)
			(void)dup2(fds[i], i);
	/* Held until tracing has started (or the tracer gives up). */
	if (read(gate, &c, 1) != 1 || c != 'g')
		_exit(127);
	seccomp_hold(gate);
	if (flags & ENG_PROC_SHELL)
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	else
		execvp(argv[0], argv);
	fprintf(stderr, "%s: failed to execute %s: %s\n",
	    program_invocation_short_name, argv ? argv[0] : "/bin/sh",
	    strerror(errno));
	_exit(127);
}

static eng_proc_t *proc_new(int pid, int created)
{
	eng_proc_t *p = calloc(1, sizeof (*p));

	if (p == NULL)
		return NULL;
	p->ep_pid = pid;
	p->ep_created = created;
	p->ep_gate = -1;
	p->ep_state = created ? ENG_PROC_HELD : ENG_PROC_RUNNING;
	p->ep_map = eng_pmap_new(pid);
	return p;
}

/* usdt: the objects a held command will map, for its probes before it
 * execs (prov_target_objects). */
static void tell_objects(eng_pmap_t *pm, void *arg)
{
	const char **paths = calloc(pm->pm_nobjs > 0 ? pm->pm_nobjs : 1,
	    sizeof (*paths));
	int n = 0;

	if (paths == NULL)
		return;
	for (size_t i = 0; i < pm->pm_nobjs; i++)
		if (pm->pm_objs[i].po_path != NULL)
			paths[n++] = pm->pm_objs[i].po_path;
	(void)prov_target_objects(*(int *)arg, paths, n);
	free(paths);
}

eng_proc_t *eng_proc_create(const char *cmd, int flags, const int fds[3],
    char *err, size_t errlen)
{
	char *copy = NULL, **argv = NULL, exe[PATH_MAX] = "/bin/sh";
	const char *why;
	eng_proc_t *p;
	int gate[2];
	pid_t pid;

	/* a plain command is exec'd directly even for dtui, so that
	 * $target is the command, not a shell around it */
	if ((flags & ENG_PROC_SHELL) &&
	    strpbrk(cmd, "\n;&|<>()$`\\\"'*?[]#~={}") == NULL)
		flags &= ~ENG_PROC_SHELL;
	if (!(flags & ENG_PROC_SHELL)) {
		if ((argv = split(cmd, &copy)) == NULL) {
			snprintf(err, errlen, "failed to execute %s: empty "
			    "command", cmd);
			return NULL;
		}
		if ((why = exec_error(argv[0], exe, sizeof (exe))) != NULL) {
			snprintf(err, errlen, "failed to execute %s: %s",
			    argv[0], why);
			free(copy);
			free(argv);
			return NULL;
		}
	}
	/* close-on-exec: the child makes no close() of its own once
	 * tracing has started, only the execve */
	if (pipe2(gate, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
		snprintf(err, errlen, "failed to execute %s: %s", argv ?
		    argv[0] : cmd, strerror(errno));
		free(copy);
		free(argv);
		return NULL;
	}
	if (pid == 0) {
		close(gate[1]);
		child(gate[0], fds, flags, argv, cmd);
	}
	close(gate[0]);
	free(copy);
	free(argv);
	if ((p = proc_new(pid, 1)) == NULL) {
		close(gate[1]);
		(void)kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->ep_gate = gate[1];
	p->ep_exe = strdup(exe);
	p->ep_watch = eng_pmwatch_open((int)pid);
	enlist(p);
	if (!(flags & ENG_PROC_SHELL)) {
		int ipid = (int)pid;

		(void)eng_proc_with_pmap(ipid, tell_objects, &ipid);
	}
	return p;
}

/* ---- grabbing ---------------------------------------------------------- */

/* Is pid a zombie (or dead) not yet reaped by its parent? */
static int zombie(int pid)
{
	char path[64], buf[512], *rp;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof (path), "/proc/%d/stat", pid);
	if ((fp = fopen(path, "re")) == NULL)
		return 1;
	n = fread(buf, 1, sizeof (buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')' */
	if ((rp = strrchr(buf, ')')) == NULL || rp[1] == '\0')
		return 0;
	return rp[2] == 'Z' || rp[2] == 'X';
}

eng_proc_t *eng_proc_grab(int pid, char *err, size_t errlen)
{
	eng_proc_t *p;
	int e = 0;

	if (pid <= 0)
		e = ESRCH;
	else if (kill(pid, 0) != 0)
		e = errno;
	else if (zombie(pid))
		e = ESRCH;
	if (e != 0) {
		snprintf(err, errlen, "failed to grab pid %d: %s", pid,
		    strerror(e));
		return NULL;
	}
	if ((p = proc_new(pid, 0)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_lock(&procs_lock);
	if (p->ep_map != NULL)
		(void)eng_pmap_update(p->ep_map);
	pthread_mutex_unlock(&procs_lock);
	enlist(p);
	return p;
}

int eng_proc_pid(const eng_proc_t *p)
{
	return p->ep_pid;
}

/* ---- running and watching ---------------------------------------------- */

/* Open p's gate: "g", then the filter's syscall list; it execs. */
static int gate_open(eng_proc_t *p, eng_hdl_t *h)
{
	char buf[1 + sizeof (int32_t) * (MAXNR + 1)];
	int nrs[MAXNR];
	int32_t n = h != NULL ? (int32_t)eng_target_syscalls(h, nrs, MAXNR) :
	    -1;
	size_t len = 1 + sizeof (n);
	ssize_t w;

	if (p->ep_gate < 0)
		return 0;
	buf[0] = 'g';
	memcpy(buf + 1, &n, sizeof (n));
	for (int32_t i = 0; i < n; i++, len += sizeof (int32_t)) {
		int32_t v = nrs[i];

		memcpy(buf + len, &v, sizeof (v));
	}
	w = write(p->ep_gate, buf, len);	/* < PIPE_BUF: atomic */
	close(p->ep_gate);
	p->ep_gate = -1;
	if (p->ep_state == ENG_PROC_HELD)
		p->ep_state = ENG_PROC_RUNNING;
	return w == (ssize_t)len ? 0 : -1;
}

int eng_proc_continue(eng_proc_t *p, eng_hdl_t *h)
{
	if (p->ep_evheld == 1)
		eng_evalgo(p->ep_pid);
	else if (p->ep_evheld == 2)
		prov_target_evalgo(p->ep_pid);
	p->ep_evheld = 0;
	return gate_open(p, h);
}

/* The exit a wait status says, into p (ended before its point). */
static void ended(eng_proc_t *p, int st)
{
	p->ep_state = WIFSIGNALED(st) ? ENG_PROC_KILLED : ENG_PROC_EXITED;
	p->ep_status = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st);
}

int eng_proc_advance(eng_proc_t *p, eng_hdl_t *h)
{
	int mode = ENG_EVALTIME_POSTINIT, st = 0, r;
	prov_evalpt_t ev;
	int64_t v;

	if (eng_getopt(h, "evaltime", &v) == 0)
		mode = (int)v;		/* ENG_EVALTIME_* */
	if (p->ep_gate < 0 || p->ep_evheld != 0 || mode == ENG_EVALTIME_EXEC ||
	    eng_evalpoint(p->ep_exe, mode, &ev) != 0)
		return 0;	/* traced from the exec (after eng_go) */
	if (prov_target_ptrace()) {
		/* after the enablings: the ptrace route's helper holds it
		 * (sh_evheld) once the filter their calls need is known */
		if (prov_target_evalhold(p->ep_pid, &ev) != 1)
			return 0;
		/* the ptrace route's helper holds it (sh_evheld) */
		if (gate_open(p, h) != 0)
			return -1;
		while ((r = prov_target_evalheld(p->ep_pid)) == 0 &&
		    eng_proc_poll(p, NULL) == ENG_PROC_RUNNING)
			usleep(1000);
		p->ep_evheld = r == 1 ? 2 : 0;
		return eng_proc_poll(p, NULL) == ENG_PROC_RUNNING ? 0 : -1;
	}
	/* the kernel route: at once, before any probe is enabled (its
	 * events from then on count, GO or not) */
	if (eng_evalseize(p->ep_pid) != 0)
		return 0;
	if (gate_open(p, h) != 0)
		return -1;
	r = eng_evalwait(p->ep_pid, &ev, &st);
	if (r == 0) {
		ended(p, st);
		return -1;
	}
	p->ep_evheld = r == 1;
	return 0;
}

enum eng_proc_state eng_proc_poll(eng_proc_t *p, int *status)
{
	int st;

	if (p->ep_state == ENG_PROC_RUNNING || p->ep_state == ENG_PROC_HELD) {
		if (p->ep_created) {
			if (waitpid(p->ep_pid, &st, WNOHANG) == p->ep_pid) {
				p->ep_state = WIFSIGNALED(st) ?
				    ENG_PROC_KILLED : ENG_PROC_EXITED;
				p->ep_status = WIFSIGNALED(st) ?
				    WTERMSIG(st) : WEXITSTATUS(st);
			}
		} else if ((kill(p->ep_pid, 0) != 0 && errno == ESRCH) ||
		    zombie(p->ep_pid)) {
			p->ep_state = ENG_PROC_GONE;
		}
	}
	if (status != NULL)
		*status = p->ep_status;
	return p->ep_state;
}

void eng_proc_release(eng_proc_t *p)
{
	if (p == NULL)
		return;
	delist(p);
	if (p->ep_gate >= 0)
		close(p->ep_gate);	/* a held child exits 127 */
	/* dtrace kills the process it created when it lets go of it before
	 * the process has exited (libdtrace's dt_proc_destroy:
	 * PRELEASE_KILL for created processes); -p processes run on. */
	if (p->ep_created && (p->ep_state == ENG_PROC_RUNNING ||
	    p->ep_state == ENG_PROC_HELD)) {
		int st;

		if (waitpid(p->ep_pid, &st, WNOHANG) != p->ep_pid) {
			(void)kill(p->ep_pid, SIGKILL);
			while (waitpid(p->ep_pid, &st, 0) < 0 &&
			    errno == EINTR)
				;
		}
	}
	eng_pmap_free(p->ep_map);
	eng_pmwatch_close(p->ep_watch);
	free(p->ep_exe);
	free(p);
}
