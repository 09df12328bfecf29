/*
 * bpf_util.c - bpf(2), program loading, map creation and the load of a
 * probe argument, shared by the providers' BPF files (see bpf_util.h and
 * bpf_filter.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "bpf_util.h"
#include "bpf_filter.h"

long prov_bpf_call(int cmd, union bpf_attr *at)
{
	return syscall(SYS_bpf, cmd, at, sizeof(*at));
}

int prov_bpf_output_open(int sample, prov_perf_cb_t *cb, void *arg,
    prov_perf_src_t **srcp)
{
	struct perf_event_attr a;
	int ncpu = prov_perf_ncpus(), map;

	map = prov_bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4,
	    (uint32_t)ncpu, 0);
	if (map < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	if ((*srcp = prov_perf_open(&a, sample, cb, arg)) == NULL)
		goto fail;
	for (int c = 0; c < ncpu; c++) {
		union bpf_attr at;
		uint32_t key = (uint32_t)c;
		int fd = prov_perf_src_fd(*srcp, c);

		if (fd < 0)
			continue;
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)map;
		at.key = (uint64_t)(uintptr_t)&key;
		at.value = (uint64_t)(uintptr_t)&fd;
		if (prov_bpf_call(BPF_MAP_UPDATE_ELEM, &at) != 0)
			goto fail;
	}
	return map;
fail:
	prov_perf_close(*srcp);
	*srcp = NULL;
	close(map);
	return -1;
}

int prov_bpf_prog_load(const struct bpf_insn *p, int n)
{
	return prov_bpf_prog_load_as(p, n, BPF_PROG_TYPE_TRACEPOINT, 0);
}

int prov_bpf_prog_load_as(const struct bpf_insn *p, int n, uint32_t type,
    uint32_t eat)
{
	union bpf_attr at;
	int fd;

	memset(&at, 0, sizeof(at));
	at.prog_type = type;
	at.expected_attach_type = eat;
	at.insns = (uint64_t)(uintptr_t)p;
	at.insn_cnt = (uint32_t)n;
	at.license = (uint64_t)(uintptr_t)"GPL";
	fd = (int)prov_bpf_call(BPF_PROG_LOAD, &at);
	if (fd < 0 && getenv("DTUI_BPF_LOG") != NULL) {
		/* debugging: why the verifier refused it */
		static char log[65536];

		at.log_buf = (uint64_t)(uintptr_t)log;
		at.log_size = sizeof(log);
		at.log_level = 1;
		log[0] = '\0';
		(void)prov_bpf_call(BPF_PROG_LOAD, &at);
		fprintf(stderr, "dtrace: BPF program refused:\n%s\n", log);
	}
	return fd;
}

int prov_bpf_load_attach(const struct bpf_insn *p, int n, uint64_t tpid)
{
	struct perf_event_attr a;
	int pfd, efd;

	if ((pfd = prov_bpf_prog_load(p, n)) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = tpid;
	efd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (efd >= 0 && ioctl(efd, PERF_EVENT_IOC_SET_BPF, pfd) != 0) {
		close(efd);
		efd = -1;
	}
	close(pfd);			/* the event holds the program */
	return efd;
}

int prov_bpf_map_create(uint32_t type, uint32_t key_size,
    uint32_t value_size, uint32_t max_entries, uint32_t flags)
{
	union bpf_attr at;

	memset(&at, 0, sizeof(at));
	at.map_type = type;
	at.key_size = key_size;
	at.value_size = value_size;
	at.max_entries = max_entries;
	at.map_flags = flags;
	return (int)prov_bpf_call(BPF_MAP_CREATE, &at);
}

int prov_bpf_emit_arg(struct bpf_insn *p, const prov_bpf_argmap_t *am,
    int i)
{
	static const uint8_t sz[9] = { 0, BPF_B, BPF_H, 0, BPF_W, 0, 0, 0,
		BPF_DW };
	int size = am->pba_size[i], n = 0;

	p[n++] = ins(BPF_LDX | BPF_MEM | sz[size], 1, 6, am->pba_off[i], 0);
	if (am->pba_signed[i] == PROV_BPF_ERRRET) {
		/* r1 = -1 if r1 is in [-4095, -1], else unchanged */
		p[n++] = ins(BPF_JMP | BPF_JSGE | BPF_K, 1, 0, 2, 0);
		p[n++] = ins(BPF_JMP | BPF_JSLT | BPF_K, 1, 0, 1, -4095);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, -1);
	} else if (am->pba_signed[i] && size < 8) {
		p[n++] = ins(BPF_ALU64 | BPF_LSH | BPF_K, 1, 0, 0,
		    64 - 8 * size);
		p[n++] = ins(BPF_ALU64 | BPF_ARSH | BPF_K, 1, 0, 0,
		    64 - 8 * size);
	}
	return n;
}
