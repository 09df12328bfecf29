/*
 * bpf_rec.c - records built in the kernel, for probes whose one enabled
 * clause only traces values a BPF program has at the event (the shim's
 * ks_recplan_t, kernel-shim/recplan.c).
 *
 * bpf_filter.c asks prov_bpf_rec_body() for a record body in place of a
 * slot's own body (behind the same filter, which is then exactly the
 * clause's predicate) when the plan allows it.  The body writes
 *
 *   { u64 tag, u8 0, "KR", u8 1, u32 plan id, u64 0,   (24 bytes)
 *     the record: u32 epid, u32 timestamp hi, u32 lo, data records }
 *
 * on the BPF stack below fp - 16 (or, larger than the stack allows, up
 * to BIG bytes, in the value of a per-CPU scratch map: tracing programs
 * do not nest on a CPU), zeroed first, every value stored at its record
 * offset with its record size (strings: the task's comm with
 * get_current_comm, constants by immediate stores, zero-padded by the
 * zeroing), and hands it, up to its last byte that may be nonzero
 * (sent_len: a 256-byte string's zeros are not sent), to the slot's
 * output map (the per-CPU perf rings bpf.c drains) with
 * bpf_perf_event_output(BPF_F_CURRENT_CPU).  It returns 0: no perf
 * sample is built for the tracepoint's own counting event (as
 * bpf_agg.c's bodies).
 *
 * The drain (bpf.c's out_sample) reads the tag as for any record, then
 * the 16 bytes where other records carry the comm: a comm always has a
 * NUL in them and is NUL-padded after it, so a 0 followed by "KR" can
 * only be this marker.  It passes the record to ks_krec_commit, which
 * copies it into the consumer's buffer of the CPU the event ran on:
 * records keep their order per CPU, drops are counted as the shim's own
 * firings count them, and no DIF runs in user space.
 *
 * timestamp and the header's timestamp are bpf_ktime_get_ns(), the
 * CLOCK_MONOTONIC the perf samples (and so the shim's firings) carry.
 *
 * Plans (rplans[id - 1]: consumer, epid, probe, size) are made once per
 * (consumer, epid, probe) and kept for the whole run, published with a
 * release store: a record of an old plan still in a ring names an ECB
 * that ks_krec_commit finds gone, and is dropped as a firing of a
 * disabled ECB is.
 *
 * DTUI_REC_KERNEL=0 keeps every record in the shim (recplan.c);
 * DTUI_REC_KERNEL=2 says at shutdown how many records the kernel built
 * (tests).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bpf_rec.h"
#include "bpf_util.h"
#include "providers.h"

#define MAXPLANS 4096
#define MARK 0x01524b00u		/* bytes 0, 'K', 'R', 1 */
#define HDR 24				/* tag, marker, pad */
#define ROOM 472			/* stack bytes below fp - 16 the
					 * record may use (PROV_BPF_COMM_AT
					 * is below) */
#define BIG 1024			/* larger ones: a per-CPU scratch */
#define TS_AT (-16)			/* fp offset of the saved time */

typedef struct rplan {
	uint32_t rp_serial;
	dtrace_epid_t rp_epid;
	dtrace_id_t rp_id;
	uint32_t rp_size;
	uint32_t rp_sent;		/* bytes of it the program sends */
} rplan_t;

/* The bytes of rp's record up to its last one that may be nonzero: the
 * header and each value to its end (a constant string to its NUL, the
 * comm to its 16 bytes).  The program sends only these (the rest of a
 * 256-byte string is zeros), ks_krec_commit zero-fills the rest. */
static uint32_t sent_len(const ks_recplan_t *rp)
{
	uint32_t end = 12;		/* sizeof (dtrace_rechdr_t) */

	for (int i = 0; i < rp->krp_nvals; i++) {
		const ks_krval_t *v = &rp->krp_vals[i];
		uint32_t n = v->kkv_kind == KS_KRV_STR ?
		    (uint32_t)strlen(v->kkv_str) + 1 :
		    v->kkv_kind == KS_KRV_COMM ? 16 : v->kkv_size;

		if (v->kkv_off + n > end)
			end = v->kkv_off + n;
	}
	return end < rp->krp_size ? end : rp->krp_size;
}

static struct {
	pthread_mutex_t lk;		/* nplans, writes of plans[] */
	rplan_t *plans[MAXPLANS];	/* release store, acquire load */
	int nplans;
	uint64_t delivered;		/* records committed (atomic) */
	int scratch;			/* lk: PERCPU_ARRAY of one BIG-byte
					 * value, -1 none yet */
} recs = { .lk = PTHREAD_MUTEX_INITIALIZER, .scratch = -1 };

/* The scratch map, made on first use: its fd, or -1. */
static int scratch_map(void)
{
	int fd;

	pthread_mutex_lock(&recs.lk);
	if (recs.scratch < 0)
		recs.scratch = prov_bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY,
		    4, BIG, 1, 0);
	fd = recs.scratch;
	pthread_mutex_unlock(&recs.lk);
	return fd;
}

/* The id (from 1) of the plan for these, made if new; 0 if none left. */
static uint32_t plan_id(const ks_recplan_t *rp, dtrace_id_t id)
{
	rplan_t *p;
	uint32_t got = 0;

	pthread_mutex_lock(&recs.lk);
	for (int i = 0; i < recs.nplans && got == 0; i++)
		if (recs.plans[i]->rp_serial == rp->krp_serial &&
		    recs.plans[i]->rp_epid == rp->krp_epid &&
		    recs.plans[i]->rp_id == id &&
		    recs.plans[i]->rp_size == rp->krp_size)
			got = (uint32_t)i + 1;
	if (got == 0 && recs.nplans < MAXPLANS &&
	    (p = calloc(1, sizeof(*p))) != NULL) {
		p->rp_serial = rp->krp_serial;
		p->rp_epid = rp->krp_epid;
		p->rp_id = id;
		p->rp_size = rp->krp_size;
		p->rp_sent = sent_len(rp);
		__atomic_store_n(&recs.plans[recs.nplans], p, __ATOMIC_RELEASE);
		got = (uint32_t)++recs.nplans;
	}
	pthread_mutex_unlock(&recs.lk);
	return got;
}

/*
 * Commit a record; when the consumer's switch buffer is full, wait for
 * it to switch (up to WAIT_NS) instead of dropping at once.  The drain
 * thread then leaves the following records in the perf rings, which
 * hold far more of them (a record there is its sent bytes, in the
 * buffer all of them): a burst the consumer can format a moment later
 * is not lost.  A consumer that does not switch within WAIT_NS is not
 * waited for again for NOWAIT_NS, and its records drop as before,
 * counted as the shim counts them.  (The shim's own firings are run by
 * the drain thread itself, which is slower than the consumer: they
 * need no such wait.)
 */
#define WAIT_NS 50000000ull
#define NOWAIT_NS 200000000ull
#define NAP_NS 200000L

static void commit(const rplan_t *p, const void *raw, unsigned cpu)
{
	static uint64_t nowait_until;	/* drain thread only */
	struct timespec nap = { 0, NAP_NS };
	uint64_t start = 0, now;

	while (ks_krec_commit(p->rp_serial, p->rp_epid, p->rp_id, cpu, raw,
	    p->rp_sent, p->rp_size, 1) != 0) {
		now = ks_gethrtime();
		if (start == 0)
			start = now;
		if (now < nowait_until || now - start > WAIT_NS) {
			if (now >= nowait_until)
				nowait_until = now + NOWAIT_NS;
			(void)ks_krec_commit(p->rp_serial, p->rp_epid,
			    p->rp_id, cpu, raw, p->rp_sent, p->rp_size, 0);
			return;
		}
		nanosleep(&nap, NULL);
	}
}

int prov_bpf_rec_deliver(const void *mark, const void *raw, uint32_t len,
    unsigned cpu)
{
	uint32_t m, id;
	const rplan_t *p;

	memcpy(&m, mark, 4);
	if (m != MARK)
		return 0;
	memcpy(&id, (const char *)mark + 4, 4);
	if (id == 0 || id > MAXPLANS ||
	    (p = __atomic_load_n(&recs.plans[id - 1], __ATOMIC_ACQUIRE)) ==
	    NULL || len < p->rp_sent)
		return 1;
	commit(p, raw, cpu);
	__atomic_add_fetch(&recs.delivered, 1, __ATOMIC_RELAXED);
	return 1;
}

void prov_bpf_rec_report(void)
{
	const char *e = getenv("DTUI_REC_KERNEL");

	if (e != NULL && strcmp(e, "2") == 0)
		fprintf(stderr, "dtrace: %llu records built in the kernel\n",
		    (unsigned long long)__atomic_load_n(&recs.delivered,
		    __ATOMIC_RELAXED));
}

/* Can the slot compute every atom of every term of f exactly? */
static int filter_exact(const ks_filter_t *f, unsigned vars,
    const prov_bpf_argmap_t *am)
{
	if (f == NULL || f->kf_always || f->kf_nterms <= 0)
		return 0;
	for (int t = 0; t < f->kf_nterms; t++)
		for (int i = 0; i < f->kf_terms[t].kft_natoms; i++)
			if (!prov_bpf_atom_ok(&f->kf_terms[t].kft_atoms[i],
			    vars, am))
				return 0;
	return 1;
}

int prov_bpf_rec_plan(dtrace_id_t id, unsigned vars,
    const prov_bpf_argmap_t *am, const ks_filter_t *f, ks_recplan_t *rp)
{
	unsigned need;

	if (!(vars & PROV_FV_ONE) || ks_probe_recplan(id, rp) != 0 ||
	    !rp->krp_ok || rp->krp_size + HDR > BIG)
		return 0;
	need = rp->krp_vars & ~(1u << KS_FV_ARG);
	if ((need & ~vars) != 0)
		return 0;
	for (int i = 0; i < DTRACE_MAXARGS; i++)
		if ((rp->krp_args & (1u << i)) && (am == NULL ||
		    !(vars & PROV_FV(KS_FV_ARG)) || am->pba_off[i] < 8 ||
		    am->pba_skind[i] != 0 || am->pba_ustr == i + 1))
			return 0;
	if (rp->krp_args >> DTRACE_MAXARGS)
		return 0;
	return !rp->krp_pred || filter_exact(f, vars, am);
}

/* The tag and output map of the slot's own body: its first ld_imm64 of
 * r1 with no source (emit_tag) and its map load.  0, or -1. */
static int tag_map(const struct bpf_insn *b, int n, uint64_t *tag, int *map)
{
	int gottag = 0, gotmap = 0;

	for (int i = 0; i + 1 < n && !(gottag && gotmap); i++) {
		if (b[i].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (!gottag && b[i].dst_reg == 1 && b[i].src_reg == 0) {
			*tag = (uint32_t)b[i].imm |
			    (uint64_t)(uint32_t)b[i + 1].imm << 32;
			gottag = 1;
		} else if (!gotmap && b[i].src_reg == BPF_PSEUDO_MAP_FD) {
			*map = b[i].imm;
			gotmap = 1;
		}
		i++;			/* the second half */
	}
	return gottag && gotmap ? 0 : -1;
}

static int imm64(struct bpf_insn *p, int reg, uint64_t v)
{
	p[0] = ins(BPF_LD | BPF_DW | BPF_IMM, (uint8_t)reg, 0, 0, (int32_t)v);
	p[1] = ins(0, 0, 0, 0, (int32_t)(v >> 32));
	return 2;
}

static int call(struct bpf_insn *p, int fn)
{
	p[0] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, fn);
	return 1;
}

/* Immediate stores of a constant string's words at r7 + at (the area is
 * zero already; the NUL and the padding stay). */
static int emit_str(struct bpf_insn *p, const char *s, int16_t at)
{
	size_t len = strlen(s);
	int n = 0;

	for (size_t i = 0; i < len; i += 4) {
		uint32_t w = 0;

		memcpy(&w, s + i, len - i < 4 ? len - i : 4);
		p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 7, 0,
		    (int16_t)(at + (int16_t)i), (int32_t)w);
	}
	return n;
}

/* r1 = the value v (not a string); fp + TS_AT holds the time, r8
 * pid_tgid, r9 uid_gid. */
static int emit_int(struct bpf_insn *p, const ks_krval_t *v,
    const prov_bpf_argmap_t *am)
{
	int n = 0;

	switch (v->kkv_kind) {
	case KS_KRV_PID:
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 8, 0, 0);
		p[n++] = ins(BPF_ALU64 | BPF_RSH | BPF_K, 1, 0, 0, 32);
		break;
	case KS_KRV_TID:
		p[n++] = ins(BPF_ALU | BPF_MOV | BPF_X, 1, 8, 0, 0);
		break;
	case KS_KRV_UID:
		p[n++] = ins(BPF_ALU | BPF_MOV | BPF_X, 1, 9, 0, 0);
		break;
	case KS_KRV_GID:
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 9, 0, 0);
		p[n++] = ins(BPF_ALU64 | BPF_RSH | BPF_K, 1, 0, 0, 32);
		break;
	case KS_KRV_CPU:
		n += call(p + n, BPF_FUNC_get_smp_processor_id);
		p[n++] = ins(BPF_ALU | BPF_MOV | BPF_X, 1, 0, 0, 0);
		break;
	case KS_KRV_ARG:
		n += prov_bpf_emit_arg(p + n, am, v->kkv_arg);
		break;
	case KS_KRV_TIMESTAMP:
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 1, 10, TS_AT, 0);
		break;
	default:			/* KS_KRV_INT */
		n += imm64(p + n, 1, v->kkv_val);
		break;
	}
	return n;
}

/* The values of the plan at r7 + rec. */
static int emit_vals(struct bpf_insn *p, const ks_recplan_t *rp,
    int16_t rec, const prov_bpf_argmap_t *am)
{
	static const uint8_t sz[9] = { 0, BPF_B, BPF_H, 0, BPF_W, 0, 0, 0,
		BPF_DW };
	int n = 0;

	for (int i = 0; i < rp->krp_nvals; i++) {
		const ks_krval_t *v = &rp->krp_vals[i];
		int16_t at = (int16_t)(rec + (int16_t)v->kkv_off);

		if (v->kkv_kind == KS_KRV_STR) {
			n += emit_str(p + n, v->kkv_str, at);
			continue;
		}
		if (v->kkv_kind == KS_KRV_COMM) {
			p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 7, 0, 0);
			p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, at);
			p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 16);
			n += call(p + n, BPF_FUNC_get_current_comm);
			continue;
		}
		n += emit_int(p + n, v, am);
		p[n++] = ins(BPF_STX | BPF_MEM | sz[v->kkv_size], 7, 1, at, 0);
	}
	return n;
}

/* r7 = where the record is built: the stack below fp + TS_AT, or (big)
 * the scratch map's value; the program returns 0 if that is missing. */
static int emit_base(struct bpf_insn *p, int big, int size, int smap)
{
	int n = 0;

	if (!big) {
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 7, 10, 0, 0);
		p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 7, 0, 0,
		    TS_AT - size);
		return n;
	}
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, -8, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, smap);
	p[n++] = ins(0, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -8);
	n += call(p + n, BPF_FUNC_map_lookup_elem);
	p[n++] = ins(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 2, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 7, 0, 0, 0);
	return n;
}

int prov_bpf_rec_body(struct bpf_insn *p, const ks_recplan_t *rp,
    dtrace_id_t id, const struct bpf_insn *body, int nb,
    const prov_bpf_argmap_t *am)
{
	uint32_t sent = sent_len(rp);
	int size = (int)((HDR + sent + 7) & ~7u), n = 0, map = -1;
	int big = size > ROOM, smap = big ? scratch_map() : -1;
	const int16_t r = HDR;
	uint64_t tag = 0;
	uint32_t pid;

	if (size > BIG || (big && smap < 0) ||
	    tag_map(body, nb, &tag, &map) != 0 ||
	    (pid = plan_id(rp, id)) == 0)
		return 0;
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	n += emit_base(p + n, big, size, smap);
	for (int off = 0; off < size; off += 8)
		p[n++] = ins(BPF_ST | BPF_MEM | BPF_DW, 7, 0, (int16_t)off, 0);
	n += imm64(p + n, 1, tag);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 7, 1, 0, 0);
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 7, 0, 8, (int32_t)MARK);
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 7, 0, 12, (int32_t)pid);
	n += call(p + n, BPF_FUNC_ktime_get_ns);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0, TS_AT, 0);
	/* the header: epid, timestamp high and low halves */
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 7, 0, r, (int32_t)rp->krp_epid);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_W, 7, 0, (int16_t)(r + 8), 0);
	p[n++] = ins(BPF_ALU64 | BPF_RSH | BPF_K, 0, 0, 0, 32);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_W, 7, 0, (int16_t)(r + 4), 0);
	n += call(p + n, BPF_FUNC_get_current_pid_tgid);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 8, 0, 0, 0);
	n += call(p + n, BPF_FUNC_get_current_uid_gid);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 9, 0, 0, 0);
	n += emit_vals(p + n, rp, r, am);
	/* perf_event_output(r6, map, BPF_F_CURRENT_CPU, r7, size) */
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0, map);
	p[n++] = ins(0, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, -1);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 4, 7, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0, HDR + (int32_t)sent);
	n += call(p + n, BPF_FUNC_perf_event_output);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}
