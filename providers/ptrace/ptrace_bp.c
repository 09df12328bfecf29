/*
 * ptrace_bp.c - breakpoints in the helper process: the pid and usdt
 * probes of the ptrace route (ptrace_up.c is the consumer's half; the
 * slots both see are described in ptrace_impl.h).
 *
 * Planting: a slot names an instruction by object (device, inode) and
 * file offset, as uprobes do; the helper finds where the process maps
 * it (/proc/PID/maps) and writes int3 (0xcc) there through
 * /proc/PID/mem, keeping the byte it replaced.  Slots are planted at a
 * sync (PT_CMD_SYNC), after an exec (a new image), and whenever the
 * process's dynamic linker reports a change of its objects: a slot of
 * kind PS_RBRK sits on ld.so's _dl_debug_state, which the linker calls
 * after mapping the libraries at start and at every dlopen, so probes
 * of objects mapped later are planted before their code runs.  A -c
 * child is not planted in before its exec (it still runs dtrace's
 * image, which maps the same libc).
 *
 * A hit (SIGTRAP with si_code SI_KERNEL, rip one past a planted int3)
 * sends one PM_BREAK message per slot there, synchronously: the thread
 * stays stopped until the consumer has fired, so copyin() and usdt
 * memory operands read its memory as it was.  Then the thread moves past
 * the original instruction: the usual first instructions of a function
 * (endbr64, push, mov %rsp,%rbp, nop, ret) are emulated on the
 * registers; any other is single-stepped with the original byte back in
 * place and the int3 planted again after.  While the byte is back, no
 * other thread of the process may run through it unseen: if the process
 * has other threads, every one is interrupted first and kept stopped
 * ("parked") until the step is done (the "world" below, one process at a
 * time; threads that hit a breakpoint meanwhile step in turn).  Correct,
 * and slow only for multithreaded processes at instructions that are not
 * emulated.
 *
 * Return probes: at the function's entry the return address on the stack
 * is replaced by TRAMP, an address below mmap_min_addr that can never be
 * mapped; the return faults there (SIGSEGV, rip == TRAMP), the helper
 * sends PM_BRET for the function's return slots and resumes at the
 * original address.  Each thread keeps its replaced addresses (ti_rets);
 * entries a longjmp skipped are dropped by stack depth.  At release and
 * before a detach every replaced address still on a stack is written
 * back, every int3 removed and every semaphore lowered; a thread that
 * was stepping finishes its step first, and a thread is let go only
 * once no trap of ours is queued for it (an int3 hit or a return to
 * TRAMP just before the interrupt that stopped it: the kernel reports
 * the interrupt first; see trap_queued in ptrace_helper.c), else the
 * trap, taken untraced, would kill it.  A fork's child gets its copy of
 * the code without our int3s.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "ptrace_impl.h"

#define TRAMP 0x7a70ull			/* see above */
#define NHASH 4096			/* planted slots by address */
#define NGONE PT_NSITES			/* int3s removed lately: at least
					 * every slot, so that release's are
					 * all still known after it */

/* The helper's breakpoint state (it is single-threaded: no locks). */
static struct bp_state {
	int inited;
	int32_t head[NHASH];		/* slots planted, by address, -1 end */
	struct {
		int32_t pid;
		uint64_t addr;
	} gone[NGONE];			/* removed while threads ran: a trap
					 * there still due is taken back */
	unsigned ngone;
	int32_t wpid;			/* the world: a process whose threads
					 * are stopped for a step, 0 none */
	int wwait;			/* its threads interrupted, not yet
					 * stopped */
	int wstep;			/* one of its threads steps */
	int32_t evpid;			/* -x evaltime: the process held at */
	uint64_t evaddr;		/* evaddr (an int3 of its own, over */
	uint8_t evorig;			/* evorig) at its evhits-th pass */
	uint32_t evhits;
} bs;

static void world_next(helper_state_t *hp);

static void init(void)
{
	if (bs.inited)
		return;
	for (int i = 0; i < NHASH; i++)
		bs.head[i] = -1;
	bs.inited = 1;
}

static unsigned hash(int32_t pid, uint64_t addr)
{
	return (unsigned)((addr ^ (addr >> 12) ^ (uint64_t)pid) % NHASH);
}

/* ---- planting ---- */

/* The first slot planted at addr in pid, or -1. */
static int lookup(helper_state_t *hp, int32_t pid, uint64_t addr)
{
	for (int32_t i = bs.head[hash(pid, addr)]; i >= 0;
	    i = hp->sites[i].ps_next)
		if (hp->sites[i].ps_addr == addr && hp->sites[i].ps_pid == pid)
			return i;
	return -1;
}

static void unhash(helper_state_t *hp, int32_t i)
{
	prov_ptsite_t *s = &hp->sites[i];

	for (int32_t *q = &bs.head[hash(s->ps_pid, s->ps_addr)]; *q >= 0;
	    q = &hp->sites[*q].ps_next)
		if (*q == i) {
			*q = s->ps_next;
			break;
		}
}

/* Raise (d 1) or lower (-1) the usdt semaphore at addr. */
static int sema(int32_t pid, uint64_t addr, int d)
{
	uint16_t v;

	if (ptm_mem_rw(pid, addr, &v, sizeof(v), 0) != 0)
		return -1;
	if (d < 0 && v == 0)
		return 0;
	v = (uint16_t)(v + d);
	return ptm_mem_rw(pid, addr, &v, sizeof(v), 1);
}

/* Plant slot i in its process, whose maps are in bs.maps. */
static void plant(helper_state_t *hp, int32_t i)
{
	prov_ptsite_t *s = &hp->sites[i];
	uint64_t a = ptm_to_vaddr(s, s->ps_foff, 1), sa;
	uint8_t b, cc = 0xcc;
	int32_t j;

	if (a == 0)
		return;			/* not mapped (yet) */
	if ((j = lookup(hp, s->ps_pid, a)) >= 0) {
		s->ps_orig = hp->sites[j].ps_orig;
	} else {
		if (ptm_mem_rw(s->ps_pid, a, &b, 1, 0) != 0 || b == 0xcc ||
		    ptm_mem_rw(s->ps_pid, a, &cc, 1, 1) != 0)
			return;		/* an int3 of its own: left alone */
		s->ps_orig = b;
	}
	s->ps_next = bs.head[hash(s->ps_pid, a)];
	bs.head[hash(s->ps_pid, a)] = i;
	__atomic_store_n(&s->ps_addr, a, __ATOMIC_RELEASE);
	if (s->ps_refoff != 0 && (sa = ptm_to_vaddr(s, s->ps_refoff, 0)) != 0 &&
	    sema(s->ps_pid, sa, 1) == 0)
		__atomic_store_n(&s->ps_semaddr, sa, __ATOMIC_RELEASE);
}

/* Take slot i out; wr: restore the code and the semaphore (0: the
 * process's memory is gone or replaced). */
static void unplant(helper_state_t *hp, int32_t i, int wr)
{
	prov_ptsite_t *s = &hp->sites[i];
	uint64_t a = s->ps_addr;
	uint8_t b;

	if (a != 0) {
		unhash(hp, i);
		/* the last slot there: the int3 out, and remembered even
		 * when a thread stepping over it has the byte back now: a
		 * thread parked meanwhile may still have its trap queued */
		if (wr && lookup(hp, s->ps_pid, a) < 0) {
			if (ptm_mem_rw(s->ps_pid, a, &b, 1, 0) == 0 &&
			    b == 0xcc)
				(void)ptm_mem_rw(s->ps_pid, a, &s->ps_orig, 1,
				    1);
			bs.gone[bs.ngone % NGONE].pid = s->ps_pid;
			bs.gone[bs.ngone++ % NGONE].addr = a;
		}
	}
	if (s->ps_semaddr != 0 && wr)
		(void)sema(s->ps_pid, s->ps_semaddr, -1);
	__atomic_store_n(&s->ps_semaddr, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->ps_addr, 0, __ATOMIC_RELEASE);
}

/* Was an int3 of ours at addr in pid removed lately? */
static int was_removed(int32_t pid, uint64_t addr)
{
	for (unsigned i = 0; i < NGONE && i < bs.ngone; i++)
		if (bs.gone[i].pid == pid && bs.gone[i].addr == addr)
			return 1;
	return 0;
}

/* May pid be planted in: traced by us, past a -c child's exec? */
static int plantable(helper_state_t *hp, int32_t pid)
{
	tinfo_t *t = pt_tget(hp, pid, 0);

	return t != NULL && !t->ti_prexec;
}

/* Plant pid's wanted slots as its maps are now; those whose object went
 * away (dlclose) are forgotten. */
static void sync_pid(helper_state_t *hp, int32_t pid)
{
	if (!plantable(hp, pid) || ptm_read_maps(pid) != 0)
		return;
	for (int32_t i = 0; i < PT_NSITES; i++) {
		prov_ptsite_t *s = &hp->sites[i];

		if (s->ps_pid != pid ||
		    __atomic_load_n(&s->ps_want, __ATOMIC_ACQUIRE) == 0)
			continue;
		if (s->ps_addr != 0 && ptm_to_vaddr(s, s->ps_foff, 1) !=
		    s->ps_addr)
			unplant(hp, i, 0);
		if (s->ps_addr == 0)
			plant(hp, i);
	}
}

void ptbp_sync(helper_state_t *hp)
{
	int32_t done[64];
	int ndone = 0;

	init();
	for (int32_t i = 0; i < PT_NSITES; i++) {
		prov_ptsite_t *s = &hp->sites[i];

		if (__atomic_load_n(&s->ps_want, __ATOMIC_ACQUIRE) == 0 &&
		    (s->ps_addr != 0 || s->ps_semaddr != 0))
			unplant(hp, i, 1);
	}
	for (int32_t i = 0; i < PT_NSITES; i++) {
		prov_ptsite_t *s = &hp->sites[i];
		int k;

		if (s->ps_addr != 0 ||
		    __atomic_load_n(&s->ps_want, __ATOMIC_ACQUIRE) == 0)
			continue;
		for (k = 0; k < ndone && done[k] != s->ps_pid; k++)
			;
		if (k < ndone)
			continue;
		if (ndone < 64)
			done[ndone++] = s->ps_pid;
		sync_pid(hp, s->ps_pid);
	}
}

/* ---- hits ---- */

/* Send one hit of slot i (PM_BREAK) or return (PM_BRET), and wait until
 * it has fired. */
static void send_hit(helper_state_t *hp, tinfo_t *t,
    const struct user_regs_struct *r, uint32_t kind, int32_t i, uint64_t fn,
    uint64_t ret)
{
	prov_ptmsg_t m;

	memset(&m, 0, sizeof(m));
	m.pm_nr = (uint32_t)i;
	m.pm_args[0] = fn;
	m.pm_args[1] = ret;
	memcpy(m.pm_regs, r, sizeof(m.pm_regs));
	m.pm_nregs = PT_NREGS;
	m.pm_sync = 1;
	pt_send(hp, &m, t, kind);
}

/* A return probe: the return address at the stack pointer becomes TRAMP
 * (see above); fn is the function. */
static void hijack(tinfo_t *t, const struct user_regs_struct *r, uint64_t fn)
{
	uint64_t ret;

	if (t->ti_nrets >= PT_NRETS || ptm_peek(t->ti_tid, r->rsp, &ret) != 0 ||
	    ret == TRAMP || ptm_poke(t->ti_tid, r->rsp, TRAMP) != 0)
		return;			/* too deep: this return is missed */
	t->ti_rets[t->ti_nrets].r_ret = ret;
	t->ti_rets[t->ti_nrets].r_sp = r->rsp;
	t->ti_rets[t->ti_nrets++].r_fn = fn;
}

/* A return to TRAMP (r->rsp just past the slot it was in): fire the
 * function's return slots, continue at the original address.  0 if no
 * replaced address of this thread was there. */
static int ret_hit(helper_state_t *hp, tinfo_t *t,
    struct user_regs_struct *r, int fire)
{
	uint64_t sp = r->rsp - 8;

	while (t->ti_nrets > 0 && t->ti_rets[t->ti_nrets - 1].r_sp < sp)
		t->ti_nrets--;		/* skipped by a longjmp */
	if (t->ti_nrets == 0 || t->ti_rets[t->ti_nrets - 1].r_sp != sp)
		return 0;
	t->ti_nrets--;
	r->rip = t->ti_rets[t->ti_nrets].r_ret;
	if (!fire)
		return 1;
	for (int32_t i = bs.head[hash(t->ti_pid, t->ti_rets[t->ti_nrets].r_fn)];
	    i >= 0; i = hp->sites[i].ps_next) {
		const prov_ptsite_t *s = &hp->sites[i];

		if (s->ps_pid == t->ti_pid &&
		    s->ps_addr == t->ti_rets[t->ti_nrets].r_fn &&
		    (__atomic_load_n(&s->ps_want, __ATOMIC_ACQUIRE) & PS_RETURN))
			send_hit(hp, t, r, PM_BRET, i, s->ps_addr, r->rip);
	}
	return 1;
}

/* Move t past the instruction at a (orig its first byte) on its
 * registers, for the instructions a function usually starts with.
 * 1 done (r updated), 0 it must be stepped. */
static int emulate(helper_state_t *hp, tinfo_t *t,
    struct user_regs_struct *r, uint64_t a, uint8_t orig)
{
	static const int pushreg[8] = { 10, 11, 12, 5, 19, 4, 13, 14 };
	uint64_t *reg = (uint64_t *)r, v;	/* user_regs_struct order */
	uint8_t c[4];

	if (ptm_peek_bytes(t->ti_tid, a, c, 4) != 0)
		return 0;
	c[0] = orig;
	if (c[0] >= 0x50 && c[0] <= 0x57) {		/* push %reg */
		v = reg[pushreg[c[0] - 0x50]];
		if (ptm_poke(t->ti_tid, r->rsp - 8, v) != 0)
			return 0;
		r->rsp -= 8;
		r->rip = a + 1;
	} else if (c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57) {
		v = reg[9 - (c[1] - 0x50)];		/* push %r8..%r15 */
		if (ptm_poke(t->ti_tid, r->rsp - 8, v) != 0)
			return 0;
		r->rsp -= 8;
		r->rip = a + 2;
	} else if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e &&
	    c[3] == 0xfa) {				/* endbr64 */
		r->rip = a + 4;
	} else if (c[0] == 0x90) {			/* nop */
		r->rip = a + 1;
	} else if (c[0] == 0x48 && c[1] == 0x89 && c[2] == 0xe5) {
		r->rbp = r->rsp;			/* mov %rsp,%rbp */
		r->rip = a + 3;
	} else if (c[0] == 0xc3) {			/* ret */
		if (ptm_peek(t->ti_tid, r->rsp, &v) != 0)
			return 0;
		r->rsp += 8;
		r->rip = v;
		if (v == TRAMP)
			(void)ret_hit(hp, t, r, 1);
	} else {
		return 0;
	}
	return 1;
}

/* Does t's process have another thread that runs? */
static int others_run(helper_state_t *hp, const tinfo_t *t)
{
	for (int i = 0; i < MAXT; i++) {
		const tinfo_t *u = &hp->tinfo[i];

		if (u->ti_tid > 0 && u != t && u->ti_pid == t->ti_pid &&
		    !u->ti_held && !u->ti_parked)
			return 1;
	}
	return 0;
}

/* Single-step t over the instruction at a, its original byte back. */
static void start_step(helper_state_t *hp, tinfo_t *t, uint64_t a)
{
	int32_t i = lookup(hp, t->ti_pid, a);

	if (i >= 0)
		(void)ptm_poke_byte(t->ti_tid, a, hp->sites[i].ps_orig);
	t->ti_step = a;
	(void)ptrace(PTRACE_SINGLESTEP, t->ti_tid, 0, 0);
}

/* Keep t stopped until its process's world ends. */
static void park(helper_state_t *hp, tinfo_t *t, int sig)
{
	t->ti_parked = 1;
	if (sig != 0)
		t->ti_sig = sig;
	if (t->ti_pendint) {
		t->ti_pendint = 0;
		bs.wwait--;
	}
	if (bs.wpid != 0 && bs.wwait == 0 && !bs.wstep)
		world_next(hp);
}

/* Stop every other running thread of t's process (t is parked). */
static void world_start(helper_state_t *hp, tinfo_t *t)
{
	bs.wpid = t->ti_pid;
	bs.wwait = 0;
	bs.wstep = 0;
	for (int i = 0; i < MAXT; i++) {
		tinfo_t *u = &hp->tinfo[i];

		if (u->ti_tid <= 0 || u == t || u->ti_pid != t->ti_pid ||
		    u->ti_held || u->ti_parked)
			continue;
		if (ptrace(PTRACE_INTERRUPT, u->ti_tid, 0, 0) == 0) {
			u->ti_pendint = 1;
			bs.wwait++;
		}
	}
	if (bs.wwait == 0)
		world_next(hp);
}

/* The world is stopped: step the next parked thread that must step, or
 * let them all go; then a parked thread of another process starts its
 * world. */
static void world_next(helper_state_t *hp)
{
	int32_t pid = bs.wpid;
	tinfo_t *next = NULL;

	for (int i = 0; i < MAXT; i++) {
		tinfo_t *u = &hp->tinfo[i];

		if (u->ti_tid > 0 && u->ti_pid == pid && u->ti_needstep) {
			uint64_t a = u->ti_needstep;

			u->ti_needstep = 0;
			u->ti_parked = 0;
			bs.wstep = 1;
			start_step(hp, u, a);
			return;
		}
	}
	bs.wpid = 0;
	for (int i = 0; i < MAXT; i++) {
		tinfo_t *u = &hp->tinfo[i];

		if (u->ti_tid <= 0 || !u->ti_parked)
			continue;
		if (u->ti_pid == pid) {
			int sig = u->ti_sig;

			u->ti_parked = 0;
			u->ti_sig = 0;
			pt_resume(hp, u, sig);
		} else if (u->ti_needstep && next == NULL) {
			next = u;
		}
	}
	if (next != NULL)
		world_start(hp, next);
}

/* t's step is done: the int3 back, and on. */
static void step_done(helper_state_t *hp, tinfo_t *t)
{
	uint64_t a = t->ti_step;
	int sig = t->ti_sig;

	t->ti_step = 0;
	if (lookup(hp, t->ti_pid, a) >= 0)
		(void)ptm_poke_byte(t->ti_tid, a, 0xcc);
	if (bs.wpid == t->ti_pid && bs.wstep) {
		bs.wstep = 0;
		t->ti_parked = 1;
		world_next(hp);
		return;
	}
	t->ti_sig = 0;
	pt_resume(hp, t, sig);
}

/* Past the int3 at a (its original byte orig): emulated, stepped now,
 * or stepped when the process's other threads are stopped. */
static void step_over(helper_state_t *hp, tinfo_t *t,
    struct user_regs_struct *r, uint64_t a, uint8_t orig)
{
	if (emulate(hp, t, r, a, orig)) {
		ptm_setregs(t->ti_tid, r);
		ptbp_settle(hp, t, 0);
		return;
	}
	ptm_setregs(t->ti_tid, r);		/* rip back on the instruction */
	if (bs.wpid == 0 && !others_run(hp, t)) {
		start_step(hp, t, a);
		return;
	}
	t->ti_needstep = a;
	if (bs.wpid == 0) {
		t->ti_parked = 1;
		world_start(hp, t);
	} else {
		park(hp, t, 0);		/* steps in its world's turn */
	}
}

/* An int3 at r->rip - 1: ours?  Fire its slots and move on.  A vfork
 * child runs on its parent's memory: its parent's int3s are stepped
 * over without firing. */
static int bp_hit(helper_state_t *hp, tinfo_t *t, struct user_regs_struct *r)
{
	struct timespec t0, t1;
	uint64_t a = r->rip - 1;
	int32_t pid = t->ti_pid, i = lookup(hp, pid, a);
	int fire = 1, ret = 0, rbrk = 0;
	uint8_t orig;

	if (i < 0 && (i = lookup(hp, t->ti_ppid, a)) >= 0) {
		pid = t->ti_ppid;
		fire = 0;
	}
	if (i < 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	orig = hp->sites[i].ps_orig;
	r->rip = a;
	for (i = bs.head[hash(pid, a)]; i >= 0; i = hp->sites[i].ps_next) {
		const prov_ptsite_t *s = &hp->sites[i];
		uint32_t w = __atomic_load_n(&s->ps_want, __ATOMIC_ACQUIRE);

		if (s->ps_pid != pid || s->ps_addr != a)
			continue;
		rbrk |= (w & PS_RBRK) != 0;
		ret |= fire && (w & PS_RETURN) != 0;
		if (fire && (w & PS_ENTRY))
			send_hit(hp, t, r, PM_BREAK, i, a, 0);
	}
	if (ret)
		hijack(t, r, a);
	if (rbrk)
		sync_pid(hp, pid);	/* the linker mapped or unmapped */
	step_over(hp, t, r, a, orig);
	/* the tracer's cost (firing included, a step's end not) */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	__atomic_add_fetch(&hp->sh->sh_bpns, (uint64_t)((t1.tv_sec -
	    t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec)),
	    __ATOMIC_RELAXED);
	__atomic_add_fetch(&hp->sh->sh_bphits, 1, __ATOMIC_RELAXED);
	return 1;
}

/* ---- -x evaltime ---- */

/*
 * A created process past its exec: plant the evaltime point the consumer
 * described (sh_ev*: an object, a file offset, how many passes) in its
 * new image.  1 planted (the process stays untraced until the point), 0
 * not wanted or not possible (sh_evheld -1: it runs on, traced).
 */
int ptbp_evalplant(helper_state_t *hp, tinfo_t *t)
{
	prov_ptshared_t *sh = hp->sh;
	prov_ptsite_t s;
	uint8_t b, cc = 0xcc;
	uint64_t a;

	if (__atomic_load_n(&sh->sh_evpid, __ATOMIC_ACQUIRE) != t->ti_pid)
		return 0;
	init();
	memset(&s, 0, sizeof(s));
	s.ps_dev = sh->sh_evdev;
	s.ps_ino = sh->sh_evino;
	bs.evpid = 0;
	if (ptm_read_maps(t->ti_pid) != 0 ||
	    (a = ptm_to_vaddr(&s, sh->sh_evfoff, 1)) == 0 ||
	    ptm_mem_rw(t->ti_pid, a, &b, 1, 0) != 0 || b == 0xcc ||
	    ptm_mem_rw(t->ti_pid, a, &cc, 1, 1) != 0) {
		__atomic_store_n(&sh->sh_evheld, -1, __ATOMIC_RELEASE);
		return 0;
	}
	bs.evpid = t->ti_pid;
	bs.evaddr = a;
	bs.evorig = b;
	bs.evhits = sh->sh_evhits > 0 ? sh->sh_evhits : 1;
	return 1;
}

/* t passed the evaltime point: on if passes remain (the instruction
 * emulated, the int3 kept), else the point: the code restored, t kept
 * stopped on it, its process traced from now on. */
static void eval_hit(helper_state_t *hp, tinfo_t *t,
    struct user_regs_struct *r)
{
	uint64_t a = r->rip - 1;

	r->rip = a;
	if (--bs.evhits > 0 && emulate(hp, t, r, a, bs.evorig)) {
		ptm_setregs(t->ti_tid, r);
		pt_resume(hp, t, 0);
		return;
	}
	(void)ptm_mem_rw(t->ti_pid, a, &bs.evorig, 1, 1);
	ptm_setregs(t->ti_tid, r);
	for (int i = 0; i < MAXT; i++)
		if (hp->tinfo[i].ti_tid > 0 && hp->tinfo[i].ti_pid == t->ti_pid)
			hp->tinfo[i].ti_prexec = 0;
	bs.evpid = 0;
	t->ti_evheld = 1;
	__atomic_store_n(&hp->sh->sh_evheld, t->ti_pid, __ATOMIC_RELEASE);
}

/* PT_CMD_EVALGO: tracing has started, the held thread goes on. */
void ptbp_evalgo(helper_state_t *hp)
{
	for (int i = 0; i < MAXT; i++) {
		tinfo_t *t = &hp->tinfo[i];

		if (t->ti_tid > 0 && t->ti_evheld) {
			t->ti_evheld = 0;
			ptbp_settle(hp, t, 0);
		}
	}
}

int ptbp_stop(helper_state_t *hp, tinfo_t *t, int st)
{
	int event = st >> 16, sig = WSTOPSIG(st);
	struct user_regs_struct r;
	siginfo_t si;

	if (!bs.inited)
		return 0;
	if (t->ti_step) {
		if (event == 0 && sig == SIGTRAP) {
			step_done(hp, t);
			return 1;
		}
		if (event == 0 || event == PTRACE_EVENT_STOP) {
			if (event == 0)
				t->ti_sig = sig;	/* after the step */
			(void)ptrace(PTRACE_SINGLESTEP, t->ti_tid, 0, 0);
			return 1;
		}
		return 0;		/* an event: handled, then stepped on */
	}
	if (event != 0 || (sig != SIGTRAP && sig != SIGSEGV) ||
	    ptrace(PTRACE_GETSIGINFO, t->ti_tid, 0, &si) != 0 ||
	    ptm_getregs(t->ti_tid, &r) != 0)
		return 0;
	if (sig == SIGTRAP && si.si_code == SI_KERNEL && bs.evpid != 0 &&
	    bs.evpid == t->ti_pid && r.rip - 1 == bs.evaddr) {
		eval_hit(hp, t, &r);
		return 1;
	}
	if (sig == SIGTRAP && si.si_code == SI_KERNEL) {
		if (bp_hit(hp, t, &r))
			return 1;
		if (was_removed(t->ti_pid, r.rip - 1)) {
			r.rip--;	/* hit just before it was removed */
			ptm_setregs(t->ti_tid, &r);
			ptbp_settle(hp, t, 0);
			return 1;
		}
	}
	if (sig == SIGSEGV && r.rip == TRAMP && ret_hit(hp, t, &r, 1)) {
		ptm_setregs(t->ti_tid, &r);
		ptbp_settle(hp, t, 0);
		return 1;
	}
	return 0;
}

void ptbp_settle(helper_state_t *hp, tinfo_t *t, int sig)
{
	if (t->ti_step) {
		if (sig != 0)
			t->ti_sig = sig;
		(void)ptrace(PTRACE_SINGLESTEP, t->ti_tid, 0, 0);
	} else if (bs.wpid != 0 && bs.wpid == t->ti_pid) {
		park(hp, t, sig);
	} else {
		pt_resume(hp, t, sig);
	}
}

/* ---- process life ---- */

void ptbp_exec(helper_state_t *hp, tinfo_t *t)
{
	int32_t pid = t->ti_pid;

	if (!bs.inited)
		return;
	for (int32_t i = 0; i < PT_NSITES; i++)
		if (hp->sites[i].ps_pid == pid && (hp->sites[i].ps_addr != 0 ||
		    hp->sites[i].ps_semaddr != 0))
			unplant(hp, i, 0);	/* that image is gone */
	t->ti_nrets = 0;
	t->ti_step = t->ti_needstep = 0;
	t->ti_parked = t->ti_pendint = 0;
	if (bs.wpid == pid) {
		bs.wpid = 0;
		bs.wstep = 0;
	}
	sync_pid(hp, pid);
}

void ptbp_fork(helper_state_t *hp, tinfo_t *parent, tinfo_t *child)
{
	if (!bs.inited)
		return;
	for (int32_t i = 0; i < PT_NSITES; i++) {
		prov_ptsite_t *s = &hp->sites[i];

		if (s->ps_pid == parent->ti_pid && s->ps_addr != 0)
			(void)ptm_mem_rw(child->ti_pid, s->ps_addr, &s->ps_orig, 1,
			    1);
	}
	/* its stack is a copy: the returns there come back through us */
	child->ti_nrets = parent->ti_nrets;
	memcpy(child->ti_rets, parent->ti_rets, sizeof(child->ti_rets));
}

void ptbp_gone(helper_state_t *hp, tinfo_t *t, int leader)
{
	if (!bs.inited)
		return;
	if (t->ti_step && lookup(hp, t->ti_pid, t->ti_step) >= 0)
		(void)ptm_mem_rw(t->ti_pid, t->ti_step, &(uint8_t){ 0xcc }, 1, 1);
	if (bs.wpid == t->ti_pid && t->ti_step)
		bs.wstep = 0;
	if (bs.wpid == t->ti_pid && t->ti_pendint)
		bs.wwait--;
	t->ti_step = t->ti_needstep = 0;
	t->ti_parked = t->ti_pendint = 0;
	t->ti_evheld = 0;
	if (leader && bs.evpid == t->ti_pid) {	/* gone before the point */
		bs.evpid = 0;
		__atomic_store_n(&hp->sh->sh_evheld, -1, __ATOMIC_RELEASE);
	}
	if (leader) {
		for (int32_t i = 0; i < PT_NSITES; i++)
			if (hp->sites[i].ps_pid == t->ti_pid &&
			    (hp->sites[i].ps_addr != 0 ||
			    hp->sites[i].ps_semaddr != 0))
				unplant(hp, i, 0);
	}
	if (bs.wpid == t->ti_pid && bs.wwait <= 0 && !bs.wstep) {
		bs.wwait = 0;
		world_next(hp);
	}
}

/*
 * Write back t's replaced return addresses still on its stack.  The
 * entries stay, marked written back (r_fn 0), for a return to TRAMP that
 * happened before this stop but whose fault is still queued (see
 * trap_queued in ptrace_helper.c): ret_hit still finds where it goes.
 */
static void unhijack(tinfo_t *t)
{
	uint64_t v;

	for (uint32_t k = 0; k < t->ti_nrets; k++) {
		if (t->ti_rets[k].r_fn == 0)
			continue;
		if (ptm_peek(t->ti_tid, t->ti_rets[k].r_sp, &v) == 0 && v == TRAMP)
			(void)ptm_poke(t->ti_tid, t->ti_rets[k].r_sp,
			    t->ti_rets[k].r_ret);
		t->ti_rets[k].r_fn = 0;
	}
}

/*
 * Release: t was stepping over an instruction; wait until the step is
 * done, as ptbp_stop does while tracing (an interrupt or a signal's stop
 * may come first: stepped on, the signal kept for after), so that no
 * step trap is left queued for when it is let go.  Bounded: a thread
 * that stops for anything else that often is left parked as it is.
 */
static void finish_step(tinfo_t *t)
{
	for (int n = 0; n < 64; n++) {
		int st, ev, sig;

		if (waitpid(t->ti_tid, &st, __WALL) != t->ti_tid ||
		    !WIFSTOPPED(st))
			return;		/* gone */
		ev = st >> 16;
		sig = WSTOPSIG(st);
		t->ti_parked = 1;
		if (ev == 0 && sig == SIGTRAP)
			return;		/* the step's trap */
		if (ev == 0)
			t->ti_sig = sig;
		if (ptrace(PTRACE_SINGLESTEP, t->ti_tid, 0, 0) != 0)
			return;
		t->ti_parked = 0;
	}
}

void ptbp_release(helper_state_t *hp)
{
	if (!bs.inited)
		return;
	for (int32_t i = 0; i < PT_NSITES; i++)
		if (hp->sites[i].ps_addr != 0 || hp->sites[i].ps_semaddr != 0)
			unplant(hp, i, 1);
	for (int i = 0; i < MAXT; i++) {
		tinfo_t *t = &hp->tinfo[i];

		if (t->ti_tid <= 0)
			continue;
		if (t->ti_step)
			finish_step(t);	/* its step ends first */
		if (t->ti_evheld)	/* held at the evaltime point */
			t->ti_parked = 1;
		t->ti_evheld = 0;
		t->ti_step = t->ti_needstep = 0;
		t->ti_pendint = 0;
		if (t->ti_parked) {
			int sig = t->ti_sig;

			unhijack(t);
			t->ti_parked = 0;
			t->ti_sig = 0;
			(void)ptrace(PTRACE_CONT, t->ti_tid, 0,
			    (void *)(uintptr_t)sig);
		}
	}
	bs.wpid = 0;
	bs.wstep = bs.wwait = 0;
}

int ptbp_passive(helper_state_t *hp, tinfo_t *t, int st)
{
	struct user_regs_struct r;
	siginfo_t si;
	int sig = WSTOPSIG(st), mine = 0;

	if (!bs.inited || !WIFSTOPPED(st))
		return 0;
	if ((st >> 16) == 0 && (sig == SIGTRAP || sig == SIGSEGV) &&
	    ptrace(PTRACE_GETSIGINFO, t->ti_tid, 0, &si) == 0 &&
	    ptm_getregs(t->ti_tid, &r) == 0) {
		if (sig == SIGSEGV && r.rip == TRAMP && ret_hit(hp, t, &r, 0))
			mine = 1;
		else if (sig == SIGTRAP && si.si_code == SI_KERNEL &&
		    was_removed(t->ti_pid, r.rip - 1) && r.rip--)
			mine = 1;
		if (mine)
			ptm_setregs(t->ti_tid, &r);
	}
	unhijack(t);
	return mine;
}
