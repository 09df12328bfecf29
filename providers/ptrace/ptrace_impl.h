/*
 * ptrace_impl.h - what the two halves of the ptrace route share (see
 * ptrace.c): the message the helper process writes per stop, the page
 * both processes see, and the helper's entry point (ptrace_helper.c).
 */
#ifndef PROV_PTRACE_IMPL_H
#define PROV_PTRACE_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PT_NSYS 512
#if defined(__x86_64__)
#define PT_NREGS 21			/* user_regs_struct up to ss: the
					 * R_* (pt_regs) order of uregs[] */
#else
#define PT_NREGS 1
#endif

enum { PM_ENTRY, PM_RETURN, PM_CREATE, PM_LWP_CREATE, PM_EXEC_SUCCESS,
	PM_EXIT, PM_LWP_EXIT, PM_NKINDS, PM_NOTE = PM_NKINDS,
	PM_BREAK,			/* a breakpoint site hit: pm_nr is
					 * its slot, pm_args[0] its address */
	PM_BRET };			/* a return through the trampoline:
					 * pm_nr the return site's slot,
					 * pm_args[0] the function, [1] the
					 * return address */

typedef struct prov_ptmsg {
	uint32_t pm_kind, pm_cpu;
	int32_t pm_pid, pm_tid, pm_ppid;
	uint32_t pm_nr;
	uint64_t pm_time;
	uint64_t pm_args[6];
	int64_t pm_ret;
	char pm_comm[16];
	uint32_t pm_sync;		/* the helper waits for an ack */
	uint64_t pm_saddr;		/* captured string: its address */
	uint32_t pm_slen;		/* and length incl. NUL (0: none) */
	char pm_str[256];
	uint64_t pm_vtime;		/* thread CPU ns at the stop */
	uint32_t pm_nregs;		/* user registers at the stop, */
	uint64_t pm_regs[PT_NREGS];	/* uregs[] order (0: none) */
} prov_ptmsg_t;

typedef struct prov_ptshared {
	uint8_t sh_entry[PT_NSYS], sh_return[PT_NSYS];
	uint8_t sh_proc[PM_NKINDS];
	uint32_t sh_nsys;		/* enabled syscall probes */
	uint64_t sh_sent;		/* messages the helper wrote */
	uint32_t sh_attached;		/* attach requests handled */
	uint8_t sh_filt[PT_NSYS];		/* calls a seccomp filter traps */
	uint32_t sh_passive;		/* the helper stays after release */
	uint8_t sh_vtime;		/* send CPU time (vtimestamp) */
	uint8_t sh_uregs;		/* send user registers (uregs[]) */
	int32_t sh_atterr;		/* last attach: 0, or errno (set
					 * before sh_attached counts it) */
	uint32_t sh_synced;		/* breakpoint syncs done (helper) */
	uint64_t sh_bphits, sh_bpns;	/* helper, atomic: breakpoint hits,
					 * and ns it spent on them */
	/* -x evaltime (prov_target_evalhold): the -c child sh_evpid is held
	 * untraced from its exec until its sh_evhits-th pass through the
	 * instruction at file offset sh_evfoff of object (sh_evdev,
	 * sh_evino); then the helper sets sh_evheld to its pid (-1: the
	 * point could not be planted, it runs on traced) and keeps it
	 * stopped there until PT_CMD_EVALGO.  Consumer writes the first
	 * five before the child's exec. */
	int32_t sh_evpid, sh_evheld;
	uint32_t sh_evhits;
	uint64_t sh_evdev, sh_evino, sh_evfoff;
} prov_ptshared_t;

/*
 * Breakpoint sites of the pid and usdt providers' ptrace route
 * (ptrace_up.c writes them, ptrace_bp.c in the helper plants them), in a
 * second shared mapping: one slot per site of an attachment; two slots
 * may name the same instruction (an entry and a return probe).  The
 * consumer fills a slot with ps_want 0, then sets ps_want and sends
 * PT_CMD_SYNC; clearing ps_want and a sync removes it.  The helper owns
 * ps_addr and ps_semaddr; a slot is free again once ps_want and both of
 * those are 0 (read atomically).
 */
#define PT_NSITES 16384
enum { PS_ENTRY = 1, PS_RETURN = 2, PS_RBRK = 4 };	/* PS_RBRK: the
					 * dynamic linker's, see ptrace_bp.c */

typedef struct prov_ptsite {
	uint32_t ps_want;		/* consumer: PS_* bits, 0 none */
	int32_t ps_pid;			/* consumer: the process */
	uint64_t ps_dev, ps_ino;	/* consumer: the object (dev as
					 * major << 32 | minor) */
	uint64_t ps_foff;		/* consumer: instruction's offset */
	uint64_t ps_refoff;		/* consumer: semaphore's, 0 none */
	uint64_t ps_addr;		/* helper: planted there, 0 not */
	uint64_t ps_semaddr;		/* helper: semaphore raised there */
	int32_t ps_next;		/* helper: hash chain, -1 end */
	uint8_t ps_orig;		/* helper: the byte under the int3 */
} prov_ptsite_t;

/* On the command pipe instead of a pid: syscall probes were just
 * enabled (none were): stop every tracee once, so that one resumed with
 * PTRACE_CONT before is resumed with PTRACE_SYSCALL. */
#define PT_CMD_RESTOP (-1)
/* Breakpoint sites changed: plant and remove as the table says, then
 * count sh_synced. */
#define PT_CMD_SYNC (-2)
/* Or'ed into a pid to attach: the consumer's own -c child, held before
 * its exec (prov_target_add_held): its calls until then are not traced. */
#define PT_HELD 0x40000000
/* The evaltime hold is over (sh_evheld): resume the held thread. */
#define PT_CMD_EVALGO (-3)

/* Fork the helper over page sh, with its ends of the pipes: cmd (pids to
 * attach, or PT_CMD_RESTOP; EOF: release), ev (messages out), ack (one
 * byte per pm_sync message).  Returns the helper's pid here (-1: fork failed); in the
 * helper it never returns. */
pid_t prov_pt_helper_fork(prov_ptshared_t *sh, prov_ptsite_t *sites,
    int cmd, int ev, int ack);

/* ---- inside the helper process: ptrace_helper.c and ptrace_bp.c ---- */

#define PT_NRETS 32			/* return probes pending per thread */

typedef struct tinfo {			/* helper side */
	int32_t ti_tid, ti_pid, ti_ppid;
	uint32_t ti_nr;			/* syscall in progress */
	uint8_t ti_filt;		/* under our seccomp filter */
	uint8_t ti_inent;		/* in a syscall-entry stop's call */
	uint8_t ti_keep;		/* passive: 0 unknown, 1 keep, 2 let go */
	uint8_t ti_held;		/* new task stopped, not yet resumed:
					 * its creator's event is to come */
	uint64_t ti_hns;		/* when it was held (monotonic ns) */
	uint8_t ti_prexec;		/* dtrace's -c child before its exec */
	int32_t ti_sbase;		/* Seccomp_filters when attached */
	char ti_comm[16];
	/* breakpoints (ptrace_bp.c) */
	uint8_t ti_parked;		/* kept stopped while a thread of its
					 * process steps over a breakpoint */
	uint8_t ti_pendint;		/* interrupted to be parked */
	int ti_sig;			/* signal held back while parked or
					 * stepping */
	uint64_t ti_step;		/* stepping over the int3 there */
	uint64_t ti_needstep;		/* parked, to step over this one */
	uint8_t ti_evheld;		/* stopped at the evaltime point */
	uint32_t ti_nrets;		/* return addresses replaced: */
	struct {
		uint64_t r_ret, r_sp, r_fn;	/* the original, where it
					 * was on the stack, the function */
	} ti_rets[PT_NRETS];
} tinfo_t;

#define MAXT 4096			/* threads the helper tracks */
#define TI_GONE (-1)			/* ti_tid of a freed tinfo entry */

/*
 * The helper process's state: one instance, passed to the functions of
 * both files.  The helper is one thread in a process of its own (forked
 * by prov_pt_helper_fork), so nothing here needs a lock; the pages shared
 * with the consumer (sh, sites) say how their fields are used.
 */
typedef struct helper_state {
	prov_ptshared_t *sh;		/* the page shared with the consumer */
	prov_ptsite_t *sites;		/* the breakpoint sites (shared) */
	int evfd, ackfd;		/* messages out, acknowledgements in */
	tinfo_t tinfo[MAXT];		/* the threads it traces */
	tinfo_t tscratch;		/* tget's entry when tinfo is full */
	uint64_t nstops;		/* wait stops handled */
	int nheld;			/* tasks with ti_held set */
	uint64_t nholds, nunheard;	/* tasks held; let go without event */
} helper_state_t;

/* ptrace_helper.c, for ptrace_bp.c */
tinfo_t *pt_tget(helper_state_t *hp, int32_t tid, int create);
void pt_send(helper_state_t *hp, prov_ptmsg_t *m, const tinfo_t *t,
    uint32_t kind);
void pt_resume(helper_state_t *hp, tinfo_t *t, int sig);

/* ptrace.c, for ptrace_up.c: the slots, and a sync with the helper
 * (0, or -1 if it did not answer) */
prov_ptsite_t *prov_ptrace_sites(void);
int prov_ptrace_sync(void);
int prov_ptrace_is_target(int pid);
void prov_ptrace_bpstats(uint64_t *hits, uint64_t *ns);
/* ptrace_up.c, for ptrace.c's reader: a PM_BREAK or PM_BRET message */
void prov_ptup_fire(const prov_ptmsg_t *m);

/* ptrace_mem.c: a tracee's memory (0 or -1), registers and mappings */
struct user_regs_struct;
int ptm_mem_rw(int32_t pid, uint64_t addr, void *buf, size_t len, int wr);
int ptm_peek(pid_t tid, uint64_t addr, uint64_t *v);
int ptm_poke(pid_t tid, uint64_t addr, uint64_t v);
int ptm_peek_bytes(pid_t tid, uint64_t addr, uint8_t *out, int n);
int ptm_poke_byte(pid_t tid, uint64_t addr, uint8_t b);
int ptm_getregs(pid_t tid, struct user_regs_struct *r);
void ptm_setregs(pid_t tid, struct user_regs_struct *r);
/* pid's file mappings, kept for ptm_to_vaddr (0 or -1); where file
 * offset off of s's object is mapped (exec: executable, else writable)
 * in the process read last, 0 if nowhere */
int ptm_read_maps(int32_t pid);
uint64_t ptm_to_vaddr(const prov_ptsite_t *s, uint64_t off, int exec);

/* ptrace_bp.c: breakpoints in the helper */
int ptbp_stop(helper_state_t *hp, tinfo_t *t, int st);
void ptbp_settle(helper_state_t *hp, tinfo_t *t, int sig);
void ptbp_sync(helper_state_t *hp);
void ptbp_exec(helper_state_t *hp, tinfo_t *t);
void ptbp_fork(helper_state_t *hp, tinfo_t *parent, tinfo_t *child);
void ptbp_gone(helper_state_t *hp, tinfo_t *t, int leader);
void ptbp_release(helper_state_t *hp);
int ptbp_passive(helper_state_t *hp, tinfo_t *t, int st);
int ptbp_evalplant(helper_state_t *hp, tinfo_t *t);
void ptbp_evalgo(helper_state_t *hp);

#endif /* PROV_PTRACE_IMPL_H */
