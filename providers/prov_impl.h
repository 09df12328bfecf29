/*
 * prov_impl.h - what the provider files share: the registration entry of
 * each provider, the tracefs format parser, the perf ring machinery, the
 * per-thread process cache and the timer queues.
 *
 * Threads: profile/tick timers run on timer-queue threads; every perf
 * event is drained by one probe-context thread (perf.c).  The process
 * cache is touched only by that drain thread.  Enable/disable run on the
 * consumer's thread and take the perf lock.
 */
#ifndef PROV_IMPL_H
#define PROV_IMPL_H

#include <stdint.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include "ks_provider.h"

/* ---- registration (providers.c) ---- */

int prov_profile_register(void);
int prov_syscall_register(void);
int prov_proc_register(void);
int prov_sched_register(void);
int prov_sdt_register(void);
int prov_usdt_register(void);
/* Stop the usdt provider's thread (prov_shutdown, before perf's). */
void prov_usdt_shutdown(void);
/* Tracing has started: place the usdt probes enabled before (prov_go). */
void prov_usdt_go(void);
void prov_profile_shutdown(void);
/* Fire the profile-N firings idle CPUs missed before upto (ns, monotonic);
 * call once every sample taken before upto has been drained. */
void prov_profile_flush(uint64_t upto);

/* Is this process allowed to use perf tracepoints (root/CAP_PERFMON)? */
int prov_is_privileged(void);
/* Record one-line notes for prov_route() (e.g. "mounted tracefs"). */
void prov_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Count records lost by the kernel on a CPU. */
void prov_drops_add(uint32_t cpu, uint64_t n);
/* Fire a probe: ks_probe_fire(), or the test hook when one is set. */
void prov_fire(const ks_probe_ctx_t *ctx);
/* Fire ctx as n identical firings (ks_probe_fire_n; the test hook n
 * times when one is set). */
void prov_fire_n(const ks_probe_ctx_t *ctx, uint64_t n);
/* Tests: send every firing to fn instead of the shim (NULL: the shim). */
void prov_set_fire_hook(void (*fn)(const ks_probe_ctx_t *ctx));
/* Could a firing now be recorded: a consumer tracing, or a test's hook? */
int prov_firings_count(void);
/* Is s a glob pattern (contains * ? [ or \)? */
int prov_is_glob(const char *s);
/* Does desc's field f (provider/mod/func/name) allow value v?  Empty or
 * glob fields allow anything (the shim does the real matching). */
int prov_desc_allows(const char *field, const char *v);

/* The ptrace route (ptrace.c): syscall and proc for -c/-p targets. */
int prov_ptrace_register(void);
/* The pages shared with the ptrace helper, without registering its
 * providers (the pid and usdt providers' ptrace route as root). */
int prov_ptrace_init(void);
/* Tracing started: breakpoint syncs asked for before are made now. */
void prov_ptrace_go(void);
int prov_ptrace_target_add(int pid, int held);
int prov_ptrace_syscalls(int *nrs, int max);
struct prov_evalpt;
int prov_ptrace_evalhold(int pid, const struct prov_evalpt *ev);
int prov_ptrace_evalheld(int pid);
void prov_ptrace_evalgo(int pid);
void prov_ptrace_shutdown(void);
/* Wait until every message the helper sent has fired (at most 1 s). */
void prov_ptrace_flush(void);
/* x86_64 system call names by number (sysnames.c); NULL if none. */
const char *prov_sysname(unsigned nr);
unsigned prov_sysname_count(void);
/* i386 system call names by number (sysnames32.c); NULL if none. */
const char *prov_sysname_i386(unsigned nr);
/* The x86_64 number whose syscall probe a call of audit arch arch
 * (AUDIT_ARCH_X86_64 with or without PROV_X32_BIT in nr, or
 * AUDIT_ARCH_I386) and number nr fires, or -1 (no such probe). */
#define PROV_X32_BIT 0x40000000u
int prov_sysnr_native(uint32_t arch, uint32_t nr);

/* ---- profile rates (prov_profile.c) ---- */

enum { PROV_PROFILE_TICK = 1, PROV_PROFILE_PROFILE = 2 };
/* Parse "tick-10ms", "profile-997", "profile-997hz"...: kind and period
 * in ns.  Returns 0, or -1 with a message in err (errlen bytes). */
int prov_profile_parse(const char *name, int *kind, uint64_t *period_ns,
    char *err, size_t errlen);

/* ---- tracefs (tracefs.c) ---- */

#define PROV_TF_MAXFIELDS 32
typedef struct prov_tf_field {
	char tff_type[64];	/* C type as written, without the name */
	char tff_name[64];
	uint32_t tff_offset, tff_size;
	int tff_signed;
	int tff_array;		/* element count if "name[N]", else 0 */
	int tff_dataloc;	/* __data_loc (dynamic array/string) */
	int tff_common;		/* common_* header field */
} prov_tf_field_t;

typedef struct prov_tf_format {
	char tff_event[64];
	int tff_id;		/* tracepoint id (common_type) */
	int tff_nfields;
	prov_tf_field_t tff_fields[PROV_TF_MAXFIELDS];
} prov_tf_format_t;

/* The tracefs root, mounting it if needed and possible; NULL if none. */
const char *prov_tracefs_root(void);
/* Parse a format file's text.  0, or -1 with a message in err. */
int prov_tracefs_parse(const char *text, prov_tf_format_t *fmt,
    char *err, size_t errlen);
/* Read and parse events/<sys>/<event>/format.  0 or -1. */
int prov_tracefs_format(const char *sys, const char *event,
    prov_tf_format_t *fmt);
/* Call fn for each event of subsystem sys (NULL: every subsystem). */
int prov_tracefs_each(const char *sys,
    void (*fn)(void *arg, const char *sys, const char *event), void *arg);
/* Index of field name in fmt, or -1. */
int prov_tracefs_field(const prov_tf_format_t *fmt, const char *name);
/* Field value as a (sign-extended) 64-bit integer. */
uint64_t prov_tracefs_int(const prov_tf_field_t *f, const uint8_t *raw,
    uint32_t rawlen);
/* Field as a string: points into raw (char arrays, __data_loc), with its
 * length (no NUL needed); NULL if it is not a string field. */
const char *prov_tracefs_str(const prov_tf_field_t *f, const uint8_t *raw,
    uint32_t rawlen, uint32_t *lenp);
/* Bytes of the fixed part of a record (end of the last field). */
uint32_t prov_tracefs_size(const prov_tf_format_t *fmt);
/* Has the event dynamic (__data_loc) fields after the fixed part? */
int prov_tracefs_has_dataloc(const prov_tf_format_t *fmt);
/* Does this field hold a string (char[N] or __data_loc char[])? */
int prov_tracefs_is_str(const prov_tf_field_t *f);
/* Index of the first char * argument (a user string the BPF capture can
 * copy) of a syscalls:sys_enter_* format, or -1 (prov_syscall.c). */
int prov_syscall_strarg(const prov_tf_format_t *fmt);
/* Probes enabled on syscalls:sys_*_X tracepoints of their own, not on
 * the raw_syscalls route (prov_syscall.c; for tests). */
int prov_syscall_nown(void);

/* ---- perf rings (perf.c) ---- */

typedef struct prov_perf_sample {
	uint32_t pps_cpu;
	int32_t pps_pid, pps_tid;
	uint64_t pps_time;		/* perf clock (CLOCK_MONOTONIC) ns */
	uint64_t pps_ip;
	const uint64_t *pps_chain;	/* callchain incl. context markers */
	uint32_t pps_nchain;
	const uint8_t *pps_raw;
	uint32_t pps_rawlen;
	int pps_user;			/* ip is a user address */
	const uint64_t *pps_uregs;	/* user registers, perf's order (x86
					 * asm/perf_regs.h, PROV_UREGS_MASK) */
	uint32_t pps_nuregs;		/* 0: none (kernel thread, or not
					 * sampled) */
	const uint8_t *pps_ustk;	/* user stack bytes from the sampled
					 * sp up (PROV_SAMPLE_USTACK) */
	uint32_t pps_ustklen;		/* bytes valid there (0: none) */
} prov_perf_sample_t;

/* What a source samples besides the basics (the "callchain" argument
 * of the functions below, prov_perf_wants_stack's result): call chains,
 * the user registers of the thread (PERF_SAMPLE_REGS_USER). */
#define PROV_SAMPLE_CHAIN	0x1	/* = KS_WANT_STACK */
#define PROV_SAMPLE_UREGS	0x2	/* = KS_WANT_UREGS */
#define PROV_SAMPLE_USTACK	0x4	/* PROV_USTACK_BYTES of the user stack
					 * from sp up (PERF_SAMPLE_STACK_USER):
					 * operands of USDT probes read there */
#define PROV_USTACK_BYTES	512

typedef void prov_perf_cb_t(void *arg, const prov_perf_sample_t *s);
typedef struct prov_perf_src prov_perf_src_t;

/* Open attr (type/config/sample_period set by the caller) on every CPU,
 * into that CPU's ring; cb runs on the drain thread for each sample.
 * callchain: PROV_SAMPLE_* bits, what else to sample (1: call chains).
 * NULL with ks_provider_error. */
prov_perf_src_t *prov_perf_open(const struct perf_event_attr *attr,
    int callchain, prov_perf_cb_t *cb, void *arg);
/* Start the rings and the drain thread now, before any source, so that
 * task records (exec: prov_pcache_exec_watch) flow.  0 or -1. */
int prov_perf_start(void);
/* Stop and free a source; no callback runs for it after this returns. */
void prov_perf_close(prov_perf_src_t *src);
/* Open a tracepoint by id (see prov_tf_format_t.tff_id). */
prov_perf_src_t *prov_perf_tracepoint(int tpid, int callchain,
    prov_perf_cb_t *cb, void *arg);
void prov_perf_shutdown(void);
/* Wait for a drain pass that began after the call (at most 0.5 s). */
void prov_perf_flush(void);
/* Monotonic time (ns) before which every sample has been drained and
 * fired: the start of the last complete drain pass (0 before the first). */
uint64_t prov_perf_drained(void);
int prov_perf_ncpus(void);
/* What the probe's source must sample: PROV_SAMPLE_* bits (the shim's
 * ks_probe_wants if it offers one, else call chains); 0 for
 * DTRACE_IDNONE (no probe: a source of the providers' own). */
int prov_perf_wants_stack(dtrace_id_t id);

/* Fill ctx from a sample: cpu, pid, tid, time, process cache fields,
 * kernel/user stacks split from the call chain, user registers in
 * uregs[] order, vtimestamp (vtime.c). */
void prov_perf_ctx(ks_probe_ctx_t *ctx, dtrace_id_t id,
    const prov_perf_sample_t *s);

/* User register reg of a sample, reg in uregs[] order (R_* of x86_64
 * struct pt_regs, PROV_UREG_*); 0 if the sample carries none. */
enum {
	PROV_UREG_R15, PROV_UREG_R14, PROV_UREG_R13, PROV_UREG_R12,
	PROV_UREG_RBP, PROV_UREG_RBX, PROV_UREG_R11, PROV_UREG_R10,
	PROV_UREG_R9, PROV_UREG_R8, PROV_UREG_RAX, PROV_UREG_RCX,
	PROV_UREG_RDX, PROV_UREG_RSI, PROV_UREG_RDI, PROV_UREG_ORIG_RAX,
	PROV_UREG_RIP, PROV_UREG_CS, PROV_UREG_EFLAGS, PROV_UREG_RSP,
	PROV_UREG_SS, PROV_UREG_COUNT
};
uint64_t prov_perf_ureg(const prov_perf_sample_t *s, int reg);

/* The source's perf fd on cpu (-1 if none there). */
int prov_perf_src_fd(const prov_perf_src_t *src, int cpu);

/* ---- BPF delivery and string capture (bpf.c) ---- */

/* The payload of a capture program (see bpf.c). */
typedef struct prov_bpf_rec {
	uint8_t pbr_rec[64];		/* syscall parameter block, as the
					 * format file lays it out (the first
					 * 8 bytes are zero) */
	char pbr_str[256];		/* the string, NUL-terminated */
	int64_t pbr_len;		/* bytes incl. NUL, or -errno */
} prov_bpf_rec_t;

/* Deliver every hit of tracepoint tpid to cb(arg, sample) with the first
 * recsize bytes of its record (at most 440) as the sample's RAW data.
 * chain: samples carry call chains.  Returns an attachment for
 * prov_bpf_release, or -1 (BPF unusable). */
int prov_bpf_copy(int tpid, int recsize, int chain, prov_perf_cb_t *cb,
    void *arg);
/* The same for a syscall tracepoint (records of recsize <= 64 bytes), the
 * RAW data being a prov_bpf_rec_t with the user string whose pointer is at
 * stroff copied at event time. */
int prov_bpf_capture(int tpid, int recsize, int stroff, int chain,
    prov_perf_cb_t *cb, void *arg);
/* The same for syscall number nr's entry (ret 0) or return (ret 1) on the
 * raw_syscalls dispatch (bpf_sys.c): RAW data is the first recsize (16 to
 * 64) bytes of a record laid out as syscalls:sys_enter_X / sys_exit_X
 * lays it out, or with stroff >= 0 a prov_bpf_rec_t as prov_bpf_capture
 * makes it.  -1 when the raw route is unusable (the caller falls back to
 * the tracepoint of its own). */
int prov_bpf_sys(int ret, int nr, int recsize, int stroff, int chain,
    prov_perf_cb_t *cb, void *arg);
void prov_bpf_release(int attachment);
/* While off, released stubs are closed rather than kept idle for reuse
 * (an idle stub on a syscalls:sys_enter_X event keeps every system call
 * of the machine paying for that tracepoint's callback).  On by default;
 * enable and disable run on one thread. */
void prov_bpf_keep_idle(int on);
/* Close the perf events released so far, concurrently (bpf.c). */
void prov_bpf_close_deferred(void);
/* Deliver each hit of execve's tracepoint tpid (argv pointer at argvoff in
 * its record) with RAW data: u64 argv[PROV_ARGV_PTRS] (0 past the end),
 * then the first PROV_ARGV_STRS of those strings, PROV_ARGV_LEN bytes
 * each (NUL-terminated, cut).  Attachment or -1. */
#define PROV_ARGV_PTRS 16
#define PROV_ARGV_STRS 6
#define PROV_ARGV_LEN 48
int prov_bpf_argv(int tpid, int argvoff, prov_perf_cb_t *cb, void *arg);
/* Bytes of a capture's pbr_str to offer copyinstr (kuc_len) for its
 * pbr_len: the string with its NUL when it fit, else the 255 bytes before
 * the NUL the kernel put in (the rest is read live); 0 if it failed. */
uint32_t prov_bpf_caplen(int64_t pbr_len);
/* Detach every program and close the output events (before perf's). */
void prov_bpf_shutdown(void);

/* ---- the raw_syscalls dispatch (bpf_sys.c) ---- */

struct bpf_insn;

/* The native number of the system call tracefs names name (sys_enter_<name>),
 * or -1 if unknown (not x86_64, a call newer than sysnames.c). */
int prov_bpf_sys_nr(const char *name);
/* The PROG_ARRAY for direction ret (0 entry, 1 return) that the program
 * on raw_syscalls:sys_enter/sys_exit tail-calls by number, started on
 * first use, and a hold on it; -1 if it cannot be. */
int prov_bpf_sys_map(int ret);
/* Drop a hold (the caller's entries are gone): with the last, the array
 * is closed and the event put into fd (returns 1) for the caller to
 * close (slow: it detaches the program); else returns 0. */
int prov_bpf_sys_put(int ret, int *fd);
/* Does any body use the raw route now? */
int prov_bpf_sys_busy(void);
/* Emit the instructions every body in those arrays starts with (drop
 * 32-bit compat calls, whose numbers are another table's) into p (room
 * for 16); the count, -1 before prov_bpf_sys_map succeeded. */
int prov_bpf_sys_prologue(struct bpf_insn *p);
/* Take the two raw events (into fds, room for 2) for the caller to close
 * (which detaches their programs, slowly); returns how many. */
int prov_bpf_sys_detach(int *fds);
/* Close what prov_bpf_sys_detach left and the arrays (their entries go
 * with them); the route starts anew on next use. */
void prov_bpf_sys_close(void);

/* ---- shared tracepoints (tp.c) ---- */

typedef void prov_tp_fire_t(void *arg, const prov_perf_sample_t *s,
    const prov_tf_format_t *fmt);
/* Call fn(arg, sample, format) for every hit of tracepoint sys:event,
 * opening it on first use.  id: the probe (for the stack hint).  0 or -1
 * with ks_provider_error. */
int prov_tp_subscribe(const char *sys, const char *event, dtrace_id_t id,
    prov_tp_fire_t *fn, void *arg);
void prov_tp_unsubscribe(const char *sys, const char *event,
    prov_tp_fire_t *fn, void *arg);
/* The parsed format of sys:event (kept for the process), or NULL. */
const prov_tf_format_t *prov_tp_format(const char *sys, const char *event);
/* Fill ctx->kpc_args from the non-common fields from index first on;
 * strings become addresses served from ctx->kpc_ucap (valid until the
 * next call; drain thread only). */
void prov_tp_args(ks_probe_ctx_t *ctx, const prov_tf_format_t *fmt,
    const uint8_t *raw, uint32_t rawlen, int first);
/* Describe argument desc->dtargd_ndx the way prov_tp_args fills it. */
void prov_tp_argdesc(const prov_tf_format_t *fmt, int first,
    dtrace_argdesc_t *desc);

/* ---- table-driven providers (tprows.c) ---- */

typedef struct prov_tprow {
	const char *tr_name;		/* probe name */
	const char *tr_sys, *tr_event;	/* the tracepoint feeding it */
	/* Fill ctx's args (ctx already holds the sample's thread); return
	 * 0 to skip this firing. */
	int (*tr_fire)(ks_probe_ctx_t *ctx, const prov_perf_sample_t *s,
	    const prov_tf_format_t *fmt);
	const char *tr_args[DTRACE_MAXARGS];	/* argument types */
	dtrace_id_t tr_id;		/* set when the probe is made */
	const char *tr_capture;		/* syscall string field to copy at
					 * event time (BPF), or NULL */
	int tr_att;			/* that capture's attachment + 1 */
	/* Kernel filtering (bpf_filter.h): the variables its firings take
	 * from the task the event runs in (PROV_FV_* bits of enum ks_fvar;
	 * 0: never filtered), the record fields its arguments are, as
	 * "field,field,-,field" (-: computed), and the record fields its
	 * tid and execname are instead of the task's (NULL: the task's). */
	unsigned tr_fvars;
	const char *tr_fargs;
	const char *tr_ftid, *tr_fcomm;
} prov_tprow_t;

/* Register provider name over rows (kept; rows of one name adjacent). */
int prov_tprows_register(const char *name, prov_tprow_t *rows, int nrows);
/* Integer field of a sample by name (0 if the format lacks it). */
int64_t prov_tp_get(const prov_tf_format_t *fmt, const prov_perf_sample_t *s,
    const char *field);
/* Copy a char[] field into out (unchanged if absent). */
void prov_tp_comm(const prov_tf_format_t *fmt, const prov_perf_sample_t *s,
    const char *field, char out[16]);
/* Make ctx describe thread tid (not the sampled one): pid, ppid, uid, gid
 * from the cache, execname comm if not NULL, its vtimestamp; stacks and
 * user registers cleared. */
void prov_tp_as_thread(ks_probe_ctx_t *ctx, int32_t tid, const char *comm);

/* Describe a row's argument of type `type` (tprows.c): "lwpsinfo_t *"
 * and "psinfo_t *" are translated from the ks_task in kpc_args[KS_ARG_TASK],
 * "cpuinfo_t *" from the CPU number in the argument itself. */
void prov_tp_argtype(const char *type, dtrace_argdesc_t *desc);
/* Describe thread tid to lwpsinfo_t/psinfo_t arguments: a ks_task filled
 * from the process cache (comm, if not NULL, instead of the cache's),
 * offered by prov_tp_task_offer (valid until the next call; drain thread
 * only). */
void prov_tp_task(ks_probe_ctx_t *ctx, int32_t tid, const char *comm,
    int32_t pri, int32_t cpu, char sname);
/* Offer [data, data + len) (memory that outlives the firing) to the
 * firing's clauses as provider memory, beside what it already offers:
 * typed arguments that point into it are read in place (drain thread
 * only; two ranges at most). */
void prov_tp_kmem(ks_probe_ctx_t *ctx, const void *data, uint32_t len);
/* Offer task (memory that outlives the firing) as the firing's ks_task. */
void prov_tp_task_offer(ks_probe_ctx_t *ctx, const ks_task_t *task);

/* ---- process cache (pcache.c), drain thread only ---- */

typedef struct prov_pinfo {
	int32_t ppi_tid, ppi_pid, ppi_ppid;
	uint32_t ppi_uid, ppi_gid;
	char ppi_comm[16];
	char ppi_psargs[80];		/* argv joined by spaces */
	uint32_t ppi_argc;
	int32_t ppi_pgid, ppi_sid;	/* from /proc/PID/stat, 0 if not read */
	uint64_t ppi_ttydev;		/* dev_t of its tty, (uint64_t)-1: none */
	uint64_t ppi_stack;		/* its initial stack: argc, argv[]... */
	uint64_t ppi_stackargc;		/* the argc there (argv[] before envp[]) */
	int ppi_argv_new;		/* psargs captured for an exec not
					 * seen yet (prov_pcache_exec) */
} prov_pinfo_t;

/* A task snapshot's process fields from pi: process group, session, tty,
 * and its argv[] and envp[] from its initial stack (pcache.c). */
void prov_task_proc(ks_task_t *t, const prov_pinfo_t *pi);
/* Info for thread tid (pid hint may be 0), from /proc cached per tid. */
const prov_pinfo_t *prov_pcache_get(int32_t tid, int32_t pid);
/* Remember target pid's arguments now (any thread), for when the drain
 * thread first meets it after it is gone. */
void prov_pcache_prime(int32_t pid);
/* The thread changed its comm (exec, prctl): update the cache. */
void prov_pcache_comm(int32_t tid, int32_t pid, const char *comm);
/* Thread tid of process pid was created by ptid of ppid: inherit. */
void prov_pcache_fork(int32_t pid, int32_t ppid, int32_t tid, int32_t ptid);
/* The thread exec'd with these arguments (psargs NUL-terminated). */
void prov_pcache_args(int32_t tid, int32_t pid, const char *psargs,
    uint32_t argc);
/* Call fn(pid) for every exec seen from now on (drain thread; fn must
 * not block long).  One watcher; NULL stops.  Any thread. */
void prov_pcache_exec_watch(void (*fn)(int32_t pid));
/* Call fn for every executable file mapping made from now on (the
 * object at path, device maj:min, inode ino, mapped by pid), and exit
 * for every process whose main thread exited (drain thread; fns must
 * not block long).  One watcher each; NULL stops.  Any thread. */
typedef void prov_map_watch_t(int32_t pid, uint32_t maj, uint32_t min,
    uint64_t ino, const char *path);
void prov_pcache_map_watch(prov_map_watch_t *fn);
void prov_pcache_exit_watch(void (*fn)(int32_t pid));
/* perf.c: a MMAP2 record of an executable mapping, an EXIT record. */
void prov_pcache_map(int32_t pid, uint32_t maj, uint32_t min, uint64_t ino,
    const char *path);
void prov_pcache_exit(int32_t pid, int32_t tid);
/* The thread exec'd (a COMM record of an exec): keep the arguments
 * captured for it, else read them from /proc (empty if it is gone). */
void prov_pcache_exec(int32_t tid, int32_t pid);
/* Capture the arguments of every execve from now on (psargs.c); called
 * when a proc probe is enabled, without provider locks held.
 * Idempotent. */
void prov_psargs_on(void);
/* Join an argv record (see prov_bpf_argv) into out; returns argc. */
uint32_t prov_psargs_join(const uint8_t *raw, uint32_t rawlen, char *out,
    size_t outlen);

/* ---- thread CPU time for vtimestamp (vtime.c), drain thread only ---- */

/* Follow the shim's ks_wants_vtime (the perf route's sched_switch
 * accounting, or the ptrace helper's flag).  At registration. */
void prov_vtime_init(int ptrace_route);
/* Is the accounting on (any thread)?  Any thread may ask. */
int prov_vtime_active(void);
/* CPU cpu switched from thread prev to next at time t (0: idle). */
void prov_vtime_switch(uint32_t cpu, int32_t prev, int32_t next,
    uint64_t t);
/* ns thread tid has spent on CPU by time t since it was first seen;
 * running: the thread fires the probe on cpu at t, so it runs there
 * (and is added if unknown); else an unknown thread is 0. */
uint64_t prov_vtime_get(uint32_t cpu, int32_t tid, uint64_t t,
    int running);
/* The thread exited. */
void prov_vtime_forget(int32_t tid);
/* Forget every thread (tests; a new accounting period). */
void prov_vtime_reset(void);
/* ptrace route: read each stopped thread's CPU time (ptrace.c). */
void prov_ptrace_vtime(int on);

#endif /* PROV_IMPL_H */
