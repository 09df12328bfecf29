/*
 * bpf_filter.h - predicates filtered in the kernel, in front of the BPF
 * programs of bpf.c (see bpf_filter.c).
 */
#ifndef PROV_BPF_FILTER_H
#define PROV_BPF_FILTER_H

#include <stdint.h>
#include <linux/bpf.h>
#include "ks_filter.h"
#include "prov_impl.h"

/* Where argN lives in the tracepoint record, for the filter: offset (-1:
 * unknown, the comparison is dropped), size 1/2/4/8, signedness, as
 * prov_tracefs_int reads it.  pba_signed PROV_BPF_ERRRET (size 8): a
 * system call's return value, which the syscall provider hands to D as
 * -1 when it is -errno (-4095..-1); the filter compares it the same way. */
#define PROV_BPF_ERRRET 2
typedef struct prov_bpf_argmap {
	int16_t pba_off[DTRACE_MAXARGS];
	uint8_t pba_size[DTRACE_MAXARGS];
	uint8_t pba_signed[DTRACE_MAXARGS];
	uint8_t pba_ustr;		/* N + 1: the slot's record body
					 * captures argN's string and its
					 * firings serve it (kpc_ucap); 0:
					 * none */
	/* argN is a string in the record, served as provider memory
	 * (kpc_kmem, as prov_tp_args does): PROV_BPF_KSTR_* (0: not a
	 * string), the field's offset and (char[N]) size */
	uint8_t pba_skind[DTRACE_MAXARGS];
	int16_t pba_soff[DTRACE_MAXARGS];
	uint16_t pba_slen[DTRACE_MAXARGS];
} prov_bpf_argmap_t;

enum { PROV_BPF_KSTR_ARRAY = 1, PROV_BPF_KSTR_DATALOC, PROV_BPF_KSTR_RELLOC };

/* r1 = argument i of am as its 64-bit D value, loaded from the record
 * at r6: sign-extended when signed and narrower than 8 bytes, a system
 * call's -errno return (PROV_BPF_ERRRET) as -1.  Writes at most
 * PROV_BPF_ARGINSNS instructions at p, returns how many (bpf_util.c;
 * the filters' comparisons and the aggregations' keys share it). */
#define PROV_BPF_ARGINSNS 4
int prov_bpf_emit_arg(struct bpf_insn *p, const prov_bpf_argmap_t *am,
    int i);

#define PROV_BPF_FMAX 1024		/* instructions of a filter */
#define PROV_BPF_COMM_AT (-504)		/* fp offset of the comm scratch */

/* Emit the filter prologue (r6 = r1, then return 0 unless f holds) into
 * p (room for PROV_BPF_FMAX), using only the variables in vars and the
 * arguments am maps (am may be NULL).  Returns the instruction count, 0
 * when nothing can be filtered (f always true, or a term with no
 * comparison the program can make). */
int prov_bpf_filter_emit(struct bpf_insn *p, const ks_filter_t *f,
    unsigned vars, const prov_bpf_argmap_t *am);

/* bpf_fgen.c, for bpf_filter.c: can the program compute atom a's value
 * as the provider does (vars, am as above)?  Does every term of f keep
 * at least one comparison the program can make? */
int prov_bpf_atom_ok(const ks_filter_atom_t *a, unsigned vars,
    const prov_bpf_argmap_t *am);
int prov_bpf_filterable(const ks_filter_t *f, unsigned vars,
    const prov_bpf_argmap_t *am);

/* The argument map of format fields from index first (common fields
 * skipped), as prov_tp_args numbers them; only integer fields inside the
 * first reclen bytes (what the provider's record holds) are mapped. */
void prov_bpf_argmap_fmt(prov_bpf_argmap_t *am, const prov_tf_format_t *fmt,
    int first, uint32_t reclen);

/* bpf.c's loader: load body (n instructions, slot's tag in it) behind a
 * tail-call stub attached to tracepoint tpid; the attachment event fd, or
 * -1 (the caller loads it the plain way).  prov_bpf_funload: the slot's
 * attachment is gone. */
int prov_bpf_fload(const struct bpf_insn *body, int n, int tpid, int slot);
void prov_bpf_funload(int slot);
/* The same for a uprobe_multi attachment's PROG_ARRAY (uprobe.c): the
 * slot's program is a kprobe-type program for uprobe_multi links (its
 * context the probed registers).  Slots from PROV_BPF_USLOT0 on are the
 * uprobes' own (bpf.c gives those below it). */
#define PROV_BPF_USLOT0 4096
#define PROV_BPF_USLOTS 4096
int prov_bpf_fload_uprobe(const struct bpf_insn *body, int n, int map,
    int key, int slot);
/* Slot's stub, released by prov_bpf_funload but still attached, runs
 * body (n instructions, the slot's new tag in it) again: 0 or -1. */
int prov_bpf_frevive(const struct bpf_insn *body, int n, int slot);
/* The same without a stub: slot's program goes into entry key of the
 * caller's PROG_ARRAY map (which the caller's own program tail-calls);
 * prov_bpf_funload deletes that entry.  0 or -1. */
int prov_bpf_fload_at(const struct bpf_insn *body, int n, int map, int key,
    int slot);

/* Variables a provider's firings take from the task the event runs in
 * (the BPF helpers' answers), as bits (1 << KS_FV_*) for vars below.
 * Comparisons of other variables are dropped from the filter. */
#define PROV_FV(v) (1u << (v))
#define PROV_FV_TASK (PROV_FV(KS_FV_PID) | PROV_FV(KS_FV_TID) | \
	PROV_FV(KS_FV_CPU) | PROV_FV(KS_FV_UID) | PROV_FV(KS_FV_GID) | \
	PROV_FV(KS_FV_EXECNAME))
#define PROV_FV_ALL (PROV_FV_TASK | PROV_FV(KS_FV_ARG))
/* Also in vars: every hit the attachment's program sees fires its probe
 * exactly once, with those variables as the program reads them, so the
 * hits may be counted in the kernel instead (bpf_agg.c) when the shim's
 * ks_probe_aggplan allows it.  Providers that skip or reshape some
 * firings in user space must not say so. */
#define PROV_FV_ONE (1u << 30)
/* Also in vars: a firing a plan cannot count because its map is full
 * goes to the slot's record body instead of being dropped (bpf_agg.c),
 * so plans keyed on values that are often all distinct (a user
 * function's arguments) stay exact; not for plans with kernel clauses,
 * whose self-> stores already ran in the kernel. */
#define PROV_FV_SPILL (1u << 29)

/* Attachment att delivers the firings of probe id only (DTRACE_IDNONE:
 * of several probes or unknown: no filter); vars: what its firings take
 * from the task (PROV_FV_*) and, with PROV_FV(KS_FV_ARG), am its argument
 * map.  Installs the probe's current filter and follows its changes. */
void prov_bpf_filter_probe(int att, dtrace_id_t id, unsigned vars,
    const prov_bpf_argmap_t *am);

/* tp.c: the subscriber (fn, arg) of sys:event fills vars (PROV_FV_*) from
 * the task and its arguments as am says (NULL: none); a tracepoint whose
 * subscribers all said so (this or prov_tp_filter_fp) filters for the OR
 * of their probes.  A subscriber that never calls either keeps its
 * tracepoint unfiltered. */
void prov_tp_filter(const char *sys, const char *event, prov_tp_fire_t *fn,
    void *arg, unsigned vars, const prov_bpf_argmap_t *am);

/*
 * Several probes on one attachment (a shared tracepoint: sched:::on-cpu
 * and off-cpu on sched_switch), each reading the event its own way:
 * pbp_vars are the variables it takes from the task the event runs in
 * (PROV_FV_*; with PROV_FV(KS_FV_ARG), pbp_am maps its arguments);
 * pbp_tid_off > 0: its tid is that 4-byte signed record field instead
 * (on-cpu: next_pid); pbp_comm_off > 0: its execname is that char[16]
 * record field (on-cpu: next_comm; 8-byte aligned, below 256, else not
 * filtered); pbp_idle: its execname reads "sched" for thread 0, so
 * execname == "sched" and execname != "swapper..." are not filtered.
 */
typedef struct prov_bpf_fprobe {
	dtrace_id_t pbp_id;
	unsigned pbp_vars;
	int pbp_hasam;
	prov_bpf_argmap_t pbp_am;
	int16_t pbp_tid_off, pbp_comm_off;
	uint8_t pbp_idle;
} prov_bpf_fprobe_t;

#define PROV_BPF_MAXFP 8

/* Attachment att feeds the n probes p[] (at most PROV_BPF_MAXFP; n == 0:
 * no filter): its filter is the OR of each probe's filter read the way
 * that probe reads the event, and follows their changes. */
void prov_bpf_filter_probes(int att, const prov_bpf_fprobe_t *p, int n);

/* The merge behind it (bpf_fmerge.c; pure, for tests): filters f[i] of
 * probes p[i] into out, with the variables of the task (PROV_FV_ALL) and
 * the arguments of am (argument slots are record fields here, shared by
 * the probes).  An execname atom of out with kfa_arg != 0 reads the name
 * from the record at offset kfa_arg (the shim's atoms have 0 there).
 * Returns 0, or -1 when the result is "always" (no filtering). */
int prov_bpf_filter_merge(const prov_bpf_fprobe_t *p, const ks_filter_t *f,
    int n, ks_filter_t *out, prov_bpf_argmap_t *am);

/* tp.c: the same, for a subscriber whose firings read the event as fp
 * says (fp->pbp_id is ignored: the subscriber's probe is used); shared
 * tracepoints filter for the OR of their subscribers' probes when every
 * subscriber has said how it reads the event. */
void prov_tp_filter_fp(const char *sys, const char *event,
    prov_tp_fire_t *fn, void *arg, const prov_bpf_fprobe_t *fp);

/* tp.c: the BPF attachment of tracepoint sys:event, -1 if none (tests:
 * see prov_bpf_filter_prog). */
int prov_tp_attachment(const char *sys, const char *event);

/* bpf.c's slots (tests): give at most n (0: all, 4096) from now on, so
 * that freed ones are reused sooner; how many times a freed one was
 * given again so far. */
void prov_bpf_set_maxslots(int n);
uint64_t prov_bpf_slots_reused(void);

/* The instructions currently installed for slot (tests); count or -1.
 * A slot held during an ENABLE (bpf_filter.c) shows its do-nothing
 * program: r0 = 1; exit. */
int prov_bpf_filter_prog(int slot, struct bpf_insn *out, int max);
/* The plan (bpf_agg.c) whose aggregating body slot runs, or -1 when it
 * delivers records; the slot filtering for probe id, or -1 (tests). */
int prov_bpf_filter_agg(int slot);
int prov_bpf_filter_find(dtrace_id_t id);
/* Bring every slot up to its probe's filter and plan now, as after a
 * change of the shim's ECBs (tests that change the plan hook). */
void prov_bpf_filter_update(void);
/* Tests: fn gives every probe's filter instead of the shim (NULL: the
 * shim again); prov_bpf_filter_update() installs what it says. */
void prov_bpf_filter_set_hook(int (*fn)(dtrace_id_t id, ks_filter_t *out));

#endif /* PROV_BPF_FILTER_H */
