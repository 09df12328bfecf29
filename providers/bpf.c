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
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include "prov_impl.h"
#include "bpf_filter.h"

#define NINSN 96
#define MAX_SLOTS 4096
#define MAX_COPY 440

typedef struct slot {
	prov_perf_cb_t *sl_cb;		/* NULL: free */
	void *sl_arg;
	int sl_efd;			/* attachment event */
	int sl_sys;			/* in bpf_sys.c's arrays: its
					 * direction + 1, else 0 */
} slot_t;

/* Where a program runs: tracepoint tpid, or (map >= 0) entry key of
 * bpf_sys.c's dispatch array map. */
typedef struct target {
	int tpid;
	int map, key, ret;
} target_t;

/* Output events and maps by what they sample (PROV_SAMPLE_* bits): [0]
 * nothing more, [1] call chains, [2] user registers, [3] both. */
#define NOUT 4
static int outmaps[NOUT] = { -1, -1, -1, -1 };
static prov_perf_src_t *outsrcs[NOUT];
static int bpf_broken;			/* tried and failed: do not retry */
static slot_t slots[MAX_SLOTS];

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src,
    int16_t off, int32_t imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src,
	    .off = off, .imm = imm };

	return i;
}

/* r1 = tag; *(u64 *)(fp + at) = r1 (three instructions) */
static int emit_tag(struct bpf_insn *p, uint64_t tag, int16_t at)
{
	p[0] = insn(BPF_LD | BPF_DW | BPF_IMM, 1, 0, 0, (int32_t)tag);
	p[1] = insn(0, 0, 0, 0, (int32_t)(tag >> 32));
	p[2] = insn(BPF_STX | BPF_MEM | BPF_DW, 10, 1, at, 0);
	return 3;
}

/* perf_event_output(r6, map, CURRENT_CPU, fp + at, size); return 1 */
static int emit_output(struct bpf_insn *p, int map, int16_t at, int size)
{
	int n = 0;

	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0, map);
	p[n++] = insn(0, 0, 0, 0, 0);
	p[n++] = insn(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, -1);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, at);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0, size);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

/* get_current_comm(fp + at, 16) (four instructions) */
static int emit_comm(struct bpf_insn *p, int16_t at)
{
	p[0] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[1] = insn(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, at);
	p[2] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 16);
	p[3] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_comm);
	return 4;
}

/* The copy program: payload = the first size bytes of the record. */
static int build_copy(struct bpf_insn *p, uint64_t tag, int map, int size)
{
	int16_t data = (int16_t)(-8 - size), comm = (int16_t)(data - 16);
	int16_t top = (int16_t)(comm - 8);
	int n = 0;

	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_tag(p + n, tag, top);
	n += emit_comm(p + n, comm);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, data);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, size);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 3, 6, 0, 0);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel);
	p[n++] = insn(BPF_ST | BPF_MEM | BPF_DW, 10, 0, data, 0);
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

	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_tag(p + n, tag, top);
	n += emit_comm(p + n, (int16_t)(top + 8));
	p[n++] = insn(BPF_ST | BPF_MEM | BPF_DW, 10, 0, rec, 0);
	for (int i = 1; i < 8; i++) {
		if (8 * i + 8 > recsize) {	/* the kernel refuses reads
						 * past the record */
			p[n++] = insn(BPF_ST | BPF_MEM | BPF_DW, 10, 0,
			    (int16_t)(rec + 8 * i), 0);
			continue;
		}
		p[n++] = insn(BPF_LDX | BPF_MEM | BPF_DW, 1, 6, (int16_t)(8 * i),
		    0);
		p[n++] = insn(BPF_STX | BPF_MEM | BPF_DW, 10, 1,
		    (int16_t)(rec + 8 * i), 0);
	}
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, str);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 256);
	p[n++] = insn(BPF_LDX | BPF_MEM | BPF_DW, 3, 6, (int16_t)stroff, 0);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0,
	    BPF_FUNC_probe_read_user_str);
	p[n++] = insn(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -8, 0);
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

	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_tag(p + n, tag, top);
	n += emit_comm(p + n, (int16_t)(top + 8));
	p[n++] = insn(BPF_LDX | BPF_MEM | BPF_DW, 3, 6, (int16_t)argvoff, 0);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, ptrs);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0,
	    8 * PROV_ARGV_PTRS);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user);
	for (int i = 0; i < PROV_ARGV_STRS; i++) {
		p[n++] = insn(BPF_LDX | BPF_MEM | BPF_DW, 3, 10,
		    (int16_t)(ptrs + 8 * i), 0);
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
		p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0,
		    strs + i * PROV_ARGV_LEN);
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0,
		    PROV_ARGV_LEN);
		p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0,
		    BPF_FUNC_probe_read_user_str);
	}
	n += emit_output(p + n, map, top, size);
	return n;
}

/* Drain thread: hand a program's record to its slot. */
static void out_sample(void *arg, const prov_perf_sample_t *s)
{
	prov_perf_sample_t copy = *s;
	prov_perf_cb_t *cb;
	uint64_t tag;

	char comm[16];

	if (s->pps_rawlen < 24)
		return;
	memcpy(&tag, s->pps_raw, 8);
	if (tag >= MAX_SLOTS)
		return;
	cb = __atomic_load_n(&slots[tag].sl_cb, __ATOMIC_ACQUIRE);
	if (cb == NULL)
		return;
	memcpy(comm, s->pps_raw + 8, 15);
	comm[15] = '\0';
	if (comm[0] != '\0' && s->pps_tid > 0)
		prov_pcache_comm(s->pps_tid, s->pps_pid, comm);
	copy.pps_raw = s->pps_raw + 24;
	copy.pps_rawlen = s->pps_rawlen - 24;
	cb(slots[tag].sl_arg, &copy);
}

static int map_cpu(int outmap, int cpu, int fd)
{
	union bpf_attr at;
	uint32_t key = (uint32_t)cpu;

	memset(&at, 0, sizeof(at));
	at.map_fd = (uint32_t)outmap;
	at.key = (uint64_t)(uintptr_t)&key;
	at.value = (uint64_t)(uintptr_t)&fd;
	return (int)sys_bpf(BPF_MAP_UPDATE_ELEM, &at);
}

/* Create an output map and its BPF_OUTPUT events on first use. */
static int out_start(int chain)
{
	struct perf_event_attr a;
	union bpf_attr at;
	int ncpu = prov_perf_ncpus();

	if (outmaps[chain] >= 0)
		return 0;
	memset(&at, 0, sizeof(at));
	at.map_type = BPF_MAP_TYPE_PERF_EVENT_ARRAY;
	at.key_size = 4;
	at.value_size = 4;
	at.max_entries = (uint32_t)ncpu;
	outmaps[chain] = (int)sys_bpf(BPF_MAP_CREATE, &at);
	if (outmaps[chain] < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	outsrcs[chain] = prov_perf_open(&a, chain, out_sample, NULL);
	if (outsrcs[chain] == NULL)
		goto fail;
	for (int c = 0; c < ncpu; c++) {
		int fd = prov_perf_src_fd(outsrcs[chain], c);

		if (fd >= 0 && map_cpu(outmaps[chain], c, fd) != 0)
			goto fail;
	}
	return 0;
fail:
	prov_perf_close(outsrcs[chain]);
	outsrcs[chain] = NULL;
	close(outmaps[chain]);
	outmaps[chain] = -1;
	return -1;
}

/* Load prog and attach it to tracepoint tpid; the attachment fd or -1. */
static int load_attach(struct bpf_insn *prog, int n, int tpid)
{
	struct perf_event_attr a;
	union bpf_attr at;
	int pfd, efd;

	memset(&at, 0, sizeof(at));
	at.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	at.insns = (uint64_t)(uintptr_t)prog;
	at.insn_cnt = (uint32_t)n;
	at.license = (uint64_t)(uintptr_t)"GPL";
	pfd = (int)sys_bpf(BPF_PROG_LOAD, &at);
	if (pfd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)tpid;
	efd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (efd >= 0 && ioctl(efd, PERF_EVENT_IOC_SET_BPF, pfd) != 0) {
		close(efd);
		efd = -1;
	}
	close(pfd);			/* the event holds the program */
	return efd;
}

/* Slots are never reused: records of a released attachment may still
 * sit in a ring and must not reach a new owner. */
static void sys_put(int ret);

static int slot_new(void)
{
	static int next;

	return next < MAX_SLOTS ? next++ : -1;
}

/* Load prog for slot s where t says; the slot's efd, 0 when it has none
 * (bpf_sys.c's arrays), -1 if it did not load. */
static int load_at(const target_t *t, struct bpf_insn *prog, int n, int s)
{
	int efd;

	if (t->map >= 0) {
		slots[s].sl_sys = 1 + t->ret;
		return prov_bpf_fload_at(prog, n, t->map, t->key, s) == 0 ?
		    0 : -1;
	}
	efd = prov_bpf_fload(prog, n, t->tpid, s);	/* filterable route */
	if (efd < 0)
		efd = load_attach(prog, n, t->tpid);
	return efd;
}

static int attach(const target_t *t, int capture, int recsize, int stroff,
    int chain, prov_perf_cb_t *cb, void *arg)
{
	struct bpf_insn prog[NINSN];
	int s, n = 0, efd, outmap;

	chain &= PROV_SAMPLE_CHAIN | PROV_SAMPLE_UREGS;
	if (bpf_broken || out_start(chain) != 0) {
		bpf_broken = 1;
		return -1;
	}
	outmap = outmaps[chain];
	if (t->map >= 0 && (n = prov_bpf_sys_prologue(prog)) < 0)
		return -1;
	if ((s = slot_new()) < 0)
		return -1;
	if (capture == 2)
		n += build_argv(prog + n, (uint64_t)s, outmap, stroff);
	else if (capture)
		n += build_capture(prog + n, (uint64_t)s, outmap, stroff,
		    recsize);
	else
		n += build_copy(prog + n, (uint64_t)s, outmap, recsize);
	slots[s].sl_arg = arg;
	slots[s].sl_efd = -1;
	slots[s].sl_sys = 0;
	__atomic_store_n(&slots[s].sl_cb, cb, __ATOMIC_RELEASE);
	if ((efd = load_at(t, prog, n, s)) < 0) {
		slots[s].sl_sys = 0;
		__atomic_store_n(&slots[s].sl_cb, NULL, __ATOMIC_RELEASE);
		return -1;
	}
	slots[s].sl_efd = efd;
	return s;
}

int prov_bpf_copy(int tpid, int recsize, int chain, prov_perf_cb_t *cb,
    void *arg)
{
	int size = (recsize + 7) & ~7;

	if (size < 8)
		size = 8;
	if (size > MAX_COPY)
		size = MAX_COPY;
	return attach(&(target_t){ tpid, -1, 0, 0 }, 0, size, -1, chain, cb,
	    arg);
}

int prov_bpf_capture(int tpid, int recsize, int stroff, int chain,
    prov_perf_cb_t *cb, void *arg)
{
	if (stroff < 8 || stroff + 8 > recsize || recsize > 64)
		return -1;
	return attach(&(target_t){ tpid, -1, 0, 0 }, 1, recsize, stroff, chain,
	    cb, arg);
}

int prov_bpf_sys(int ret, int nr, int recsize, int stroff, int chain,
    prov_perf_cb_t *cb, void *arg)
{
	target_t t = { -1, -1, nr, ret != 0 };
	int att;

	if (nr < 0 || recsize < 16 || recsize > 64 ||
	    (stroff >= 0 && (stroff < 16 || stroff + 8 > recsize)) ||
	    (t.map = prov_bpf_sys_map(t.ret)) < 0)
		return -1;
	if (stroff >= 0)
		att = attach(&t, 1, recsize, stroff, chain, cb, arg);
	else
		att = attach(&t, 0, (recsize + 7) & ~7, -1, chain, cb, arg);
	if (att < 0)
		sys_put(t.ret);
	return att;
}

int prov_bpf_argv(int tpid, int argvoff, prov_perf_cb_t *cb, void *arg)
{
	if (argvoff < 8 || argvoff > 64)
		return -1;
	return attach(&(target_t){ tpid, -1, 0, 0 }, 2, 0, argvoff, 0, cb, arg);
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
#define CLOSE_BATCH	1024		/* close when this many wait */

static pthread_mutex_t closelk = PTHREAD_MUTEX_INITIALIZER;
static int deferred[CLOSE_BATCH];
static int ndeferred;

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
	int fds[CLOSE_BATCH], n;

	pthread_mutex_lock(&closelk);
	n = ndeferred;
	memcpy(fds, deferred, sizeof(int) * (size_t)n);
	ndeferred = 0;
	pthread_mutex_unlock(&closelk);
	if (n > 0)
		close_in_background(fds, n);
}

static void close_later(int fd)
{
	int full;

	pthread_mutex_lock(&closelk);
	deferred[ndeferred++] = fd;
	full = ndeferred == CLOSE_BATCH;
	pthread_mutex_unlock(&closelk);
	if (full)
		prov_bpf_close_deferred();
}

/* Drop a hold on bpf_sys.c's direction ret; the last detaches its
 * program, in the background (the tracepoint costs every system call
 * while it stays attached). */
static void sys_put(int ret)
{
	int fd;

	if (prov_bpf_sys_put(ret, &fd) == 1) {
		close_later(fd);
		prov_bpf_close_deferred();
	}
}

void prov_bpf_release(int att)
{
	if (att < 0 || att >= MAX_SLOTS)
		return;
	if (slots[att].sl_sys) {	/* an array entry: cheap to delete */
		prov_bpf_funload(att);
		__atomic_store_n(&slots[att].sl_cb, NULL, __ATOMIC_RELEASE);
		sys_put(slots[att].sl_sys - 1);
		slots[att].sl_sys = 0;
		return;
	}
	if (slots[att].sl_efd <= 0)
		return;
	ioctl(slots[att].sl_efd, PERF_EVENT_IOC_DISABLE, 0);
	close_later(slots[att].sl_efd);
	prov_bpf_funload(att);
	__atomic_store_n(&slots[att].sl_cb, NULL, __ATOMIC_RELEASE);
	slots[att].sl_efd = -1;
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
	int fds[2], n = prov_bpf_sys_detach(fds);

	/* the raw_syscalls events first (closed with the others, in the
	 * background): then releasing syscall slots deletes array entries
	 * no stub needs any more */
	for (int i = 0; i < n; i++)
		close_later(fds[i]);
	for (int i = 0; i < MAX_SLOTS; i++)
		prov_bpf_release(i);
	prov_bpf_sys_close();
	prov_bpf_close_deferred();
	for (int c = 0; c < NOUT; c++) {
		prov_perf_close(outsrcs[c]);
		outsrcs[c] = NULL;
		if (outmaps[c] >= 0)
			close(outmaps[c]);
		outmaps[c] = -1;
	}
}
