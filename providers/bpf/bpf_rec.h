/*
 * bpf_rec.h - records built in the kernel (see bpf_rec.c).
 */
#ifndef PROV_BPF_REC_H
#define PROV_BPF_REC_H

#include <stdint.h>
#include <linux/bpf.h>
#include "ks_krec.h"
#include "bpf_filter.h"

/* Instructions of a record body at most (zeroing, values, output). */
#define PROV_BPF_RECMAX 512

/* The shim's record plan of probe id, if a slot whose firings take vars
 * (PROV_FV_*, with PROV_FV_ONE) and arguments as am maps (NULL: none)
 * can build it behind filter f (NULL: none): 1 with *rp set, else 0. */
int prov_bpf_rec_plan(dtrace_id_t id, unsigned vars,
    const prov_bpf_argmap_t *am, const ks_filter_t *f, ks_recplan_t *rp);

/* The record body of plan rp for probe id into p (room for
 * PROV_BPF_RECMAX), writing to the output map and with the tag that the
 * slot's own record body (body, n instructions) uses.  Its length, or 0
 * (no plan id left, a body whose tag or map is not found). */
int prov_bpf_rec_body(struct bpf_insn *p, const ks_recplan_t *rp,
    dtrace_id_t id, const struct bpf_insn *body, int n,
    const prov_bpf_argmap_t *am);

/* bpf.c's drain: the 16 bytes after a record's tag (where other records
 * keep the comm) say a record body wrote it: 1 and the record (raw,
 * len) committed to the shim for cpu; else 0. */
int prov_bpf_rec_deliver(const void *mark, const void *raw, uint32_t len,
    unsigned cpu);

/* Shutdown: with DTUI_REC_KERNEL=2, say on stderr how many records
 * were built in the kernel (tests). */
void prov_bpf_rec_report(void);

#endif /* PROV_BPF_REC_H */
