/*
 * providers.h - registering the Linux providers with the kernel shim.
 *
 * The engine calls prov_register_all() once per process before listing or
 * enabling probes.  Each provider decides from the privileges at hand which
 * event route it uses (perf_event_open as root or CAP_PERFMON, ptrace for
 * the consumer's own -c/-p targets otherwise) and registers only probes that
 * can work; prov_route() says which route is in use, for status lines.
 */
#ifndef PROVIDERS_H
#define PROVIDERS_H

#include <stddef.h>
#include <stdint.h>

/* Register every provider available here.  Idempotent.  0 or -1. */
int prov_register_all(void);

/* Processes being traced through -c/-p ($target); the ptrace route
 * follows them and their descendants. */
int prov_target_add(int pid);
/* The same for the consumer's own -c child, held before its exec: what
 * it does until the exec is the consumer's, not traced. */
int prov_target_add_held(int pid);

/* Tracing has started (after DTRACEIOC_GO): sources that wait for it
 * begin.  The ptrace route's breakpoints are planted from then on: a hit
 * before the shim is active would be lost, and a -p process whose usdt
 * semaphore is up would see probes enabled that cannot fire yet. */
void prov_go(void);

/* -x uroute: how pid and usdt probes are placed: "uprobes" (the kernel's,
 * root or CAP_PERFMON) or "ptrace" (int3 breakpoints in -c/-p targets,
 * the default without privileges).  Before targets are added.  0 or -1
 * for another value. */
int prov_set_uroute(const char *v);

/*
 * -x evaltime: where a created (-c) target starts to be traced, as an
 * instruction of an object mapped at its exec (the executable's main or
 * entry point, the dynamic linker's _dl_debug_state) and the pass through
 * it that counts.  prov_target_evalhold, before the target's exec: 1 if
 * the ptrace route holds it there (untraced until then), 0 if it does not
 * trace the target (the caller holds it itself).  prov_target_evalheld:
 * 1 once held there, -1 if that cannot be (gone, or the point was not
 * found: it runs on, traced), 0 not yet.  prov_target_evalgo: tracing
 * has started, let it go on.
 */
typedef struct prov_evalpt {
	uint64_t pev_dev, pev_ino;	/* the object (dev: major << 32 | minor) */
	uint64_t pev_foff;		/* the instruction's file offset */
	uint32_t pev_hits;		/* stop at this pass (1: the first) */
} prov_evalpt_t;
int prov_target_evalhold(int pid, const prov_evalpt_t *ev);
/* Does prov_target_add trace its processes through ptrace? */
int prov_target_ptrace(void);
int prov_target_evalheld(int pid);
void prov_target_evalgo(int pid);

/* The syscall numbers (x86_64) whose enabled probes a -c target must stop
 * for, at most max of them into nrs: the target may install a seccomp
 * filter that traps only these.  The count, or -1 when unknown or when
 * the route does not use ptrace (then install no filter). */
int prov_target_syscalls(int *nrs, int max);

/*
 * The pid provider (prov_pid.c).  The engine walks a process's objects
 * and symbols and creates each probe pid<PID>:mod:func:name here, at
 * file offset pps_foff of object pps_path (absolute; the kernel resolves
 * it to its inode, so the object need not be mapped yet).  Entry and
 * offset probes take arg0..arg5 from the calling convention's registers.
 * A return probe fires at each of its function's returning instructions
 * (pps_nrets offsets pps_rets into the function at pps_foff, copied),
 * with arg0 = that offset and arg1 = the return value; with none given
 * (the function could not be decoded) it is a uretprobe with arg0 0.
 * Enabling needs uprobes (root or CAP_PERFMON); the reason is given when
 * they are not there.  The probe's id, or DTRACE_IDNONE.
 */
enum { PROV_PID_ENTRY, PROV_PID_RETURN, PROV_PID_OFFSET };
typedef struct prov_pid_site {
	int pps_pid, pps_kind;
	const char *pps_mod, *pps_func, *pps_name, *pps_path;
	uint64_t pps_foff;
	const uint64_t *pps_rets;	/* return: offsets in the function */
	size_t pps_nrets;
} prov_pid_site_t;
uint32_t prov_pid_probe(const prov_pid_site_t *ps);
/* The instruction decoder stopped at mod`func+off (bytes it does not
 * know): no instruction probes past it, the return probe a uretprobe.
 * Counted and said in the route's notes (prov_route()). */
void prov_pid_undecoded(const char *mod, const char *func, uint64_t off);
/* Attach the pid probes enabled since the last call, a file's probes
 * together (one uprobe_multi link).  Called after each ENABLE.  0, or -1
 * with the reason in err. */
int prov_pid_commit(char *err, size_t errlen);

/*
 * x86-64 instructions (providers/x86/x86_insn.c): the length of the
 * instruction at code (n bytes readable there) and, for control
 * transfers, its kind and direct displacement, from the encoding alone
 * (64-bit mode).  The length, or -1 when the bytes are no instruction
 * the decoder knows (invalid in 64-bit mode, reserved, truncated): a
 * caller must then not guess where the next instruction starts.
 */
#define PROV_X86_MAXLEN 15
enum { PROV_X86_OTHER, PROV_X86_RET, PROV_X86_JMP, PROV_X86_JCC,
	PROV_X86_CALL, PROV_X86_JMPIND, PROV_X86_CALLIND };
typedef struct prov_x86_insn {
	uint8_t pxi_len;		/* bytes */
	uint8_t pxi_kind;		/* PROV_X86_*: ret (C3, C2 iw), direct
					 * jmp/jcc/call, indirect jmp/call */
	uint8_t pxi_riprel;		/* has a RIP-relative memory operand */
	int64_t pxi_rel;		/* direct ones: target - next insn */
} prov_x86_insn_t;
int prov_x86_decode(const void *code, size_t n, prov_x86_insn_t *out);

/* The data of that filter's SECCOMP_RET_TRACE (= ENG_SECCOMP_DATA). */
#define PROV_SECCOMP_DATA 0x0d7u

/* The pid and usdt probes' route: "uprobe_multi", "perf" (a uprobe
 * event per site) or "ptrace" (breakpoints), NULL while none is
 * attached; the hits delivered since the start and the tracer's time
 * spent on them in ns (*ns / *hits: its cost per hit). */
const char *prov_user_stats(uint64_t *hits, uint64_t *ns);

/* Where each probe ids[i]'s clauses run, into runs[i] (the enablings
 * pane; one pass over the BPF slots for all n): PROV_RUN_KAGG, a
 * BPF program aggregates its firings in the kernel (no record reaches
 * the shim); PROV_RUN_KFILTER, a BPF program checks its predicates in
 * the kernel and only firings that pass become records; PROV_RUN_SHIM,
 * every firing is a record the shim runs the clauses on (no BPF slot
 * for it, or its slot has no filter and no aggregating body). */
enum { PROV_RUN_SHIM, PROV_RUN_KFILTER, PROV_RUN_KAGG };
void prov_probe_runs(const uint32_t *ids, uint8_t *runs, size_t n);

/* "perf (root)", "ptrace (own processes)", ... */
const char *prov_route(void);

/* Records the kernel lost (perf ring overruns) on cpu since the process
 * started, or the sum over every CPU when cpu < 0.  Also reported to the
 * shim through ks_provider_drops(). */
uint64_t prov_drops(int cpu);

/* Size of each per-CPU perf ring in KiB (a power of two, at least 8),
 * effective when the rings are first created; default 1024.  The
 * environment variable DTUI_PERF_RING_KB sets it too.  0 or -1. */
int prov_set_ring_kb(unsigned kb);

/* Deliver every event that happened before the call: drain the perf
 * rings and the ptrace helper's messages now (waits at most ~1 s).  Call
 * before stopping tracing (DTRACEIOC_STOP), without shim locks held, so
 * the last events of an exiting target are not lost. */
void prov_flush(void);

/* A -c command held before its exec will map these objects (from its
 * file: the executable, its interpreter and libraries): the usdt
 * provider reads their notes for that pid until it execs, so that
 * python$target names the command's probes, not dtrace's own.  The paths
 * are copied.  0 or -1. */
int prov_target_objects(int pid, const char *const *paths, int n);

/* The usdt probes of every running process (but ours), from the
 * .note.stapsdt notes of the objects each maps (read once per file,
 * cached by device and inode): cb(arg, "python1234", module, function,
 * name) for each note, without making probes (a listing must not fill
 * the registry with providers).  A probe with several notes comes as
 * often.  Any thread but the drain thread. */
typedef void prov_usdt_list_f(void *arg, const char *prov, const char *mod,
    const char *func, const char *name);
void prov_usdt_list(prov_usdt_list_f *cb, void *arg);

/* Were probes made since the last call for processes that started after
 * tracing did (usdt: an exec matched a provider glob)?  1 once per batch:
 * the consumer then gives them ECBs (ks_enable_retained).  Cheap. */
int prov_probes_added(void);

/* Stop every event source (before exit). */
void prov_shutdown(void);

#endif /* PROVIDERS_H */
