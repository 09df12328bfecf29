/*
 * live.h - helpers for the provider tests that run real workloads as
 * root: find and enable probes through the shim's registry, record every
 * firing through the providers' fire hook, run a child that waits for a
 * go signal (started once probes are on, or traced through the ptrace
 * route), and the checks that the perf and ptrace routes share.
 * Header-only, included by one test file each.
 */
#ifndef TEST_PROV_LIVE_H
#define TEST_PROV_LIVE_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ks_impl.h"
#include "providers.h"
#include "prov_impl.h"
#include "bpf_filter.h"

#define LIVE_MAX 400000

typedef struct live_rec {
	dtrace_id_t lr_id;
	int32_t lr_pid, lr_tid, lr_errno;
	uint32_t lr_cpu, lr_nk, lr_nu;
	uint64_t lr_args[5];
	uint64_t lr_ustack0;
	char lr_exec[16];
	char lr_str[64];		/* first captured string */
	char lr_psargs[80];		/* kpc_psargs */
	uint32_t lr_argc;
} live_rec_t;

static live_rec_t *live_recs;
static int live_n;
static pthread_mutex_t live_lk = PTHREAD_MUTEX_INITIALIZER;

__attribute__((unused))
static void live_hook(const ks_probe_ctx_t *c)
{
	live_rec_t *r;

	pthread_mutex_lock(&live_lk);
	if (live_n < LIVE_MAX) {
		r = &live_recs[live_n++];
		memset(r, 0, sizeof(*r));
		r->lr_id = c->kpc_id;
		r->lr_pid = c->kpc_pid;
		r->lr_tid = c->kpc_tid;
		r->lr_errno = c->kpc_errno;
		r->lr_cpu = c->kpc_cpu;
		r->lr_nk = c->kpc_nkstack;
		r->lr_nu = c->kpc_nustack;
		memcpy(r->lr_args, c->kpc_args, sizeof(r->lr_args));
		r->lr_ustack0 = c->kpc_nustack ? c->kpc_ustack[0] : 0;
		memcpy(r->lr_exec, c->kpc_execname, 16);
		if (c->kpc_psargs != NULL)
			snprintf(r->lr_psargs, sizeof(r->lr_psargs), "%s",
			    c->kpc_psargs);
		r->lr_argc = c->kpc_argc;
		if (c->kpc_nucap > 0)
			snprintf(r->lr_str, sizeof(r->lr_str), "%.*s",
			    (int)c->kpc_ucap[0].kuc_len,
			    (const char *)c->kpc_ucap[0].kuc_data);
	}
	pthread_mutex_unlock(&live_lk);
}

/* Skip unless root with tracefs; register providers, hook firings. */
__attribute__((unused))
static int live_setup(void **state)
{
	if (geteuid() != 0 || prov_tracefs_root() == NULL)
		return 0;
	live_recs = calloc(LIVE_MAX, sizeof(*live_recs));
	if (live_recs == NULL)
		return -1;
	prov_set_fire_hook(live_hook);
	return prov_register_all();
}

__attribute__((unused))
static int live_teardown(void **state)
{
	prov_shutdown();
	free(live_recs);
	return 0;
}

__attribute__((unused))
static void live_require(void)
{
	if (live_recs == NULL) {
		print_message("needs root and tracefs (perf tracepoints)\n");
		skip();
	}
}

__attribute__((unused))
static dtrace_id_t live_find(const char *prov, const char *mod,
    const char *func, const char *name)
{
	dtrace_probedesc_t d, o;

	memset(&d, 0, sizeof(d));
	snprintf(d.dtpd_provider, sizeof(d.dtpd_provider), "%s", prov);
	snprintf(d.dtpd_mod, sizeof(d.dtpd_mod), "%s", mod);
	snprintf(d.dtpd_func, sizeof(d.dtpd_func), "%s", func);
	snprintf(d.dtpd_name, sizeof(d.dtpd_name), "%s", name);
	ks_probe_provide(&d);
	for (dtrace_id_t id = 1; id <= ks_probe_count(); id++) {
		ks_probe_t *p = ks_probe_get(id);

		if (p == NULL)
			continue;
		ks_probe_describe(p, &o);
		if (strcmp(o.dtpd_provider, prov) == 0 &&
		    strcmp(o.dtpd_mod, mod) == 0 &&
		    strcmp(o.dtpd_func, func) == 0 &&
		    strcmp(o.dtpd_name, name) == 0)
			return id;
	}
	return DTRACE_IDNONE;
}

__attribute__((unused))
static dtrace_id_t live_enable(const char *prov, const char *mod,
    const char *func, const char *name)
{
	dtrace_id_t id = live_find(prov, mod, func, name);
	char err[256] = "";

	if (id == DTRACE_IDNONE)
		fail_msg("no probe %s:%s:%s:%s", prov, mod, func, name);
	if (ks_probe_enable(ks_probe_get(id), err, sizeof(err)) != 0)
		fail_msg("enable %s:%s:%s:%s: %s", prov, mod, func, name, err);
	return id;
}

__attribute__((unused))
static void live_disable(dtrace_id_t id)
{
	ks_probe_disable(ks_probe_get(id));
}

__attribute__((unused))
static void live_reset(void)
{
	pthread_mutex_lock(&live_lk);
	live_n = 0;
	pthread_mutex_unlock(&live_lk);
}

/*
 * Run fn in a child that waits for a go; its pid once it exited and every
 * firing was delivered.  traced: the child is a target of the ptrace route
 * (prov_target_add(), then time for the helper to attach); otherwise it
 * starts once the probes are on.
 */
__attribute__((unused))
static pid_t live_spawn(void (*fn)(void), int traced)
{
	int go[2];
	char c;
	pid_t pid;

	if (pipe(go) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(99);
		fn();
		_exit(0);
	}
	close(go[0]);
	if (traced && prov_target_add(pid) != 0)
		fail_msg("prov_target_add: %s", strerror(errno));
	usleep(traced ? 100000 : 20000);
	if (write(go[1], "g", 1) != 1)
		return -1;
	close(go[1]);
	waitpid(pid, NULL, 0);
	if (!traced)
		usleep(50000);	/* the drain thread catches up */
	prov_flush();		/* everything up to here has fired */
	return pid;
}

/* Run fn in a child once probes are on (live_spawn, not traced). */
__attribute__((unused))
static pid_t live_run(void (*fn)(void))
{
	return live_spawn(fn, 0);
}

/* Firings of id by process pid (tid too when tid != 0). */
__attribute__((unused))
static int live_count(dtrace_id_t id, pid_t pid)
{
	int n = 0;

	pthread_mutex_lock(&live_lk);
	for (int i = 0; i < live_n; i++)
		if (live_recs[i].lr_id == id && live_recs[i].lr_pid == pid)
			n++;
	pthread_mutex_unlock(&live_lk);
	return n;
}

/* The child forks a shell that exits with 7, waits, and exits with 3. */
__attribute__((unused))
static void live_fork_exec(void)
{
	pid_t kid = fork();

	if (kid == 0) {
		execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
		_exit(127);
	}
	waitpid(kid, NULL, 0);
	_exit(3);
}

/*
 * proc:::create, exec-success and exit around live_fork_exec() started by
 * run (live_run, or the ptrace route's): create names the shell's pid,
 * the shell execs once and exits with 7, the child exits with 3.  The
 * exec's path must be exec_path (and the execname "sh"), or, when
 * exec_path is NULL, contain "sh".
 */
__attribute__((unused))
static void live_check_fork_exec(pid_t (*run)(void (*)(void)),
    const char *exec_path)
{
	dtrace_id_t cr, ex, xt;
	pid_t pid, kid = 0;
	int execs = 0, exits = 0;

	cr = live_enable("proc", "", "", "create");
	ex = live_enable("proc", "", "", "exec-success");
	xt = live_enable("proc", "", "", "exit");
	pid = run(live_fork_exec);
	live_disable(cr);
	live_disable(ex);
	live_disable(xt);
	for (int i = 0; i < live_n; i++)
		if (live_recs[i].lr_id == cr && live_recs[i].lr_pid == pid)
			kid = (pid_t)live_recs[i].lr_args[0];
	assert_true(kid > 0);
	for (int i = 0; i < live_n; i++) {
		live_rec_t *r = &live_recs[i];

		if (r->lr_id == ex && r->lr_pid == kid) {
			if (exec_path != NULL) {
				assert_string_equal(r->lr_str, exec_path);
				assert_string_equal(r->lr_exec, "sh");
			} else {
				assert_non_null(strstr(r->lr_str, "sh"));
			}
			execs++;
		}
		if (r->lr_id == xt && r->lr_pid == kid) {
			assert_int_equal(r->lr_args[0], 1);	/* CLD_EXITED */
			assert_int_equal(r->lr_args[1], 7);
			exits++;
		}
		if (r->lr_id == xt && r->lr_pid == pid) {
			assert_int_equal(r->lr_args[1], 3);
			exits++;
		}
	}
	assert_int_equal(execs, 1);
	assert_int_equal(exits, 2);
}

/* What live_open_paths() opens: live_npaths missing files, live_path-N. */
static int live_npaths;
static const char *live_path;

/* Open live_npaths different missing files through one reused buffer. */
__attribute__((unused))
static void live_open_paths(void)
{
	char path[64];

	for (int i = 0; i < live_npaths; i++) {
		snprintf(path, sizeof(path), "%s-%d", live_path, i);
		syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	}
}

/*
 * syscall::openat:entry and return around live_open_paths() of n paths
 * named path-0 ... started by run: each return is -1 with ENOENT, the
 * entries captured the paths in order.  A path not captured fails the
 * test; may_skip: skip (saying why) when the probe has no BPF program to
 * capture with (the perf route where BPF cannot load).
 */
__attribute__((unused))
static void live_check_open_paths(pid_t (*run)(void (*)(void)),
    const char *path, int n, int may_skip)
{
	dtrace_id_t in, out;
	int next = 0, fails = 0;
	char want[64];
	pid_t pid;

	live_path = path;
	live_npaths = n;
	in = live_enable("syscall", "", "openat", "entry");
	out = live_enable("syscall", "", "openat", "return");
	if (may_skip && prov_bpf_filter_find(in) < 0) {
		live_disable(in);
		live_disable(out);
		print_message("openat:entry has no BPF program here (BPF "
		    "unavailable?): no capture to check\n");
		skip();
	}
	pid = run(live_open_paths);
	live_disable(in);
	live_disable(out);
	for (int i = 0; i < live_n; i++) {
		live_rec_t *r = &live_recs[i];

		if (r->lr_pid != pid)
			continue;
		if (r->lr_id == out) {
			assert_int_equal((int64_t)r->lr_args[0], -1);
			assert_int_equal((int64_t)r->lr_args[1], -1);
			assert_int_equal(r->lr_errno, ENOENT);
			fails++;
			continue;
		}
		snprintf(want, sizeof(want), "%s-%d", path, next);
		assert_string_equal(r->lr_str, want);
		next++;
	}
	assert_int_equal(next, n);
	assert_int_equal(fails, n);
}

/*
 * The flood tests' calls carry live_cookie as their first argument, a
 * number no other process uses (another copy of the same test, run by a
 * second `make check` meanwhile, has its own): live_only_cookie() makes
 * the probe's BPF filter drop every other firing in the kernel, so
 * neither that copy's firings nor the drops its flood would cause in this
 * process's rings are counted here.
 */
static long live_cookie;
static dtrace_id_t live_cookie_probe = DTRACE_IDNONE;

__attribute__((unused))
static int live_cookie_filter(dtrace_id_t id, ks_filter_t *out)
{
	ks_filter_atom_t *a = &out->kf_terms[0].kft_atoms[0];

	if (id != live_cookie_probe) {
		out->kf_always = 1;
		return 0;
	}
	out->kf_nterms = 1;
	out->kf_terms[0].kft_natoms = 1;
	a->kfa_var = KS_FV_ARG;
	a->kfa_arg = 0;
	a->kfa_op = KS_FOP_EQ;
	a->kfa_val = (uint64_t)live_cookie;
	return 0;
}

/* Filter probe id (a system call whose first argument is an integer) on
 * arg0 == live_cookie, chosen now; skips, saying why, when the probe has
 * no BPF program to filter with. */
__attribute__((unused))
static void live_only_cookie(dtrace_id_t id)
{
	if (prov_bpf_filter_find(id) < 0) {
		live_disable(id);
		print_message("the probe has no BPF program here (BPF "
		    "unavailable?): other processes' calls cannot be "
		    "filtered out of the count\n");
		skip();
	}
	live_cookie = 1000000 + (long)getpid();
	live_cookie_probe = id;
	prov_bpf_filter_set_hook(live_cookie_filter);
	prov_bpf_filter_update();
}

/* The kernel reports a ring's losses with the next record it writes
 * there: make one event of system call nr (one the flood tests use:
 * nobody else calls it; with live_cookie, which the filter lets through)
 * on every CPU, then give the drain a moment. */
__attribute__((unused))
static void live_nudge_cpus_nr(long nr)
{
	cpu_set_t old, one;

	sched_getaffinity(0, sizeof(old), &old);
	for (int c = 0; c < prov_perf_ncpus(); c++) {
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			syscall(nr, live_cookie != 0 ? live_cookie : 12345);
	}
	sched_setaffinity(0, sizeof(old), &old);
	usleep(50000);
}

/* The same with sched_get_priority_max, the floods' call. */
__attribute__((unused))
static void live_nudge_cpus(void)
{
	live_nudge_cpus_nr(SYS_sched_get_priority_max);
}

#endif /* TEST_PROV_LIVE_H */
