/*
 * uprobe_kern.c - predicates and aggregations of pid and usdt probes
 * checked in the kernel, as the tracepoint providers do (bpf_filter.c,
 * bpf_agg.c): a multi attachment's program starts with a dispatch on its
 * site's BPF cookie,
 *
 *   r6 = ctx; r3 = get_attach_cookie(ctx) >> 32      (the probe index)
 *   tail_call(ctx, progs, r3)
 *   record: emit {tag, cookie, probed address}        (no entry: as before)
 *
 * and entry k of the attachment's PROG_ARRAY is a bpf_filter.c slot of
 * probe k: its predicate (ks_probe_filter) in front of the record body,
 * or of bpf_agg.c's aggregating body when the shim's plan for the probe
 * allows it (a counted function costs no record per call).  Arguments
 * are often all distinct: a plan keyed on them keeps a budget of keys in
 * the kernel and spills the other firings to the record body behind it
 * (PROV_FV_SPILL), so the counts stay exact.  The slots' programs are
 * kprobe programs for uprobe_multi links, like the attachment's own (a
 * tail call needs the same type and attach type), whose context is the
 * probed registers: a pid entry or instruction probe's arguments are its
 * calling convention's registers there, a return probe's arg1 is rax, a
 * usdt probe's register operands the registers its sites agree on
 * (pus_regargs: pt_regs offsets as the filter's argument map); other
 * arguments are not filtered on (usdt's memory operands, a return's
 * offset), which keeps their comparisons out of the filter and their
 * keys out of the kernel's aggregations.
 *
 * Slots come from bpf_filter.c's uprobe range (PROV_BPF_USLOT0 on),
 * given here under lk.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "uprobe_impl.h"
#include "bpf_util.h"
#include "bpf_filter.h"

#define RECSIZE 24

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static unsigned char used[PROV_BPF_USLOTS];	/* lk: slots given */

/* x86_64 struct pt_regs: where rdi, rsi, rdx, rcx, r8, r9 are; rax. */
static const int16_t regoff[6] = { 112, 104, 96, 88, 72, 64 };
#define RAX_OFF 80

static int slot_new(void)
{
	int s = -1;

	pthread_mutex_lock(&lk);
	for (int i = 0; i < PROV_BPF_USLOTS && s < 0; i++)
		if (!used[i]) {
			used[i] = 1;
			s = PROV_BPF_USLOT0 + i;
		}
	pthread_mutex_unlock(&lk);
	return s;
}

static void slot_free(int s)
{
	pthread_mutex_lock(&lk);
	used[s - PROV_BPF_USLOT0] = 0;
	pthread_mutex_unlock(&lk);
}

int ukern_record(struct bpf_insn *p, const ukern_t *k, int outmap,
    uint64_t tag)
{
	int n = 0;

	if (k->uk_spec >= 0 && k->uk_scratch >= 0)
		return ucap_record(p, k, outmap, tag);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_attach_cookie);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -16, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_func_ip);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -8, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 1, 0, 0, (int32_t)tag);
	p[n++] = ins(0, 0, 0, 0, (int32_t)(tag >> 32));
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 1, -RECSIZE, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0,
	    outmap);
	p[n++] = ins(0, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, -1);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, -RECSIZE);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0, RECSIZE);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

int ukern_stub(struct bpf_insn *p, const ukern_t *k, int outmap,
    uint64_t tag)
{
	int n = 0;

	if (k->uk_map >= 0) {
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
		p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0,
		    BPF_FUNC_get_attach_cookie);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 3, 0, 0, 0);
		p[n++] = ins(BPF_ALU64 | BPF_RSH | BPF_K, 3, 0, 0, 32);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
		p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0,
		    k->uk_map);
		p[n++] = ins(0, 0, 0, 0, 0);
		p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	}
	return n + ukern_record(p + n, k, outmap, tag);
}

/* The index of probe id in v (n so far; adding it); -1 when full. */
static int probe_index(uint32_t *v, int *n, uint32_t id)
{
	for (int i = 0; i < *n; i++)
		if (v[i] == id)
			return i;
	if (*n == UK_MAXPROBES)
		return -1;
	v[*n] = id;
	return (*n)++;
}

/* The filter's argument map of the probe whose site is ps. */
static void argmap(const prov_uprobe_site_t *ps, prov_bpf_argmap_t *am)
{
	memset(am, 0, sizeof(*am));
	for (int a = 0; a < DTRACE_MAXARGS; a++)
		am->pba_off[a] = -1;
	for (int a = 0; a < 6 && ps->pus_regargs == PROV_UPROBE_ARGS_ENTRY;
	    a++) {
		am->pba_off[a] = regoff[a];
		am->pba_size[a] = 8;
	}
	if (ps->pus_regargs == PROV_UPROBE_ARGS_RETURN) {
		am->pba_off[1] = RAX_OFF;
		am->pba_size[1] = 8;
	}
	for (int a = 0; a < DTRACE_MAXARGS &&
	    ps->pus_regargs == PROV_UPROBE_ARGS_REGS; a++) {
		int r = ps->pus_argreg[a], sz = ps->pus_argsize[a];

		if (r < 0 || r >= PROV_UREG_COUNT ||
		    (sz != 1 && sz != 2 && sz != 4 && sz != 8))
			continue;
		am->pba_off[a] = (int16_t)(r * 8);	/* pt_regs order */
		am->pba_size[a] = (uint8_t)sz;
		am->pba_signed[a] = ps->pus_argsigned[a] ? 1 : 0;
	}
}

/* Entry i of k for probe id: its slot, filtered as its sites read (ps,
 * one of them). */
static int entry_new(ukern_t *k, int i, uint32_t id,
    const prov_uprobe_site_t *ps, int outmap, uint64_t tag)
{
	int regargs = ps->pus_regargs;
	struct bpf_insn body[UK_RECMAX];
	prov_bpf_argmap_t am;
	int n = ukern_record(body, k, outmap, tag), s = slot_new();

	k->uk_slots[i] = s;
	if (s < 0 || prov_bpf_fload_uprobe(body, n, k->uk_map, i, s) != 0) {
		if (s >= 0)
			slot_free(s);
		k->uk_slots[i] = -1;
		return -1;
	}
	argmap(ps, &am);
	prov_bpf_filter_probe(s, id, PROV_FV_TASK | PROV_FV_ONE |
	    PROV_FV_SPILL | (regargs ? PROV_FV(KS_FV_ARG) : 0),
	    regargs ? &am : NULL);
	return 0;
}

int ukern_new(ukern_t *k, const prov_uprobe_site_t *sites, int n,
    int outmap, uint64_t tag, uint64_t *bpfc)
{
	uint32_t ids[UK_MAXPROBES];
	const prov_uprobe_site_t *rep[UK_MAXPROBES];
	int nids = 0, full = 0;

	memset(k, 0, sizeof(*k));
	k->uk_map = -1;
	(void)ucap_maps(k, sites, n);	/* none: strings read late */
	for (int i = 0; i < n; i++) {
		int had = nids, x = sites[i].pus_probe != 0 ?
		    probe_index(ids, &nids, sites[i].pus_probe) : -1;

		if (x < 0)
			full = 1;
		else if (x == had)
			rep[x] = &sites[i];	/* its first site */
	}
	for (int i = 0; i < n; i++)
		bpfc[i] = (uint64_t)UK_NOPROBE << 32 | (uint32_t)i;
	if (full || nids == 0)
		return 0;		/* nothing filtered: plain records */
	if ((k->uk_slots = calloc((size_t)nids, sizeof(int))) == NULL ||
	    (k->uk_map = prov_bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, 4, 4,
	    (uint32_t)nids, 0)) < 0) {
		free(k->uk_slots);
		k->uk_slots = NULL;
		k->uk_map = -1;
		return 0;		/* no map: plain records */
	}
	k->uk_n = nids;
	for (int x = 0; x < nids; x++)
		(void)entry_new(k, x, ids[x], rep[x], outmap, tag);
	for (int i = 0; i < n; i++)
		bpfc[i] = (uint64_t)probe_index(ids, &nids,
		    sites[i].pus_probe) << 32 | (uint32_t)i;
	return 0;
}

void ukern_free(ukern_t *k)
{
	for (int i = 0; i < k->uk_n; i++)
		if (k->uk_slots[i] >= 0) {
			prov_bpf_funload(k->uk_slots[i]);
			slot_free(k->uk_slots[i]);
		}
	free(k->uk_slots);
	if (k->uk_map >= 0)
		close(k->uk_map);
	ucap_free(k);
	memset(k, 0, sizeof(*k));
	k->uk_map = -1;
	k->uk_spec = k->uk_scratch = -1;
}
