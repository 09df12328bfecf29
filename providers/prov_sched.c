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
 *                                                  arg2 new, arg3 old prio
 *   migrate     sched_migrate_task                 arg0 tid, arg1 pid,
 *                                                  arg2 prio, arg3 from cpu,
 *                                                  arg4 to cpu
 *
 *   enqueue     a task put on a run queue: woken   arg0 tid, arg1 pid,
 *               (sched_wakeup[_new], as the waker) arg2 cpu, arg3 0 (not
 *               or preempted (sched_switch, as it) at the head)
 *   dequeue     a task taken off a run queue: to   arg0 tid, arg1 pid,
 *               run (sched_switch, as the previous arg2 cpu
 *               thread) or to move (sched_migrate_task)
 *
 *   tick        the scheduler tick: hrtimer_expire_entry of the tick's
 *               timer (tick_nohz_handler, or tick_sched_timer before
 *               Linux 6.9), as the thread it interrupted (not the idle
 *               thread)                            arg0 tid, arg1 pid
 *
 * Linux has no tracepoint for a CPU told to reschedule, so surrender is
 * absent.  The argN are the numbers above; args[] are typed as dtrace's
 * table has them: off-cpu (the next thread), wakeup, wakeup-new,
 * change-pri, enqueue, dequeue and tick give the thread's lwpsinfo_t * and
 * its process's psinfo_t * as args[0] and args[1], translated from a
 * ks_task in kpc_args[KS_ARG_TASK] (tprows.c); enqueue's and dequeue's
 * args[2] is the cpuinfo_t * of the CPU in arg2, enqueue's args[3] is
 * arg3, change-pri's args[2] (pri_t) the new priority in arg2 (the old is
 * arg3 and the thread's pr_pri).  on-cpu, sleep, preempt and migrate,
 * which dtrace gives no arguments (or does not have), keep the numbers
 * as their typed arguments.
 * on-cpu fires with the incoming thread's identity (pid from the process
 * cache, execname from next_comm) and no stacks (the stack sampled is the
 * outgoing thread's).  Thread 0 is "sched".
 *
 * Predicates are checked in the kernel (tprows.c, bpf_fmerge.c): each row
 * says which variables come from the task the event runs in and which
 * arguments, tid or execname are record fields; the probes sharing
 * sched_switch are filtered for the OR of their predicates.
 */
#include <stdio.h>
#include <string.h>
#include "prov_impl.h"
#include "bpf_filter.h"

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
	/* A thread's last switch, in do_exit after it was unhashed, is
	 * sampled with tid -1 by perf; the record still names it. */
	if (ctx->kpc_tid < 0) {
		char comm[16];

		memcpy(comm, ctx->kpc_execname, sizeof(comm));
		prov_tp_as_thread(ctx, (int32_t)prov_tp_get(fmt, s,
		    "prev_pid"), comm);
	}
	if (s->pps_tid == 0)
		strcpy(ctx->kpc_execname, "sched");
	ctx->kpc_args[0] = (uint64_t)(int64_t)next;
	ctx->kpc_args[1] = (uint64_t)(int64_t)(next == 0 ? 0 : pid_of(next));
	ctx->kpc_args[2] = (uint64_t)state;
	ctx->kpc_args[3] = (uint64_t)prov_tp_get(fmt, s, "prev_prio");
	ctx->kpc_args[4] = (uint64_t)prov_tp_get(fmt, s, "next_prio");
	return (state & 0xff) == 0;
}

/* The thread to run next, as off-cpu's args[0] and args[1] describe it */
static void next_task(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	char comm[16] = "";

	prov_tp_comm(fmt, s, "next_comm", comm);
	prov_tp_task(ctx, (int32_t)ctx->kpc_args[0],
	    ctx->kpc_args[0] == 0 ? "sched" : comm, (int32_t)ctx->kpc_args[4],
	    (int32_t)s->pps_cpu, 'O');
}

static int fire_off_cpu(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	off_args(ctx, s, fmt);
	next_task(ctx, s, fmt);
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
	prov_tp_task(ctx, tid, NULL, (int32_t)ctx->kpc_args[2],
	    (int32_t)ctx->kpc_args[3], 'R');
	return 1;
}

static int fire_change_pri(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	int32_t tid = (int32_t)prov_tp_get(fmt, s, "pid");

	ctx->kpc_args[0] = (uint64_t)(int64_t)tid;
	ctx->kpc_args[1] = (uint64_t)(int64_t)pid_of(tid);
	ctx->kpc_args[2] = (uint64_t)prov_tp_get(fmt, s, "newprio");
	ctx->kpc_args[3] = (uint64_t)prov_tp_get(fmt, s, "oldprio");
	prov_tp_task(ctx, tid, NULL, (int32_t)ctx->kpc_args[3], -1, '?');
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

/* enqueue of a woken task: wakeup's tid, pid and target CPU */
static int fire_enqueue_wake(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	fire_wakeup(ctx, s, fmt);
	ctx->kpc_args[2] = ctx->kpc_args[3];
	ctx->kpc_args[3] = 0;
	return 1;
}

/* enqueue of a preempted task: the previous thread, still runnable */
static int fire_enqueue_preempt(ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const prov_tf_format_t *fmt)
{
	if (!off_args(ctx, s, fmt) || s->pps_tid == 0)
		return 0;
	ctx->kpc_args[0] = (uint64_t)(int64_t)ctx->kpc_tid;
	ctx->kpc_args[1] = (uint64_t)(int64_t)ctx->kpc_pid;
	ctx->kpc_args[2] = s->pps_cpu;
	ctx->kpc_args[3] = 0;
	prov_tp_task(ctx, ctx->kpc_tid, ctx->kpc_execname,
	    (int32_t)prov_tp_get(fmt, s, "prev_prio"), (int32_t)s->pps_cpu,
	    'R');
	return 1;
}

/* dequeue of the next thread, taken off the run queue to run */
static int fire_dequeue_run(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	int32_t next = (int32_t)prov_tp_get(fmt, s, "next_pid");

	if (next == 0)
		return 0;	/* the idle thread is on no run queue */
	off_args(ctx, s, fmt);
	next_task(ctx, s, fmt);
	ctx->kpc_args[0] = (uint64_t)(int64_t)next;
	ctx->kpc_args[1] = (uint64_t)(int64_t)pid_of(next);
	ctx->kpc_args[2] = s->pps_cpu;
	ctx->kpc_args[3] = ctx->kpc_args[4] = 0;
	return 1;
}

/* dequeue of a task leaving its CPU's run queue for another */
static int fire_dequeue_migrate(ks_probe_ctx_t *ctx,
    const prov_perf_sample_t *s, const prov_tf_format_t *fmt)
{
	fire_migrate(ctx, s, fmt);
	prov_tp_task(ctx, (int32_t)ctx->kpc_args[0], NULL,
	    (int32_t)ctx->kpc_args[2], (int32_t)ctx->kpc_args[3], 'R');
	ctx->kpc_args[2] = ctx->kpc_args[3];
	ctx->kpc_args[3] = ctx->kpc_args[4] = 0;
	return 1;
}

/* The address of the scheduler tick's hrtimer function, 0 if unknown. */
static uint64_t tick_function(void)
{
	static uint64_t fn;
	static int looked;
	char line[256], name[128], type;
	unsigned long long a;
	FILE *f;

	if (looked)
		return fn;
	looked = 1;
	if ((f = fopen("/proc/kallsyms", "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3 &&
		    (strcmp(name, "tick_nohz_handler") == 0 ||
		    strcmp(name, "tick_sched_timer") == 0) && a != 0) {
			fn = a;
			break;
		}
	fclose(f);
	return fn;
}

static int fire_tick(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt)
{
	uint64_t fn = tick_function();

	if (fn == 0 || s->pps_tid == 0 ||
	    (uint64_t)prov_tp_get(fmt, s, "function") != fn)
		return 0;
	ctx->kpc_args[0] = (uint64_t)(int64_t)s->pps_tid;
	ctx->kpc_args[1] = (uint64_t)(int64_t)s->pps_pid;
	prov_tp_task(ctx, s->pps_tid, ctx->kpc_execname, 0,
	    (int32_t)s->pps_cpu, 'O');
	return 1;
}

#define OFF_ARGS { "pid_t", "pid_t", "long", "int", "int" }
#define NEXT_ARGS { "lwpsinfo_t *", "psinfo_t *" }
#define WAKE_ARGS { "lwpsinfo_t *", "psinfo_t *" }
#define ENQ_ARGS { "lwpsinfo_t *", "psinfo_t *", "cpuinfo_t *", "int" }

/* Kernel filtering: the off-cpu family and the wakers run in the task
 * that fires; on-cpu fires as the next thread, whose tid and execname are
 * record fields (its pid, uid, gid come from the process cache: not
 * filtered). */
#define TASK PROV_FV_TASK
#define ON_VARS (PROV_FV(KS_FV_TID) | PROV_FV(KS_FV_CPU) | \
	PROV_FV(KS_FV_EXECNAME))
#define OFF_FARGS "next_pid,-,prev_state,prev_prio,next_prio"
#define OFF_ROW(name, fn, args) { .tr_name = name, .tr_sys = "sched", \
	.tr_event = "sched_switch", .tr_fire = fn, .tr_args = args, \
	.tr_fvars = TASK, .tr_fargs = OFF_FARGS, .tr_fcomm = "prev_comm" }
#define WAKE_ROW(name, event) { .tr_name = name, .tr_sys = "sched", \
	.tr_event = event, .tr_fire = fire_wakeup, .tr_args = WAKE_ARGS, \
	.tr_fvars = TASK, .tr_fargs = "pid,-,prio,target_cpu" }

static prov_tprow_t rows[] = {
	{ .tr_name = "change-pri", .tr_sys = "sched",
	    .tr_event = "sched_pi_setprio", .tr_fire = fire_change_pri,
	    .tr_args = { "lwpsinfo_t *", "psinfo_t *", "pri_t" },
	    .tr_fvars = TASK, .tr_fargs = "pid,-,newprio,oldprio" },
	{ .tr_name = "migrate", .tr_sys = "sched",
	    .tr_event = "sched_migrate_task", .tr_fire = fire_migrate,
	    .tr_args = { "pid_t", "pid_t", "int", "int", "int" },
	    .tr_fvars = TASK, .tr_fargs = "pid,-,prio,orig_cpu,dest_cpu" },
	{ .tr_name = "dequeue", .tr_sys = "sched",
	    .tr_event = "sched_switch", .tr_fire = fire_dequeue_run,
	    .tr_args = { "lwpsinfo_t *", "psinfo_t *", "cpuinfo_t *" },
	    .tr_fvars = TASK, .tr_fcomm = "prev_comm" },
	{ .tr_name = "dequeue", .tr_sys = "sched",
	    .tr_event = "sched_migrate_task", .tr_fire = fire_dequeue_migrate,
	    .tr_args = { NULL }, .tr_fvars = TASK },
	{ .tr_name = "enqueue", .tr_sys = "sched",
	    .tr_event = "sched_wakeup", .tr_fire = fire_enqueue_wake,
	    .tr_args = ENQ_ARGS, .tr_fvars = TASK },
	{ .tr_name = "enqueue", .tr_sys = "sched",
	    .tr_event = "sched_wakeup_new", .tr_fire = fire_enqueue_wake,
	    .tr_args = { NULL }, .tr_fvars = TASK },
	{ .tr_name = "enqueue", .tr_sys = "sched",
	    .tr_event = "sched_switch", .tr_fire = fire_enqueue_preempt,
	    .tr_args = { NULL }, .tr_fvars = TASK, .tr_fcomm = "prev_comm" },
	OFF_ROW("off-cpu", fire_off_cpu, NEXT_ARGS),
	{ .tr_name = "on-cpu", .tr_sys = "sched", .tr_event = "sched_switch",
	    .tr_fire = fire_on_cpu, .tr_args = { "pid_t", "int", "int" },
	    .tr_fvars = ON_VARS, .tr_fargs = "prev_pid,next_prio",
	    .tr_ftid = "next_pid", .tr_fcomm = "next_comm" },
	OFF_ROW("preempt", fire_preempt, OFF_ARGS),
	OFF_ROW("sleep", fire_sleep, OFF_ARGS),
	{ .tr_name = "tick", .tr_sys = "timer",
	    .tr_event = "hrtimer_expire_entry", .tr_fire = fire_tick,
	    .tr_args = { "lwpsinfo_t *", "psinfo_t *" }, .tr_fvars = TASK },
	WAKE_ROW("wakeup", "sched_wakeup"),
	WAKE_ROW("wakeup-new", "sched_wakeup_new"),
};

int prov_sched_register(void)
{
	return prov_tprows_register("sched", rows,
	    (int)(sizeof(rows) / sizeof(rows[0])));
}
