/*
 * pcache.c - what a perf sample does not carry about its thread: parent
 * pid, uid, gid and comm, read from /proc/PID/task/TID/status once per
 * thread and cached, and its process's arguments (psargs, argc: from
 * /proc/PID/cmdline, or captured at execve, see psargs.c).
 *
 * The cache is direct-mapped by tid and used by the drain thread only.
 * Fork seeds the child from its parent (PERF_RECORD_FORK: comm,
 * credentials and arguments are inherited), exec and prctl(PR_SET_NAME)
 * update comm through PERF_RECORD_COMM (an exec's also the arguments);
 * the drain thread merges all rings by timestamp, so
 * these arrive in event order with the samples.  Records delivered by BPF
 * carry the comm at the event (bpf.c), which is stored here too.  An
 * exited thread's entry is kept (its last events, e.g. the final
 * sched_switch, may still be drained) until its slot is reused.  Known
 * limits: a thread first seen after it exited has no /proc entry: its comm
 * is the one last seen for its process (the leader's entry), else empty
 * until an event carrying a comm arrives; uid/gid changes after the first
 * sighting (setuid) are not followed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "prov_impl.h"

#define SLOTS 8192

static prov_pinfo_t cache[SLOTS];	/* drain thread only, no lock */

/* /proc/PID/task/TID/<file> into buf as a string; 0, or -1 unreadable. */
static int read_task_file(int32_t tid, int32_t pid, const char *file,
    char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s",
	    pid > 0 ? pid : tid, tid, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static void read_status(prov_pinfo_t *p, int32_t tid, int32_t pid)
{
	char buf[2048], *line, *save = NULL;

	if (read_task_file(tid, pid, "status", buf, sizeof(buf)) != 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "Name:\t", 6) == 0)
			snprintf(p->ppi_comm, sizeof(p->ppi_comm), "%s",
			    line + 6);
		else if (strncmp(line, "Tgid:\t", 6) == 0)
			p->ppi_pid = atoi(line + 6);
		else if (strncmp(line, "PPid:\t", 6) == 0)
			p->ppi_ppid = atoi(line + 6);
		else if (strncmp(line, "Uid:\t", 5) == 0)
			p->ppi_uid = (uint32_t)strtoul(line + 5, NULL, 10);
		else if (strncmp(line, "Gid:\t", 5) == 0)
			p->ppi_gid = (uint32_t)strtoul(line + 5, NULL, 10);
	}
}

/*
 * Process group, session, controlling tty and the initial stack pointer
 * from /proc/PID/stat (fields 5, 6, 7 and 28 after "pid (comm) state").
 * The kernel's start_stack is where exec left argc, then argv[] and
 * envp[]; tty_nr is Linux's dev_t of the tty, 0 for none.
 */
static void read_stat(prov_pinfo_t *p, int32_t tid, int32_t pid)
{
	char buf[1024], *s;
	unsigned long long f[26];
	int k = 0;

	p->ppi_ttydev = (uint64_t)-1;
	if (read_task_file(tid, pid, "stat", buf, sizeof(buf)) != 0)
		return;
	if ((s = strrchr(buf, ')')) == NULL || s[1] != ' ')
		return;
	s += 4;				/* past ") S " */
	while (k < 26) {		/* ppid (4) ... startstack (28) */
		char *end;

		f[k++] = strtoull(s, &end, 10);
		if (end == s || *end != ' ')
			break;
		s = end + 1;
	}
	if (k < 25)
		return;
	p->ppi_pgid = (int32_t)f[1];
	p->ppi_sid = (int32_t)f[2];
	if (f[3] != 0)
		p->ppi_ttydev = f[3];
	p->ppi_stack = f[24];
	p->ppi_stackargc = 0;
	if (p->ppi_stack != 0) {	/* argc as exec left it (a script's
					 * interpreter adds its own) */
		uint64_t argc = 0;
		struct iovec l = { &argc, sizeof(argc) };
		struct iovec r = { (void *)(uintptr_t)p->ppi_stack,
		    sizeof(argc) };

		if (process_vm_readv(pid > 0 ? pid : tid, &l, 1, &r, 1, 0) ==
		    (ssize_t)sizeof(argc) && argc < (1u << 24))
			p->ppi_stackargc = argc;
		else
			p->ppi_stack = 0;
	}
}

/*
 * The targets' arguments, read when they were added (prov_pcache_prime,
 * from the consumer's thread, hence the lock): a -c command run to its
 * evaltime point or a -p process began before tracing did, so its exec
 * is not seen, and a short one may be gone (a zombie has no cmdline)
 * when the drain thread first sees it.
 */
#define NPRIMED 64
static pthread_mutex_t primelk = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int32_t pid;
	uint32_t argc;
	char psargs[sizeof(((prov_pinfo_t *)0)->ppi_psargs)];
} primed[NPRIMED];		/* primelk */
static unsigned nprimed;	/* primelk */

static void read_cmdline(prov_pinfo_t *p, int32_t pid);

void prov_pcache_prime(int32_t pid)
{
	prov_pinfo_t p;
	unsigned i;

	memset(&p, 0, sizeof(p));
	read_cmdline(&p, pid);
	if (p.ppi_psargs[0] == '\0')
		return;
	pthread_mutex_lock(&primelk);
	i = nprimed++ % NPRIMED;
	primed[i].pid = pid;
	primed[i].argc = p.ppi_argc;
	memcpy(primed[i].psargs, p.ppi_psargs, sizeof(primed[i].psargs));
	pthread_mutex_unlock(&primelk);
}

/* A target's arguments as primed, for a pid /proc no longer shows. */
static void from_primed(prov_pinfo_t *p, int32_t pid)
{
	pthread_mutex_lock(&primelk);
	for (unsigned i = 0; i < NPRIMED && i < nprimed; i++)
		if (primed[i].pid == pid) {
			p->ppi_argc = primed[i].argc;
			memcpy(p->ppi_psargs, primed[i].psargs,
			    sizeof(p->ppi_psargs));
		}
	pthread_mutex_unlock(&primelk);
}

/* psargs and argc from /proc/PID/cmdline (NUL-separated arguments). */
static void read_cmdline(prov_pinfo_t *p, int32_t pid)
{
	char path[64], buf[sizeof(p->ppi_psargs)], more[4096];
	ssize_t n, m;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		from_primed(p, pid);
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0) {
		close(fd);
		from_primed(p, pid);
		return;
	}
	p->ppi_argc = 0;
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] != '\0')
			continue;
		p->ppi_argc++;
		buf[i] = i + 1 < n ? ' ' : '\0';
	}
	/* the arguments past psargs' room count too (argc, and where
	 * envp[] starts after argv[]) */
	m = n == (ssize_t)sizeof(buf) - 1 ? read(fd, more, sizeof(more)) : 0;
	for (; m > 0; m = read(fd, more, sizeof(more)))
		for (ssize_t i = 0; i < m; i++)
			p->ppi_argc += more[i] == '\0';
	close(fd);
	if (buf[n - 1] != '\0' && n < (ssize_t)sizeof(buf) - 1)
		p->ppi_argc++;		/* an unterminated last one */
	buf[n] = '\0';
	memcpy(p->ppi_psargs, buf, (size_t)n + 1);
}

void prov_task_proc(ks_task_t *t, const prov_pinfo_t *pi)
{
	t->kt_pgid = pi->ppi_pgid;
	t->kt_sid = pi->ppi_sid;
	t->kt_ttydev = pi->ppi_tid != 0 ? pi->ppi_ttydev : (uint64_t)-1;
	/* the stack holds argc, argv[argc], NULL, envp[] */
	t->kt_argv = pi->ppi_stack != 0 ? pi->ppi_stack + 8 : 0;
	t->kt_envp = pi->ppi_stack != 0 ? pi->ppi_stack + 8 *
	    (pi->ppi_stackargc + 2) : 0;
}

const prov_pinfo_t *prov_pcache_get(int32_t tid, int32_t pid)
{
	prov_pinfo_t *p;

	if (tid <= 0) {			/* the idle task */
		static const prov_pinfo_t idle = { .ppi_comm = "sched" };

		return &idle;
	}
	p = &cache[(uint32_t)tid % SLOTS];
	if (p->ppi_tid == tid)
		return p;
	memset(p, 0, sizeof(*p));
	p->ppi_tid = tid;
	p->ppi_pid = pid;
	read_status(p, tid, pid);
	read_stat(p, tid, p->ppi_pid);
	read_cmdline(p, p->ppi_pid > 0 ? p->ppi_pid : tid);
	if (p->ppi_comm[0] == '\0' && pid > 0 && pid != tid) {
		const prov_pinfo_t *lead = &cache[(uint32_t)pid % SLOTS];

		if (lead->ppi_tid == pid)	/* last name seen for pid */
			memcpy(p->ppi_comm, lead->ppi_comm, sizeof(p->ppi_comm));
	}
	return p;
}

void prov_pcache_comm(int32_t tid, int32_t pid, const char *comm)
{
	prov_pinfo_t *p = &cache[(uint32_t)tid % SLOTS];

	if (p->ppi_tid != tid) {
		prov_pcache_get(tid, pid);
		if (p->ppi_tid != tid)
			return;
	}
	if (strncmp(p->ppi_comm, comm, sizeof(p->ppi_comm) - 1) != 0)
		snprintf(p->ppi_comm, sizeof(p->ppi_comm), "%s", comm);
}

void prov_pcache_args(int32_t tid, int32_t pid, const char *psargs,
    uint32_t argc)
{
	prov_pinfo_t *p = &cache[(uint32_t)tid % SLOTS];

	if (p->ppi_tid != tid) {
		prov_pcache_get(tid, pid);
		if (p->ppi_tid != tid)
			return;
	}
	snprintf(p->ppi_psargs, sizeof(p->ppi_psargs), "%s", psargs);
	p->ppi_argc = argc;
	p->ppi_argv_new = 1;
}

static void (*exec_watch)(int32_t pid);	/* atomic */

void prov_pcache_exec_watch(void (*fn)(int32_t pid))
{
	__atomic_store_n(&exec_watch, fn, __ATOMIC_RELEASE);
}

void prov_pcache_exec(int32_t tid, int32_t pid)
{
	prov_pinfo_t *p = &cache[(uint32_t)tid % SLOTS];
	void (*fn)(int32_t) = __atomic_load_n(&exec_watch, __ATOMIC_ACQUIRE);

	if (fn != NULL)
		fn(pid > 0 ? pid : tid);

	if (p->ppi_tid != tid)
		return;			/* read afresh when next needed */
	read_stat(p, tid, pid);		/* the new image's stack */
	if (!p->ppi_argv_new) {		/* not the parent's arguments */
		p->ppi_psargs[0] = '\0';
		p->ppi_argc = 0;
		read_cmdline(p, pid > 0 ? pid : tid);
	}
	p->ppi_argv_new = 0;
}

static prov_map_watch_t *map_watch;	/* atomic */
static void (*exit_watch)(int32_t pid);	/* atomic */

void prov_pcache_map_watch(prov_map_watch_t *fn)
{
	__atomic_store_n(&map_watch, fn, __ATOMIC_RELEASE);
}

void prov_pcache_exit_watch(void (*fn)(int32_t pid))
{
	__atomic_store_n(&exit_watch, fn, __ATOMIC_RELEASE);
}

void prov_pcache_map(int32_t pid, uint32_t maj, uint32_t min, uint64_t ino,
    const char *path)
{
	prov_map_watch_t *fn = __atomic_load_n(&map_watch, __ATOMIC_ACQUIRE);

	if (fn != NULL)
		fn(pid, maj, min, ino, path);
}

void prov_pcache_exit(int32_t pid, int32_t tid)
{
	void (*fn)(int32_t) = __atomic_load_n(&exit_watch, __ATOMIC_ACQUIRE);

	if (fn != NULL && pid == tid)	/* the process, not a thread */
		fn(pid);
}

void prov_pcache_fork(int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
	prov_pinfo_t *p = &cache[(uint32_t)tid % SLOTS];
	const prov_pinfo_t *parent = prov_pcache_get(ptid, ppid);
	prov_pinfo_t copy = *parent;

	if (parent->ppi_tid != ptid) {	/* the parent is unknown too */
		memset(p, 0, sizeof(*p));	/* not an old thread's entry */
		p->ppi_tid = tid;
		p->ppi_pid = pid;
		read_status(p, tid, pid);
		read_stat(p, tid, pid);
		return;
	}
	*p = copy;
	p->ppi_tid = tid;
	p->ppi_pid = pid;
	p->ppi_argv_new = 0;
	if (pid != ppid)		/* a new process, not a thread */
		p->ppi_ppid = ppid;
}
