/*
 * clock.c - the shim's clocks and the firing context of the calling
 * thread (for tests, timers and the dtrace provider).
 */
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "ks_impl.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ks_gethrtime(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t ks_getwalltime(void)
{
	return clock_ns(CLOCK_REALTIME);
}

/* The CPU the calling thread runs on, 0 if unknown. */
unsigned ks_cpu_current(void)
{
	int c = sched_getcpu();

	return c < 0 ? 0 : (unsigned)c % ks_ncpus();
}

void ks_probe_ctx_self(ks_probe_ctx_t *ctx, dtrace_id_t id)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->kpc_id = id;
	ctx->kpc_cpu = ks_cpu_current();
	ctx->kpc_pid = (int32_t)getpid();
	ctx->kpc_ppid = (int32_t)getppid();
	ctx->kpc_tid = (int32_t)syscall(SYS_gettid);
	ctx->kpc_uid = (uint32_t)getuid();
	ctx->kpc_gid = (uint32_t)getgid();
	ctx->kpc_timestamp = ks_gethrtime();
	ctx->kpc_vtimestamp = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	ctx->kpc_walltimestamp = ks_getwalltime();
	(void)prctl(PR_GET_NAME, ctx->kpc_execname, 0, 0, 0);
	ctx->kpc_execname[sizeof(ctx->kpc_execname) - 1] = '\0';
}
