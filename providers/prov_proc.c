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
 *   signal-handle signal_deliver                   arg0 signal
 *
 * Each fires in the context of the thread that did it (create in the
 * parent, exit in the exiting thread).  exit's reason: a process whose
 * exit_group() we saw exited (CLD_EXITED with its status), otherwise it
 * was killed (CLD_KILLED, status 0).  start and lwp-start are not offered:
 * no tracepoint fires in the new task before it runs user code.
 */
#include <sched.h>
#include <string.h>
#include "prov_impl.h"

#define STATUS_SLOTS 4096

static struct { int32_t pid; int32_t status; } statuses[STATUS_SLOTS];

static int fire_newtask(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt, int thread)
{
	uint64_t flags = (uint64_t)prov_tp_get(fmt, s, "clone_flags");

	if (((flags & CLONE_THREAD) != 0) != thread)
		return 0;
	ctx->kpc_args[0] = (uint64_t)prov_tp_get(fmt, s, "pid");
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

	ctx->kpc_args[0] = (uint64_t)(int64_t)tid;
	ctx->kpc_args[1] = (uint64_t)(int64_t)(pi->ppi_pid > 0 ?
	    pi->ppi_pid : tid);
	ctx->kpc_args[2] = (uint64_t)prov_tp_get(fmt, s, "sig");
	return 1;
}

static int fire_signal_handle(ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const prov_tf_format_t *fmt)
{
	ctx->kpc_args[0] = (uint64_t)prov_tp_get(fmt, s, "sig");
	return 1;
}

static prov_tprow_t rows[] = {
	{ "create", "task", "task_newtask", fire_create, { "pid_t" }, 0,
	    NULL, 0 },
	{ "exec", "syscalls", "sys_enter_execve", fire_exec,
	    { "string" }, 0, "filename", 0 },
	{ "exec", "syscalls", "sys_enter_execveat", fire_exec, { NULL }, 0,
	    "filename", 0 },
	{ "exec-failure", "syscalls", "sys_exit_execve", fire_exec_failure,
	    { "int" }, 0, NULL, 0 },
	{ "exec-failure", "syscalls", "sys_exit_execveat", fire_exec_failure,
	    { NULL }, 0, NULL, 0 },
	{ "exec-success", "sched", "sched_process_exec", fire_exec_success,
	    { "string", "pid_t", "pid_t" }, 0, NULL, 0 },
	{ "exit", "sched", "sched_process_exit", fire_exit,
	    { "int", "int" }, 0, NULL, 0 },
	{ "exit", "syscalls", "sys_enter_exit_group", note_status,
	    { NULL }, 0, NULL, 0 },
	{ "lwp-create", "task", "task_newtask", fire_lwp_create,
	    { "pid_t" }, 0, NULL, 0 },
	{ "lwp-exit", "sched", "sched_process_exit", fire_lwp_exit,
	    { "pid_t" }, 0, NULL, 0 },
	{ "signal-handle", "signal", "signal_deliver", fire_signal_handle,
	    { "int" }, 0, NULL, 0 },
	{ "signal-send", "signal", "signal_generate", fire_signal_send,
	    { "pid_t", "pid_t", "int" }, 0, NULL, 0 },
};

int prov_proc_register(void)
{
	return prov_tprows_register("proc", rows,
	    (int)(sizeof(rows) / sizeof(rows[0])));
}
