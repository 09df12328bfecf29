/*
 * umulti.c - uprobe_multi links (see umulti.h).
 *
 * One BPF program per output set (with or without call chains) runs at
 * every hit of every link:
 *
 *	r6 = ctx (struct pt_regs *)
 *	*(fp - 184) = get_attach_cookie(ctx)
 *	*(fp - 176 + 8i) = ctx[i]		for the 21 registers
 *	*(fp - 8) = get_func_ip(ctx)		(the probed address, also
 *						 for a return probe)
 *	perf_event_output(ctx, map, CURRENT_CPU, fp - 184, 184); return 0
 *
 * into a PERF_EVENT_ARRAY whose BPF_OUTPUT events are a perf.c source,
 * so the drain thread hands us the record with the sample's pid, tid,
 * time, CPU and call chain.  A site's cookie names its attachment slot,
 * the slot's generation and the site's index: records of a detached
 * link still in a ring carry an old generation and are dropped.  lk
 * guards the slots; the callback runs under it, so detach waits for a
 * callback in progress.  The kernel's own definitions (Linux 6.6) are
 * spelled out here: the installed headers predate them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include "umulti.h"
#include "../bpf/bpf_util.h"

#define ATTACH_UPROBE_MULTI	48	/* BPF_TRACE_UPROBE_MULTI */
#define UPROBE_MULTI_RETURN	1	/* BPF_F_UPROBE_MULTI_RETURN */
#define FUNC_GET_ATTACH_COOKIE	174
#define NREGS			21	/* struct pt_regs, uregs[] order */
#define RECSIZE			(8 * (NREGS + 2))	/* cookie, regs, ip */
#define FUNC_GET_FUNC_IP	173
#define MAXSLOTS		(1 << 16)
#define MAXSITES		(1 << 20)

/* union bpf_attr's link_create for uprobe_multi, as Linux 6.6 lays it;
 * as large as the union, whose size bpf(2) is given (the rest zero). */
union link_create_umulti {
	struct {
		uint32_t prog_fd, target_fd, attach_type, flags;
		uint64_t path, offsets, ref_ctr_offsets, cookies;
		uint32_t cnt, uflags, pid;
	} l;
	union bpf_attr whole;
};

struct prov_umulti {
	int um_slot;
	uint32_t um_gen;
	int um_link;
	prov_umulti_cb_t *um_cb;
	void *um_arg;
	int um_nsites;
	uint64_t *um_cookies;		/* the caller's, by site index */
};

static struct {
	pthread_mutex_t lk;
	int inited, ok;
	char why[256];
	int map[2], prog[2];		/* by PROV_SAMPLE_CHAIN */
	prov_perf_src_t *src[2];
	prov_umulti_t **slots;		/* guarded by lk */
	uint32_t gen;			/* guarded by lk */
} um = { .lk = PTHREAD_MUTEX_INITIALIZER, .map = { -1, -1 },
	 .prog = { -1, -1 } };

static void on_sample(void *arg, const prov_perf_sample_t *s)
{
	uint64_t rec[NREGS + 2];
	prov_umulti_t *u;
	uint32_t slot, gen, site;

	(void)arg;
	if (s->pps_raw == NULL || s->pps_rawlen < RECSIZE)
		return;
	memcpy(rec, s->pps_raw, RECSIZE);	/* the ring is 4-aligned */
	slot = (uint32_t)(rec[0] >> 40);
	gen = (uint32_t)(rec[0] >> 20) & 0xfffff;
	site = (uint32_t)rec[0] & 0xfffff;
	pthread_mutex_lock(&um.lk);
	if (slot < MAXSLOTS && um.slots != NULL &&
	    (u = um.slots[slot]) != NULL && u->um_gen == gen &&
	    (int)site < u->um_nsites)
		u->um_cb(u->um_arg, u->um_cookies[site], s, rec + 1,
		    rec[NREGS + 1]);
	pthread_mutex_unlock(&um.lk);
}

static int load(int map)
{
	struct bpf_insn p[64];
	union bpf_attr at;
	static char log[4096];
	int n = 0, fd;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, FUNC_GET_ATTACH_COOKIE);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -RECSIZE, 0);
	for (int i = 0; i < NREGS; i++) {
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 6, (int16_t)(8 * i),
		    0);
		p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 1,
		    (int16_t)(-RECSIZE + 8 + 8 * i), 0);
	}
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, FUNC_GET_FUNC_IP);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -8, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0, map);
	p[n++] = ins(0, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, -1); /* CURRENT_CPU */
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, -RECSIZE);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0, RECSIZE);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	memset(&at, 0, sizeof(at));
	at.prog_type = BPF_PROG_TYPE_KPROBE;
	at.expected_attach_type = ATTACH_UPROBE_MULTI;
	at.insns = (uint64_t)(uintptr_t)p;
	at.insn_cnt = (uint32_t)n;
	at.license = (uint64_t)(uintptr_t)"GPL";
	at.log_buf = (uint64_t)(uintptr_t)log;
	at.log_size = sizeof(log);
	at.log_level = 1;
	fd = (int)prov_bpf_call(BPF_PROG_LOAD, &at);
	if (fd < 0)
		snprintf(um.why, sizeof(um.why), "uprobe_multi program: %s",
		    strerror(errno));
	return fd;
}

/* The output map, its BPF_OUTPUT events and the program of set c. */
static int set_start(int c)
{
	struct perf_event_attr a;
	int ncpu = prov_perf_ncpus();

	um.map[c] = prov_bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4,
	    (uint32_t)ncpu, 0);
	if (um.map[c] < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	if ((um.src[c] = prov_perf_open(&a, c ? PROV_SAMPLE_CHAIN : 0,
	    on_sample, NULL)) == NULL)
		return -1;
	for (int i = 0; i < ncpu; i++) {
		union bpf_attr at;
		uint32_t key = (uint32_t)i;
		int fd = prov_perf_src_fd(um.src[c], i);

		if (fd < 0)
			continue;
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)um.map[c];
		at.key = (uint64_t)(uintptr_t)&key;
		at.value = (uint64_t)(uintptr_t)&fd;
		if (prov_bpf_call(BPF_MAP_UPDATE_ELEM, &at) != 0)
			return -1;
	}
	return (um.prog[c] = load(um.map[c])) >= 0 ? 0 : -1;
}

int prov_umulti_available(void)
{
	pthread_mutex_lock(&um.lk);
	if (!um.inited) {
		um.inited = 1;
		um.slots = calloc(MAXSLOTS, sizeof(*um.slots));
		/* a kernel without uprobe_multi refuses the program's
		 * expected attach type */
		if (um.slots != NULL && prov_is_privileged() &&
		    set_start(0) == 0 && set_start(1) == 0)
			um.ok = 1;
		else if (um.why[0] == '\0')
			snprintf(um.why, sizeof(um.why), "uprobes need root or "
			    "CAP_PERFMON");
	}
	pthread_mutex_unlock(&um.lk);
	if (!um.ok)
		ks_provider_error("%s", um.why);
	return um.ok;
}

prov_umulti_t *prov_umulti_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_umulti_cb_t *cb, void *arg)
{
	union link_create_umulti lc;
	uint64_t *offs, *cookies;
	prov_umulti_t *u;
	int slot = -1, c = (flags & PROV_SAMPLE_CHAIN) ? 1 : 0;

	if (!prov_umulti_available())
		return NULL;
	if (nsites <= 0 || nsites > MAXSITES || pid <= 0) {
		ks_provider_error("uprobe_multi: bad arguments");
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	offs = calloc((size_t)nsites, 8);
	cookies = calloc((size_t)nsites, 8);
	if (u == NULL || offs == NULL || cookies == NULL ||
	    (u->um_cookies = calloc((size_t)nsites, 8)) == NULL)
		goto nomem;
	pthread_mutex_lock(&um.lk);
	for (int i = 0; i < MAXSLOTS && slot < 0; i++)
		if (um.slots[i] == NULL)
			slot = i;
	if (slot < 0) {
		pthread_mutex_unlock(&um.lk);
		goto nomem;
	}
	um.gen = (um.gen + 1) & 0xfffff;
	u->um_slot = slot;
	u->um_gen = um.gen;
	u->um_cb = cb;
	u->um_arg = arg;
	u->um_nsites = nsites;
	for (int i = 0; i < nsites; i++) {
		offs[i] = sites[i].pus_offset;
		u->um_cookies[i] = sites[i].pus_cookie;
		cookies[i] = (uint64_t)slot << 40 | (uint64_t)u->um_gen << 20 |
		    (uint64_t)i;
	}
	um.slots[slot] = u;
	pthread_mutex_unlock(&um.lk);
	memset(&lc, 0, sizeof(lc));
	lc.l.prog_fd = (uint32_t)um.prog[c];
	lc.l.attach_type = ATTACH_UPROBE_MULTI;
	lc.l.path = (uint64_t)(uintptr_t)path;
	lc.l.offsets = (uint64_t)(uintptr_t)offs;
	lc.l.cookies = (uint64_t)(uintptr_t)cookies;
	lc.l.cnt = (uint32_t)nsites;
	lc.l.uflags = (flags & PROV_UPROBE_RETURN) ? UPROBE_MULTI_RETURN : 0;
	lc.l.pid = (uint32_t)pid;
	u->um_link = (int)prov_bpf_call(BPF_LINK_CREATE, &lc.whole);
	free(offs);
	free(cookies);
	if (u->um_link < 0) {
		ks_provider_error("%s: uprobe_multi link: %s", path,
		    strerror(errno));
		prov_umulti_detach(u);
		return NULL;
	}
	return u;
nomem:
	free(offs);
	free(cookies);
	if (u != NULL)
		free(u->um_cookies);
	free(u);
	ks_provider_error("uprobe_multi: out of memory");
	return NULL;
}

void prov_umulti_detach(prov_umulti_t *u)
{
	if (u == NULL)
		return;
	if (u->um_link >= 0)
		close(u->um_link);	/* the kernel removes the breakpoints */
	pthread_mutex_lock(&um.lk);
	um.slots[u->um_slot] = NULL;
	pthread_mutex_unlock(&um.lk);
	free(u->um_cookies);
	free(u);
}
