/*
 * ecb.c - enabled probe blocks: record layout of a clause and what runs
 * in probe context when a probe fires.
 *
 * A clause (ks_clause_t) is a predicate and actions from one ECBDESC's
 * sections; it is shared by the ECBs (one per matched probe, each with its
 * own EPID) of every probe description that names the same sections.  Its
 * record is laid out once (ks_clause_layout): a dtrace_rechdr_t, then one
 * record per action that records something, each aligned to its
 * dtrd_alignment, the total rounded up to 8 (the clause protocol in
 * dtrace_abi.h).  Aggregation keys and increments are laid out in the
 * aggregation's own record (agg.c), not in the ECB's.
 *
 * Firing (ks_ecb_fire_locked, with ks_fire_lock held): for each ECB of the
 * probe, in enabling order (clause-locals zeroed once per firing and
 * state, shared by its clauses, as is scratch): run the predicate, then
 * the actions into a staging record; aggregations update the CPU's
 * aggregation buffer as they come.  A fault stops the clause,
 * counts an error on the CPU and fires dtrace:::ERROR in the same state
 * (a fault inside ERROR counts a double error and fires nothing).  When
 * the clause completes, its record is copied whole into the CPU's
 * principal buffer, or into a speculation buffer after speculate().  No
 * allocation happens here: staging, scratch and locals were sized at
 * ENABLE and GO.
 *
 * ks_probe_fire_n runs a probe's ECBs once for n identical firings when
 * all of them are aggregation-only (aggplan.c): the run carries the
 * weight n (kms_weight), aggregations apply n samples at once
 * (ks_agg_apply_n), and fire counts, aggregation drops and faults (with
 * their ERROR firings) count n times.  Otherwise it fires n times.
 *
 * A clause writes a record when it has no actions (the default action) or
 * at least one action that records data; a clause of only aggregations,
 * speculate(), commit() or discard() writes nothing to the principal
 * buffer.  Destructive actions (allowed only with the destructive option)
 * take effect after the clause: raise(sig) and stop() signal kpc_pid
 * (never pid <= 0, stop() never the shim's own process), chill(ns) spins
 * at most 0.5 s per second per state, system() is carried out by the
 * consumer from its record.  breakpoint() and panic() have no meaning for
 * a user-space shim: they raise an illegal-operation fault, so the user
 * sees an ERROR message instead of a silent no-op.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ks_impl.h"
#include "ks_krec.h"

#define KS_CHILL_MAX	500000000ull	/* ns chill() may spin per second */

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

/* Record size and alignment of a value-producing DIFO. */
static int value_size(const ks_difo_t *dp, uint64_t strsize, uint32_t *size,
    uint32_t *align)
{
	const dtrace_diftype_t *t = &dp->dtdo_rtype;

	if (t->dtdt_kind == DIF_TYPE_STRING) {
		*size = (uint32_t)strsize;
		*align = 1;
		return 0;
	}
	if (t->dtdt_flags & DIF_TF_BYREF) {
		*size = t->dtdt_size;
		*align = 8;
		return t->dtdt_size > 0 && t->dtdt_size <= (1u << 20) ? 0 : -1;
	}
	if (t->dtdt_size == 0) {	/* void: an expression statement */
		*size = 0;
		*align = 1;
		return 0;
	}
	*size = *align = t->dtdt_size;
	return t->dtdt_size == 1 || t->dtdt_size == 2 || t->dtdt_size == 4 ||
	    t->dtdt_size == 8 ? 0 : -1;
}

/* Size and alignment of the record of action a. */
static int act_size(const ks_act_t *a, uint64_t strsize, uint32_t *size,
    uint32_t *align)
{
	uint64_t frames;

	*align = 8;
	switch (a->ka_kind) {
	case DTRACEACT_DIFEXPR:
	case DTRACEACT_LIBACT:
		if (a->ka_difo == NULL) {
			*size = 0;
			*align = 1;
			return 0;
		}
		return value_size(a->ka_difo, strsize, size, align);
	case DTRACEACT_EXIT:
	case DTRACEACT_RAISE:
		*size = *align = 4;
		return 0;
	case DTRACEACT_STACK:
		frames = a->ka_arg ? a->ka_arg : 20;
		*size = (uint32_t)(frames * 8);
		return frames <= 1024 ? 0 : -1;
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
		frames = (uint32_t)a->ka_arg ? (uint32_t)a->ka_arg : 100;
		*size = (uint32_t)((1 + frames) * 8);
		return frames <= 1024 ? 0 : -1;
	case DTRACEACT_SYM:
	case DTRACEACT_MOD:
	case DTRACEACT_TRACEMEM_DYNSIZE:
		*size = 8;
		return 0;
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
		*size = 16;
		return 0;
	case DTRACEACT_TRACEMEM:
		*size = (uint32_t)a->ka_arg;
		*align = 1;
		return a->ka_arg > 0 && a->ka_arg <= (1u << 20) ? 0 : -1;
	default:
		*size = 0;
		*align = 1;
		return 0;
	}
}

/* Does a clause whose records are all of these kinds write nothing? */
static int writes_data(dtrace_actkind_t k)
{
	return k != DTRACEACT_SPECULATE && k != DTRACEACT_COMMIT &&
	    k != DTRACEACT_DISCARD;
}

/* Build the aggregation of the action at index i (tuple before it). */
static int layout_agg(ks_clause_t *c, int i, uint64_t strsize, char *err,
    size_t errlen)
{
	ks_act_t *a = &c->kc_acts[i];
	ks_agg_t *g = &c->kc_aggs[c->kc_naggs];
	dtrace_recdesc_t keys[64];
	int nkeys = 0, j;

	g->kg_kind = a->ka_kind;
	g->kg_arg = a->ka_arg;
	g->kg_varid = a->ka_uarg;
	for (j = i - (int)a->ka_ntuple; j < i; j++) {
		ks_act_t *k = &c->kc_acts[j];
		uint32_t size, align;

		if (k->ka_role != KS_ROLE_KEY)
			continue;
		if (nkeys == 64 || act_size(k, strsize, &size, &align) != 0) {
			snprintf(err, errlen, "action %d: bad aggregation key",
			    j + 1);
			return -1;
		}
		memset(&keys[nkeys], 0, sizeof(keys[0]));
		keys[nkeys].dtrd_action = k->ka_kind;
		keys[nkeys].dtrd_size = size;
		keys[nkeys].dtrd_alignment = (uint16_t)align;
		keys[nkeys].dtrd_arg = k->ka_arg;
		keys[nkeys].dtrd_uarg = k->ka_uarg;
		nkeys++;
	}
	if (ks_agg_layout(g, keys, nkeys, err, errlen) != 0)
		return -1;
	for (j = i - (int)a->ka_ntuple, nkeys = 0; j < i; j++) {
		if (c->kc_acts[j].ka_role != KS_ROLE_KEY)
			continue;
		c->kc_acts[j].ka_offset = g->kg_recs[++nkeys].dtrd_offset;
		c->kc_acts[j].ka_size = g->kg_recs[nkeys].dtrd_size;
	}
	a->ka_agg = c->kc_naggs++;
	if (g->kg_size > c->kc_keymax)
		c->kc_keymax = g->kg_size;
	return 0;
}

/* Append the record of action i to the clause's layout. */
static int layout_record(ks_clause_t *c, int i, uint32_t *off,
    uint64_t strsize, char *err, size_t errlen)
{
	ks_act_t *a = &c->kc_acts[i];
	dtrace_recdesc_t *r = &c->kc_recs[c->kc_nrecs++];
	uint32_t size, align;

	if (act_size(a, strsize, &size, &align) != 0) {
		snprintf(err, errlen, "action %d: bad record size", i + 1);
		return -1;
	}
	*off = align_up(*off, align);
	a->ka_offset = *off;
	a->ka_size = size;
	memset(r, 0, sizeof(*r));
	r->dtrd_action = a->ka_kind == DTRACEACT_TRACEMEM_DYNSIZE ?
	    DTRACEACT_TRACEMEM : a->ka_kind;
	r->dtrd_size = size;
	r->dtrd_offset = *off;
	r->dtrd_alignment = (uint16_t)align;
	r->dtrd_arg = a->ka_arg;
	r->dtrd_uarg = a->ka_uarg;
	if (a->ka_kind == DTRACEACT_STACK && a->ka_arg == 0)
		r->dtrd_arg = size / 8;
	if (a->ka_kind == DTRACEACT_TRACEMEM)
		r->dtrd_arg = i + 1 < c->kc_nacts && c->kc_acts[i + 1].ka_kind ==
		    DTRACEACT_TRACEMEM_DYNSIZE ? DTRACE_TRACEMEM_DYNAMIC :
		    DTRACE_TRACEMEM_STATIC;
	*off += size;
	/* illumos (dtrace_ecb_resize): an ECB whose actions all store no
	 * data records nothing, so a clause of assignments (void DIFEXPRs)
	 * prints no probe line; one with no actions at all still does. */
	if (writes_data(a->ka_kind) &&
	    !(a->ka_kind == DTRACEACT_DIFEXPR && size == 0))
		c->kc_writes = 1;
	return 0;
}

int ks_clause_layout(ks_clause_t *c, uint64_t strsize, char *err,
    size_t errlen)
{
	uint32_t off = sizeof(dtrace_rechdr_t);
	int i, naggs = 0;

	for (i = 0; i < c->kc_nacts; i++)
		naggs += c->kc_acts[i].ka_role == KS_ROLE_AGG;
	c->kc_recs = ks_calloc((size_t)c->kc_nacts + 1, sizeof(*c->kc_recs));
	c->kc_aggs = ks_calloc((size_t)naggs + 1, sizeof(*c->kc_aggs));
	if (c->kc_recs == NULL || c->kc_aggs == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->kc_writes = c->kc_nacts == 0;
	for (i = 0; i < c->kc_nacts; i++) {
		int rc = 0;

		if (c->kc_acts[i].ka_role == KS_ROLE_RECORD)
			rc = layout_record(c, i, &off, strsize, err, errlen);
		else if (c->kc_acts[i].ka_role == KS_ROLE_AGG)
			rc = layout_agg(c, i, strsize, err, errlen);
		if (rc != 0)
			return -1;
	}
	c->kc_size = align_up(off, 8);
	return 0;
}

void ks_clause_free(ks_clause_t *c)
{
	int i;

	if (c == NULL)
		return;
	for (i = 0; i < c->kc_naggs; i++)
		free(c->kc_aggs[i].kg_recs);
	free(c->kc_aggs);
	free(c->kc_recs);
	free(c->kc_acts);
	free(c->kc_kclause);
	free(c);
}

/* ---- probe context ----------------------------------------------------- */

/* What one clause run leaves for after its actions. */
typedef struct pending {
	uint64_t spec;			/* speculate() id */
	int speculated;			/* speculate() ran (id 0: drop) */
	int exit, raise, stop;
	int32_t status, sig;
	uint64_t chill;
} pending_t;

static int spec_new_op(void *sarg)
{
	return ks_spec_new(sarg);
}

/* The parent of pid from /proc/pid/stat, -1 if unknown.  No allocation:
 * open/read into a stack buffer. */
static int32_t parent_of(int32_t pid)
{
	char path[32], buf[512], *p;
	ssize_t n;
	int fd;
	long ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold spaces and parens */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (int32_t)ppid;
}

/* progenyof(pid): is the firing process pid or a descendant of it? */
static int progenyof_op(void *sarg, int32_t pid)
{
	const struct ks_state *st = sarg;
	const ks_probe_ctx_t *ctx = st->st_ctx;
	int32_t cur;
	int depth;

	if (ctx == NULL || ctx->kpc_pid <= 0)
		return 0;
	if (ctx->kpc_pid == pid || ctx->kpc_ppid == pid)
		return 1;
	cur = ctx->kpc_ppid > 0 ? ctx->kpc_ppid : parent_of(ctx->kpc_pid);
	for (depth = 0; cur > 1 && depth < 64; depth++) {
		if (cur == pid)
			return 1;
		cur = parent_of(cur);
	}
	return cur == pid;
}

static const ks_mstate_ops_t mstate_ops = {
	.kmo_speculation = spec_new_op,
	.kmo_progenyof = progenyof_op,
};

/* A fault outside DIF: no DIF offset (-1), as DTrace reports it. */
static void fault(ks_mstate_t *ms, uint32_t kind, uint64_t addr)
{
	if (ms->kms_fault == 0) {
		ms->kms_fault = kind;
		ms->kms_fault_addr = addr;
		ms->kms_fault_pc = UINT32_MAX;
	}
}

/* Copy len bytes of DIF-readable memory at addr (a string: up to its
 * NUL, zero-padded), or fault. */
static void copy_ref(const ks_difo_t *dp, ks_mstate_t *ms, char *dst,
    uint64_t addr, uint32_t len, int string)
{
	int64_t n = ks_dif_readable(dp, ms, addr, len, string);

	if (n < 0) {
		if (ms->kms_fault == 0)
			fault(ms, DTRACEFLT_BADADDR, addr);
		return;
	}
	if ((uint64_t)n > len)
		n = len;
	memcpy(dst, (const void *)(uintptr_t)addr, (size_t)n);
	memset(dst + n, 0, len - (uint64_t)n);
}

/* Store the value v of action a's DIFO at dst (a->ka_size bytes). */
static void store_value(const ks_act_t *a, ks_mstate_t *ms, char *dst,
    uint64_t v)
{
	const dtrace_diftype_t *t = &a->ka_difo->dtdo_rtype;
	uint8_t b8;
	uint16_t b16;
	uint32_t b32;

	if (t->dtdt_kind == DIF_TYPE_STRING || (t->dtdt_flags & DIF_TF_BYREF)) {
		copy_ref(a->ka_difo, ms, dst, v, a->ka_size,
		    t->dtdt_kind == DIF_TYPE_STRING);
		return;
	}
	switch (a->ka_size) {
	case 0: break;
	case 1: b8 = (uint8_t)v; memcpy(dst, &b8, 1); break;
	case 2: b16 = (uint16_t)v; memcpy(dst, &b16, 2); break;
	case 4: b32 = (uint32_t)v; memcpy(dst, &b32, 4); break;
	default: memcpy(dst, &v, 8); break;
	}
}

/* Copy a stack of n pcs into frames slots, zero-filled. */
static void store_stack(char *dst, uint32_t frames, const uint64_t *pcs,
    uint32_t n)
{
	if (pcs == NULL)
		n = 0;
	if (n > frames)
		n = frames;
	if (n != 0)
		memcpy(dst, pcs, (size_t)n * 8);
	memset(dst + (size_t)n * 8, 0, (size_t)(frames - n) * 8);
}

static uint64_t eval(const ks_act_t *a, ks_mstate_t *ms)
{
	return a->ka_difo != NULL ? ks_dif_emulate(a->ka_difo, ms) : 0;
}

/* Actions whose record holds data: write it at rec + a->ka_offset. */
static void record_action(struct ks_state *st, const ks_act_t *a,
    ks_mstate_t *ms, char *rec, pending_t *pd, unsigned cpu)
{
	const ks_probe_ctx_t *ctx = ms->kms_ctx;
	char *dst = rec + a->ka_offset;
	uint64_t v, pid = (uint64_t)(int64_t)ctx->kpc_pid;

	switch (a->ka_kind) {
	case DTRACEACT_DIFEXPR:
	case DTRACEACT_LIBACT:
		if (a->ka_difo != NULL)
			store_value(a, ms, dst, eval(a, ms));
		break;
	case DTRACEACT_EXIT:
		pd->status = (int32_t)eval(a, ms);
		memcpy(dst, &pd->status, 4);
		pd->exit = 1;
		break;
	case DTRACEACT_STACK:
		store_stack(dst, a->ka_size / 8, ctx->kpc_kstack,
		    ctx->kpc_nkstack);
		break;
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
		memcpy(dst, &pid, 8);
		store_stack(dst + 8, a->ka_size / 8 - 1, ctx->kpc_ustack,
		    ctx->kpc_nustack);
		break;
	case DTRACEACT_SYM:
	case DTRACEACT_MOD:
	case DTRACEACT_TRACEMEM_DYNSIZE:
		v = eval(a, ms);
		memcpy(dst, &v, 8);
		break;
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
		v = eval(a, ms);
		memcpy(dst, &pid, 8);
		memcpy(dst + 8, &v, 8);
		break;
	case DTRACEACT_TRACEMEM:
		v = eval(a, ms);
		if (ms->kms_fault == 0)
			copy_ref(a->ka_difo, ms, dst, v, a->ka_size, 0);
		break;
	case DTRACEACT_SPECULATE:
		pd->spec = eval(a, ms);
		pd->speculated = 1;
		break;
	case DTRACEACT_COMMIT:
	case DTRACEACT_DISCARD:
		/* as DTrace: 0 is no speculation and does nothing, an ID
		 * above nspec is an illegal operation */
		v = eval(a, ms);
		if (ms->kms_fault == 0 && v > st->st_nspec)
			fault(ms, DTRACEFLT_ILLOP, 0);
		else if (ms->kms_fault == 0 && a->ka_kind == DTRACEACT_COMMIT)
			ks_spec_commit(st, v, cpu);
		else if (ms->kms_fault == 0)
			ks_spec_discard(st, v);
		break;
	case DTRACEACT_RAISE:
		pd->sig = (int32_t)eval(a, ms);
		memcpy(dst, &pd->sig, 4);
		pd->raise = 1;
		break;
	case DTRACEACT_STOP:
		pd->stop = 1;
		break;
	case DTRACEACT_CHILL:
		pd->chill += eval(a, ms);
		break;
	case DTRACEACT_BREAKPOINT:
	case DTRACEACT_PANIC:
		/* not available on Linux: a visible, harmless fault */
		fault(ms, DTRACEFLT_ILLOP, 0);
		break;
	default:	/* printf-like: the format id is in the description */
		break;
	}
}

/* An aggregation key or increment, or the aggregating action itself. */
static void agg_action(struct ks_state *st, const ks_ecb_t *e,
    const ks_act_t *a, ks_mstate_t *ms, uint64_t *incr, unsigned cpu)
{
	const ks_clause_t *c = e->ke_clause;
	const ks_agg_t *g;
	uint64_t v;

	if (a->ka_role == KS_ROLE_KEY) {
		if (a->ka_kind == DTRACEACT_DIFEXPR)
			store_value(a, ms, st->st_key + a->ka_offset,
			    eval(a, ms));
		else
			record_action(st, a, ms, st->st_key, NULL, cpu);
		return;
	}
	if (a->ka_role == KS_ROLE_INCR) {
		*incr = eval(a, ms);
		return;
	}
	g = &c->kc_aggs[a->ka_agg];
	/* a replay of a kernel clause: the kernel computed the value */
	v = st->st_kres != NULL && a->ka_kstep > 0 ?
	    st->st_kres->kkr_vals[a->ka_kstep - 1] : eval(a, ms);
	if (ms->kms_fault != 0)
		return;
	memcpy(st->st_key, &g->kg_id, sizeof(g->kg_id));
	if (ks_agg_apply_n(&st->st_aggbufs[cpu], g, st->st_key, v, *incr,
	    ms->kms_weight) != 0) {
		st->st_bufs[cpu].kb_aggdrops += ms->kms_weight;
		e->ke_cnt[cpu].kec_drops += ms->kms_weight;
	}
	memset(st->st_key, 0, g->kg_keysize);
	*incr = 1;
}

static void fire_error(struct ks_state *st, const ks_ecb_t *e, int act,
    const ks_mstate_t *ms, unsigned cpu);

/* Run the actions of e's clause into st_rec; 0, or -1 after a fault. */
/*
 * The number dtrace gives action i in fault messages (ERROR's arg2), from
 * 1: a printf-like action's first argument carries the printf's own
 * number, as dtrace encodes them as one action.
 */
static int user_action(const ks_clause_t *c, int i)
{
	int n = 0;

	for (int k = 0; k <= i; k++) {
		const ks_act_t *a = &c->kc_acts[k];

		if (k < i && a->ka_difo == NULL && a->ka_uarg > 0 &&
		    DTRACEACT_ISPRINTFLIKE(a->ka_kind))
			continue;
		n++;
	}
	return n;
}

static int run_actions(struct ks_state *st, const ks_ecb_t *e,
    ks_mstate_t *ms, pending_t *pd, unsigned cpu)
{
	const ks_clause_t *c = e->ke_clause;
	uint64_t incr = 1;
	int i;

	for (i = 0; i < c->kc_nacts; i++) {
		const ks_act_t *a = &c->kc_acts[i];

		if (a->ka_role == KS_ROLE_RECORD && st->st_kres != NULL &&
		    a->ka_kstep > 0)
			continue;	/* the kernel made the stores */
		if (a->ka_role == KS_ROLE_RECORD)
			record_action(st, a, ms, st->st_rec, pd, cpu);
		else
			agg_action(st, e, a, ms, &incr, cpu);
		if (ms->kms_fault != 0) {
			if (c->kc_naggs > 0)
				memset(st->st_key, 0, c->kc_keymax);
			fire_error(st, e, user_action(c, i), ms, cpu);
			return -1;
		}
	}
	return 0;
}

/* Copy the finished record to its buffer. */
static void commit_record(struct ks_state *st, const ks_ecb_t *e,
    const pending_t *pd, unsigned cpu)
{
	const ks_clause_t *c = e->ke_clause;
	uint64_t resv = e->ke_probe->kp_id == KS_PROBE_END ? KS_BUF_END :
	    st->st_endreserve;
	ks_buf_t *b = &st->st_bufs[cpu];
	char *p;

	if (pd->speculated) {
		if ((b = ks_spec_buffer(st, pd->spec, cpu)) == NULL)
			return;
		if ((p = ks_buf_reserve(st, b, c->kc_size, 0)) == NULL) {
			st->st_status.dtst_specdrops++;
			e->ke_cnt[cpu].kec_drops++;
			return;
		}
	} else if ((p = ks_buf_reserve(st, b, c->kc_size, resv)) == NULL) {
		e->ke_cnt[cpu].kec_drops++;
		return;
	}
	memcpy(p, st->st_rec, c->kc_size);
}

/*
 * chill(ns): spin, at most KS_CHILL_MAX ns in any one-second window per
 * state (DTrace's limit), so a script cannot stall event sources for long.
 */
static void chill(struct ks_state *st, uint64_t ns)
{
	uint64_t now = ks_gethrtime(), end;

	if (now - st->st_chill_start >= 1000000000ull) {
		st->st_chill_start = now;
		st->st_chilled = 0;
	}
	if (st->st_chilled >= KS_CHILL_MAX)
		return;
	if (ns > KS_CHILL_MAX - st->st_chilled)
		ns = KS_CHILL_MAX - st->st_chilled;
	st->st_chilled += ns;
	for (end = now + ns; ks_gethrtime() < end;)
		;
}

/* exit(), raise(), stop(), chill(): after the clause, as in DTrace. */
static void after_clause(struct ks_state *st, const pending_t *pd,
    const ks_probe_ctx_t *ctx)
{
	if (pd->exit && !st->st_status.dtst_exiting) {
		st->st_status.dtst_exiting = 1;
		st->st_exitstatus = pd->status;
		if (st->st_activity == KS_ST_ACTIVE)
			st->st_activity = KS_ST_DRAINING;
	}
	if (pd->raise && ctx->kpc_pid > 0)
		(void)kill(ctx->kpc_pid, pd->sig);
	if (pd->stop && ctx->kpc_pid > 0 && ctx->kpc_pid != getpid())
		(void)kill(ctx->kpc_pid, SIGSTOP);
	if (pd->chill != 0)
		chill(st, pd->chill);
}

static void mstate_init(struct ks_state *st, const ks_ecb_t *e,
    const ks_probe_ctx_t *ctx, ks_mstate_t *ms, uint64_t n)
{
	const ks_probe_t *p = e->ke_probe;

	ms->kms_ctx = ctx;
	ms->kms_epid = e->ke_epid;
	ms->kms_probe[0] = p->kp_prov->kv_name;
	ms->kms_probe[1] = p->kp_mod;
	ms->kms_probe[2] = p->kp_func;
	ms->kms_probe[3] = p->kp_name;
	ms->kms_vstate = st->st_vstate;
	ms->kms_locals = st->st_locals;
	ms->kms_nlocals = st->st_nlocals;
	ms->kms_strsize = (uint64_t)ks_state_opt(st, DTRACEOPT_STRSIZE);
	ms->kms_scratch = st->st_scratch;
	ms->kms_scratch_size = st->st_scratch_size;
	ms->kms_scratch_used = st->st_scratch_used;
	ms->kms_scratch_keep = st->st_scratch_used;
	ms->kms_fault = 0;
	ms->kms_fault_addr = 0;
	ms->kms_fault_pc = 0;
	ms->kms_destructive = ks_state_opt(st, DTRACEOPT_DESTRUCTIVE) !=
	    DTRACEOPT_UNSET;
	ms->kms_ops = &mstate_ops;
	ms->kms_sarg = st;
	ms->kms_weight = n;
	st->st_ctx = ctx;
}

/* One ECB: predicate, actions, record, after-clause effects. */
static void run_clause(struct ks_state *st, const ks_ecb_t *e,
    const ks_probe_ctx_t *ctx, unsigned cpu, ks_mstate_t *ms)
{
	const ks_clause_t *c = e->ke_clause;
	pending_t pd = { 0 };
	uint64_t ts = ctx->kpc_timestamp ? ctx->kpc_timestamp : ks_gethrtime();
	dtrace_rechdr_t hdr;

	st->st_kres = NULL;
	if (ctx->kpc_nkres > 0 && c->kc_ktls > 0) {
		/* a replay of firings counted in the kernel: the predicate
		 * was run there (tlsplan.c) */
		for (uint32_t i = 0; i < ctx->kpc_nkres; i++)
			if (ctx->kpc_kres[i].kkr_id == c->kc_kclause->kkc_id)
				st->st_kres = &ctx->kpc_kres[i];
		if (st->st_kres == NULL || st->st_kres->kkr_pred == 0) {
			st->st_kres = NULL;
			return;
		}
	} else if (c->kc_pred != NULL) {
		uint64_t ok = ks_dif_emulate(c->kc_pred, ms);

		if (ms->kms_fault != 0) {
			fire_error(st, e, 0, ms, cpu);
			return;
		}
		if (ok == 0) {
			e->ke_cnt[cpu].kec_predfalse += ms->kms_weight;
			return;
		}
	}
	if (c->kc_writes) {
		memset(st->st_rec, 0, c->kc_size);
		hdr.dtrh_epid = e->ke_epid;
		hdr.dtrh_timestamp_hi = (uint32_t)(ts >> 32);
		hdr.dtrh_timestamp_lo = (uint32_t)ts;
		memcpy(st->st_rec, &hdr, sizeof(hdr));
	}
	if (run_actions(st, e, ms, &pd, cpu) != 0) {
		st->st_kres = NULL;
		return;
	}
	st->st_kres = NULL;
	if (c->kc_writes)
		commit_record(st, e, &pd, cpu);
	after_clause(st, &pd, ctx);
}

/* Run e as n identical firings (n > 1 only for aggregation-only ECBs),
 * keeping of what it allocated in scratch only what a clause-local points
 * into (the firing's next clauses may read it); the rest is reused. */
static void run_ecb(struct ks_state *st, const ks_ecb_t *e,
    const ks_probe_ctx_t *ctx, unsigned cpu, uint64_t n)
{
	ks_mstate_t ms;

	mstate_init(st, e, ctx, &ms, n);
	run_clause(st, e, ctx, cpu, &ms);
	st->st_scratch_used = ms.kms_scratch_keep;
}

/* run_ecb, timed (ks_ecbcnt_t): one run in KS_ECB_SAMPLE. */
static __attribute__((noinline)) void run_ecb_timed(struct ks_state *st,
    const ks_ecb_t *e, const ks_probe_ctx_t *ctx, unsigned cpu, uint64_t n)
{
	uint64_t t0 = ks_gethrtime(), dt, cost;

	run_ecb(st, e, ctx, cpu, n);
	dt = ks_gethrtime() - t0;
	cost = ks_ecb_clockcost();
	e->ke_cnt[cpu].kec_tick = KS_ECB_SAMPLE - 1;
	e->ke_cnt[cpu].kec_samples += n;
	e->ke_cnt[cpu].kec_sampns += dt > cost ? dt - cost : 0;
}

/* May st's ECBs on probe id run now? */
static int state_fires(const struct ks_state *st, dtrace_id_t id,
    unsigned cpu)
{
	dtrace_optval_t only;

	if (id == KS_PROBE_ERROR && st->st_inerror)
		return 1;
	if (st->st_activity == KS_ST_DRAINING)
		return id == KS_PROBE_END;
	if (st->st_activity != KS_ST_ACTIVE)
		return 0;
	only = ks_state_opt(st, DTRACEOPT_CPU);
	return only < 0 || id <= KS_PROBE_ERROR || (unsigned)only == cpu;
}

/*
 * Clause-locals live for one probe firing, shared by every clause of a
 * state that runs for it: zero them before the firing's first ECB.  So
 * does scratch space, since a clause-local string points into it.  The
 * ERROR firing nested in a faulting clause keeps both (the firing of the
 * faulting probe is still going on).
 */
static void reset_locals(const ks_probe_t *p, const struct ks_state *only)
{
	const ks_ecb_t *e;

	if (only != NULL && only->st_inerror)
		return;
	for (e = p->kp_ecbs; e != NULL; e = e->ke_pnext) {
		struct ks_state *st = e->ke_state;

		if (only != NULL && st != only)
			continue;
		st->st_scratch_used = 0;
		if (st->st_nlocals != 0)
			memset(st->st_locals, 0, (size_t)st->st_nlocals * 8);
	}
}

/* One copy (so the steps below inline into it) for every weight. */
static __attribute__((noinline)) void fire_ecbs(struct ks_state *only,
    const ks_probe_ctx_t *ctx, uint64_t n)
{
	ks_probe_t *p = ks_probe_get(ctx->kpc_id);
	const ks_ecb_t *e;

	if (p == NULL)
		return;
	reset_locals(p, only);
	for (e = p->kp_ecbs; e != NULL; e = e->ke_pnext) {
		struct ks_state *st = e->ke_state;
		unsigned cpu = ctx->kpc_cpu % st->st_ncpus;

		if ((only != NULL && st != only) ||
		    !state_fires(st, p->kp_id, ctx->kpc_cpu))
			continue;
		if (p->kp_id != KS_PROBE_ERROR)	/* a fault is no new event */
			st->st_bufs[cpu].kb_fires += n;
		e->ke_cnt[cpu].kec_fires += n;
		if (e->ke_cnt[cpu].kec_tick-- == 0)
			run_ecb_timed(st, e, ctx, cpu, n);
		else
			run_ecb(st, e, ctx, cpu, n);
	}
}

void ks_ecb_fire_locked(struct ks_state *only, const ks_probe_ctx_t *ctx)
{
	fire_ecbs(only, ctx, 1);
}

/* A fault in e: count it and fire ERROR in e's state, never recursively;
 * a run standing for n firings faulted in each of them, so ERROR fires n
 * times, each with the clause-locals as the fault left them. */
static void fire_error(struct ks_state *st, const ks_ecb_t *e, int act,
    const ks_mstate_t *ms, unsigned cpu)
{
	ks_probe_ctx_t ectx;

	e->ke_cnt[cpu].kec_errors += ms->kms_weight;
	if (st->st_inerror) {
		st->st_status.dtst_dblerrors += ms->kms_weight;
		return;
	}
	st->st_status.dtst_errors += ms->kms_weight;
	st->st_bufs[cpu].kb_errors += ms->kms_weight;
	ectx = *ms->kms_ctx;
	ectx.kpc_id = KS_PROBE_ERROR;
	memset(ectx.kpc_args, 0, sizeof(ectx.kpc_args));
	ectx.kpc_args[1] = e->ke_epid;
	ectx.kpc_args[2] = (uint64_t)act;
	ectx.kpc_args[3] = ms->kms_fault_pc == UINT32_MAX ? (uint64_t)-1 :
	    ms->kms_fault_pc;	/* -1: not in DIF */
	ectx.kpc_args[4] = ms->kms_fault;
	ectx.kpc_args[5] = ms->kms_fault_addr;
	if (ms->kms_weight > 1 && st->st_nlocals != 0)
		memcpy(st->st_locals + st->st_nlocals, st->st_locals,
		    (size_t)st->st_nlocals * 8);
	for (uint64_t i = 0; i < ms->kms_weight; i++) {
		if (i > 0 && st->st_nlocals != 0)
			memcpy(st->st_locals, st->st_locals + st->st_nlocals,
			    (size_t)st->st_nlocals * 8);
		st->st_inerror = 1;
		st->st_scratch_used = ms->kms_scratch_used;
		ks_ecb_fire_locked(st, &ectx);
		st->st_inerror = 0;
	}
}

void ks_probe_fire(const ks_probe_ctx_t *ctx)
{
	ks_probe_t *p = ks_probe_get(ctx->kpc_id);

	if (p == NULL || __atomic_load_n(&p->kp_nenabled,
	    __ATOMIC_RELAXED) == 0)
		return;
	pthread_mutex_lock(&ks_fire_lock);
	ks_ecb_fire_locked(NULL, ctx);
	pthread_mutex_unlock(&ks_fire_lock);
}

int ks_krec_commit(uint32_t serial, dtrace_epid_t epid, dtrace_id_t id,
    unsigned cpu, const void *rec, uint32_t sent, uint32_t len, int retry)
{
	ks_probe_t *p = ks_probe_get(id);
	struct ks_state *st;
	const ks_ecb_t *e;
	ks_buf_t *b;
	char *dst;

	if (p == NULL || __atomic_load_n(&p->kp_nenabled,
	    __ATOMIC_RELAXED) == 0)
		return 0;
	pthread_mutex_lock(&ks_fire_lock);
	for (e = p->kp_ecbs; e != NULL; e = e->ke_pnext)
		if (e->ke_epid == epid && e->ke_state->st_serial == serial)
			break;
	st = e != NULL ? e->ke_state : NULL;
	if (e == NULL || e->ke_clause->kc_size != len || sent > len ||
	    !state_fires(st, id, cpu)) {
		pthread_mutex_unlock(&ks_fire_lock);
		return 0;		/* gone, or not running: as a firing */
	}
	cpu %= st->st_ncpus;
	b = &st->st_bufs[cpu];
	if (retry && b->kb_policy == DTRACEOPT_BUFPOLICY_SWITCH &&
	    b->kb_offset + len > b->kb_size) {
		pthread_mutex_unlock(&ks_fire_lock);
		return -1;		/* full until the consumer switches */
	}
	st->st_bufs[cpu].kb_fires++;
	e->ke_cnt[cpu].kec_fires++;
	if ((dst = ks_buf_reserve(st, &st->st_bufs[cpu], len,
	    st->st_endreserve)) == NULL)
		e->ke_cnt[cpu].kec_drops++;
	else {
		memcpy(dst, rec, sent);
		memset(dst + sent, 0, len - sent);
	}
	pthread_mutex_unlock(&ks_fire_lock);
	return 0;
}

/*
 * n identical firings (ks_provider.h): when every ECB on the probe is
 * aggregation-only (aggplan.c), one run with weight n, which changes
 * exactly what n runs would (aggregations are commutative, clause-locals
 * start at zero in each firing, a fault repeats n times); otherwise n
 * ordinary firings, each taking the fire lock on its own.
 */
void ks_probe_fire_n(const ks_probe_ctx_t *ctx, uint64_t n)
{
	ks_probe_t *p = ks_probe_get(ctx->kpc_id);

	if (n <= 1) {
		if (n == 1)
			ks_probe_fire(ctx);
		return;
	}
	if (p == NULL || __atomic_load_n(&p->kp_nenabled,
	    __ATOMIC_RELAXED) == 0)
		return;
	pthread_mutex_lock(&ks_fire_lock);
	if (ks_probe_aggonly_locked(p, ctx->kpc_nkres > 0)) {
		fire_ecbs(NULL, ctx, n);
		pthread_mutex_unlock(&ks_fire_lock);
		return;
	}
	pthread_mutex_unlock(&ks_fire_lock);
	for (; n > 0; n--)
		ks_probe_fire(ctx);
}
