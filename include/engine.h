/*
 * engine.h - the public API of the engine (libdtrace's role), used by the
 * dtrace command (cmd/dtrace) and the TUI (tui/).  Nothing above this
 * header reaches into the shim or the providers.
 *
 * Life of a session:
 *   eng_open -> eng_setopt* -> eng_compile* -> eng_prog_exec* -> eng_go
 *   -> loop { eng_sleep; eng_work } -> eng_stop -> eng_work (END output)
 *   -> eng_agg_snap + eng_agg_print -> eng_close.
 * eng_compile + eng_prog_exec may be called again while tracing to add
 * clauses; aggregations already collected are kept.
 *
 * Errors: calls return 0 / non-NULL on success and -1 / NULL on failure;
 * eng_errmsg() has the message (dtrace(1M)'s wording without the
 * "dtrace: " prefix) and, for compile errors, eng_diag() the structured
 * diagnostic.  The engine never prints except to the FILE or callbacks it
 * is given, never exits and never aborts on bad input.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdint.h>
#include <stdio.h>
#include "dtrace_abi.h"

typedef struct eng_hdl eng_hdl_t;
typedef struct eng_prog eng_prog_t;

/* ---- handle ---------------------------------------------------------- */

#define ENG_O_NOPROVIDERS 0x1	/* register only the dtrace provider */

eng_hdl_t *eng_open(int flags, char *errbuf, size_t errlen);
void eng_close(eng_hdl_t *h);
const char *eng_errmsg(const eng_hdl_t *h);
/* How providers get events here, for status lines: "perf (root)",
 * "ptrace (own processes)" and notes (prov_route()). */
const char *eng_route(eng_hdl_t *h);
/* The route of pid and usdt probes ("uprobe_multi", "perf", "ptrace"),
 * or NULL while none is attached; *hits since the start and the
 * tracer's mean ns per hit. */
const char *eng_user_route(eng_hdl_t *h, uint64_t *hits, double *nsperhit);

/*
 * Options by dtrace's names ("bufsize", "quiet", "aggsortkey"...), values
 * with dtrace's units ("4m", "10hz", "1s"); value NULL sets a boolean.
 * Runtime options (quiet, flowindent, agg* ...) may change while tracing.
 * Returns -1 with "unrecognized option"/"invalid value" messages.
 */
int eng_setopt(eng_hdl_t *h, const char *name, const char *value);
int eng_getopt(eng_hdl_t *h, const char *name, int64_t *valp);
/* eng_getopt(h, "evaltime") values: when a -c command is first traced
 * (exec: at its exec; preinit: before ld.so runs its initializers;
 * postinit, dtrace's default: after them; main: at main()). */
#define ENG_EVALTIME_EXEC	0
#define ENG_EVALTIME_PREINIT	1
#define ENG_EVALTIME_POSTINIT	2
#define ENG_EVALTIME_MAIN	3
/* Names of every option, NULL-terminated (for completion). */
const char *const *eng_option_names(void);
/*
 * The D vocabulary from the compiler's own tables, so that completion,
 * output and panes never keep lists of their own: the names of one kind
 * of word (NULL-terminated; functions not available on Linux left out),
 * and the D name of an action or aggregating function record kind
 * (DTRACEACT_*, DTRACEAGG_*; "sym" for func() too), or NULL.
 */
enum eng_word { ENG_WORD_VARIABLE, ENG_WORD_SUBROUTINE, ENG_WORD_ACTION,
		ENG_WORD_AGGREGATING };
const char *const *eng_d_words(enum eng_word kind);
const char *eng_d_actname(uint32_t kind);
/*
 * Sizes above what tracing can allocate are fitted as DTrace's kernel
 * does: with bufresize=auto, bufsize, aggsize, specsize and dynvarsize
 * are halved until they fit (dtrace(1M) then says "buffer size lowered
 * to ..."); strsize, nspec and (u)stackframes are capped silently.
 * eng_opt_fitted: 0 if size option name is in force as asked; 1 if it
 * was lowered (*asked, *now set); -1 if it is too large and bufresize is
 * manual (enabling would fail for want of memory; *asked set).
 */
int eng_opt_fitted(eng_hdl_t *h, const char *name, int64_t *asked,
    int64_t *now);

/* ---- compiling --------------------------------------------------------- */

/* A compile diagnostic (valid until the next compile on the handle). */
typedef struct eng_diag {
	const char *ed_tag;	/* "D_SYNTAX", "D_IDENT_UNDEF", ... */
	const char *ed_file;	/* script path, or NULL for -n / prompt */
	int ed_line;		/* 1-based; 0 if none */
	int ed_column;		/* 1-based; 0 if none */
	const char *ed_msg;	/* message without location or tag */
} eng_diag_t;
const eng_diag_t *eng_diag(const eng_hdl_t *h);

#define ENG_C_PROBESPEC	0x01	/* source is a probe description (-P/-m/-f/-n) */
#define ENG_C_ZDEFS	0x02	/* -Z: descriptions may match nothing */
#define ENG_C_CPP	0x04	/* -C: run the C preprocessor */
#define ENG_C_LIST	0x08	/* -l: match probes, compile no actions */
#define ENG_C_ARGREF	0x10	/* $N may be unreferenced */

/* Kinds of probe specifier for ENG_C_PROBESPEC. */
enum eng_spec { ENG_SPEC_NAME, ENG_SPEC_PROVIDER, ENG_SPEC_MODULE,
		ENG_SPEC_FUNC, ENG_SPEC_ANY };

/* Compile-time context: macro arguments and -C options. */
typedef struct eng_cargs {
	int argc;		/* $0..$N: argv[0] is $0 */
	char *const *argv;
	const char *const *cpp_args;	/* -D/-U/-I, NULL-terminated */
	int spec_kind;		/* enum eng_spec, with ENG_C_PROBESPEC */
	int target_pid;		/* $target, 0 if none */
} eng_cargs_t;

/* Compile a string (a clause, a -n description, a whole script). */
eng_prog_t *eng_compile_str(eng_hdl_t *h, const char *src,
    const char *filename, unsigned cflags, const eng_cargs_t *args);
/* Compile a script file ("-" is stdin); #! lines are skipped. */
eng_prog_t *eng_compile_file(eng_hdl_t *h, FILE *fp, const char *filename,
    unsigned cflags, const eng_cargs_t *args);

/* -S: write the DIF of every object of prog in readable assembly. */
int eng_prog_dis(eng_hdl_t *h, const eng_prog_t *prog, FILE *fp);
/*
 * -h: write a C header for prog's provider definitions, in the form of
 * Linux's dtrace -h (systemtap-compatible): PROVIDER_PROBE(args) expands
 * to DTRACE_PROBEn() of <sys/sdt.h> (a .note.stapsdt note),
 * PROVIDER_PROBE_ENABLED() reads the probe's semaphore.  guard_name (the
 * output file's name, e.g. "x.h") gives the include guard (_X_H).
 */
int eng_prog_header(eng_hdl_t *h, const eng_prog_t *prog,
    const char *guard_name, FILE *fp);
/*
 * -G: write the C source of the object a program links with the -h
 * header: a strong definition of every probe's semaphore (in section
 * .probes), which replaces the header's weak ones.  0, or -1 with
 * eng_errmsg.
 */
int eng_prog_semaphores(eng_hdl_t *h, const eng_prog_t *prog, FILE *fp);
/* The DOF image of prog (borrowed; valid while prog lives). */
const void *eng_prog_dof(const eng_prog_t *prog, size_t *sizep);
/* Number of probes matched by prog's descriptions at compile time. */
unsigned eng_prog_nprobes(const eng_prog_t *prog);
/* How many probes a clause's descriptions would match now (TUI hint);
 * -1 if the text does not parse as far as the descriptions. */
int eng_count_matches(eng_hdl_t *h, const char *clause_text);

/* Enable prog: hand its DOF to the shim.  *nmatched gets the count. */
int eng_prog_exec(eng_hdl_t *h, eng_prog_t *prog, unsigned *nmatched);
/* 1 if prog's clauses do nothing but aggregate (TUI: show the
 * aggregations, not the output), else 0. */
int eng_prog_aggonly(const eng_prog_t *prog);
/* Disable an enabled program's ECBs (TUI "disable"); data is kept. */
int eng_prog_disable(eng_hdl_t *h, eng_prog_t *prog);
void eng_prog_free(eng_prog_t *prog);

/* ---- probes -------------------------------------------------------------- */

typedef struct eng_probeinfo {
	dtrace_probedesc_t epi_desc;
	int epi_nargs;
	char epi_argtypes[DTRACE_MAXARGS][DTRACE_ARGTYPELEN];	/* as D sees
							 * args[] (xlate type) */
	/* The provider's native type of each argument and the argN it is
	 * read from (dtrace's dtargd_native and dtargd_mapping); "" when
	 * args[i] is not translated. */
	char epi_argnative[DTRACE_MAXARGS][DTRACE_ARGTYPELEN];
	int epi_argmap[DTRACE_MAXARGS];
} eng_probeinfo_t;

/* Walk probes matching pattern ("syscall::*read*:", NULL or "" = all);
 * cb returns non-zero to stop.  Returns the number visited or -1. */
typedef int eng_probe_f(const dtrace_probedesc_t *pd, void *arg);
/* The usdt probes of every running process, whether made or not (id 0:
 * not made yet; a description naming it makes it), each note once: a
 * probe with several sites comes several times.  cb's return value is
 * ignored.  0 or -1. */
int eng_usdt_list(eng_hdl_t *h, eng_probe_f *cb, void *arg);
int eng_probe_iter(eng_hdl_t *h, const char *pattern, eng_probe_f *cb,
    void *arg);
/* The same for one description (fields are globs, empty matches all). */
int eng_probe_iter_desc(eng_hdl_t *h, const dtrace_probedesc_t *pd,
    eng_probe_f *cb, void *arg);
int eng_probe_info(eng_hdl_t *h, dtrace_id_t id, eng_probeinfo_t *out);
/* Walk prog's probe descriptions, clause by clause, in source order
 * (dtrace -l lists what each matches); returns how many were visited. */
int eng_prog_desc_iter(const eng_prog_t *prog, eng_probe_f *cb, void *arg);

/* ---- running ----------------------------------------------------------- */

/* A process traced through -c/-p ($target): the providers follow it and
 * its descendants (prov_target_add).  0 or -1. */
int eng_target_add(eng_hdl_t *h, int pid);

/* The x86_64 syscall numbers a -c target must stop for (after the
 * enablings), at most max into nrs: the count, or -1 when unknown or not
 * through ptrace (then the target installs no seccomp filter). */
int eng_target_syscalls(eng_hdl_t *h, int *nrs, int max);
/* The filter returns SECCOMP_RET_TRACE | ENG_SECCOMP_DATA for them. */
#define ENG_SECCOMP_DATA 0x0d7u

/* ---- processes (libdtrace's dt_proc role) -------------------------------
 *
 * The one place that creates, grabs, continues, watches and releases the
 * processes a session traces (-c, -p); neither front end forks, execs,
 * ptraces or waits for a target itself.  A created process is held
 * before its exec (before the command's first instruction) until
 * eng_proc_continue, which lets it exec under the seccomp filter the
 * ptrace route needs for h's enablings (eng_target_syscalls).  Each
 * process keeps its mappings over time and its objects' ELF symbols
 * (the pid provider and ustack() resolve through them).  Errors come back
 * as dtrace(1M)'s text in err ("failed to grab pid 12: No such process").
 */
typedef struct eng_proc eng_proc_t;

#define ENG_PROC_SHELL	0x1	/* cmd with shell syntax is run by /bin/sh
				 * -c; else (and always without the flag)
				 * it is split at blanks and exec'd
				 * directly, as dtrace -c does */

/* fds: the child's stdin, stdout, stderr (-1: inherited), or NULL. */
eng_proc_t *eng_proc_create(const char *cmd, int flags, const int fds[3],
    char *err, size_t errlen);
eng_proc_t *eng_proc_grab(int pid, char *err, size_t errlen);
int eng_proc_pid(const eng_proc_t *p);
/* Let a created process run (no-op for a grabbed one); h (NULL: none)
 * says which system calls its filter traps.  0 or -1. */
int eng_proc_continue(eng_proc_t *p, eng_hdl_t *h);
/*
 * -x evaltime: where dtrace starts tracing a created process.  exec: at
 * its exec (eng_proc_continue after eng_go lets it exec).  preinit: once
 * the dynamic linker has loaded its libraries, before any initializer;
 * postinit (the default) and main: at main, every initializer run (with
 * glibc the executable's own run just before main; a program without a
 * main symbol stops at its entry point).  eng_proc_advance lets p exec
 * and run untraced to that point and holds it there (its loader's system
 * calls are not seen); eng_proc_continue lets it go on.  Call it once the
 * options are set (the kernel route holds p then, before any probe is
 * enabled: its probes count from their enabling on) and again after the
 * enablings, before eng_go (the ptrace route's helper holds p then, once
 * the system calls its filter traps are known); it does its part once.
 * A no-op for exec and for a grabbed process.  0, or -1 if p died on
 * the way (eng_proc_poll says how).
 */
int eng_proc_advance(eng_proc_t *p, eng_hdl_t *h);

enum eng_proc_state { ENG_PROC_HELD, ENG_PROC_RUNNING, ENG_PROC_EXITED,
		      ENG_PROC_KILLED, ENG_PROC_GONE };
/* Non-blocking: has it exited (its code in *status), been killed by a
 * signal (the signal in *status), or gone (grabbed: no status known)? */
enum eng_proc_state eng_proc_poll(eng_proc_t *p, int *status);
/* Let go: a created process still alive is killed (as dtrace does); a
 * grabbed one is left running.  Frees p. */
void eng_proc_release(eng_proc_t *p);

int eng_go(eng_hdl_t *h);		/* fires BEGIN */
int eng_stop(eng_hdl_t *h);		/* fires END */

enum eng_status { ENG_STATUS_NONE, ENG_STATUS_OKAY, ENG_STATUS_EXITED,
		  ENG_STATUS_FILLED, ENG_STATUS_STOPPED };
/* Poll the shim's status; reports drops/errors through the handlers. */
enum eng_status eng_status(eng_hdl_t *h);
int eng_exit_status(const eng_hdl_t *h);	/* the exit(n) value */

/*
 * Sleep until the next switchrate/aggrate/statusrate deadline, a wakeup,
 * or a principal buffer passing its high-water mark (then eng_work at
 * once switches it before it fills: see eng_wakefd).
 */
void eng_sleep(eng_hdl_t *h);
void eng_wakeup(eng_hdl_t *h);		/* async-signal-safe */
/*
 * For consumers with their own poll loop (dtui): a descriptor that becomes
 * readable when a CPU's principal buffer passed half full and eng_work
 * should run now rather than at the next tick.  eng_work clears it.  -1
 * when not tracing or not available.  Borrowed.
 */
int eng_wakefd(eng_hdl_t *h);

/*
 * Consume the principal buffers: snapshot each CPU and format every record
 * to fp as dtrace(1M) prints it.  If fp is NULL, output goes to the
 * buffered-output handler instead.  Returns 0, or -1 on a fatal error.
 */
int eng_work(eng_hdl_t *h, FILE *fp);

/* Output handler: formatted text per record, with the CPU it came from.
 * With a handler set, output for fp == NULL goes here. */
typedef struct eng_bufdata {
	const char *ebd_text;	/* formatted text of one probe firing */
	size_t ebd_len;
	int ebd_cpu;
	dtrace_id_t ebd_probe;
	dtrace_epid_t ebd_epid;
	uint64_t ebd_timestamp;
} eng_bufdata_t;
typedef void eng_buffered_f(const eng_bufdata_t *bd, void *arg);
int eng_handle_buffered(eng_hdl_t *h, eng_buffered_f *cb, void *arg);

/* Drop and error handlers: given dtrace(1M)'s message text. */
typedef struct eng_dropdata {
	dtrace_dropkind_t edd_kind;
	int edd_cpu;			/* -1 for global drops */
	uint64_t edd_drops;		/* new drops since last report */
	uint64_t edd_total;		/* total drops of this kind */
	const char *edd_msg;		/* "dtrace: 3 drops on CPU 0\n" */
} eng_dropdata_t;
typedef void eng_drop_f(const eng_dropdata_t *dd, void *arg);
int eng_handle_drop(eng_hdl_t *h, eng_drop_f *cb, void *arg);

typedef struct eng_errdata {
	dtrace_epid_t eed_epid;
	dtrace_id_t eed_probe;
	int eed_fault;			/* DTRACEFLT_* */
	uint64_t eed_addr;
	int eed_action;			/* 0 predicate, N action #N */
	uint64_t eed_offset;		/* DIF offset */
	const char *eed_msg;		/* "dtrace: error on enabled probe..." */
} eng_errdata_t;
typedef void eng_err_f(const eng_errdata_t *ed, void *arg);
int eng_handle_err(eng_hdl_t *h, eng_err_f *cb, void *arg);

/* Live per-CPU buffer state (TUI buffers pane). */
typedef struct eng_cpustat {
	int ecs_cpu;
	int ecs_policy;			/* DTRACEOPT_BUFPOLICY_* */
	uint64_t ecs_size, ecs_used;
	uint64_t ecs_records, ecs_bytes;
	uint64_t ecs_fires;		/* ECBs run (events), whether or not
					 * they wrote a record */
	uint64_t ecs_drops, ecs_aggdrops, ecs_errors;
	int ecs_filled;
	uint64_t ecs_hiwats;		/* early switches: the active buffer
					 * passed half full before a tick */
} eng_cpustat_t;
int eng_ncpus(eng_hdl_t *h);
int eng_cpustat(eng_hdl_t *h, int cpu, eng_cpustat_t *out);
/* Global counters since GO. */
int eng_globalstat(eng_hdl_t *h, dtrace_status_t *out);

/*
 * What each enabled probe clause (ECB) did since it was enabled (TUI
 * enablings pane), as the shim counts it (DTRACEIOC_ECBSTAT): runs of the
 * clause, runs its predicate ended, records or aggregation updates lost,
 * faults.  Read at every eng_work while watched (eng_ecbstat_watch) or
 * recording, so experiments hold them and a replay shows them as they
 * were at each tick.  eng_ecbstats: the ECBs as of the last eng_work
 * (the engine's own ERROR clause left out), borrowed until the next one;
 * NULL with *np = 0 before any.  Firings a provider filtered in the
 * kernel never reach the shim and are not counted.  ees_runs: where the
 * ECB's probe runs its clauses as of that tick (providers.h,
 * prov_probe_runs): ENG_RUN_KAGG aggregated by BPF in the kernel,
 * ENG_RUN_KFILTER predicates checked by BPF in the kernel, ENG_RUN_SHIM
 * every firing a record for the shim; ENG_RUN_UNKNOWN in a replay of an
 * experiment that does not hold it (written before format 1.1) or
 * without providers.  ees_pred: the clause's predicate as written
 * ("/i < 7/"), NULL if it has none; a replay gives the recorded one.
 * What a run costs in the shim is sampled (one run in 64 timed, the
 * clock's cost taken off): ees_sampns / ees_samples is its mean, in ns;
 * what BPF programs spend in the kernel is not in it (a clause counted
 * there: the shim's replay of the counts).  Both 0 when nothing was timed
 * (an experiment written before format 1.2).
 */
enum { ENG_RUN_UNKNOWN = -1, ENG_RUN_SHIM, ENG_RUN_KFILTER, ENG_RUN_KAGG };
typedef struct eng_ecbstat {
	dtrace_epid_t ees_epid;
	uint64_t ees_clause;		/* the clause's statement id: the ECBs
					 * of one clause share it */
	dtrace_probedesc_t ees_probe;	/* its probe (names empty if unknown) */
	uint64_t ees_fires, ees_predfalse, ees_drops, ees_errors;
	int ees_runs;			/* ENG_RUN_* */
	const char *ees_pred;		/* borrowed like the array */
	uint64_t ees_samples, ees_sampns;	/* runs timed and their ns */
} eng_ecbstat_t;
int eng_ecbstat_watch(eng_hdl_t *h, int on);
const eng_ecbstat_t *eng_ecbstats(eng_hdl_t *h, size_t *np);
/* 1 if clause (an eng_ecbstat_t's ees_clause) is one of prog's. */
int eng_prog_has_clause(const eng_prog_t *prog, uint64_t clause);
/* That clause's predicate as written, "/i < 7/" (blanks at
 * its ends squeezed), or NULL if it has none or is not one of prog's. */
const char *eng_prog_clause_pred(const eng_prog_t *prog, uint64_t clause);

/* ---- aggregations ----------------------------------------------------- */

/* Snapshot and merge every CPU's aggregation buffer (at aggrate). */
int eng_agg_snap(eng_hdl_t *h);
/* The aggregations keyed by stack()/ustack() in the last snapshot as
 * collapsed stacks ("frame;frame count", root first; flame graphs):
 * how many aggregations that was, or -1. */
int eng_agg_folded(eng_hdl_t *h, FILE *fp);
/* Print every aggregation not yet printed by printa, as at exit. */
int eng_agg_print(eng_hdl_t *h, FILE *fp);
/* Clear every aggregation's values (TUI "clear"). */
int eng_agg_clear(eng_hdl_t *h, const char *name);
int eng_agg_trunc(eng_hdl_t *h, const char *name, int64_t n);

/* One merged aggregation entry, for displays that draw their own. */
typedef struct eng_aggkey {
	int eak_kind;		/* 0 integer, 1 string, 2 symbolic/stack text */
	int64_t eak_int;
	const char *eak_str;	/* for kinds 1 and 2 */
} eng_aggkey_t;

typedef struct eng_aggent {
	const char *eae_name;		/* "@a" name without '@', "" for @ */
	dtrace_aggvarid_t eae_varid;
	int eae_func;			/* DTRACEAGG_* */
	int eae_nkeys;
	const eng_aggkey_t *eae_keys;
	int64_t eae_value;		/* count/sum/min/max/avg/stddev */
	/* Histograms: nbuckets values; labels by eng_agg_bucket_label. */
	int eae_nbuckets;
	const int64_t *eae_buckets;
	uint64_t eae_hist_arg;		/* lquantize/llquantize encoding */
	int64_t eae_normal;		/* normalize() factor, 1 if none */
} eng_aggent_t;
typedef int eng_agg_f(const eng_aggent_t *ent, void *arg);
/* Walk the last snapshot, sorted as printa would sort. */
int eng_agg_walk(eng_hdl_t *h, eng_agg_f *cb, void *arg);
/* The label dtrace prints for bucket i of a histogram entry. */
void eng_agg_bucket_label(const eng_aggent_t *ent, int i, char *buf,
    size_t len);

/* ---- experiments: recording and replay ---------------------------------- */

/*
 * Recording: option "record" (-x record, -x record=NAME, #pragma D option
 * record) makes an experiment directory at the first enabling (or GO):
 * NAME if it ends in ".er", else NAME.N.er (test.N.er without a name),
 * N one past the highest there; "recordnote=TEXT" writes its notes file.
 * What the session prints can then be replayed byte for byte.  A write
 * error (a full disk) stops recording, not tracing: eng_record_error()
 * then has the message (NULL while all is well).  eng_record_name: the
 * directory being written, NULL if none.  eng_record_stop: close it now.
 */
const char *eng_record_name(eng_hdl_t *h);
/* Start recording now (TUI :record), also while tracing: name as for
 * the option (NULL: test.N.er).  0, or -1 with the message. */
int eng_record_start(eng_hdl_t *h, const char *name);
const char *eng_record_error(eng_hdl_t *h);
int eng_record_stop(eng_hdl_t *h);
/* Text the front end prints between engine calls (the newline after ^C,
 * before the final aggregations): printed to fp and recorded. */
int eng_print_text(eng_hdl_t *h, FILE *fp, const char *s);

/*
 * Replay: on a fresh handle (eng_open(ENG_O_NOPROVIDERS)), open the
 * experiment at path (-1: refused, eng_errmsg names the file and
 * offset); options set afterwards override the recorded ones
 * (oformat...).  eng_replay_run prints everything the session printed to
 * fp (drops and errors through the handlers, as live); 0, or -1 if the
 * experiment is corrupt (message).  An experiment cut short (a killed
 * tracer) replays up to its last whole block, and eng_replay_warning()
 * then says where it ended (NULL otherwise).  eng_exit_status() is the
 * session's.
 */
int eng_replay_open(eng_hdl_t *h, const char *path);
int eng_replay_run(eng_hdl_t *h, FILE *fp);
/* Replay up to and including the next work tick (a time cursor's step):
 * 1 and *tp its time (ns since the experiment began), 0 at the end, -1
 * if corrupt.  Output goes to fp, or to the buffered handler if NULL.
 * eng_agg_snap() by the caller is a no-op while replaying (the snapshot
 * is the recorded one, as of the last step). */
int eng_replay_step(eng_hdl_t *h, FILE *fp, uint64_t *tp);
const char *eng_replay_warning(eng_hdl_t *h);
/* What a reader should know though the replay is whole, as of the last
 * step: records of kinds this build does not know (an experiment of a
 * newer minor format) were skipped.  NULL if nothing. */
const char *eng_replay_note(eng_hdl_t *h);
/* Follow an experiment being written (on): the end of its files is not
 * its end, and eng_replay_step returns 0 until more is written.
 * eng_replay_finished: 1 once the recording has closed it (log.xml ends
 * with </experiment>); one left by a killed tracer never is. */
int eng_replay_follow(eng_hdl_t *h, int on);
int eng_replay_finished(eng_hdl_t *h);

/* ---- version ------------------------------------------------------------- */
#define ENG_VERSION_STRING "Sun D 1.13"

#endif /* ENGINE_H */
