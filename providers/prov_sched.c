/*
 * prov_sched.c - the sched provider from the sched tracepoints.
 *
 *   on-cpu      sched_switch, as the next thread   arg0 previous tid,
 *                                                  arg1 priority, arg2 cpu
 *   off-cpu     sched_switch, as the prev thread   arg0 next tid, arg1 next
 *                                                  pid, arg2 prev state,
 *                                                  arg3 prev prio, arg4 next
 *                                                  prio
 *   sleep       sched_switch, prev blocks          as off-cpu
 *   preempt     sched_switch, prev still runnable  as off-cpu
 *   wakeup      sched_wakeup, as the waker         arg0 woken tid, arg1
 *                                                  woken pid, arg2 prio,
 *                                                  arg3 target cpu
 *   wakeup-new  sched_wakeup_new, as the parent    as wakeup
 *   change-pri  sched_pi_setprio                   arg0 tid, arg1 pid,
 *                                                  arg2 old, arg3 new prio
 *   migrate     sched_migrate_task                 arg0 tid, arg1 pid,
 *                                                  arg2 prio, arg3 from cpu,
 *                                                  arg4 to cpu
 *
 * Linux has no enqueue/dequeue tracepoints, so those probes are absent.
 * on-cpu fires with the incoming thread's identity (pid from the process
 * cache, execname from next_comm) and no stacks (the stack sampled is the
 * outgoing thread's).
 */
#include <string.h>
#include "prov_impl.h"

static int32_t pid_of(int32_t tid)
{
	const prov_pinfo_t *pi = prov_pcache_get(tid, 0);

	return pi->ppi_pid > 0 ? pi->ppi_pid : tid;
}

static int fire_on_cpu(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	char comm[16] = "";
	int32_t next = (int32_t)prov_tp_get(fmt, s, "next_pid");

	prov_tp_comm(fmt, s, "next_comm", comm);
	prov_tp_as_thread(ctx, next, next == 0 ? "sched" : comm);
	ctx->kpc_args[0] = (uint64_t)prov_tp_get(fmt, s, "prev_pid");
	ctx->kpc_args[1] = (uint64_t)prov_tp_get(fmt, s, "next_prio");
	ctx->kpc_args[2] = s->pps_cpu;
	return 1;
}

/* Fill off-cpu's arguments; 1 if prev was still runnable. */
static int off_args(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	int32_t next = (int32_t)prov_tp_get(fmt, s, "next_pid");
	int64_t state = prov_tp_get(fmt, s, "prev_state");

	prov_tp_comm(fmt, s, "prev_comm", ctx->kpc_execname);
	if (s->pps_tid == 0)
		strcpy(ctx->kpc_execname, "sched");
	ctx->kpc_args[0] = (uint64_t)(int64_t)next;
	ctx->kpc_args[1] = (uint64_t)(int64_t)(next == 0 ? 0 : pid_of(next));
	ctx->kpc_args[2] = (uint64_t)state;
	ctx->kpc_args[3] = (uint64_t)prov_tp_get(fmt, s, "prev_prio");
	ctx->kpc_args[4] = (uint64_t)prov_tp_get(fmt, s, "next_prio");
	return (state & 0xff) == 0;
}

static int fire_off_cpu(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	off_args(ctx, s, fmt);
	return 1;
}

static int fire_sleep(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	return !off_args(ctx, s, fmt);
}

static int fire_preempt(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	return off_args(ctx, s, fmt) && s->pps_tid != 0;
}

static int fire_wakeup(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	int32_t tid = (int32_t)prov_tp_get(fmt, s, "pid");

	ctx->kpc_args[0] = (uint64_t)(int64_t)tid;
	ctx->kpc_args[1] = (uint64_t)(int64_t)pid_of(tid);
	ctx->kpc_args[2] = (uint64_t)prov_tp_get(fmt, s, "prio");
	ctx->kpc_args[3] = (uint64_t)prov_tp_get(fmt, s, "target_cpu");
	return 1;
}

static int fire_change_pri(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	int32_t tid = (int32_t)prov_tp_get(fmt, s, "pid");

	ctx->kpc_args[0] = (uint64_t)(int64_t)tid;
	ctx->kpc_args[1] = (uint64_t)(int64_t)pid_of(tid);
	ctx->kpc_args[2] = (uint64_t)prov_tp_get(fmt, s, "oldprio");
	ctx->kpc_args[3] = (uint64_t)prov_tp_get(fmt, s, "newprio");
	return 1;
}

static int fire_migrate(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	int32_t tid = (int32_t)prov_tp_get(fmt, s, "pid");

	ctx->kpc_args[0] = (uint64_t)(int64_t)tid;
	ctx->kpc_args[1] = (uint64_t)(int64_t)pid_of(tid);
	ctx->kpc_args[2] = (uint64_t)prov_tp_get(fmt, s, "prio");
	ctx->kpc_args[3] = (uint64_t)prov_tp_get(fmt, s, "orig_cpu");
	ctx->kpc_args[4] = (uint64_t)prov_tp_get(fmt, s, "dest_cpu");
	return 1;
}

#define OFF_ARGS { "pid_t", "pid_t", "long", "int", "int" }
#define WAKE_ARGS { "pid_t", "pid_t", "int", "int" }

static prov_tprow_t rows[] = {
	{ "change-pri", "sched", "sched_pi_setprio", fire_change_pri,
	    { "pid_t", "pid_t", "int", "int" }, 0, NULL, 0 },
	{ "migrate", "sched", "sched_migrate_task", fire_migrate,
	    { "pid_t", "pid_t", "int", "int", "int" }, 0, NULL, 0 },
	{ "off-cpu", "sched", "sched_switch", fire_off_cpu, OFF_ARGS, 0,
	    NULL, 0 },
	{ "on-cpu", "sched", "sched_switch", fire_on_cpu,
	    { "pid_t", "int", "int" }, 0, NULL, 0 },
	{ "preempt", "sched", "sched_switch", fire_preempt, OFF_ARGS, 0,
	    NULL, 0 },
	{ "sleep", "sched", "sched_switch", fire_sleep, OFF_ARGS, 0, NULL, 0 },
	{ "wakeup", "sched", "sched_wakeup", fire_wakeup, WAKE_ARGS, 0,
	    NULL, 0 },
	{ "wakeup-new", "sched", "sched_wakeup_new", fire_wakeup,
	    WAKE_ARGS, 0, NULL, 0 },
};

int prov_sched_register(void)
{
	return prov_tprows_register("sched", rows,
	    (int)(sizeof(rows) / sizeof(rows[0])));
}
