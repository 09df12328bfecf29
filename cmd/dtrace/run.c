/*
 * run.c - running a dtrace session: the -c child and -p processes,
 * SIGINT/SIGTERM, the consume loop and the output at exit, following
 * dtrace(1M):
 *   go; loop { sleep; on the first signal print a newline; stop when
 *   signalled, exit()ed, filled or the traced processes are gone; work };
 *   a newline; the aggregations not yet printed; exit status (exit()'s
 *   value, else 0).  A second SIGINT ends at once without aggregations.
 * The processes themselves are the engine's (eng_proc_*): the -c child
 * is created held before its exec and continued after go, under the
 * seccomp filter the ptrace route needs.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

static void add_proc(eng_proc_t *p)
{
	struct dtc_proc *v = realloc(dtc.procs, (size_t)(dtc.nprocs + 1) *
	    sizeof (*v));

	if (v == NULL) {
		eng_proc_release(p);
		dtc_fatal("failed to allocate memory");
	}
	dtc.procs = v;
	v[dtc.nprocs].dp_proc = p;
	v[dtc.nprocs++].dp_gone = 0;
}

void dtc_run_grab(pid_t pid)
{
	char err[256];
	eng_proc_t *p = eng_proc_grab((int)pid, err, sizeof (err));

	if (p == NULL)
		dtc_fatal("%s", err);
	add_proc(p);
}

pid_t dtc_run_create(const char *cmd)
{
	char err[PATH_MAX + 64];
	eng_proc_t *p = eng_proc_create(cmd, 0, NULL, err, sizeof (err));

	if (p == NULL)
		dtc_fatal("%s", err);
	add_proc(p);
	dtc.child = p;
	/* -x evaltime on the kernel route: run to the point now, before the
	 * probes (pid probes then see the libraries loaded by then) */
	(void)eng_proc_advance(p, dtc.h);
	return (pid_t)eng_proc_pid(p);
}

/* Let go of every process: the -c child is killed if still there (as
 * dtrace does), -p processes are left running. */
void dtc_run_release(void)
{
	for (int i = 0; i < dtc.nprocs; i++)
		eng_proc_release(dtc.procs[i].dp_proc);
	free(dtc.procs);
	dtc.procs = NULL;
	dtc.nprocs = 0;
	dtc.child = NULL;
}

/* Report the traced processes that have exited; the number alive. */
static int alive(void)
{
	int n = 0;

	for (int i = 0; i < dtc.nprocs; i++) {
		struct dtc_proc *d = &dtc.procs[i];

		if (d->dp_gone)
			continue;
		switch (eng_proc_poll(d->dp_proc, NULL)) {
		case ENG_PROC_EXITED: case ENG_PROC_KILLED:
		case ENG_PROC_GONE:
			dtc_notice("pid %d has exited",
			    eng_proc_pid(d->dp_proc));
			d->dp_gone = 1;
			break;
		default:
			n++;
			break;
		}
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
	int64_t quiet;

	if (eng_getopt(dtc.h, "quietresize", &quiet) == 0 &&
	    quiet != DTRACEOPT_UNSET)
		return;			/* -x quietresize: not a word */
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

/* Recording stopped (a full disk): say so once; tracing goes on. */
static void record_check(void)
{
	static int said;
	const char *e = eng_record_error(dtc.h);

	if (e != NULL && !said) {
		said = 1;
		dtc_warn("%s", e);
	}
}

/* -r: the experiment's output, its drops and errors as they were
 * reported, and the session's exit status. */
int dtc_replay(void)
{
	int status;

	eng_handle_drop(dtc.h, on_drop, NULL);
	eng_handle_err(dtc.h, on_err, NULL);
	if (eng_replay_run(dtc.h, dtc.out) != 0)
		dtc_fatal("failed to replay %s: %s", dtc.replay,
		    eng_errmsg(dtc.h));
	fflush(dtc.out);
	if (eng_replay_warning(dtc.h) != NULL)
		dtc_warn("warning: %s", eng_replay_warning(dtc.h));
	if (eng_replay_note(dtc.h) != NULL)	/* a newer minor format's */
		dtc_warn("note: %s", eng_replay_note(dtc.h));
	status = eng_exit_status(dtc.h);
	eng_close(dtc.h);
	return status;
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
	/* -x evaltime: the -c command runs untraced to where tracing starts
	 * (postinit: its main) and waits there for GO */
	if (dtc.child != NULL)
		(void)eng_proc_advance(dtc.child, dtc.h);
	if (eng_go(dtc.h) != 0)
		dtc_fatal("%s", eng_errmsg(dtc.h));
	report_sizes();
	route_len = eng_route(dtc.h) != NULL ? strlen(eng_route(dtc.h)) : 0;
	record_check();
	if (eng_record_name(dtc.h) != NULL)
		dtc_notice("recording experiment %s", eng_record_name(dtc.h));
	if (dtc.destructive)
		dtc_notice("allowing destructive actions");
	if (dtc.child != NULL && eng_proc_continue(dtc.child, dtc.h) != 0)
		dtc_warn("failed to release pid %d", eng_proc_pid(dtc.child));
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
	for (int i = 0; i < dtc.nprocs; i++)
		if (eng_target_add(dtc.h, eng_proc_pid(dtc.procs[i].dp_proc))
		    != 0)
			dtc_warn("%s", eng_errmsg(dtc.h));
	enable();
	go();
	do {
		if (!g_intr && !done)
			eng_sleep(dtc.h);
		if (g_newline) {
			eng_print_text(dtc.h, dtc.out, "\n");
			g_newline = 0;
		}
		if (g_intr > 1)
			impatient = 1;
		/* eng_stop fires what the providers still hold first */
		if (!done && !g_intr && dtc.nprocs > 0 && alive() == 0)
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
		record_check();
	} while (!done && !impatient);
	eng_print_text(dtc.h, dtc.out, "\n");
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
