/*
 * bpf_agg_impl.h - what bpf_agg.c (plans, maps, the aggregating body) and
 * bpf_agg_drain.c (the drain, reclaiming, the plans' holds) share: the
 * key layout, the plans, the one state (prov_bpf_aggs).  See bpf_agg.c's
 * top comment for how it works and which lock guards what.
 */
#ifndef PROV_BPF_AGG_IMPL_H
#define PROV_BPF_AGG_IMPL_H

#include <pthread.h>
#include "bpf_agg.h"
#include "bpf_tls.h"

#define MAX_PLANS 65536
#define KEY_SMALL 32
#define KEY_BIG 128			/* 8 + 8 + 8 + 16 + 8 * MAXARGS + 8 */
#define STRK 128			/* string bytes of a key */
#define KEY_STR (KEY_BIG + STRK)
#define KEY_MAX KEY_STR
#define KEY_AT (-8 - KEY_MAX)		/* fp offset of the key */
#define VAL_AT (KEY_AT - 8)		/* the 0 inserted */
#define DKEY_AT (VAL_AT - 4)		/* the drops array's key */
#define DEFAULT_KEYS 65536
#define BATCH 256
#define DRAIN_NS 100000000ULL
#define RECLAIM_NS 1000000000ULL
#define FIRES 4096			/* plans counted in the fires array */
#define SPILL_KEYS 4096		/* keys of a spilling plan (PROV_FV_SPILL):
				 * many more are best as records */

typedef struct aplan {
	dtrace_id_t ap_probe;
	unsigned ap_vars;		/* PROV_FV_* of pid tid uid gid comm */
	uint32_t ap_args;		/* arguments in the key */
	int ap_big;			/* which map: 0, 1, 2 (string) */
	prov_bpf_argmap_t ap_am;
	int16_t ap_pt, ap_ug, ap_comm;	/* key offsets, 0: absent */
	int16_t ap_arg[DTRACE_MAXARGS];
	uint8_t ap_qarg;		/* N + 1: argN keyed on its bucket
					 * (kap_qarg), 0: none */
	uint16_t ap_qagg;
	uint64_t ap_qparam;
	int16_t ap_str;			/* key offset of the string, 0: none */
	uint8_t ap_strarg;		/* its argument */
	uint8_t ap_skind;		/* 0: copyinstr(argN), else the
					 * record's string field, as the
					 * argument map's pba_skind */
	int16_t ap_soff;		/* the field's offset */
	uint16_t ap_slen;		/* and size (char[N]) */
	int16_t ap_errno, ap_retoff;	/* key offset (0: absent), and the
					 * return value's in the record */
	int ap_spill;			/* a full map: the record body
					 * (PROV_FV_SPILL) */
	int ap_fires;			/* the key is the plan id alone: count
					 * in the fires array (id < FIRES) */
	int ap_nkc;			/* kernel clauses (bpf_tls.c) */
	uint32_t ap_tlsstate, ap_tlscap;	/* their consumer, its room */
	prov_bpf_kslots_t ap_ks[KS_KT_MAXCLAUSES];	/* their key words */
	ks_kclause_t ap_kc[KS_KT_MAXCLAUSES];
	int ap_refs;			/* rlk: slots counting under it */
	uint64_t ap_idle;		/* rlk: ns since unheld (0: held) */
} aplan_t;

/* The last count read of one key, per CPU. */
typedef struct last {
	uint8_t lk_map;
	uint8_t lk_key[KEY_MAX];
	uint64_t lk_v[];
} last_t;

/*
 * The state of bpf_agg.c: one instance (agg), passed to the helpers
 * below.  Each field names what guards it (the locks are described at
 * the top); "tests" fields are set by tests before the maps start.
 */
typedef struct agg_state {
	pthread_mutex_t plk;		/* plans, maps; under bpf_filter.c's
					 * flk, never the other way */
	pthread_mutex_t dlk;		/* the drain: held while firing */
	pthread_mutex_t rlk;		/* plans' ap_refs, ap_idle; reclaim */
	uint64_t reclaim_ns;		/* rlk */
	aplan_t *plans[MAX_PLANS];	/* plk for writes; entries published
					 * by a release store, freed only at
					 * shutdown */
	uint32_t nextplan;		/* plk */
	int kmaps[3], dropmap;		/* plk: made by maps_start */
	int firemap;			/* plk: per-CPU firings by plan id */
	int budgetmap;			/* plk: keys a spilling plan made, by
					 * plan id (PROV_FV_SPILL) */
	uint32_t spillkeys;		/* plk: a spilling plan's most keys,
					 * its other firings records */
	uint64_t *flast;		/* dlk: [FIRES * ncpu] read so far */
	int started;			/* plk for writes: maps made (release
					 * store, read with acquire) */
	int ncpu;			/* plk: possible CPUs (maps_start) */
	uint32_t maxkeys;		/* plk, or tests */
	int (*plan_hook)(dtrace_id_t, ks_aggplan_t *);	/* atomic; tests */
	last_t **ltab;			/* dlk: last values read, by key */
	size_t lcap, lcount;		/* dlk */
	uint64_t *dlast;		/* dlk: per CPU, drops read */
	uint64_t lastdrain;		/* dlk: ns of the last drain */
	uint64_t nfired, ncalls, ndrops;	/* dlk: statistics */
	uint8_t *bkeys;			/* dlk: batch lookup buffers */
	uint64_t *bvals;		/* dlk */
	uint8_t *dead;			/* dlk: keys to reclaim after a pass */
	size_t ndead, deadcap;		/* dlk */
} agg_state_t;

/* The one state of bpf_agg.c and bpf_agg_drain.c. */
extern agg_state_t prov_bpf_aggs;

/* Key sizes of the maps (KEY_SMALL, KEY_BIG, KEY_STR), by map index. */
#define NMAPS 3
extern const int prov_bpf_agg_ksize[NMAPS];
#define ksize prov_bpf_agg_ksize

/* Close the maps and free the drain's buffers (plk held; dlk too, or the
 * maps were never started). */
void prov_bpf_agg_maps_free(agg_state_t *ag);

#endif /* PROV_BPF_AGG_IMPL_H */
