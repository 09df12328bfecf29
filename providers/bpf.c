/*
 * bpf.c - capturing a system call's string argument at event time with a
 * small BPF program, so copyinstr() of e.g. openat's path reads back what
 * the process passed even if it reused the buffer before the drain thread
 * got to the record.
 *
 * One BPF_OUTPUT perf event per CPU writes into that CPU's ring (a normal
 * prov_perf_src_t) and fills a PERF_EVENT_ARRAY map.  For each capturing
 * probe a program is loaded and attached to a counting (non-sampling)
 * event on the syscall's tracepoint; it runs on every hit on every CPU
 * and emits one fixed-size record (struct prov_bpf_rec) through
 * bpf_perf_event_output(BPF_F_CURRENT_CPU), then returns 1 so that other
 * perf events on the same tracepoint (sdt) still see their samples.
 *
 * The program, in BPF assembly (r6 = ctx, the syscall's parameter block:
 * regs pointer, nr, args[6], laid out as the format file says):
 *
 *	r6 = r1; *(u64 *)(fp - 336) = tag; copy ctx[8..recsize) to fp - 320
 *	r0 = probe_read_user_str(fp - 264, 256, *(u64 *)(r6 + stroff))
 *	*(u64 *)(fp - 8) = r0
 *	perf_event_output(r6, map, BPF_F_CURRENT_CPU, fp - 336, 336)
 *	return 1
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "prov_impl.h"

#define NINSN 64

static int outmap = -1;
static prov_perf_src_t *outsrc;
static int bpf_broken;			/* tried and failed: do not retry */

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

/* Emit the program above into p; returns the instruction count. */
static int build(struct bpf_insn *p, uint64_t tag, int map, int stroff,
    int recsize)
{
	int n = 0;

	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, 1, 0, 0, (int32_t)tag);
	p[n++] = insn(0, 0, 0, 0, (int32_t)(tag >> 32));
	p[n++] = insn(BPF_STX | BPF_MEM | BPF_DW, 10, 1, -336, 0);
	p[n++] = insn(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -328, 0);
	for (int i = 1; i < 8; i++) {
		if (8 * i + 8 > recsize) {	/* the kernel refuses reads
						 * past the record */
			p[n++] = insn(BPF_ST | BPF_MEM | BPF_DW, 10, 0,
			    (int16_t)(-328 + 8 * i), 0);
			continue;
		}
		p[n++] = insn(BPF_LDX | BPF_MEM | BPF_DW, 1, 6, (int16_t)(8 * i),
		    0);
		p[n++] = insn(BPF_STX | BPF_MEM | BPF_DW, 10, 1,
		    (int16_t)(-328 + 8 * i), 0);
	}
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -264);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 256);
	p[n++] = insn(BPF_LDX | BPF_MEM | BPF_DW, 3, 6, (int16_t)stroff, 0);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0,
	    BPF_FUNC_probe_read_user_str);
	p[n++] = insn(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -8, 0);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0, map);
	p[n++] = insn(0, 0, 0, 0, 0);
	p[n++] = insn(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, -1);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, -336);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0,
	    (int32_t)sizeof(prov_bpf_rec_t));
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

/* Create the output map and the BPF_OUTPUT events on first use. */
static int out_start(prov_perf_cb_t *cb)
{
	struct perf_event_attr a;
	union bpf_attr at;
	int ncpu = prov_perf_ncpus();

	if (outmap >= 0)
		return 0;
	memset(&at, 0, sizeof(at));
	at.map_type = BPF_MAP_TYPE_PERF_EVENT_ARRAY;
	at.key_size = 4;
	at.value_size = 4;
	at.max_entries = (uint32_t)ncpu;
	outmap = (int)sys_bpf(BPF_MAP_CREATE, &at);
	if (outmap < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	outsrc = prov_perf_open(&a, prov_perf_wants_stack(DTRACE_IDNONE), cb,
	    NULL);
	if (outsrc == NULL)
		goto fail;
	for (int c = 0; c < ncpu; c++) {
		uint32_t key = (uint32_t)c;
		int fd = prov_perf_src_fd(outsrc, c);

		if (fd < 0)
			continue;
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)outmap;
		at.key = (uint64_t)(uintptr_t)&key;
		at.value = (uint64_t)(uintptr_t)&fd;
		if (sys_bpf(BPF_MAP_UPDATE_ELEM, &at) != 0)
			goto fail;
	}
	return 0;
fail:
	prov_perf_close(outsrc);
	outsrc = NULL;
	close(outmap);
	outmap = -1;
	return -1;
}

int prov_bpf_capture(int tpid, int recsize, int stroff, uint64_t tag,
    prov_perf_cb_t *cb)
{
	struct bpf_insn prog[NINSN];
	struct perf_event_attr a;
	union bpf_attr at;
	int pfd, efd;

	if (bpf_broken || out_start(cb) != 0) {
		bpf_broken = 1;
		return -1;
	}
	memset(&at, 0, sizeof(at));
	at.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	at.insns = (uint64_t)(uintptr_t)prog;
	at.insn_cnt = (uint32_t)build(prog, tag, outmap, stroff, recsize);
	at.license = (uint64_t)(uintptr_t)"GPL";
	pfd = (int)sys_bpf(BPF_PROG_LOAD, &at);
	if (pfd < 0) {
		bpf_broken = 1;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)tpid;
	efd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (efd < 0 || ioctl(efd, PERF_EVENT_IOC_SET_BPF, pfd) != 0) {
		if (efd >= 0)
			close(efd);
		close(pfd);
		return -1;
	}
	close(pfd);			/* the event holds the program */
	return efd;
}

void prov_bpf_release(int efd)
{
	if (efd >= 0)
		close(efd);
}
