/*
 * prov_proc.c - the proc provider from sched, task, signal and syscall
 * tracepoints.
 *
 *   create        task_newtask (not CLONE_THREAD)  arg0 child pid
 *   lwp-create    task_newtask (CLONE_THREAD)      arg0 new thread id
 *   exec          sys_enter_execve[at]             args[0] path (string,
 *                                                  captured at the event
 *                                                  by BPF)
 *   exec-success  sched_process_exec (new image)   args[0] path (string),
 *                                                  arg1 pid, arg2 old tid
 *   exec-failure  sys_exit_execve[at] < 0          arg0 errno
 *   exit          sched_process_exit, group dead   arg0 CLD_EXITED (1) or
 *                                                  CLD_KILLED (2), arg1 the
 *                                                  exit_group() status
 *   lwp-exit      sched_process_exit, others       arg0 thread id
 *   signal-send   signal_generate                  arg0 target tid, arg1
 *                                                  target pid, arg2 signal
 *   signal-handle signal_deliver                   arg0 signal, arg1 its
 *                                                  siginfo_t (signo, code,
 *                                                  errno), arg2 handler
 *   signal-discard signal_generate, result ignored as signal-send
 *   start         sys_exit_{clone,clone3,fork,vfork} in the child, its
 *                 first thread (ret 0, pid == tid)
 *   lwp-start     the same in a new thread (pid != tid)
 *
 * args[] are typed as dtrace's table has them: create's args[0] is the
 * child's psinfo_t *, lwp-create's the new thread's lwpsinfo_t * and its
 * process's psinfo_t *, signal-send's and signal-discard's the target's,
 * then the signal (args[2] is arg2).  Those pointers are translated from
 * a ks_task the firing offers in kpc_args[KS_ARG_TASK] (tprows.c), so
 * arg0..arg2 keep the numbers above.  exit's args[0] is its arg0;
 * signal-handle's are dtrace's int, siginfo_t * and handler.
 * Each fires in the context of the thread that did it (create in the
 * parent, exit in the exiting thread).  exit's reason: a process whose
 * exit_group() we saw exited (CLD_EXITED with its status), otherwise it
 * was killed (CLD_KILLED, status 0).  start and lwp-start fire as the
 * new task returns from the system call that made it, before its first
 * user instruction, as DTrace's do.
 * Predicates on the task's variables and on arguments that are record
 * fields are checked in the kernel (tprows.c).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "prov_impl.h"
#include "bpf_filter.h"

#define STATUS_SLOTS 4096

static struct { int32_t pid; int32_t status; } statuses[STATUS_SLOTS];

/* The new task as its creator (ctx) makes it: a copy of the creator's
 * process (a new one, for create) with the new task's id. */
static int fire_newtask(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt, int thread)
{
	static ks_task_t task;
	uint64_t flags = (uint64_t)prov_tp_get(fmt, s, "clone_flags");
	int32_t id = (int32_t)prov_tp_get(fmt, s, "pid");

	if (((flags & CLONE_THREAD) != 0) != thread)
		return 0;
	ctx->kpc_args[0] = (uint64_t)(int64_t)id;
	memset(&task, 0, sizeof(task));
	task.kt_tid = id;
	task.kt_pid = thread ? ctx->kpc_pid : id;
	task.kt_ppid = thread ? ctx->kpc_ppid : ctx->kpc_pid;
	task.kt_uid = ctx->kpc_uid;
	task.kt_gid = ctx->kpc_gid;
	task.kt_argc = ctx->kpc_argc;
	if (ctx->kpc_psargs != NULL)
		snprintf(task.kt_psargs, sizeof(task.kt_psargs), "%s",
		    ctx->kpc_psargs);
	memcpy(task.kt_comm, ctx->kpc_execname, sizeof(task.kt_comm));
	/* a fork copies the creator's group, session, tty and stack */
	prov_task_proc(&task, prov_pcache_get((int32_t)ctx->kpc_tid,
	    ctx->kpc_pid));
	prov_tp_comm(fmt, s, "comm", task.kt_comm);
	task.kt_cpu = (int32_t)ctx->kpc_cpu;
	task.kt_sname = 'R';
	prov_tp_task_offer(ctx, &task);
	return 1;
}

static int fire_create(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	return fire_newtask(ctx, s, fmt, 0);
}

static int fire_lwp_create(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	return fire_newtask(ctx, s, fmt, 1);
}

static int fire_exec(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	ctx->kpc_args[0] = (uint64_t)prov_tp_get(fmt, s, "filename");
	return 1;
}

static int fire_exec_success(ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const prov_tf_format_t *fmt)
{
	prov_tp_args(ctx, fmt, s->pps_raw, s->pps_rawlen, 0);
	return 1;
}

static int fire_exec_failure(ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const prov_tf_format_t *fmt)
{
	int64_t ret = prov_tp_get(fmt, s, "ret");

	if (ret >= 0)
		return 0;
	ctx->kpc_args[0] = (uint64_t)-ret;
	ctx->kpc_errno = (int32_t)-ret;
	return 1;
}

static int note_status(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	uint32_t slot = (uint32_t)s->pps_pid % STATUS_SLOTS;

	statuses[slot].pid = s->pps_pid;
	statuses[slot].status = (int32_t)prov_tp_get(fmt, s, "error_code");
	return 0;
}

static int group_dead(const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	if (prov_tracefs_field(fmt, "group_dead") >= 0)
		return prov_tp_get(fmt, s, "group_dead") != 0;
	return s->pps_pid == s->pps_tid;
}

static int fire_exit(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	uint32_t slot = (uint32_t)s->pps_pid % STATUS_SLOTS;

	if (!group_dead(s, fmt))
		return 0;
	if (statuses[slot].pid == s->pps_pid) {
		ctx->kpc_args[0] = 1;			/* CLD_EXITED */
		ctx->kpc_args[1] = (uint64_t)(statuses[slot].status & 0xff);
		statuses[slot].pid = 0;
	} else {
		ctx->kpc_args[0] = 2;			/* CLD_KILLED */
	}
	prov_tp_comm(fmt, s, "comm", ctx->kpc_execname);
	return 1;
}

static int fire_lwp_exit(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	if (group_dead(s, fmt))
		return 0;
	ctx->kpc_args[0] = (uint64_t)s->pps_tid;
	prov_tp_comm(fmt, s, "comm", ctx->kpc_execname);
	return 1;
}

static int fire_signal_send(ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const prov_tf_format_t *fmt)
{
	int32_t tid = (int32_t)prov_tp_get(fmt, s, "pid");
	const prov_pinfo_t *pi = prov_pcache_get(tid, 0);

	char comm[16] = "";

	ctx->kpc_args[0] = (uint64_t)(int64_t)tid;
	ctx->kpc_args[1] = (uint64_t)(int64_t)(pi->ppi_pid > 0 ?
	    pi->ppi_pid : tid);
	ctx->kpc_args[2] = (uint64_t)prov_tp_get(fmt, s, "sig");
	prov_tp_comm(fmt, s, "comm", comm);
	prov_tp_task(ctx, tid, comm[0] != '\0' ? comm : NULL, 0, -1, '?');
	return 1;
}

/* signal_generate's result: TRACE_SIGNAL_IGNORED, the signal dropped as
 * ignored, which is what DTrace's signal-discard reports. */
static int fire_signal_discard(ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const prov_tf_format_t *fmt)
{
	if (prov_tracefs_field(fmt, "result") < 0 ||
	    prov_tp_get(fmt, s, "result") != 1)
		return 0;
	return fire_signal_send(ctx, s, fmt);
}

/* The new task's return from clone()/fork(): 0 in the child. */
static int fire_start(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt, int thread)
{
	(void)ctx;
	if (prov_tp_get(fmt, s, "ret") != 0)
		return 0;
	return (s->pps_pid != s->pps_tid) == thread;
}

static int fire_proc_start(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	return fire_start(ctx, s, fmt, 0);
}

static int fire_lwp_start(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	return fire_start(ctx, s, fmt, 1);
}

/* signal-handle's args[1]: the siginfo_t of the D library (engine/dlib.c:
 * these three ints in this order), with what signal_deliver reports. */
static struct { int32_t si_signo, si_code, si_errno; } siginfo;

static int fire_signal_handle(ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const prov_tf_format_t *fmt)
{
	siginfo.si_signo = (int32_t)prov_tp_get(fmt, s, "sig");
	siginfo.si_code = (int32_t)prov_tp_get(fmt, s, "code");
	siginfo.si_errno = (int32_t)prov_tp_get(fmt, s, "errno");
	ctx->kpc_args[0] = (uint64_t)(int64_t)siginfo.si_signo;
	ctx->kpc_args[1] = (uint64_t)(uintptr_t)&siginfo;
	ctx->kpc_args[2] = (uint64_t)prov_tp_get(fmt, s, "sa_handler");
	prov_tp_kmem(ctx, &siginfo, sizeof(siginfo));
	return 1;
}

/* Kernel filtering: every row fires in the task the event runs in.  The
 * exit_group() row that only notes a status is filtered by pid alone: the
 * thread (tid, cpu) that calls exit_group() need not be the one whose
 * exit fires proc:::exit. */
#define TASK PROV_FV_TASK
/* the signal's target thread and process, and the signal */
#define SIG_ARGS { "lwpsinfo_t *", "psinfo_t *", "int" }
/* start, lwp-start: no arguments */
#define START_ROW(name, event, fn) { .tr_name = name, \
	.tr_sys = "syscalls", .tr_event = event, .tr_fire = fn, \
	.tr_args = { NULL }, .tr_fvars = TASK }

static prov_tprow_t rows[] = {
	{ .tr_name = "create", .tr_sys = "task", .tr_event = "task_newtask",
	    .tr_fire = fire_create, .tr_args = { "psinfo_t *" },
	    .tr_fvars = TASK, .tr_fargs = "pid" },
	{ .tr_name = "exec", .tr_sys = "syscalls",
	    .tr_event = "sys_enter_execve", .tr_fire = fire_exec,
	    .tr_args = { "string" }, .tr_capture = "filename",
	    .tr_fvars = TASK },
	{ .tr_name = "exec", .tr_sys = "syscalls",
	    .tr_event = "sys_enter_execveat", .tr_fire = fire_exec,
	    .tr_args = { NULL }, .tr_capture = "filename", .tr_fvars = TASK },
	{ .tr_name = "exec-failure", .tr_sys = "syscalls",
	    .tr_event = "sys_exit_execve", .tr_fire = fire_exec_failure,
	    .tr_args = { "int" }, .tr_fvars = TASK },
	{ .tr_name = "exec-failure", .tr_sys = "syscalls",
	    .tr_event = "sys_exit_execveat", .tr_fire = fire_exec_failure,
	    .tr_args = { NULL }, .tr_fvars = TASK },
	{ .tr_name = "exec-success", .tr_sys = "sched",
	    .tr_event = "sched_process_exec", .tr_fire = fire_exec_success,
	    .tr_args = { "string", "pid_t", "pid_t" },
	    .tr_fvars = TASK, .tr_fargs = "-,pid,old_pid" },
	{ .tr_name = "exit", .tr_sys = "sched",
	    .tr_event = "sched_process_exit", .tr_fire = fire_exit,
	    .tr_args = { "int" }, .tr_fvars = TASK },
	{ .tr_name = "exit", .tr_sys = "syscalls",
	    .tr_event = "sys_enter_exit_group", .tr_fire = note_status,
	    .tr_args = { NULL }, .tr_fvars = PROV_FV(KS_FV_PID) },
	{ .tr_name = "lwp-create", .tr_sys = "task",
	    .tr_event = "task_newtask", .tr_fire = fire_lwp_create,
	    .tr_args = { "lwpsinfo_t *", "psinfo_t *" }, .tr_fvars = TASK,
	    .tr_fargs = "pid" },
	{ .tr_name = "lwp-exit", .tr_sys = "sched",
	    .tr_event = "sched_process_exit", .tr_fire = fire_lwp_exit,
	    .tr_args = { "pid_t" }, .tr_fvars = TASK, .tr_fargs = "pid" },
	{ .tr_name = "signal-handle", .tr_sys = "signal",
	    .tr_event = "signal_deliver", .tr_fire = fire_signal_handle,
	    .tr_args = { "int", "siginfo_t *", "void (*)(void)" },
	    .tr_fvars = TASK, .tr_fargs = "sig" },
	{ .tr_name = "signal-discard", .tr_sys = "signal",
	    .tr_event = "signal_generate", .tr_fire = fire_signal_discard,
	    .tr_args = SIG_ARGS, .tr_fvars = TASK },
	START_ROW("start", "sys_exit_clone", fire_proc_start),
	START_ROW("start", "sys_exit_clone3", fire_proc_start),
	START_ROW("start", "sys_exit_fork", fire_proc_start),
	START_ROW("start", "sys_exit_vfork", fire_proc_start),
	START_ROW("lwp-start", "sys_exit_clone", fire_lwp_start),
	START_ROW("lwp-start", "sys_exit_clone3", fire_lwp_start),
	{ .tr_name = "signal-send", .tr_sys = "signal",
	    .tr_event = "signal_generate", .tr_fire = fire_signal_send,
	    .tr_args = SIG_ARGS, .tr_fvars = TASK, .tr_fargs = "pid,-,sig" },
};

int prov_proc_register(void)
{
	return prov_tprows_register("proc", rows,
	    (int)(sizeof(rows) / sizeof(rows[0])));
}
