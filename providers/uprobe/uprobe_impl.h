/*
 * uprobe_impl.h - what uprobe.c shares with uprobe_kern.c: the BPF side
 * of a multi attachment whose probes have predicates or aggregations
 * checked in the kernel.
 */
#ifndef PROV_UPROBE_IMPL_H
#define PROV_UPROBE_IMPL_H

#include <stdint.h>
#include <linux/bpf.h>
#include "uprobe.h"

#define UK_NOPROBE 0xffffffffu	/* a cookie's probe index: none */
#define UK_MAXINSNS 40		/* instructions of a stub */
#define UK_RECMAX 280		/* instructions of a record body (the
				 * capturing one, uprobe_cap.c) */

/* A multi attachment's probes in the kernel: bpf_filter.c slots (each
 * its probe's predicate in front of its aggregating or record body) in a
 * PROG_ARRAY the attachment's program tail-calls by probe index. */
typedef struct ukern {
	int uk_map;			/* the PROG_ARRAY, -1: none */
	int uk_n;			/* probes (entries) */
	int *uk_slots;			/* their slots */
	int uk_spec, uk_scratch;	/* uprobe_cap.c's maps, -1: none */
} ukern_t;

/*
 * Set k up for the n sites (one attachment): each distinct pus_probe (at
 * most UK_MAXPROBES of them, else none is filtered) gets an entry whose
 * program records to output map outmap with tag (ukern_record) behind
 * its probe's filter and plan, which bpf_filter.c follows from now on.
 * bpfc[i] gets site i's BPF cookie: probe index << 32 | i (UK_NOPROBE:
 * not filtered).  0 (k->uk_map -1 when nothing is filtered), -1 with
 * errno.
 */
#define UK_MAXPROBES 64
int ukern_new(ukern_t *k, const prov_uprobe_site_t *sites, int n,
    int outmap, uint64_t tag, uint64_t *bpfc);
/* Take the entries out and free k (after the links are closed). */
void ukern_free(ukern_t *k);

/* The attachment's program (room for UK_MAXINSNS + UK_RECMAX): with k's
 * map, tail-call the entry of the cookie's probe index, then (no entry,
 * or none) record as ukern_record does.  The count. */
int ukern_stub(struct bpf_insn *p, const ukern_t *k, int outmap,
    uint64_t tag);
/* r6 = ctx; emit {tag, get_attach_cookie(), get_func_ip()} (24 bytes)
 * to outmap, or with k's capture maps ucap_record's record; return 0.
 * The count (at most UK_RECMAX). */
int ukern_record(struct bpf_insn *p, const ukern_t *k, int outmap,
    uint64_t tag);

/* uprobe_cap.c: user memory copied at the event.  ucap_maps makes k's
 * uk_spec and uk_scratch (-1 both when no site captures anything): 0, or
 * -1 (none made).  ucap_free closes them.  ucap_record emits the
 * capturing record program (at most UK_RECMAX instructions).  ucap_parse
 * reads the captures of a record whose RAW data from the probed address
 * on is raw (len bytes) into out (PROV_UPROBE_NCAP entries, pointing into
 * raw): their count (0: none, or not such a record). */
int ucap_maps(ukern_t *k, const prov_uprobe_site_t *sites, int n);
void ucap_free(ukern_t *k);
int ucap_record(struct bpf_insn *p, const ukern_t *k, int outmap,
    uint64_t tag);
int ucap_parse(const uint8_t *raw, uint32_t len, ks_ucapture_t *out);

#endif /* PROV_UPROBE_IMPL_H */
