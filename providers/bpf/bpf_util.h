/*
 * bpf_util.h - the few bpf(2) building blocks every BPF file of the
 * providers uses (bpf.c, bpf_filter.c, bpf_sys.c, bpf_agg.c): the system
 * call, one instruction, loading a tracepoint program, making a map.
 * Private to providers/.
 */
#ifndef PROV_BPF_UTIL_H
#define PROV_BPF_UTIL_H

#include <stdint.h>
#include <linux/bpf.h>
#include "prov_impl.h"

/* bpf(2): its result, -1 with errno on failure. */
long prov_bpf_call(int cmd, union bpf_attr *at);

/* Load n instructions as a GPL tracepoint program: its fd, or -1. */
int prov_bpf_prog_load(const struct bpf_insn *p, int n);
/* The same as a program of type (BPF_PROG_TYPE_*) expecting attach type
 * eat (0: none). */
int prov_bpf_prog_load_as(const struct bpf_insn *p, int n, uint32_t type,
    uint32_t eat);

/* Load n instructions (as prov_bpf_prog_load) and attach them to a
 * counting perf event on tracepoint tpid, so the program runs for its
 * hits on every CPU: the event's fd (it holds the program), or -1. */
int prov_bpf_load_attach(const struct bpf_insn *p, int n, uint64_t tpid);

/* Make a map: its fd, or -1. */
int prov_bpf_map_create(uint32_t type, uint32_t key_size,
    uint32_t value_size, uint32_t max_entries, uint32_t flags);

/*
 * Where programs' bpf_perf_event_output records go: a PERF_EVENT_ARRAY
 * map holding a BPF_OUTPUT perf event of each CPU, whose records perf.c's
 * drain thread hands to cb(arg, sample); the events sample what sample
 * says (PROV_SAMPLE_* bits) besides the record.  The map's fd with the
 * events in *srcp, or -1 with nothing left open.
 */
int prov_bpf_output_open(int sample, prov_perf_cb_t *cb, void *arg,
    prov_perf_src_t **srcp);

/* One instruction (the code generators' short name). */
static inline struct bpf_insn ins(uint8_t code, uint8_t dst, uint8_t src,
    int16_t off, int32_t imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src,
	    .off = off, .imm = imm };

	return i;
}

#endif /* PROV_BPF_UTIL_H */
