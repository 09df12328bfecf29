/*
 * umulti.h - uprobes through BPF uprobe_multi links (Linux 6.6+): many
 * sites of one file for one process in one bpf(2) call, breakpoints
 * written only into that process (the kernel filters by pid when it
 * installs them), the hit's whole struct pt_regs copied by a small BPF
 * program into the perf rings.  The pid provider uses it before the
 * perf uprobe PMU (uprobe.c), whose events are system-wide: their
 * breakpoints go into every process mapping the file, which for libc
 * means every process on the machine and minutes for a few thousand
 * probes.
 *
 * Errors: NULL with ks_provider_error's message.  Not from probe context.
 */
#ifndef PROV_UMULTI_H
#define PROV_UMULTI_H

#include <stdint.h>
#include "prov_impl.h"
#include "uprobe.h"

typedef struct prov_umulti prov_umulti_t;

/* A hit of the site whose cookie is cookie: s carries cpu, pid, tid,
 * time and (PROV_SAMPLE_CHAIN) the call chain; regs the firing thread's
 * registers in uregs[] order (PROV_UREG_*, PROV_UREG_COUNT of them); ip
 * the probed address (for a return probe: the function's, while regs'
 * rip is the return address). */
typedef void prov_umulti_cb_t(void *arg, uint64_t cookie,
    const prov_perf_sample_t *s, const uint64_t *regs, uint64_t ip);

/* 1 if uprobe_multi links work here, else 0 (reason in
 * ks_provider_error). */
int prov_umulti_available(void);

/* Attach nsites sites of path (file offsets; pus_refctr must be 0) for
 * process pid (> 0); flags: PROV_SAMPLE_CHAIN, PROV_UPROBE_RETURN. */
prov_umulti_t *prov_umulti_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_umulti_cb_t *cb, void *arg);

/* Detach and free: no callback runs for u after this returns. */
void prov_umulti_detach(prov_umulti_t *u);

#endif /* PROV_UMULTI_H */
