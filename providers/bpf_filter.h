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
 * prov_tracefs_int reads it. */
typedef struct prov_bpf_argmap {
	int16_t pba_off[DTRACE_MAXARGS];
	uint8_t pba_size[DTRACE_MAXARGS];
	uint8_t pba_signed[DTRACE_MAXARGS];
} prov_bpf_argmap_t;

#define PROV_BPF_FMAX 1024		/* instructions of a filter */
#define PROV_BPF_COMM_AT (-504)		/* fp offset of the comm scratch */

/* Emit the filter prologue (r6 = r1, then return 0 unless f holds) into
 * p (room for PROV_BPF_FMAX), using only the variables in vars and the
 * arguments am maps (am may be NULL).  Returns the instruction count, 0
 * when nothing can be filtered (f always true, or a term with no
 * comparison the program can make). */
int prov_bpf_filter_emit(struct bpf_insn *p, const ks_filter_t *f,
    unsigned vars, const prov_bpf_argmap_t *am);

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

/* Variables a provider's firings take from the task the event runs in
 * (the BPF helpers' answers), as bits (1 << KS_FV_*) for vars below.
 * Comparisons of other variables are dropped from the filter. */
#define PROV_FV(v) (1u << (v))
#define PROV_FV_TASK (PROV_FV(KS_FV_PID) | PROV_FV(KS_FV_TID) | \
	PROV_FV(KS_FV_CPU) | PROV_FV(KS_FV_UID) | PROV_FV(KS_FV_GID) | \
	PROV_FV(KS_FV_EXECNAME))
#define PROV_FV_ALL (PROV_FV_TASK | PROV_FV(KS_FV_ARG))

/* Attachment att delivers the firings of probe id only (DTRACE_IDNONE:
 * of several probes or unknown: no filter); vars: what its firings take
 * from the task (PROV_FV_*) and, with PROV_FV(KS_FV_ARG), am its argument
 * map.  Installs the probe's current filter and follows its changes. */
void prov_bpf_filter_probe(int att, dtrace_id_t id, unsigned vars,
    const prov_bpf_argmap_t *am);

/* tp.c: the subscriber (fn, arg) of sys:event fills vars (PROV_FV_*) from
 * the task and its arguments as am says (NULL: none); a tracepoint with
 * one subscriber that said so filters for its probe.  Subscribers that
 * never call this are never filtered. */
void prov_tp_filter(const char *sys, const char *event, prov_tp_fire_t *fn,
    void *arg, unsigned vars, const prov_bpf_argmap_t *am);

/* The instructions currently installed for slot (tests); count or -1. */
int prov_bpf_filter_prog(int slot, struct bpf_insn *out, int max);

#endif /* PROV_BPF_FILTER_H */
