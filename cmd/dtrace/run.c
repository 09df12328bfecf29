/*
 * run.c - running a dtrace session: the -c child and -p processes,
 * SIGINT/SIGTERM, the consume loop and the output at exit, following
 * dtrace(1M):
 *   go; loop { sleep; on the first signal print a newline; stop when
 *   signalled, exit()ed, filled or the traced processes are gone; work };
 *   a newline; the aggregations not yet printed; exit status (exit()'s
 *   value, else 0).  A second SIGINT ends at once without aggregations.
 * The -c child waits on the hold pipe for "g", an int32 count and that
 * many syscall numbers; with a count > 0 it installs a seccomp filter
 * trapping (SECCOMP_RET_TRACE) only those and every i386 or x32 call
 * (the ptrace helper maps them), for the ptrace route, then execs.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dtc.h"

static volatile sig_atomic_t g_intr;	/* signals received */
static volatile sig_atomic_t g_newline;	/* print a newline (after ^C) */

static void intr(int sig)
{
	(void)sig;
	if (!g_intr)
		g_newline = 1;
	g_intr++;
	if (dtc.h != NULL)
		eng_wakeup(dtc.h);
}

static void add_pid(pid_t pid)
{
	pid_t *p = realloc(dtc.pids, (size_t)(dtc.npids + 1) * sizeof (*p));

	if (p == NULL)
		dtc_fatal("failed to allocate memory");
	dtc.pids = p;
	p[dtc.npids++] = pid;
}

void dtc_run_grab(pid_t pid)
{
	if (kill(pid, 0) != 0 && errno == ESRCH)
		dtc_fatal("failed to grab pid %d: no such process", (int)pid);
	add_pid(pid);
}

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

/* Split cmd at blanks, as dtrace -c does (no shell). */
static char **split(const char *cmd, char **copy)
{
	char *s = strdup(cmd), **v = calloc(strlen(cmd) / 2 + 2, sizeof (*v));
	int n = 0;

	if (s == NULL || v == NULL)
		dtc_fatal("failed to allocate memory");
	for (char *t = strtok(s, " \t\n"); t != NULL; t = strtok(NULL, " \t\n"))
		v[n++] = t;
	if (n == 0)
		dtc_fatal("failed to execute %s: empty command", cmd);
	*copy = s;
	return v;
}

/*
 * Can file be executed as execvp would find it?  dtrace creates the -c
 * process before compiling and fails if exec fails, with libproc's
 * Pcreate_error() words: "cannot find executable file" when the last
 * attempt found nothing, else "cannot execute file".  The child here
 * execs only after tracing starts, so the search is done first.
 */
static const char *exec_error(const char *file)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];
	int err = ENOENT;

	if (strchr(file, '/') != NULL)
		return runnable(file, &err) ? NULL : err == ENOENT ?
		    "cannot find executable file" : "cannot execute file";
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path; ; p += strcspn(p, ":") + 1) {
		int n = (int)strcspn(p, ":");

		snprintf(buf, sizeof (buf), "%.*s%s%s", n, p, n ? "/" : "",
		    file);
		if (runnable(buf, &err))
			return NULL;
		if (p[n] == '\0')
			break;
	}
	return err == ENOENT ? "cannot find executable file" :
	    "cannot execute file";
}

#define MAXNR 512			/* syscall numbers handed over */

/* In the -c child: read the syscall list from the hold pipe and install
 * a filter that stops the child (for the ptrace helper) only on those.
 * Nothing is installed when the list is empty, unknown or refused. */
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

/* Let the -c child go, with the syscalls its filter should trap. */
static void release_hold(void)
{
	char buf[1 + sizeof (int32_t) * (MAXNR + 1)];
	int nrs[MAXNR];
	int32_t n = (int32_t)eng_target_syscalls(dtc.h, nrs, MAXNR);
	size_t len = 1 + sizeof (n);

	buf[0] = 'g';
	memcpy(buf + 1, &n, sizeof (n));
	for (int32_t i = 0; i < n; i++, len += sizeof (int32_t)) {
		int32_t v = nrs[i];

		memcpy(buf + len, &v, sizeof (v));
	}
	(void)!write(dtc.gofd, buf, len);	/* < PIPE_BUF: atomic */
}

pid_t dtc_run_create(const char *cmd)
{
	char *copy;
	char **argv = split(cmd, &copy);
	const char *why = exec_error(argv[0]);
	int fd[2];
	pid_t pid;

	if (why != NULL) {
		char name[PATH_MAX];

		snprintf(name, sizeof (name), "%s", argv[0]);
		free(copy);		/* nothing reachable is left behind */
		free(argv);
		dtc_fatal("failed to execute %s: %s", name, why);
	}
	/* close-on-exec: the child makes no close() of its own once
	 * tracing has started, only the execve */
	if (pipe2(fd, O_CLOEXEC) != 0 || (pid = fork()) < 0)
		dtc_fatal("failed to execute %s: %s", argv[0], strerror(errno));
	if (pid == 0) {
		char c;

		close(fd[1]);
		/* Held until tracing has started (or dtrace gives up). */
		if (read(fd[0], &c, 1) != 1)
			_exit(127);
		seccomp_hold(fd[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "dtrace: failed to execute %s: %s\n", argv[0],
		    strerror(errno));
		_exit(127);
	}
	close(fd[0]);
	free(copy);
	free(argv);
	dtc.gofd = fd[1];
	add_pid(pid);
	dtc.child = pid;
	return pid;
}

/*
 * dtrace kills the process it created when it lets go of it before the
 * process has exited (libdtrace's dt_proc_destroy: PRELEASE_KILL for
 * created processes); -p processes are left running.
 */
void dtc_run_release(void)
{
	pid_t p = dtc.child;
	int st;

	if (p <= 0)
		return;
	dtc.child = 0;
	if (waitpid(p, &st, WNOHANG) == p)
		return;
	(void)kill(p, SIGKILL);
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
}

/* Has pid exited (gone, or a zombie its parent has not reaped)? */
static int exited(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof (path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 1;
	n = fread(buf, 1, sizeof (buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')' */
	if ((p = strrchr(buf, ')')) == NULL || p[1] == '\0')
		return 0;
	return p[2] == 'Z' || p[2] == 'X';
}

/* Reap/poll the traced processes; the number still alive. */
static int alive(void)
{
	int n = 0;

	for (int i = 0; i < dtc.npids; i++) {
		pid_t p = dtc.pids[i];
		int st;

		if (p <= 0)
			continue;
		if (p == dtc.child ? waitpid(p, &st, WNOHANG) == p :
		    exited(p)) {
			dtc_notice("pid %d has exited", (int)p);
			dtc.pids[i] = 0;
			if (p == dtc.child)
				dtc.child = 0;	/* reaped: never signal it */
			continue;
		}
		n++;
	}
	return n;
}

static void on_drop(const eng_dropdata_t *dd, void *arg)
{
	(void)arg;
	fflush(dtc.out);
	fputs(dd->edd_msg, dd->edd_msg[0] == '{' ? dtc.out : stderr);
}

static void on_err(const eng_errdata_t *ed, void *arg)
{
	(void)arg;
	fflush(dtc.out);
	fputs(ed->eed_msg, ed->eed_msg[0] == '{' ? dtc.out : stderr);
}

/* The size options dtrace reports on when they had to be lowered. */
static const struct {
	const char *name, *opt;
} sizes[] = {
	{ "buffer size", "bufsize" },
	{ "aggregation size", "aggsize" },
	{ "speculation size", "specsize" },
	{ "dynamic variable size", "dynvarsize" },
};
#define NSIZES (sizeof (sizes) / sizeof (sizes[0]))

/* A size too large under bufresize=manual fails as DTrace's allocation
 * would (ENOMEM from DTRACEIOC_GO). */
static void check_sizes(void)
{
	for (size_t i = 0; i < NSIZES; i++) {
		int64_t asked, now;

		if (eng_opt_fitted(dtc.h, sizes[i].opt, &asked, &now) < 0)
			dtc_fatal("could not enable tracing: %s",
			    strerror(ENOMEM));
	}
}

/* After go, as dtrace(1M): "buffer size lowered to 512m" for each size
 * that had to be lowered (k/m/g... when a whole multiple, else bytes). */
static void report_sizes(void)
{
	for (size_t i = 0; i < NSIZES; i++) {
		int64_t asked, now;
		int j = 0, mul = 10;

		if (eng_opt_fitted(dtc.h, sizes[i].opt, &asked, &now) <= 0 ||
		    now <= 0)
			continue;
		for (; ((int64_t)1 << mul) <= now && mul < 60; j++, mul += 10)
			;
		if (!(now & (((int64_t)1 << (mul - 10)) - 1)))
			dtc_warn("%s lowered to %lld%c", sizes[i].name,
			    (long long)(now >> (mul - 10)), " kmgtpe"[j]);
		else
			dtc_warn("%s lowered to %lld bytes", sizes[i].name,
			    (long long)now);
	}
}

/*
 * -v: the stability attributes of a program, in dtrace's layout.  dtui
 * keeps no per-identifier attribute table, so every program reports the
 * Linux providers' Evolving/Common, as -lv does for their probes.
 */
static void stability(const char *kind, int len, const char *name)
{
	static const char *const what[] = {
		"Minimum Probe Description Attributes",
		"Minimum Statement Attributes",
	};

	fprintf(dtc.out, "\nStability attributes for %s %.*s:\n", kind, len,
	    name);
	for (int i = 0; i < 2; i++)
		fprintf(dtc.out, "\n\t%s\n\t\tIdentifier Names: Evolving\n"
		    "\t\tData Semantics:   Evolving\n"
		    "\t\tDependency Class: Common\n", what[i]);
}

/* Enable every program and say what each matched. */
static void enable(void)
{
	unsigned total = 0;
	int64_t q = 0;

	if (eng_getopt(dtc.h, "quiet", &q) == 0 && q > 0)
		dtc.quiet = 1;
	check_sizes();
	for (int i = 0; i < dtc.nprogs; i++) {
		struct dtc_prog *p = &dtc.progs[i];
		unsigned n = 0;

		if (eng_prog_exec(dtc.h, p->dp_prog, &n) != 0)
			dtc_fatal("failed to enable '%s': %s", p->dp_text,
			    eng_errmsg(dtc.h));
		/* dtrace crops a specifier at its predicate or body for
		 * reporting: -n 'BEGIN { x }' matched as 'BEGIN '. */
		int len = p->dp_kind == 's' ? (int)strlen(p->dp_text) :
		    (int)strcspn(p->dp_text, "{/;");
		dtc_notice("%s '%.*s' matched %u probe%s",
		    p->dp_kind == 's' ? "script" : "description", len,
		    p->dp_text, n, n == 1 ? "" : "s");
		if (dtc.verbose)
			stability(p->dp_kind == 's' ? "script" : "description",
			    len, p->dp_text);
		total += n;
	}
	if (total == 0 && !(dtc.cflags & ENG_C_ZDEFS))
		dtc_fatal("no probes %s", dtc.nprogs ? "matched" : "specified");
}

static size_t route_len;		/* eng_route() when tracing began */

/* Notes the providers added while tracing (eng_route() grew: "; " or
 * ": " then "note; note"), e.g. calls the ptrace route could not trace:
 * each is a warning. */
static void route_notes(void)
{
	const char *r = eng_route(dtc.h);

	if (r == NULL || strlen(r) <= route_len)
		return;
	r += route_len;
	while (*r != '\0') {
		size_t n;

		r += strspn(r, ":; ");
		n = strcspn(r, ";");
		if (n > 0)
			dtc_warn("%.*s", (int)n, r);
		r += n;
	}
}

static void go(void)
{
	struct sigaction sa;
	int64_t bufsize;

	memset(&sa, 0, sizeof (sa));
	sa.sa_handler = intr;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* DTrace's GO refuses a principal buffer too small for even one
	 * 8-byte word (ENOSPC, EDT_BUFTOOSMALL) */
	if (eng_getopt(dtc.h, "bufsize", &bufsize) == 0 && bufsize >= 0 &&
	    bufsize < 8)
		dtc_fatal("could not enable tracing: Enabling exceeds size of "
		    "buffer");
	if (eng_go(dtc.h) != 0)
		dtc_fatal("%s", eng_errmsg(dtc.h));
	report_sizes();
	route_len = eng_route(dtc.h) != NULL ? strlen(eng_route(dtc.h)) : 0;
	if (dtc.destructive)
		dtc_notice("allowing destructive actions");
	if (dtc.gofd >= 0) {
		release_hold();
		close(dtc.gofd);
		dtc.gofd = -2;
	}
}

/* A write error on the output (a closed pipe, a full disk) ends dtrace
 * with a message, its processes and probes released (dtc_fatal). */
static void out_check(const char *what)
{
	errno = 0;
	if (fflush(dtc.out) == 0 && !ferror(dtc.out))
		return;
	dtc_fatal("%s: %s", what, strerror(errno != 0 ? errno : EIO));
}

int dtc_run(void)
{
	int done = 0, impatient = 0, status;

	eng_handle_drop(dtc.h, on_drop, NULL);
	eng_handle_err(dtc.h, on_err, NULL);
	for (int i = 0; i < dtc.npids; i++)
		if (eng_target_add(dtc.h, (int)dtc.pids[i]) != 0)
			dtc_warn("%s", eng_errmsg(dtc.h));
	enable();
	go();
	do {
		if (!g_intr && !done)
			eng_sleep(dtc.h);
		if (g_newline) {
			fputc('\n', dtc.out);
			g_newline = 0;
		}
		if (g_intr > 1)
			impatient = 1;
		/* eng_stop fires what the providers still hold first */
		if (!done && !g_intr && dtc.npids > 0 && alive() == 0)
			done = 1;
		if (done || g_intr) {
			done = 1;
			eng_stop(dtc.h);
		}
		switch (eng_status(dtc.h)) {
		case ENG_STATUS_EXITED: case ENG_STATUS_FILLED:
		case ENG_STATUS_STOPPED:
			done = 1;
			break;
		default:
			break;
		}
		if (!impatient && eng_work(dtc.h, dtc.out) != 0)
			dtc_fatal("processing aborted: %s", eng_errmsg(dtc.h));
		out_check("processing aborted");
	} while (!done && !impatient);
	fputc('\n', dtc.out);
	if (!impatient && g_intr <= 1) {
		if (eng_agg_snap(dtc.h) != 0 || eng_agg_print(dtc.h, dtc.out) != 0)
			dtc_fatal("failed to print aggregations: %s",
			    eng_errmsg(dtc.h));
	}
	out_check("failed to print aggregations");
	route_notes();
	status = eng_exit_status(dtc.h);
	eng_close(dtc.h);
	dtc_run_release();
	return status;
}
