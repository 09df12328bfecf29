/*
 * ks_provider.h - the kernel shim's provider interface: how providers
 * register probes and fire them from probe context.
 *
 * A provider registers once with its operations.  The shim calls
 * kpo_provide() when a consumer asks for probes (listing or matching a
 * description), so providers with many probes may create them lazily.  When
 * an ECB is created on a probe the shim calls kpo_enable(); when the last
 * ECB on it goes, kpo_disable().  Providers turn Linux events into
 * ks_probe_fire() calls from their own threads; the shim serialises firings
 * that touch shared state.
 *
 * Probe context rules (for the shim's side of ks_probe_fire and for what
 * providers pass in): no allocation, no blocking beyond the shim's short
 * internal lock, no printing.  Everything a clause may read about the
 * firing (pid, execname, stacks, user memory captured at event time) is in
 * the ks_probe_ctx_t, because the process may have changed by the time the
 * firing is processed.
 */
#ifndef KS_PROVIDER_H
#define KS_PROVIDER_H

#include <stdint.h>
#include "dtrace_abi.h"

typedef uint32_t ks_provider_id_t;

typedef struct ks_provider_ops {
	/* Create probes matching desc (NULL: all).  Called with no lock. */
	void (*kpo_provide)(void *parg, const dtrace_probedesc_t *desc);
	/* Start the event source of a probe; 0 or -1 with ks_provider_error */
	int (*kpo_enable)(void *parg, dtrace_id_t id, void *probe_arg);
	/* Stop it. */
	void (*kpo_disable)(void *parg, dtrace_id_t id, void *probe_arg);
	/* Describe argument desc->dtargd_ndx (set dtargd_ndx = DTRACE_ARGNONE
	 * past the last one).  May be NULL: no typed arguments. */
	void (*kpo_getargdesc)(void *parg, dtrace_id_t id, void *probe_arg,
	    dtrace_argdesc_t *desc);
	/* The probe is being removed. May be NULL. */
	void (*kpo_destroy)(void *parg, dtrace_id_t id, void *probe_arg);
	/* KS_WANT_* bits that restart a probe's source when an ECB needing
	 * them arrives (call chains and user registers always do; add
	 * KS_WANT_UARGS for a source that captures user memory). */
	int kpo_wants;
} ks_provider_ops_t;

/* Register a provider.  Returns 0, or -1 with errno (EEXIST, ENOMEM). */
int ks_provider_register(const char *name, const ks_provider_ops_t *ops,
    void *parg, ks_provider_id_t *idp);

/*
 * Register a meta provider (usdt, pid): its kpo_provide is called for
 * every description, first, whatever its provider field says, so that it
 * can register the providers of the processes a description names
 * (python1234, python*) and create their probes before the description
 * is matched.  It makes no probes of its own name.  As above.
 */
int ks_provider_register_meta(const char *name, const ks_provider_ops_t *ops,
    void *parg, ks_provider_id_t *idp);

/*
 * Unregister a provider whose probes can no longer fire (the process
 * they were made for is gone): its probes stop matching descriptions
 * and its name and registry slot may be registered again (a reused pid),
 * so that the registry's KS_MAXPROVIDERS limit counts live providers
 * only.  Probes and their ECBs are not freed (probes never are): an
 * enabled one is still disabled through the provider's ops when its
 * consumer lets go, so its probe_arg must stay valid until then.  Its
 * id must not be used for new probes afterwards.  0, or -1 with errno
 * (ENOENT: no such provider; EINVAL: a meta provider).
 */
int ks_provider_unregister(ks_provider_id_t id);

/*
 * Create a probe.  Returns its id, or DTRACE_IDNONE on failure.  Creating a
 * probe that exists returns the existing id.  aframes: artificial frames
 * to skip in stack().  probe_arg is handed back to the provider's ops.
 */
dtrace_id_t ks_probe_create(ks_provider_id_t prov, const char *mod,
    const char *func, const char *name, int aframes, void *probe_arg);

/* Look a probe up by its exact four fields; DTRACE_IDNONE if none. */
dtrace_id_t ks_probe_lookup(ks_provider_id_t prov, const char *mod,
    const char *func, const char *name);

/* Is this probe enabled by any consumer now?  Cheap; for event filters. */
int ks_probe_is_enabled(dtrace_id_t id);

/* Is any consumer's tracing started (GO, not yet stopped)?  While none
 * is, no firing is recorded anywhere, so a provider may move a probe's
 * event source without losing or doubling what anyone sees. */
int ks_tracing(void);

/*
 * A provider that cannot enable a probe says why here (e.g. "syscall
 * probes need root or CAP_PERFMON: run as root or use -c/-p"), before
 * returning -1 from kpo_enable.  The text reaches the user through ENABLE.
 */
void ks_provider_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* The calling thread's last ks_provider_error text ("" if none), for a
 * provider that reports a failure outside kpo_enable. */
const char *ks_provider_errmsg(void);

/*
 * A source that fails after tracing began (its helper process killed, a
 * probe made later that cannot be started, a resource run out): the text
 * the consumer reports as "dtrace: <text>", the rest of the session going
 * on.  Say what stopped and what was lost.  Any thread; a ring of the
 * last 16 (fault.c).
 */
void ks_provider_fault(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* The consumer reads them with ks_fault_next (ks.h). */
/* From kpo_enable, before returning -1: the probe's process is gone (it
 * exited before its probes could be placed); nothing is owed to it, so a
 * probe made after the enabling is skipped without a message. */
void ks_provider_gone(void);

/* User memory captured at event time: [addr, addr + len) of the firing
 * process, served to copyin/copyinstr before asking the live process. */
typedef struct ks_ucapture {
	uint64_t kuc_addr;
	uint32_t kuc_len;
	const uint8_t *kuc_data;
} ks_ucapture_t;

/* Everything about one firing.  Fields a provider cannot know are 0. */
typedef struct ks_probe_ctx {
	dtrace_id_t kpc_id;		/* the probe that fired */
	uint32_t kpc_cpu;		/* CPU the event happened on */
	int32_t kpc_pid, kpc_ppid, kpc_tid;
	uint32_t kpc_uid, kpc_gid;
	int32_t kpc_errno;		/* errno of a failed syscall, else 0 */
	uint64_t kpc_timestamp;		/* CLOCK_MONOTONIC ns of the event */
	uint64_t kpc_vtimestamp;	/* thread CPU time ns, if known */
	uint64_t kpc_walltimestamp;	/* CLOCK_REALTIME ns of the event */
	char kpc_execname[16];		/* comm of the firing thread */
	uint64_t kpc_args[DTRACE_MAXARGS];
	const uint64_t *kpc_kstack;	/* kernel pcs, innermost first */
	uint32_t kpc_nkstack;
	const uint64_t *kpc_ustack;	/* user pcs, innermost first */
	uint32_t kpc_nustack;
	const uint64_t *kpc_uregs;	/* user registers, uregs[] order */
	uint32_t kpc_nuregs;
	uint64_t kpc_caller;		/* kernel caller pc, if known */
	uint64_t kpc_ucaller;		/* user caller pc, if known */
	const ks_ucapture_t *kpc_ucap;	/* captured user memory */
	uint32_t kpc_nucap;
	/* Read live user memory of kpc_pid: returns bytes read or -1.
	 * NULL means the shim's default (process_vm_readv). */
	int64_t (*kpc_copyin)(void *arg, int pid, uint64_t uaddr, void *buf,
	    uint64_t len);
	void *kpc_copyin_arg;
	/* Provider memory a clause may read in place, as it reads execname:
	 * the text of arguments typed string (their kpc_args values point
	 * into these ranges).  Each range is [kuc_data, kuc_data + kuc_len);
	 * kuc_addr is not used. */
	const ks_ucapture_t *kpc_kmem;
	uint32_t kpc_nkmem;
	/* The process's initial arguments, for curpsinfo->pr_psargs (argv
	 * joined by spaces, NUL-terminated, at most 80 bytes with the NUL)
	 * and pr_argc, as captured at its exec (or read from /proc when the
	 * process was first seen); NULL and 0 if unknown. */
	const char *kpc_psargs;
	uint32_t kpc_argc;
	/* A replay of firings counted in the kernel under a plan with
	 * kernel clauses (ks_ktls.h): their results, by kkr_id. */
	const struct ks_kresult *kpc_kres;
	uint32_t kpc_nkres;
} ks_probe_ctx_t;

/*
 * A thread and its process as a firing describes them to typed arguments:
 * the native type behind dtrace's lwpsinfo_t * and psinfo_t * arguments
 * ("struct ks_task *" in D; the D library's translators read it, as
 * dtrace's read a kthread_t).  A provider fills one in memory it offers
 * as kpc_kmem and puts its address in kpc_args[KS_ARG_TASK]; the probe's
 * argument description maps those args[] to that slot (dtargd_mapping),
 * so arg0..argN keep their numbers.  The engine declares the same layout
 * in D (engine/dlib.c): change both together.
 */
#define KS_ARG_TASK	(DTRACE_MAXARGS - 1)
typedef struct ks_task {
	int32_t kt_tid, kt_pid, kt_ppid;
	uint32_t kt_uid, kt_gid;
	uint32_t kt_argc;		/* as kpc_argc */
	int32_t kt_pri;			/* Linux's prio, lower is more urgent */
	int32_t kt_cpu;			/* the CPU it last ran or will run on */
	char kt_sname;			/* 'O' on CPU, 'R' runnable, 'S' asleep,
					 * '?' not known */
	char kt_comm[16];		/* its comm */
	char kt_psargs[80];		/* as kpc_psargs */
	int32_t kt_pgid, kt_sid;	/* process group, session (0: not known) */
	uint64_t kt_ttydev;		/* controlling tty's dev_t, or
					 * (uint64_t)-1 (none or not known) */
	uint64_t kt_argv, kt_envp;	/* its initial argv[], envp[] (user
					 * addresses on its stack), 0 if not
					 * known */
} ks_task_t;

/*
 * Fire a probe: run every ECB enabled on ctx->kpc_id in every state, in
 * enabling order.  Firings are serialised by one process-wide lock (the
 * shim's ks_fire_lock): callable from any thread, never blocks on anything
 * else, never allocates.  A probe with no ECB returns after one atomic
 * load.  ctx (and what it points to) is only read during the call.
 */
void ks_probe_fire(const ks_probe_ctx_t *ctx);

/*
 * Fire ctx as n identical firings (n >= 1) of a probe a provider counted
 * in the kernel under a ks_aggplan (ks_filter.h): aggregating actions are
 * applied once with weight n (count += n, sum += n * v, avg and stddev
 * as n samples of v, quantize/lquantize/llquantize bucket += n * incr,
 * min/max as one sample).  ECBs that are not aggregation-only (the ECB
 * set changed after the provider counted) run n times, so the result is
 * always what n firings would have done.  n == 1 is ks_probe_fire.
 */
void ks_probe_fire_n(const ks_probe_ctx_t *ctx, uint64_t n);

/* Fill the process fields of ctx for the calling thread (tests, timers). */
void ks_probe_ctx_self(ks_probe_ctx_t *ctx, dtrace_id_t id);

/*
 * Hooks the shim defines for its providers:
 * ks_provider_drops: the kernel lost n events on cpu before the provider
 * could read them (perf ring overrun); they count as principal drops on
 * that CPU (cpu modulo the CPU slots) in every active state (aggregation
 * drops in a state whose provider probes only aggregate).  Not from
 * probe context: no shim lock may be held.
 * ks_probe_wants_stack: nonzero if an enabled ECB on the probe (any state)
 * records stack(), ustack() or jstack() (also as aggregation keys) or
 * loads stackdepth, ustackdepth, caller or ucaller, so the provider
 * samples call chains only then.  Cheap (one load).  The first such ECB
 * on a probe already enabled without them restarts the provider's source
 * (kpo_disable, kpo_enable); the last one going changes nothing.
 */
void ks_provider_drops(uint32_t cpu, uint64_t n);
/* The kernel could not count n firings on cpu in an aggregation map (the
 * map was full): aggregation drops on that CPU in every active state
 * that has aggregations.  Not from probe context. */
void ks_provider_aggdrops(uint32_t cpu, uint64_t n);
int ks_probe_wants_stack(dtrace_id_t id);

/*
 * ks_probe_wants: what the probe's source must sample for its enabled
 * ECBs: KS_WANT_STACK (as ks_probe_wants_stack) and KS_WANT_UREGS (an
 * ECB loads uregs[]: kpc_uregs must hold the firing thread's user
 * registers, in uregs[] order, R_* of x86_64 struct pt_regs).  Cheap.
 * The first ECB needing either on a probe already enabled without it
 * restarts the provider's source, as for stacks.
 * ks_wants_vtime: nonzero while any enabled ECB (any probe) loads
 * vtimestamp, so providers keep per-thread CPU time (kpc_vtimestamp)
 * only then; ks_vtime_watch(fn) registers one function called (no shim
 * lock held) when that changes, before the probe whose ECB turned it on
 * is started.  fn reads ks_wants_vtime() itself.
 */
#define KS_WANT_STACK	0x1
#define KS_WANT_UREGS	0x2
/* KS_WANT_UARG(N), N < KS_WANT_NUARGS: an ECB reads user memory
 * (copyin, copyinstr, copyinto) and loads argN: a provider whose process
 * may be gone when the firing is processed should capture the memory at
 * argN (kpc_ucap) at the event. */
#define KS_WANT_NUARGS	6
#define KS_WANT_UARG(n)	(0x10000 << (n))
#define KS_WANT_UARGS	(0x3f << 16)
/* KS_WANT_ARG0: an ECB loads arg0 (or args[] by a run-time index): a pid
 * return probe whose ECBs read neither it nor stacks nor uregs[] may be
 * placed as a uretprobe (which does not know which ret returned). */
#define KS_WANT_ARG0	0x400000
int ks_probe_wants(dtrace_id_t id);
int ks_wants_vtime(void);
void ks_vtime_watch(void (*fn)(void));

/*
 * In-kernel filtering of predicates (ks_filter.h): ks_probe_filter(id,
 * &filter) describes a condition true whenever any ECB enabled on the
 * probe could run (an OR of ANDs of pid/tid/cpu/uid/gid/argN/execname
 * comparisons with constants, translated from the predicates' DIF), so a
 * provider may drop other firings before they leave the kernel;
 * ks_filter_gen() and ks_filter_watch() tell it when the ECBs changed.
 */
#include "ks_filter.h"

/* Number of CPU slots (highest possible CPU id + 1), the count the
 * shim's per-CPU buffers use and BPF per-CPU maps hold values for.  The
 * same function as ks.h's (files that include both check they agree). */
unsigned ks_ncpus(void);

/* Monotonic and wall clocks in ns, as the shim uses them. */
uint64_t ks_gethrtime(void);
uint64_t ks_getwalltime(void);

#endif /* KS_PROVIDER_H */
