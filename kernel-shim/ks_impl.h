/*
 * ks_impl.h - what the kernel shim's files share; not public.
 *
 * The shim has two halves.  The registry (probe.c, glob.c, prov_dtrace.c)
 * holds providers and probes, process-wide.  A consumer state (state.c,
 * ioctl.c) holds enablings loaded from DOF (dof_load.c), the ECBs that tie
 * clauses to probes (ecb.c), and the memory sized from its options at GO:
 * per-CPU principal buffers (buf.c), aggregation buffers (agg.c) and
 * speculation buffers (spec.c).
 *
 * Locking (the one rule to remember):
 *   - ks_reg_lock guards registration and the probe hash.  Probes are never
 *     freed, and ks_probe_get() reads the id table without a lock.
 *   - ks_fire_lock serialises every firing of every probe in every state,
 *     and everything that changes what a firing touches: a probe's ECB
 *     list, a state's buffers, aggregations, speculations and counters.
 *     Consumer calls take it briefly; providers never see it.  Probe
 *     context holds it and never allocates, prints or blocks on anything
 *     else.
 *   - Provider callbacks (kpo_provide/enable/disable) run with neither lock
 *     held, so a provider may fire from its own threads at any time.
 */
#ifndef KS_IMPL_H
#define KS_IMPL_H

#include <pthread.h>
#include <stdint.h>
#include "ks.h"
#include "ks_provider.h"
#include "ks_filter.h"
#include "dif.h"

#define KS_ERRLEN		256
#define KS_MAXPROVIDERS		1024	/* USDT registers one per process */

extern pthread_mutex_t ks_fire_lock;

/* ---- allocation (alloc.c) --------------------------------------------- */

void *ks_malloc(size_t n);
void *ks_calloc(size_t n, size_t size);
void *ks_calloc_aligned(size_t align, size_t n, size_t size);
void *ks_realloc(void *p, size_t n);
/* Test hook: the nth allocation from now fails (0: none); how many
 * allocations remain before it (0 once it has failed or when off). */
void ks_alloc_fail_nth(unsigned long n);
unsigned long ks_alloc_fail_pending(void);

/* ---- registry (probe.c) ---------------------------------------------- */

typedef struct ks_provider {
	ks_provider_id_t kv_id;		/* index + 1 */
	char kv_name[DTRACE_PROVNAMELEN];
	ks_provider_ops_t kv_ops;
	void *kv_arg;
	int kv_meta;			/* provides for every description */
	int kv_defunct;			/* unregistered: its probes match
					 * nothing, its slot is reusable */
} ks_provider_t;

struct ks_ecb;

typedef struct ks_probe {
	dtrace_id_t kp_id;
	ks_provider_t *kp_prov;
	char *kp_mod, *kp_func, *kp_name;	/* one allocation */
	int kp_aframes;
	void *kp_arg;
	struct ks_probe *kp_hnext;	/* hash chain (ks_reg_lock) */
	struct ks_ecb *kp_ecbs;		/* ECBs of every state (fire lock) */
	uint32_t kp_nenabled;		/* ECBs enabled (fire lock; atomic rd) */
	int kp_kplan;			/* its provider runs kernel clauses
					 * (ks_probe_kplan_able; fire lock) */
	uint32_t kp_nstack;		/* of them, ECBs that need call chains
					 * (ks_probe_wants_stack; atomic rd) */
	uint32_t kp_nuregs;		/* of them, ECBs that read uregs[]
					 * (ks_probe_wants; atomic rd) */
	uint32_t kp_narg0;		/* of them, ECBs that load arg0 */
	uint32_t kp_nuarg[KS_WANT_NUARGS];	/* of them, ECBs that read
					 * user memory and load argN (the
					 * same) */
} ks_probe_t;

/* What an ECB's clause needs its probe's source to sample (kc_needs):
 * call chains, user registers; and vtimestamp, which needs the thread
 * CPU-time accounting on (ks_wants_vtime). */
#define KS_NEED_STACK	KS_WANT_STACK
#define KS_NEED_UREGS	KS_WANT_UREGS
#define KS_NEED_VTIME	0x4
#define KS_NEED_UMEM	0x8	/* calls copyin, copyinstr or copyinto */
#define KS_NEED_UARG(n)	KS_WANT_UARG(n)	/* loads argN (kept only with
					 * KS_NEED_UMEM) */
#define KS_NEED_ARG0	KS_WANT_ARG0	/* loads arg0 */

/* Borrow a probe by id, NULL if none.  Lock-free; probes are never freed. */
ks_probe_t *ks_probe_get(dtrace_id_t id);
/* Number of probe ids handed out so far (ids are 1..count). */
dtrace_id_t ks_probe_count(void);
/* Call every provider's kpo_provide for desc (NULL: all). */
void ks_probe_provide(const dtrace_probedesc_t *desc);
/* Does probe p match the globs of desc (empty field matches all)? */
int ks_probe_matches(const ks_probe_t *p, const dtrace_probedesc_t *desc);
/* Fill out from p. */
void ks_probe_describe(const ks_probe_t *p, dtrace_probedesc_t *out);
/* Start/stop the provider's event source on the first/last ECB. */
int ks_probe_enable(ks_probe_t *p, char *err, size_t errlen);
void ks_probe_disable(ks_probe_t *p);
/* The same for an ECB with needs (KS_NEED_* bits).  The first ECB
 * needing call chains or user registers on a probe whose source runs
 * without them restarts the source (kpo_disable, kpo_enable) so it
 * samples them; the first ECB needing vtime anywhere calls the vtime
 * watcher before the probe starts. */
int ks_probe_enable_ecb(ks_probe_t *p, int needs, char *err,
    size_t errlen);
void ks_probe_disable_ecb(ks_probe_t *p, int needs);
/* Ask the provider to describe an argument (PROBEARG). */
int ks_probe_argdesc(dtrace_argdesc_t *desc);
/* ks_provider_register without the registry initialisation (for the
 * dtrace provider, which that initialisation registers). */
int ks_provider_add(const char *name, const ks_provider_ops_t *ops,
    void *parg, ks_provider_id_t *idp);
/* Make sure the dtrace provider exists (ids 1, 2, 3). */
void ks_registry_init(void);

/* glob.c: sh-style glob over one field; "" matches everything. */
int ks_glob_match(const char *pat, const char *s);

/* prov_dtrace.c */
#define KS_PROBE_BEGIN	1
#define KS_PROBE_END	2
#define KS_PROBE_ERROR	3
void ks_prov_dtrace_register(void);

/* ---- buffers (buf.c) --------------------------------------------------- */

#define KS_BUF_SPEC	3		/* plain linear buffer (speculations) */

typedef struct ks_buf {
	char *kb_data[2];		/* [1] only under the switch policy */
	int kb_active;			/* switch: which one is traced into */
	int kb_policy;			/* DTRACEOPT_BUFPOLICY_* or KS_BUF_SPEC */
	uint64_t kb_size;
	uint64_t kb_offset;		/* next write (ring: head) */
	uint64_t kb_oldest;		/* ring: first byte of the oldest record */
	uint64_t kb_lim;		/* ring, wrapped: end of the older part */
	int kb_wrapped;			/* ring: data is [oldest,lim) + [0,off) */
	int kb_filled;			/* fill: no more tracing */
	uint64_t kb_drops;		/* drops since the last snapshot */
	uint64_t kb_totdrops, kb_records, kb_bytes;
	uint64_t kb_fires;		/* ECBs run on this CPU */
	uint64_t kb_errors, kb_aggdrops;
	int kb_hiwat;			/* switch: past the high-water mark
					 * since the last swap */
	uint64_t kb_hiwats;		/* times it passed it since GO */
} ks_buf_t;

struct ks_state;
int ks_buf_init(ks_buf_t *b, uint64_t size, int policy);
void ks_buf_fini(ks_buf_t *b);
/* Room for n bytes (a multiple of 8) or NULL (drop counted).  resv: bytes
 * kept free for END under the fill policy; KS_BUF_END for END's own
 * records, which may use them even in a filled buffer. */
#define KS_BUF_END	((uint64_t)-1)
char *ks_buf_reserve(struct ks_state *st, ks_buf_t *b, uint64_t n,
    uint64_t resv);
void ks_buf_reset(ks_buf_t *b);
/* Bytes of data held (linear length). */
uint64_t ks_buf_used(const ks_buf_t *b);
/* BUFSNAP under the fire lock (switch copies outside it). */
int ks_buf_snap(struct ks_state *st, ks_buf_t *b, dtrace_bufdesc_t *d);

/* ---- aggregations (agg.c) --------------------------------------------- */

typedef struct ks_agg {
	dtrace_aggid_t kg_id;
	dtrace_epid_t kg_epid;		/* first ECB of its clause */
	dtrace_actkind_t kg_kind;	/* DTRACEAGG_* */
	uint64_t kg_arg;		/* lquantize/llquantize encoding */
	uint64_t kg_varid;		/* compiler's variable id */
	uint32_t kg_size;		/* record size, multiple of 8 */
	uint32_t kg_keysize;		/* bytes compared: aggid + keys */
	uint32_t kg_valoff, kg_valsize;
	int kg_nrecs;			/* aggid, keys, value */
	dtrace_recdesc_t *kg_recs;
} ks_agg_t;

typedef struct ks_aggbuf {
	char *ka_data;			/* aggsize bytes: table, then entries */
	uint64_t ka_size;
	uint64_t ka_first;		/* first entry offset */
	uint64_t ka_used;		/* end of the last entry */
	uint32_t *ka_hash;		/* bucket -> entry offset, 0 = none */
	uint32_t ka_nbuckets;
} ks_aggbuf_t;

/* Lay out an aggregation: keys[nkeys] describe the key records (action,
 * size, alignment); fills kg_recs, sizes.  -1 with err if bad. */
int ks_agg_layout(ks_agg_t *g, const dtrace_recdesc_t *keys, int nkeys,
    char *err, size_t errlen);
/* Check lquantize/llquantize arguments at load. */
int ks_agg_check(dtrace_actkind_t kind, uint64_t arg, char *err,
    size_t errlen);
int ks_aggbuf_init(ks_aggbuf_t *ab, uint64_t size);
void ks_aggbuf_fini(ks_aggbuf_t *ab);
/* Apply val/incr to the entry keyed by key (kg_keysize bytes, aggid
 * first) as n identical applications would (n >= 1).  Returns 0, or -1
 * when the buffer is full (caller counts). */
int ks_agg_apply_n(ks_aggbuf_t *ab, const ks_agg_t *g, const char *key,
    uint64_t val, uint64_t incr, uint64_t n);
int ks_aggbuf_snap(ks_aggbuf_t *ab, dtrace_bufdesc_t *d);
/* Bucket index math, exposed for tests. */
int ks_agg_quantize_bucket(int64_t val);
int ks_agg_llquantize_bucket(uint16_t factor, uint16_t low, uint16_t high,
    uint16_t nsteps, int64_t val);

/* ---- clauses and ECBs (ecb.c) ----------------------------------------- */

enum ks_role {
	KS_ROLE_RECORD,			/* writes a record in the ECB's data */
	KS_ROLE_KEY,			/* an aggregation key */
	KS_ROLE_INCR,			/* an aggregation increment */
	KS_ROLE_AGG			/* the aggregating action itself */
};

typedef struct ks_act {
	dtrace_actkind_t ka_kind;
	uint8_t ka_role;		/* enum ks_role */
	ks_difo_t *ka_difo;		/* borrowed from the enabling */
	uint64_t ka_arg;
	uint64_t ka_uarg;
	uint32_t ka_ntuple;
	uint32_t ka_offset;		/* in the record or the agg key */
	uint32_t ka_size;
	const char *ka_fmt;		/* printf-like format (enabling) */
	int ka_agg;			/* index of ks_clause.kc_aggs */
	uint8_t ka_kstep;		/* kernel step index + 1 (tlsplan.c),
					 * 0: run by the shim at a replay */
} ks_act_t;

typedef struct ks_clause {
	ks_difo_t *kc_pred;		/* borrowed from the enabling */
	ks_act_t *kc_acts;
	int kc_nacts;
	dtrace_recdesc_t *kc_recs;	/* records in the ECB data */
	int kc_nrecs;
	uint32_t kc_size;		/* header + records, 8-rounded */
	int kc_writes;			/* writes a record when it fires */
	uint64_t kc_uarg;
	uint32_t kc_nlocals;
	int kc_destructive;
	ks_agg_t *kc_aggs;		/* per aggregating action */
	int kc_naggs;
	uint32_t kc_keymax;		/* largest aggregation record */
	int kc_attached;		/* aggs and formats have ids */
	uint32_t kc_predsec, kc_actsec;	/* DOF sections it came from */
	int kc_needs;			/* KS_NEED_*: records stacks or reads
					 * stackdepth, caller..., uregs[],
					 * vtimestamp: set at ENABLE */
	int kc_aggok;			/* aggregation-only (aggplan.c): 1 yes,
					 * -1 no, 0 not analysed; at ENABLE */
	unsigned kc_aggvars;		/* if so, 1 << KS_FV_* it reads */
	uint32_t kc_aggargs;		/* and bit N for argN */
	uint32_t kc_aggstrs;		/* and for copyinstr(argN) */
	uint32_t kc_aggkstrs;		/* and for args[N] as a string key */
	uint32_t kc_aggoargs;		/* argN read other than as kc_aggqarg */
	uint8_t kc_aggqarg;		/* N + 1: argN only the exact value of
					 * quantize kind kc_aggqagg with
					 * parameters kc_aggqparam; 0 none */
	uint16_t kc_aggqagg;
	uint64_t kc_aggqparam;
	int kc_ktls;			/* self-> variables (tlsplan.c): 0 none,
					 * 1 kernel-able, -1 shim only */
	ks_kclause_t *kc_kclause;	/* if kernel-able: its lowering */
} ks_clause_t;

/* What one ECB did on one CPU (DTRACEIOC_ECBSTAT).  Written in probe
 * context under the fire lock by one plain add each, on a line of its own
 * per CPU so that CPUs do not share it.  One run in KS_ECB_SAMPLE is
 * timed (kec_tick counts down to it; the first run is): its time, less
 * what reading the clock costs (ks_ecb_clockcost), goes to kec_sampns,
 * and the firings it stood for to kec_samples. */
#define KS_ECB_SAMPLE	64
typedef struct ks_ecbcnt {
	uint64_t kec_fires, kec_predfalse, kec_drops, kec_errors;
	uint64_t kec_samples, kec_sampns;
	uint32_t kec_tick;
} __attribute__((aligned(64))) ks_ecbcnt_t;
/* ecbstat.c: what two clock reads in a row cost, ns (measured once). */
uint64_t ks_ecb_clockcost(void);

typedef struct ks_ecb {
	dtrace_epid_t ke_epid;
	ks_ecbcnt_t *ke_cnt;		/* per CPU (st_ncpus), never NULL */
	struct ks_state *ke_state;
	ks_probe_t *ke_probe;
	ks_clause_t *ke_clause;
	struct ks_ecb *ke_pnext;	/* next on the probe (fire lock) */
	struct ks_enabling *ke_enabling;	/* the ENABLE that made it */
	int ke_disabled;		/* unlinked by DTRACEIOC_DISABLE */
} ks_ecb_t;

/* Lay out a clause's records (needs strsize).  -1 with err. */
int ks_clause_layout(ks_clause_t *c, uint64_t strsize, char *err,
    size_t errlen);
void ks_clause_free(ks_clause_t *c);
/* Run the ECBs of one probe in st (NULL: every active state).  Fire lock
 * held. */
void ks_ecb_fire_locked(struct ks_state *only, const ks_probe_ctx_t *ctx);
/* A new ECB of st with its counters (NULL: out of memory); freeing it. */
ks_ecb_t *ks_ecb_new(struct ks_state *st);
void ks_ecb_free(ks_ecb_t *e);
/* DTRACEIOC_ECBSTAT: the counters, summed over CPUs. */
int ks_ecb_stats(struct ks_state *st, dtrace_ecbstats_t *s);

/* dif_fold.c, for filter.c and aggplan.c: fold "x op y" as the emulator
 * computes it (OR XOR AND SUB ADD MUL SLL SRL SRA): 1 with *out set, 0
 * for another op.  The provider-visible variable (enum ks_fvar) builtin
 * variable id is, with *arg set for argN; -1 if none. */
int ks_dif_fold(int op, uint64_t x, uint64_t y, uint64_t *out);
int ks_dif_fold_fvar(uint32_t id, uint8_t *arg);

/* aggplan.c: analyse c (after layout) into kc_aggok/kc_aggvars/kc_aggargs
 * (ks_filter.h says what aggregation-only means); is every ECB on p
 * aggregation-only (fire lock held)? */
void ks_clause_aggplan(ks_clause_t *c);
/* ... and with kernel clauses taken as aggregation-only (a replay with
 * their results) when kres. */
int ks_probe_aggonly_locked(const ks_probe_t *p, int kres);
/* aggplan.c, for tlsplan.c: is action a aggregation-only?  Adds what it
 * reads (1 << KS_FV_*, argN bits, copyinstr(argN) bits). */
int ks_act_aggok(const ks_act_t *a, unsigned *vars, uint32_t *args,
    uint32_t *strs, uint32_t *kstrs);
/* tlsplan.c: analyse c's self-> variables (after ks_clause_aggplan) into
 * kc_ktls and kc_kclause; add the kernel clauses of probe p to out (fire
 * lock held): 0, or -1 when an ECB of p that touches self-> variables
 * cannot run in the kernel now. */
void ks_clause_tlsplan(ks_clause_t *c);
int ks_tls_probe_plan_locked(const ks_probe_t *p, ks_aggplan_t *out);
/* ks_filter_pending (is an ENABLE in progress?) is in ks_filter.h. */

/* ---- enablings (dof_load.c) ------------------------------------------- */

typedef struct ks_ecbdesc {
	dtrace_probedesc_t ked_desc;	/* globs */
	ks_clause_t *ked_clause;
} ks_ecbdesc_t;

typedef struct ks_enabling {
	struct ks_enabling *en_next;
	uint32_t en_id;			/* dtea_enabling, from 1 per state */
	int en_disabled;		/* DTRACEIOC_DISABLE done */
	ks_difo_t **en_difos;		/* by section index, NULL if none */
	uint32_t en_nsecs;
	ks_clause_t **en_clauses;	/* by ACTDESC/pred pair */
	int en_nclauses;
	ks_ecbdesc_t *en_descs;
	int en_ndescs;
	char *en_image;			/* aligned copy of the DOF image */
	dtrace_optval_t en_opts[DTRACEOPT_MAX];
} ks_enabling_t;

/* Validate a DOF image completely; build an enabling or NULL with err.
 * strsize: the state's string size if already fixed, else 0. */
ks_enabling_t *ks_dof_load(const void *dof, uint64_t size,
    dtrace_optval_t strsize_fixed, char *err, size_t errlen);
void ks_enabling_free(ks_enabling_t *en);
/* 1 if a clause of en takes a destructive action (refused by GO, or by
 * ENABLE once tracing, without the destructive option: EACCES). */
int ks_enabling_destructive(const ks_enabling_t *en);

/* ---- speculations (spec.c) -------------------------------------------- */

enum { KS_SPEC_INACTIVE, KS_SPEC_ACTIVE, KS_SPEC_COMMITTING,
	KS_SPEC_DISCARDING };

typedef struct ks_spec {
	int ksp_state;
	ks_buf_t *ksp_bufs;		/* per CPU */
	uint64_t ksp_done;		/* when COMMITTING/DISCARDING began */
} ks_spec_t;

int ks_spec_alloc(struct ks_state *st);
void ks_spec_free(struct ks_state *st);
int ks_spec_new(struct ks_state *st);	/* speculation(): id or 0 */
ks_buf_t *ks_spec_buffer(struct ks_state *st, uint64_t id, unsigned cpu);
void ks_spec_commit(struct ks_state *st, uint64_t id, unsigned cpu);
void ks_spec_discard(struct ks_state *st, uint64_t id);
void ks_spec_clean(struct ks_state *st);	/* fire lock held */

/* ---- consumer state (state.c) ----------------------------------------- */

enum { KS_ST_INACTIVE, KS_ST_ACTIVE, KS_ST_DRAINING, KS_ST_STOPPED };

struct ks_state {
	int st_activity;		/* KS_ST_* */
	dtrace_optval_t st_opts[DTRACEOPT_MAX];
	char st_err[KS_ERRLEN];
	ks_enabling_t *st_enablings;
	ks_ecb_t **st_ecbs;		/* by epid - 1 */
	uint32_t st_necbs, st_ecbcap;
	ks_agg_t **st_aggs;		/* by aggid - 1 */
	uint32_t st_naggs, st_aggcap;
	const char **st_formats;	/* by format id - 1 */
	uint32_t st_nformats, st_fmtcap;
	unsigned st_ncpus;
	int st_allocated;		/* buffers exist */
	ks_buf_t *st_bufs;		/* principal, per CPU */
	ks_aggbuf_t *st_aggbufs;	/* per CPU */
	ks_spec_t *st_specs;		/* nspec of them */
	uint32_t st_nspec;
	ks_vstate_t *st_vstate;
	char *st_scratch;
	uint64_t st_scratch_size;
	uint64_t st_scratch_used;	/* by the current probe firing */
	char *st_rec;			/* staging for one ECB's record */
	uint32_t st_recmax;
	char *st_key;			/* staging for one aggregation key */
	uint32_t st_keymax;
	uint64_t *st_locals;		/* 2 * st_nlocals: the second half
					 * saves them across ERROR firings */
	uint32_t st_nlocals;
	uint64_t st_endreserve;		/* bytes of END's ECBs */
	dtrace_status_t st_status;
	int32_t st_exitstatus;
	int st_inerror;			/* running ERROR's ECBs */
	const ks_probe_ctx_t *st_ctx;	/* the firing being run (fire lock) */
	uint64_t st_chill_start;	/* chill(): current one-second window */
	uint64_t st_chilled;		/* ns chilled in it */
	unsigned st_begincpu;		/* BEGIN fired here; END fires here */
	struct ks_state *st_next;	/* every open state (fire lock) */
	int st_wakefd;			/* eventfd: a buffer passed its
					 * high-water mark (ks_wakefd) */
	uint32_t st_serial;		/* unique in the process, from 1 */
	int st_ktls_veto;		/* self-> variables stay in the shim
					 * (ks_tls_veto; fire lock) */
	const ks_kresult_t *st_kres;	/* the kernel's results for the
					 * clause being replayed, or NULL */
	dtrace_id_t *st_unstarted;	/* probes made after an enabling
					 * whose source could not start
					 * (enable.c: not tried again) */
	uint32_t st_nunstarted, st_unstartcap;
};

/* The open state with this st_serial, or NULL (fire lock held). */
struct ks_state *ks_state_by_serial(uint32_t serial);
/* Size of the record that starts with epid in st, 0 if unknown. */
uint32_t ks_state_recsize(const struct ks_state *st, dtrace_epid_t epid);
int ks_state_seterr(struct ks_state *st, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Effective option: set value or DTrace's default. */
dtrace_optval_t ks_state_opt(const struct ks_state *st, int opt);
/* enable.c: add an enabling (options, ECBs, aggregation ids, formats). */
int ks_enable_add(struct ks_state *st, ks_enabling_t *en,
    uint32_t *nmatched);
/* enable.c: DTRACEIOC_DISABLE of one enabling by its id; -1 ENOENT. */
int ks_enable_disable(struct ks_state *st, uint32_t id);
int ks_state_go(struct ks_state *st, uint32_t *cpu);
int ks_state_stop(struct ks_state *st, uint32_t *cpu);
/* Does the clause need call chains (stack actions or keys, stackdepth,
 * ustackdepth, caller, ucaller)?  enable.c */
/* The KS_NEED_* bits of what a clause loads or records. */
int ks_clause_needs(const ks_clause_t *c);
/* clock.c: the CPU the calling thread runs on (0 .. ncpus - 1). */
unsigned ks_cpu_current(void);

#endif /* KS_IMPL_H */
