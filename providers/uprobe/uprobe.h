/*
 * uprobe.h - the uprobe event source: breakpoints the kernel places at
 * (file, offset) in every process that maps the file, as root or with
 * CAP_PERFMON.  The pid and usdt providers build on it.
 *
 * A caller attaches a set of sites of one file (entry probes, or return
 * probes: uretprobes) for one process or for all, and receives each hit
 * on the perf drain thread (probe context, see perf.c) as a perf sample
 * with the firing thread's user registers (pps_uregs, perf's order;
 * prov_perf_ctx puts them in uregs[] order), call chains when asked, and
 * the site's cookie.  A site may name a USDT semaphore (reference
 * counter): the kernel increments it in every process while the site is
 * attached and decrements it when it is detached.  Sites at instructions
 * uprobes cannot probe (lock-prefixed ones, others the kernel refuses)
 * are left out of an attachment and counted (prov_uprobe_refused).
 *
 * Errors: NULL or -1 with ks_provider_error's message.  Not from probe
 * context; attach and detach may be called from any other thread.
 */
#ifndef PROV_UPROBE_H
#define PROV_UPROBE_H

#include <stdint.h>
#include "prov_impl.h"

typedef struct prov_uprobe prov_uprobe_t;

/*
 * Where an argument's value is at a hit, for the multi route to copy the
 * user memory it points to at the event (copyinstr(arg1) of a process
 * that has exited by the time the hit is read): up to PROV_UCAP_BYTES
 * there, or the string there when fewer bytes can be read, served to
 * copyin/copyinstr with the hit (prov_uprobe_ctx).  The layout is the
 * BPF program's (uprobe_kern.c), 8 bytes.
 */
enum { PROV_UCAP_NONE, PROV_UCAP_REG, PROV_UCAP_MEM };
typedef struct prov_uprobe_cap {
	uint8_t puc_kind;	/* PROV_UCAP_*: the register's value, or the
				 * 8 bytes at the register + puc_disp */
	uint8_t puc_reg;	/* PROV_UREG_* */
	uint16_t puc_pad;
	int32_t puc_disp;
} prov_uprobe_cap_t;
#define PROV_UPROBE_NCAP	6	/* per site, packed from the first */
#define PROV_UCAP_BYTES		256	/* per capture */

typedef struct prov_uprobe_site {
	uint64_t pus_offset;	/* file offset of the probed instruction */
	uint64_t pus_refctr;	/* file offset of its semaphore (USDT), or 0 */
	uint64_t pus_cookie;	/* the caller's, handed back with each hit */
	uint32_t pus_probe;	/* the probe each hit fires exactly once, for
				 * its predicates and aggregations in the
				 * kernel (multi route); 0: unknown */
	int pus_regargs;	/* PROV_UPROBE_ARGS_*: which arguments its
				 * probe takes from which registers */
	prov_uprobe_cap_t pus_caps[PROV_UPROBE_NCAP];	/* memory to copy at
				 * each hit (multi route; zero: none) */
	/* PROV_UPROBE_ARGS_REGS: argN is the low pus_argsize[N] bytes of
	 * register pus_argreg[N] (PROV_UREG_*; -1: not in a register),
	 * signed when pus_argsigned[N]; the same in every site of a probe
	 * (the first one's are used) */
	int8_t pus_argreg[DTRACE_MAXARGS];
	uint8_t pus_argsize[DTRACE_MAXARGS];
	uint8_t pus_argsigned[DTRACE_MAXARGS];
} prov_uprobe_site_t;

/* pus_regargs: none known; arg0..arg5 the calling convention's registers
 * (a pid entry or instruction probe); arg1 the return value (a pid
 * return probe, arg0 its site's offset); as pus_argreg says (a usdt
 * probe's register operands) */
enum { PROV_UPROBE_ARGS_NONE, PROV_UPROBE_ARGS_ENTRY,
	PROV_UPROBE_ARGS_RETURN, PROV_UPROBE_ARGS_REGS };

/* A hit of the site whose cookie is cookie.  s->pps_ip is the probed
 * instruction (entry) or the return address (return probes);
 * prov_uprobe_probed(s) the probed address when the route knows it. */
typedef void prov_uprobe_cb_t(void *arg, uint64_t cookie,
    const prov_perf_sample_t *s);

/* What attach needs from the caller beyond the sites. */
#define PROV_UPROBE_RETURN	0x100	/* uretprobes: fire on return */

/* The arguments of probe id whose user memory its ECBs read (copyin,
 * copyinstr): bit N for argN (KS_WANT_UARG(N) >> 16), for the caller's
 * pus_caps. */
unsigned prov_uprobe_capargs(dtrace_id_t id);

/*
 * Can uprobes be attached here (the uprobe PMU exists and we may open
 * perf events system-wide)?  1 or 0; when 0, why is in ks_provider_error.
 */
int prov_uprobe_available(void);

/*
 * Attach nsites probes in file path (an absolute path as /proc/PID/maps
 * shows it; the kernel resolves it to its inode).  pid > 0: only that
 * process's hits are delivered (the breakpoints exist in every process
 * mapping the file; others' hits are dropped before the callback); pid <=
 * 0: every process's.  flags: PROV_SAMPLE_* bits (what the hits carry
 * besides user registers, which they always carry) and
 * PROV_UPROBE_RETURN.  Every site is attached but those uprobes cannot
 * probe (see above; there may be none left), or none is (NULL).
 */
prov_uprobe_t *prov_uprobe_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg);

/* After a set of attachments (an ENABLE's pid probes, the usdt probes
 * placed at GO): bring every attachment's predicates and aggregations in
 * the kernel up to the shim's plans again.  Thread-locals go to the
 * kernel only when every probe of their clauses is placed (each
 * attachment's own slots saw the others not yet there: an entry probe
 * left storing self-> in the shim while its return read the kernel's). */
void prov_uprobe_settle(void);

/* How many of u's sites were left out: instructions uprobes cannot
 * probe.  The caller says so (prov_note), in its provider's words. */
int prov_uprobe_refused(const prov_uprobe_t *u);

/* Detach and free: hits after this returns are not delivered (one the
 * drain thread is delivering may finish), and the semaphores its sites
 * held are decremented. */
void prov_uprobe_detach(prov_uprobe_t *u);
/* The route of the last attachment ("uprobe_multi", or "perf": one
 * uprobe event per site; NULL before any), the hits delivered since
 * the start and the drain thread's time spent delivering them (ns, from
 * the record to the end of the caller's callback: the tracer's cost per
 * hit).  Any thread. */
const char *prov_uprobe_stats(uint64_t *hits, uint64_t *ns);
/* Close the output events (prov_shutdown, before perf's). */
void prov_uprobe_shutdown(void);

/*
 * Fill ctx from a hit as prov_perf_ctx does, and when the hit carries
 * user stack bytes (PROV_SAMPLE_USTACK), offer them to copyin() as
 * memory captured at the event (valid until the next call; drain thread
 * only).
 */
void prov_uprobe_ctx(ks_probe_ctx_t *ctx, dtrace_id_t id,
    const prov_perf_sample_t *s);

/* A hit's registers: prov_perf_ureg(s, PROV_UREG_*) (prov_impl.h). */

/* The probed address of a hit (for a return probe: the function's, where
 * pps_ip is the return address), or 0 if unknown.  Only for the sample
 * given to a prov_uprobe_cb_t. */
uint64_t prov_uprobe_probed(const prov_perf_sample_t *s);

/* Read len bytes of the firing process at addr into buf: from the
 * captured stack bytes when they hold the range, else live from the
 * process (it may have moved on).  0 or -1. */
int prov_uprobe_read(const prov_perf_sample_t *s, uint64_t addr, void *buf,
    uint32_t len);

/*
 * The ptrace route (providers/ptrace/ptrace_up.c): without privileges,
 * or when -x uroute=ptrace asks for it, attachments are int3
 * breakpoints planted by the ptrace helper, in processes it traces
 * (-c, -p) only.  prov_uprobe_attach() and the functions above use it
 * when prov_ptup_route() says so; its hits come on ptrace.c's reader
 * thread, as samples prov_ptup_owns() knows.
 */
typedef struct prov_ptup prov_ptup_t;

int prov_ptup_route(void);
/* As prov_uprobe_stats: "ptrace" once an attachment was made; the hits
 * and the ptrace helper's time spent on them (the firing included) */
const char *prov_ptup_stats(uint64_t *hits, uint64_t *ns);
prov_ptup_t *prov_ptup_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg);
void prov_ptup_detach(prov_ptup_t *u);
int prov_ptup_owns(const prov_perf_sample_t *s);
void prov_ptup_ctx(ks_probe_ctx_t *ctx, dtrace_id_t id,
    const prov_perf_sample_t *s);

#endif /* PROV_UPROBE_H */
