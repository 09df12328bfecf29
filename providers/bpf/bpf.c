/*
 * bpf.c - tracepoint records delivered by small BPF programs, and system
 * call strings captured at event time.
 *
 * Why: perf tracepoint events miss some hits on kernels that park idle
 * vCPUs (a switch from the idle task to a waking thread is never sampled
 * here), while a BPF program attached to the tracepoint runs on every
 * hit; and only code running at the event can copy a string argument
 * before the process reuses its buffer.
 *
 * One BPF_OUTPUT perf event per CPU writes into that CPU's ring (a normal
 * prov_perf_src_t) and fills a PERF_EVENT_ARRAY map; there are four such
 * sets, with or without call chains and with or without the user
 * registers (PROV_SAMPLE_*), and a program writes to the one its probes
 * need.  Each attachment is a
 * slot (callback, argument) whose index is the program's tag; a program
 * is loaded per attachment and attached to a counting (never sampling)
 * perf event on the tracepoint, so it runs for hits on every CPU.  It
 * emits {tag, payload} with bpf_perf_event_output(BPF_F_CURRENT_CPU) and
 * returns 1, so other perf events on the tracepoint still get samples.
 *
 * Two program shapes (r6 = ctx, the record as the format file lays it out,
 * its first 8 bytes replaced by a regs pointer, which the payload zeroes):
 *
 *  copy:     *(fp - 8 - size - 24) = tag
 *            get_current_comm(fp - 8 - size - 16, 16)
 *            probe_read_kernel(fp - 8 - size, size, r6); zero its first 8
 *            perf_event_output(r6, map, CURRENT_CPU, fp - 8 - size - 24,
 *                              size + 24); return 1
 *  capture:  tag, comm as above, then a prov_bpf_rec_t: ctx[8..recsize)
 *            by loads (syscall records are 64 bytes at most),
 *            probe_read_user_str of the pointer at stroff into the string
 *            area, its result stored.
 *
 * Programs are loaded behind a tail-call stub (bpf_filter.c) so that a
 * probe's predicate filter can be put in front of them, and replaced,
 * while they run.  System call probes (prov_bpf_sys) put theirs, with
 * bpf_sys.c's prologue, into the entry of their syscall number in the
 * raw_syscalls dispatch arrays instead: no perf event of their own
 * (sl_efd -1, sl_sys set); releasing one deletes that entry.
 *
 * Slots are reused.  A slot's tag is its index in the low 32 bits and its
 * generation (sl_gen, one more at every new owner, never 0) in the high
 * 32: a record of an old owner still in a ring (or written by its
 * program until the deferred close of its event detaches it) carries an
 * old generation and is dropped by the drain thread, which reads the
 * owner like a sequence lock (sl_gen 0 while the slot changes hands).
 * bpf_filter.c's stubs check their own generation too, so an old stub
 * never tail-calls a new owner's program.  A freed slot waits in a FIFO
 * at least QUARANTINE_NS before it is given again (fresh slots first),
 * slot_lk guards allocation and the owner fields' writes.
 *
 * A released stub's event is not closed at once: a tracepoint holds at
 * most 64 BPF programs, and closed events leave only when the background
 * close gets to them (~60 ms each), so a probe enabled and disabled 64
 * times in a row would run out.  Up to IDLE_PER_TP released stubs per
 * tracepoint (IDLE_MAX in all) stay attached, inert, and keep their slot
 * (sl_idle); the next attachment to that tracepoint takes one over with a
 * new generation (prov_bpf_frevive), which also saves its open and close.
 *
 * Every record is {tag, comm[16], payload}: the comm is the task's name at
 * the event, so execname is right even for a process that has exited (or
 * exec'd again) before the drain thread reads the record.  The drain
 * thread stores it in the process cache (prov_pcache_comm) and calls the
 * slot's callback with the sample's RAW data replaced by the payload.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include "prov_impl.h"
#include "bpf_util.h"
#include "bpf_filter.h"
#include "bpf_rec.h"

#define NINSN 96
#define MAX_SLOTS 4096
#define MAX_COPY 440
#define QUARANTINE_NS 100000000ULL	/* a freed slot rests 100 ms */
#define IDLE_PER_TP 2
#define IDLE_MAX 64

typedef struct slot {
	prov_perf_cb_t *sl_cb;		/* NULL: free */
	void *sl_arg;
	uint32_t sl_gen;		/* the owner's generation, 0: none */
	uint32_t sl_lastgen;		/* the last one given */
	int sl_efd;			/* attachment event */
	int sl_sys;			/* in bpf_sys.c's arrays: its
					 * direction + 1, else 0 */
	int sl_next;			/* free FIFO link, -1: last */
	uint64_t sl_freed;		/* CLOCK_MONOTONIC ns of its release */
	int sl_tpid;			/* its tracepoint (stubs) */
	int sl_stub;			/* sl_efd is a bpf_filter.c stub */
	int sl_idle;			/* a released stub kept (no owner) */
} slot_t;

/* Where a program runs: tracepoint tpid, or (map >= 0) entry key of
 * bpf_sys.c's dispatch array map. */
typedef struct target {
	int tpid;
	int map, key, ret;
} target_t;

#define NOUT 4		/* output sets, see outmaps below */
#define CLOSE_BATCH 1024	/* close when this many wait (close_later) */

/*
 * The state of bpf.c: one instance (bpf), passed to the helpers below
 * (to out_sample as its callback argument).  Each field names what
 * guards it.  outlk is taken before perf.c's openlk (out_start opens
 * the output events) and never with slot_lk.
 */
typedef struct bpf_state {
	pthread_mutex_t slot_lk;	/* slot allocation (the fields below
					 * to nidle) and owner fields' writes */
	slot_t slots[MAX_SLOTS];	/* slot_lk for writes; the drain
					 * thread reads sl_cb, sl_arg, sl_gen
					 * as a sequence lock (out_sample) */
	int slot_max;			/* slot_lk: prov_bpf_set_maxslots */
	int slot_fresh;			/* slot_lk: never given below this */
	int free_head, free_tail;	/* slot_lk: freed slots, FIFO */
	uint64_t slot_reused;		/* slot_lk: times a freed slot was
					 * given again */
	int nidle;			/* slot_lk: slots with sl_idle */
	/* Output events and maps by what they sample (PROV_SAMPLE_* bits):
	 * [0] nothing more, [1] call chains, [2] user registers, [3] both. */
	pthread_mutex_t outlk;		/* the three fields below: providers
					 * attach under locks of their own
					 * (tp.c's, psargs.c's), so two
					 * first attachments may race */
	int outmaps[NOUT];		/* outlk (out_start) */
	prov_perf_src_t *outsrcs[NOUT];	/* outlk */
	int bpf_broken;			/* outlk: tried and failed, do not
					 * retry */
	pthread_mutex_t closelk;	/* deferred, ndeferred */
	int deferred[CLOSE_BATCH];	/* closelk: events whose close waits */
	int ndeferred;			/* closelk */
} bpf_state_t;

static bpf_state_t bpf = {
	.slot_lk = PTHREAD_MUTEX_INITIALIZER,
	.slot_max = MAX_SLOTS,
	.free_head = -1, .free_tail = -1,
	.outlk = PTHREAD_MUTEX_INITIALIZER,
	.outmaps = { -1, -1, -1, -1 },
	.closelk = PTHREAD_MUTEX_INITIALIZER,
};

/* r1 = tag; *(u64 *)(fp + at) = r1 (three instructions) */
static int emit_tag(struct bpf_insn *p, uint64_t tag, int16_t at)
{
	p[0] = ins(BPF_LD | BPF_DW | BPF_IMM, 1, 0, 0, (int32_t)tag);
	p[1] = ins(0, 0, 0, 0, (int32_t)(tag >> 32));
	p[2] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 1, at, 0);
	return 3;
}

/* perf_event_output(r6, map, CURRENT_CPU, fp + at, size); return 1 */
static int emit_output(struct bpf_insn *p, int map, int16_t at, int size)
{
	int n = 0;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0, map);
	p[n++] = ins(0, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, -1);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, at);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0, size);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

/* get_current_comm(fp + at, 16) (four instructions) */
static int emit_comm(struct bpf_insn *p, int16_t at)
{
	p[0] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[1] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, at);
	p[2] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 16);
	p[3] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_comm);
	return 4;
}

/* The copy program: payload = the first size bytes of the record. */
static int build_copy(struct bpf_insn *p, uint64_t tag, int map, int size)
{
	int16_t data = (int16_t)(-8 - size), comm = (int16_t)(data - 16);
	int16_t top = (int16_t)(comm - 8);
	int n = 0;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_tag(p + n, tag, top);
	n += emit_comm(p + n, comm);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, data);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, size);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 3, 6, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel);
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, data, 0);
	n += emit_output(p + n, map, top, size + 24);
	return n;
}

/* The capture program: payload = prov_bpf_rec_t (see the top comment). */
static int build_capture(struct bpf_insn *p, uint64_t tag, int map,
    int stroff, int recsize)
{
	int16_t top = -(int16_t)(sizeof(prov_bpf_rec_t) + 24);
	int16_t rec = (int16_t)(top + 24), str = (int16_t)(rec + 64);
	int n = 0;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_tag(p + n, tag, top);
	n += emit_comm(p + n, (int16_t)(top + 8));
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, rec, 0);
	for (int i = 1; i < 8; i++) {
		if (8 * i + 8 > recsize) {	/* the kernel refuses reads
						 * past the record */
			p[n++] = ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0,
			    (int16_t)(rec + 8 * i), 0);
			continue;
		}
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 6, (int16_t)(8 * i),
		    0);
		p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 1,
		    (int16_t)(rec + 8 * i), 0);
	}
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, str);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 256);
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 3, 6, (int16_t)stroff, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0,
	    BPF_FUNC_probe_read_user_str);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -8, 0);
	n += emit_output(p + n, map, top, (int)sizeof(prov_bpf_rec_t) + 24);
	return n;
}

/* The argv program: {tag, comm, argv[PTRS], strings} (prov_bpf_argv). */
static int build_argv(struct bpf_insn *p, uint64_t tag, int map,
    int argvoff)
{
	int size = 24 + 8 * PROV_ARGV_PTRS + PROV_ARGV_STRS * PROV_ARGV_LEN;
	int16_t top = (int16_t)-size, ptrs = (int16_t)(top + 24);
	int16_t strs = (int16_t)(ptrs + 8 * PROV_ARGV_PTRS);
	int n = 0;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_tag(p + n, tag, top);
	n += emit_comm(p + n, (int16_t)(top + 8));
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 3, 6, (int16_t)argvoff, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, ptrs);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0,
	    8 * PROV_ARGV_PTRS);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user);
	for (int i = 0; i < PROV_ARGV_STRS; i++) {
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 3, 10,
		    (int16_t)(ptrs + 8 * i), 0);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0,
		    strs + i * PROV_ARGV_LEN);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0,
		    PROV_ARGV_LEN);
		p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0,
		    BPF_FUNC_probe_read_user_str);
	}
	n += emit_output(p + n, map, top, size);
	return n;
}

/* Drain thread: hand a program's record to its slot. */
static void out_sample(void *arg, const prov_perf_sample_t *s)
{
	bpf_state_t *bs = arg;
	prov_perf_sample_t copy = *s;
	prov_perf_cb_t *cb;
	void *cbarg;
	uint64_t tag;
	uint32_t idx, gen;
	char comm[16];

	if (s->pps_rawlen < 24)
		return;
	memcpy(&tag, s->pps_raw, 8);
	idx = (uint32_t)tag;
	gen = (uint32_t)(tag >> 32);
	if (idx >= MAX_SLOTS || gen == 0 ||
	    __atomic_load_n(&bs->slots[idx].sl_gen, __ATOMIC_ACQUIRE) != gen)
		return;			/* free, or another owner's now */
	cb = __atomic_load_n(&bs->slots[idx].sl_cb, __ATOMIC_RELAXED);
	cbarg = __atomic_load_n(&bs->slots[idx].sl_arg, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (cb == NULL ||
	    __atomic_load_n(&bs->slots[idx].sl_gen, __ATOMIC_RELAXED) != gen)
		return;			/* changed hands while we read */
	if (prov_bpf_rec_deliver(s->pps_raw + 8, s->pps_raw + 24,
	    s->pps_rawlen - 24, s->pps_cpu))
		return;			/* a record built in the kernel */
	memcpy(comm, s->pps_raw + 8, 15);
	comm[15] = '\0';
	if (comm[0] != '\0' && s->pps_tid > 0)
		prov_pcache_comm(s->pps_tid, s->pps_pid, comm);
	copy.pps_raw = s->pps_raw + 24;
	copy.pps_rawlen = s->pps_rawlen - 24;
	cb(cbarg, &copy);
}

/* Create an output map and its BPF_OUTPUT events on first use. */
static int out_start(bpf_state_t *bs, int chain)
{
	if (bs->outmaps[chain] >= 0)
		return 0;
	bs->outmaps[chain] = prov_bpf_output_open(chain, out_sample, bs,
	    &bs->outsrcs[chain]);
	return bs->outmaps[chain] >= 0 ? 0 : -1;
}

static void sys_put(bpf_state_t *bs, int ret);
static void close_later(bpf_state_t *bs, int fd);
static void slot_free(bpf_state_t *bs, int s);

/* A slot for a new owner (slot_lk): a fresh one, else the oldest freed
 * once its quarantine is over (waiting for it if need be), else -1.  Its
 * generation is chosen (sl_lastgen) but not yet published. */
static int slot_new(bpf_state_t *bs)
{
	uint64_t now;
	int s;

	if (bs->slot_fresh < bs->slot_max) {
		s = bs->slot_fresh++;
	} else if ((s = bs->free_head) >= 0) {
		now = ks_gethrtime();
		if (now < bs->slots[s].sl_freed + QUARANTINE_NS)
			usleep((useconds_t)((bs->slots[s].sl_freed +
			    QUARANTINE_NS - now) / 1000 + 1));
		bs->free_head = bs->slots[s].sl_next;
		if (bs->free_head < 0)
			bs->free_tail = -1;
		bs->slot_reused++;
	} else if (bs->nidle > 0) {		/* close an idle stub, wait */
		for (s = 0; !bs->slots[s].sl_idle; s++)
			;
		close_later(bs, bs->slots[s].sl_efd);
		slot_free(bs, s);
		bs->nidle--;
		return slot_new(bs);
	} else {
		return -1;
	}
	return s;
}

/* No record reaches s's owner any more (slot_lk). */
static void slot_unpublish(bpf_state_t *bs, int s)
{
	__atomic_store_n(&bs->slots[s].sl_gen, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&bs->slots[s].sl_cb, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&bs->slots[s].sl_arg, NULL, __ATOMIC_RELAXED);
}

/* Give s up (slot_lk): it joins the free FIFO. */
static void slot_free(bpf_state_t *bs, int s)
{
	slot_unpublish(bs, s);
	bs->slots[s].sl_efd = -1;
	bs->slots[s].sl_stub = 0;
	bs->slots[s].sl_idle = 0;
	bs->slots[s].sl_sys = 0;
	bs->slots[s].sl_freed = ks_gethrtime();
	bs->slots[s].sl_next = -1;
	if (bs->free_tail >= 0)
		bs->slots[bs->free_tail].sl_next = s;
	else
		bs->free_head = s;
	bs->free_tail = s;
}

/* An idle stub on tracepoint tpid, taken (slot_lk): its slot or -1. */
static int idle_take(bpf_state_t *bs, int tpid)
{
	for (int s = 0; bs->nidle > 0 && s < bs->slot_fresh; s++)
		if (bs->slots[s].sl_idle && bs->slots[s].sl_tpid == tpid) {
			bs->slots[s].sl_idle = 0;
			bs->nidle--;
			return s;
		}
	return -1;
}

/* Keep released stub s attached for its tracepoint (slot_lk)?  1 if
 * kept (idle), 0 if the caller closes it. */
static int idle_keep(bpf_state_t *bs, int s)
{
	int n = 0;

	for (int i = 0; i < bs->slot_fresh && bs->nidle < IDLE_MAX; i++)
		n += bs->slots[i].sl_idle &&
		    bs->slots[i].sl_tpid == bs->slots[s].sl_tpid;
	if (bs->nidle >= IDLE_MAX || n >= IDLE_PER_TP)
		return 0;
	slot_unpublish(bs, s);
	bs->slots[s].sl_idle = 1;
	bs->nidle++;
	return 1;
}

/* The owner's callback goes live (slot_lk): cb/arg, then sl_gen, a new
 * generation. */
static void slot_publish(bpf_state_t *bs, int s, prov_perf_cb_t *cb, void *arg)
{
	if (++bs->slots[s].sl_lastgen == 0)
		bs->slots[s].sl_lastgen = 1;
	__atomic_store_n(&bs->slots[s].sl_cb, cb, __ATOMIC_RELAXED);
	__atomic_store_n(&bs->slots[s].sl_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&bs->slots[s].sl_gen, bs->slots[s].sl_lastgen,
	    __ATOMIC_RELEASE);
}

/* Load prog for slot s where t says; the slot's efd, 0 when it has none
 * (bpf_sys.c's arrays), -1 if it did not load. */
static int load_at(bpf_state_t *bs, const target_t *t, struct bpf_insn *prog,
    int n, int s)
{
	int efd;

	if (t->map >= 0) {
		bs->slots[s].sl_sys = 1 + t->ret;
		return prov_bpf_fload_at(prog, n, t->map, t->key, s) == 0 ?
		    0 : -1;
	}
	efd = prov_bpf_fload(prog, n, t->tpid, s);	/* filterable route */
	bs->slots[s].sl_stub = efd >= 0;
	bs->slots[s].sl_tpid = t->tpid;
	if (efd < 0)
		efd = prov_bpf_load_attach(prog, n, (uint64_t)t->tpid);
	return efd;
}

/* The program for slot s's current generation (capture: 0 copy, 1
 * string, 2 argv); its length. */
static int build(bpf_state_t *bs, struct bpf_insn *p, int s, int capture,
    int recsize, int stroff, int outmap)
{
	uint64_t tag = (uint64_t)bs->slots[s].sl_lastgen << 32 | (uint32_t)s;

	if (capture == 2)
		return build_argv(p, tag, outmap, stroff);
	if (capture)
		return build_capture(p, tag, outmap, stroff, recsize);
	return build_copy(p, tag, outmap, recsize);
}

/* Take idle stub s over for a new owner (slot_lk); 0, or -1 (s's owner
 * fields are then unpublished again). */
static int revive(bpf_state_t *bs, int s, int capture, int recsize, int stroff,
    int outmap, prov_perf_cb_t *cb, void *arg)
{
	struct bpf_insn prog[NINSN];
	int n;

	slot_publish(bs, s, cb, arg);
	n = build(bs, prog, s, capture, recsize, stroff, outmap);
	if (prov_bpf_frevive(prog, n, s) != 0) {
		slot_unpublish(bs, s);
		return -1;
	}
	ioctl(bs->slots[s].sl_efd, PERF_EVENT_IOC_ENABLE, 0);
	bs->slot_reused++;
	return 0;
}

static int attach(bpf_state_t *bs, const target_t *t, int capture, int recsize,
    int stroff, int chain, prov_perf_cb_t *cb, void *arg)
{
	struct bpf_insn prog[NINSN];
	int s, n = 0, efd, outmap;

	chain &= PROV_SAMPLE_CHAIN | PROV_SAMPLE_UREGS;
	pthread_mutex_lock(&bs->outlk);
	if (bs->bpf_broken || out_start(bs, chain) != 0) {
		bs->bpf_broken = 1;
		pthread_mutex_unlock(&bs->outlk);
		return -1;
	}
	outmap = bs->outmaps[chain];
	pthread_mutex_unlock(&bs->outlk);
	if (t->map >= 0 && (n = prov_bpf_sys_prologue(prog)) < 0)
		return -1;
	pthread_mutex_lock(&bs->slot_lk);
	s = t->map < 0 ? idle_take(bs, t->tpid) : -1;
	if (s >= 0) {
		if (revive(bs, s, capture, recsize, stroff, outmap, cb,
		    arg) == 0) {
			pthread_mutex_unlock(&bs->slot_lk);
			return s;
		}
		/* a fresh one instead */
		close_later(bs, bs->slots[s].sl_efd);
		slot_free(bs, s);
	}
	if ((s = slot_new(bs)) < 0) {
		pthread_mutex_unlock(&bs->slot_lk);
		return -1;
	}
	bs->slots[s].sl_efd = -1;
	bs->slots[s].sl_sys = 0;
	slot_publish(bs, s, cb, arg);
	n += build(bs, prog + n, s, capture, recsize, stroff, outmap);
	if ((efd = load_at(bs, t, prog, n, s)) < 0) {
		slot_free(bs, s);
		pthread_mutex_unlock(&bs->slot_lk);
		return -1;
	}
	bs->slots[s].sl_efd = efd;
	pthread_mutex_unlock(&bs->slot_lk);
	return s;
}

int prov_bpf_copy(int tpid, int recsize, int chain, prov_perf_cb_t *cb,
    void *arg)
{
	bpf_state_t *bs = &bpf;
	int size = (recsize + 7) & ~7;

	if (size < 8)
		size = 8;
	if (size > MAX_COPY)
		size = MAX_COPY;
	return attach(bs, &(target_t){ tpid, -1, 0, 0 }, 0, size, -1, chain, cb,
	    arg);
}

int prov_bpf_capture(int tpid, int recsize, int stroff, int chain,
    prov_perf_cb_t *cb, void *arg)
{
	bpf_state_t *bs = &bpf;

	if (stroff < 8 || stroff + 8 > recsize || recsize > 64)
		return -1;
	return attach(bs, &(target_t){ tpid, -1, 0, 0 }, 1, recsize, stroff,
	    chain, cb, arg);
}

int prov_bpf_sys(int ret, int nr, int recsize, int stroff, int chain,
    prov_perf_cb_t *cb, void *arg)
{
	bpf_state_t *bs = &bpf;
	target_t t = { -1, -1, nr, ret != 0 };
	int att;

	if (nr < 0 || recsize < 16 || recsize > 64 ||
	    (stroff >= 0 && (stroff < 16 || stroff + 8 > recsize)) ||
	    (t.map = prov_bpf_sys_map(t.ret)) < 0)
		return -1;
	if (stroff >= 0)
		att = attach(bs, &t, 1, recsize, stroff, chain, cb, arg);
	else
		att = attach(bs, &t, 0, (recsize + 7) & ~7, -1, chain, cb, arg);
	if (att < 0)
		sys_put(bs, t.ret);
	return att;
}

int prov_bpf_argv(int tpid, int argvoff, prov_perf_cb_t *cb, void *arg)
{
	bpf_state_t *bs = &bpf;

	if (argvoff < 8 || argvoff > 64)
		return -1;
	return attach(bs, &(target_t){ tpid, -1, 0, 0 }, 2, 0, argvoff, 0, cb,
	    arg);
}

/*
 * Closing a perf event that holds a BPF program unregisters it from its
 * tracepoint, which waits for RCU grace periods under a kernel-wide
 * mutex: about 60 ms a close here, one after the other even from many
 * threads, so releasing the 360 probes of syscall:::entry kept dtrace
 * from exiting for half a minute.  A released event is disabled and its
 * program's tail-call entry emptied at once (bpf_filter.c), so it costs
 * nothing more; its close is deferred.  prov_bpf_close_deferred() hands
 * what waits to a detached grandchild process that holds the last
 * references and closes them in the background, so the user gets the
 * prompt (and pipes their EOF) right away.
 */
static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* In the grandchild: close every fd but fds[0, n) (sorted) and the
 * pipe's read end, wait for the parent to drop its references (EOF),
 * then close fds: ours are now the last, the slow ones.  Only
 * async-signal-safe calls: the parent has other threads. */
static void reap(const int *fds, int n, int rd)
{
	unsigned lo = 0;
	char c;

	for (int i = 0; i <= n; i++) {
		unsigned next = i < n ? (unsigned)fds[i] : ~0U;

		if ((unsigned)rd >= lo && (unsigned)rd < next) {
			if ((unsigned)rd > lo)
				syscall(SYS_close_range, lo, (unsigned)rd - 1, 0);
			lo = (unsigned)rd + 1;
		}
		if (next > lo)
			syscall(SYS_close_range, lo, next - 1, 0);
		if (i < n)
			lo = next + 1;
	}
	while (read(rd, &c, 1) < 0 && errno == EINTR)
		;
	for (int i = 0; i < n; i++)
		close(fds[i]);
	_exit(0);
}

static void close_in_background(int *fds, int n)
{
	int p[2] = { -1, -1 };
	pid_t child;

	qsort(fds, (size_t)n, sizeof(int), cmp_int);
	child = pipe2(p, O_CLOEXEC) == 0 ? fork() : -1;
	if (child == 0) {
		if (fork() == 0)
			reap(fds, n, p[0]);
		_exit(0);
	}
	if (child > 0)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	for (int i = 0; i < n; i++)	/* fast while the grandchild holds */
		close(fds[i]);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);		/* EOF: the grandchild closes its own */
	}
}

/* Close the deferred events in the background (even one close here
 * would keep dtrace's exit ~80 ms). */
void prov_bpf_close_deferred(void)
{
	bpf_state_t *bs = &bpf;
	int fds[CLOSE_BATCH], n;

	pthread_mutex_lock(&bs->closelk);
	n = bs->ndeferred;
	memcpy(fds, bs->deferred, sizeof(int) * (size_t)n);
	bs->ndeferred = 0;
	pthread_mutex_unlock(&bs->closelk);
	if (n > 0)
		close_in_background(fds, n);
}

static void close_later(bpf_state_t *bs, int fd)
{
	pthread_mutex_lock(&bs->closelk);
	while (bs->ndeferred == CLOSE_BATCH) {	/* another thread filled it */
		pthread_mutex_unlock(&bs->closelk);
		prov_bpf_close_deferred();
		pthread_mutex_lock(&bs->closelk);
	}
	bs->deferred[bs->ndeferred++] = fd;
	pthread_mutex_unlock(&bs->closelk);
}

/* Drop a hold on bpf_sys.c's direction ret; the last detaches its
 * program, in the background (the tracepoint costs every system call
 * while it stays attached). */
static void sys_put(bpf_state_t *bs, int ret)
{
	int fd;

	if (prov_bpf_sys_put(ret, &fd) == 1) {
		close_later(bs, fd);
		prov_bpf_close_deferred();
	}
}

static int keep_idle = 1;

void prov_bpf_keep_idle(int on)
{
	keep_idle = on;
}

void prov_bpf_release(int att)
{
	bpf_state_t *bs = &bpf;
	int sys = 0;

	if (att < 0 || att >= MAX_SLOTS)
		return;
	pthread_mutex_lock(&bs->slot_lk);
	if (bs->slots[att].sl_gen == 0) {	/* not given */
		pthread_mutex_unlock(&bs->slot_lk);
		return;
	}
	if (bs->slots[att].sl_sys) {	/* an array entry: cheap to delete */
		sys = bs->slots[att].sl_sys;
		prov_bpf_funload(att);
	} else if (bs->slots[att].sl_efd > 0) {
		ioctl(bs->slots[att].sl_efd, PERF_EVENT_IOC_DISABLE, 0);
		prov_bpf_funload(att);
		if (bs->slots[att].sl_stub && keep_idle &&
		    idle_keep(bs, att)) {
			pthread_mutex_unlock(&bs->slot_lk);
			return;
		}
		close_later(bs, bs->slots[att].sl_efd);
	}
	slot_free(bs, att);
	pthread_mutex_unlock(&bs->slot_lk);
	if (sys)
		sys_put(bs, sys - 1);
}

void prov_bpf_set_maxslots(int n)
{
	bpf_state_t *bs = &bpf;

	pthread_mutex_lock(&bs->slot_lk);
	bs->slot_max = n > 0 && n < MAX_SLOTS ? n : MAX_SLOTS;
	pthread_mutex_unlock(&bs->slot_lk);
}

uint64_t prov_bpf_slots_reused(void)
{
	bpf_state_t *bs = &bpf;
	uint64_t n;

	pthread_mutex_lock(&bs->slot_lk);
	n = bs->slot_reused;
	pthread_mutex_unlock(&bs->slot_lk);
	return n;
}

uint32_t prov_bpf_caplen(int64_t pbr_len)
{
	int64_t max = (int64_t)sizeof(((prov_bpf_rec_t *)0)->pbr_str);

	if (pbr_len <= 0)
		return 0;
	return (uint32_t)(pbr_len < max ? pbr_len : max - 1);
}

void prov_bpf_shutdown(void)
{
	bpf_state_t *bs = &bpf;
	int fds[2], n = prov_bpf_sys_detach(fds);

	/* the raw_syscalls events first (closed with the others, in the
	 * background): then releasing syscall slots deletes array entries
	 * no stub needs any more */
	for (int i = 0; i < n; i++)
		close_later(bs, fds[i]);
	for (int i = 0; i < MAX_SLOTS; i++)
		prov_bpf_release(i);
	pthread_mutex_lock(&bs->slot_lk);
	for (int i = 0; i < MAX_SLOTS; i++)
		if (bs->slots[i].sl_idle) {
			close_later(bs, bs->slots[i].sl_efd);
			slot_free(bs, i);
			bs->nidle--;
		}
	pthread_mutex_unlock(&bs->slot_lk);
	prov_bpf_sys_close();
	prov_bpf_close_deferred();
	prov_bpf_rec_report();
	pthread_mutex_lock(&bs->outlk);
	for (int c = 0; c < NOUT; c++) {
		prov_perf_close(bs->outsrcs[c]);
		bs->outsrcs[c] = NULL;
		if (bs->outmaps[c] >= 0)
			close(bs->outmaps[c]);
		bs->outmaps[c] = -1;
	}
	pthread_mutex_unlock(&bs->outlk);
}
