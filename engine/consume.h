/*
 * consume.h - the consumer half of the engine: state shared by handle.c,
 * opt.c, work.c, record.c, printf.c, agg*.c, hist.c, sym.c, drops.c and
 * json.c.  Not public; the compiler half never includes it.
 *
 * struct eng_consumer hangs off eng_hdl_t.eh_cons.  It caches what the
 * shim describes once per id (enabled probes, aggregations, formats),
 * keeps the per-CPU snapshot buffer, the handlers, drop counters already
 * reported, and the merged aggregation snapshot (agg.c).
 */
#ifndef ENG_CONSUME_H
#define ENG_CONSUME_H

#include <stdio.h>
#include "eng_impl.h"

struct eng_aggstate;	/* agg.c */
struct eng_symtab;	/* sym.c */

/* One cached enabled probe: its record layout and probe description. */
typedef struct eng_epcache {
	dtrace_eprobedesc_t *ep_desc;	/* malloc'd, ep_desc->dtepd_nrecs */
	dtrace_probedesc_t ep_probe;	/* the probe's names */
} eng_epcache_t;

struct eng_consumer {
	int ec_ncpus;
	char *ec_buf;			/* snapshot buffer (ec_bufsize) */
	size_t ec_bufsize;
	eng_epcache_t *ec_ep;		/* indexed by EPID */
	size_t ec_nep;
	char **ec_fmt;			/* format strings by format id */
	size_t ec_nfmt;

	eng_buffered_f *ec_buffered;	/* handlers and their arguments */
	void *ec_buffered_arg;
	eng_drop_f *ec_drop;
	void *ec_drop_arg;
	eng_err_f *ec_err;
	void *ec_err_arg;
	uint64_t ec_faultseq;		/* provider faults reported so far */

	int ec_header;			/* CPU/ID header printed */
	int ec_indent;			/* flowindent depth */
	int ec_pieceopen;		/* a split clause's line is open */
	int ec_piececpu;		/* ... on this CPU */
	uint32_t ec_pieceprobe;		/* ... for this probe */
	uint64_t ec_piecets;		/* ... at this timestamp (the firing) */
	int ec_exited;			/* an exit() record was seen */
	int ec_exitstatus;		/* its value */
	int ec_done;			/* STATUS said exiting/killed */
	int ec_finalread;		/* ring/fill buffers read after STOP */
	int ec_beganon;			/* CPU that ran BEGIN, until consumed */
	int ec_endedon;			/* CPU that ran END; -1 before STOP */
	dtrace_status_t ec_status;	/* last status (global counters) */
	uint64_t *ec_drops;		/* per-CPU principal drops reported */
	uint64_t *ec_aggdrops;		/* per-CPU agg drops reported */
	uint64_t *ec_errors;		/* per-CPU errors seen */
	uint64_t *ec_aggseen;		/* per-CPU agg drop count last seen */

	int ec_wakefd[2];		/* eng_wakeup() pipe */
	uint64_t ec_nextswitch;		/* deadlines for eng_sleep (ns) */
	uint64_t ec_nextagg;
	uint64_t ec_nextstatus;
	uint64_t ec_nexttouch;		/* reread the targets' mappings */
	int ec_ntouch;			/* rereads done since GO */
	int *ec_targets;		/* -c/-p processes */
	int ec_ntargets;

	dtrace_optval_t ec_optasked[DTRACEOPT_MAX]; /* opt.c: a size asked
					 * for above what fits, else 0 */

	struct eng_aggstate *ec_agg;	/* agg.c */
	struct eng_symtab *ec_sym;	/* sym.c */
	int ec_stdoutfd;		/* output's own fd, saved by freopen */
	struct eng_export *ec_export;	/* export.c: chrome/folded state */
	int ec_ecbwatch;		/* ecbstat.c: read them every tick */
	eng_ecbstat_t *ec_ecbst;	/* ... as of the last one */
	size_t ec_necbst;
	dtrace_ecbstat_t *ec_ecbraw;	/* the shim's answer */
	size_t ec_ecbcap;
};

/* opt.c: every option at its default. */
void eng_opt_defaults(eng_hdl_t *h);
/* handle.c: free the consumer state (NULL is fine). */
void eng_cons_free(struct eng_consumer *c);
/* agg.c, sym.c: free their state (NULL is fine). */
void eng_agg_free(struct eng_aggstate *a);
void eng_sym_free(struct eng_symtab *s);

/* ecbstat.c: read the per-ECB counters (from eng_work, inside its
 * mark); 0, or -1 with errmsg. */
int eng_ecb_poll(eng_hdl_t *h);

/* ---- record.c: one probe firing's records -------------------------- */

/* Format every record in buf[0..size) (one CPU's snapshot) to fp, or to
 * the buffered handler when fp is NULL.  Returns 0 or -1 with errmsg. */
int eng_rec_consume(eng_hdl_t *h, FILE *fp, int cpu, const char *buf,
    size_t size);
/* Format record i of the firing at base (EPID ep) to fp as text;
 * returns the number of records it used (printf arguments...). */
int eng_rec_one(eng_hdl_t *h, FILE *fp, const eng_epcache_t *ep,
    const char *base, int i);
/* The cached description of epid (EPROBE + probe names), NULL if the
 * shim does not know it (message set). */
const eng_epcache_t *eng_rec_epid(eng_hdl_t *h, dtrace_epid_t epid);
/* 0 if every record of d lies inside its firing, else -1 (a corrupt
 * description is refused before anything is decoded with it). */
int eng_rec_desc_check(const dtrace_eprobedesc_t *d);
/* 1 if record r is large enough for what its action reads (a ustack's
 * pid and frames, a symbol's address...), else 0. */
int eng_rec_size_ok(const dtrace_recdesc_t *r);
/* dtrace's trace() of bytes: a string if it looks like one, else a hex
 * dump (always a hex dump with forceraw or -x rawbytes). */
void eng_rec_bytes(eng_hdl_t *h, FILE *fp, const char *p, size_t n,
    int width, int quiet, int forceraw);
/* Stack records: one frame per line after a newline, indented by
 * stackindent; fmt ("%s" if NULL) formats each frame's text. */
void eng_rec_stack(eng_hdl_t *h, FILE *fp, const char *fmt, const char *p,
    int depth, int size);
void eng_rec_ustack(eng_hdl_t *h, FILE *fp, const char *fmt, const char *p,
    int depth);
/* sym/mod/usym/umod/uaddr records (act = DTRACEACT_*), fmt NULL for the
 * default "  %-50s". */
void eng_rec_sym(eng_hdl_t *h, FILE *fp, const char *fmt, int act,
    const char *p);
/* A record's integer value: by size, sign-extended when sign is set. */
int64_t eng_rec_int(const char *p, size_t size, int sign);

/* ---- printf.c ----------------------------------------------------------- */

/* One printf argument: its record description and data. */
typedef struct eng_pfarg {
	const dtrace_recdesc_t *pa_rec;
	const char *pa_data;
	int64_t pa_normal;		/* aggregation values: normalization */
} eng_pfarg_t;
/* Format fmt with args (consumed in order by conversions, '*' widths and
 * precisions) and aggs (consumed by %@ conversions).  Returns 0, or -1
 * with errmsg on a bad format. */
int eng_printf(eng_hdl_t *h, FILE *fp, const char *fmt,
    const eng_pfarg_t *args, int nargs, const eng_pfarg_t *aggs, int naggs);

/* ---- sym.c -------------------------------------------------------------- */

#define ENG_SYM_NAME	0	/* "obj`name" (sym, usym) */
#define ENG_SYM_MOD	1	/* "obj" (mod, umod) */
#define ENG_SYM_OFF	2	/* "obj`name+0x1c" (stacks, uaddr, %a) */
/* Text for address addr of process pid (0 = kernel) as dtrace prints
 * it; falls back to "obj`0x..." and "0x...".  Never fails. */
void eng_sym_text(eng_hdl_t *h, int pid, uint64_t addr, int mode,
    char *buf, size_t len);
/* The address an aggregation key of this mode is kept under, as
 * libdtrace re-keys sym()/mod()/usym()/umod() at snapshot: ENG_SYM_NAME
 * gives the start of the address's symbol, ENG_SYM_MOD its object's base
 * (so all addresses in one function or object share one row); addresses
 * that do not resolve, and other modes, stay as they are. */
uint64_t eng_sym_norm(eng_hdl_t *h, int pid, uint64_t addr, int mode);
/* Read pid's mappings now (reread: even if known), while it lives, for
 * lookups after it has gone. */
void eng_sym_touch(eng_hdl_t *h, int pid, int reread);
/* Processes gone whose symbols are kept (the most recently looked up);
 * the processes whose symbols the table holds now (tests). */
#define ENG_SYM_KEEP_GONE 64
size_t eng_sym_nprocs(eng_hdl_t *h);

/* ---- hist.c ------------------------------------------------------------- */

/* Draw a quantize/lquantize/llquantize value (record layout of the
 * clause protocol) as dtrace does; zoom scales to the largest bucket. */
int eng_hist_print(FILE *fp, int func, const int64_t *data, size_t size,
    int64_t normal, int zoom);
/* One histogram row's "|@@@   count" part (also agghist rows). */
void eng_hist_bar(FILE *fp, int64_t val, int64_t normal, long double total,
    int pos, int neg);
/* aggpack: the header once per aggregation (width: key columns), and
 * one line per key; minbin/maxbin are the lowest and highest non-zero
 * buckets over the aggregation's keys (quantize). */
void eng_hist_packhdr(FILE *fp, int width, int func, int minbin,
    int maxbin);
int eng_hist_packed(FILE *fp, int func, const int64_t *data, size_t size,
    int minbin, int maxbin, int zoom);
/* Bucket labels and counts in a flat form (for eng_agg_walk). */
int eng_hist_buckets(int func, const int64_t *data, size_t size,
    uint64_t *argp, const int64_t **bucketsp);

/* ---- drops.c ------------------------------------------------------------ */

/* Report new per-CPU drops and global drop counters through the drop
 * handler (or stderr-ready text in eng_dropdata_t). */
void eng_drops_cpu(eng_hdl_t *h, int cpu, dtrace_dropkind_t kind,
    uint64_t n);
void eng_drops_status(eng_hdl_t *h, const dtrace_status_t *now);
/* Format and deliver an ERROR-clause record. */
void eng_drops_error(eng_hdl_t *h, const eng_epcache_t *ep,
    const char *data);
/* The fault text for DTRACEFLT_* ("invalid address"...). */
const char *eng_drops_faultstr(int fault);
/* Report the provider faults (ks_fault_next) not reported yet through
 * the error handler, as "dtrace: <text>". */
void eng_drops_faults(eng_hdl_t *h);
/* A message of the consumer's with no probe and no DIF fault (a
 * provider's fault, a setopt() refused) through the error handler:
 * "dtrace: <text>", or {"type":"<type>","message":"<text>"} under
 * oformat=json. */
void eng_drops_note(eng_hdl_t *h, const char *type, const char *text);

/* ---- json.c (-x oformat=json) -------------------------------------------- */

/* One probe firing as one JSON object on a line. */
void eng_json_firing(eng_hdl_t *h, FILE *fp, const eng_epcache_t *ep,
    const char *base, int cpu);
/* Aggregations as JSON: ids[0..n) (printa) or, with all, every variable
 * not printed yet. */
int eng_json_aggs(eng_hdl_t *h, FILE *fp, const dtrace_aggvarid_t *ids,
    int n, int all);
/* Write s as a JSON string (with quotes). */
void eng_json_str(FILE *fp, const char *s, size_t max);

/* ---- export.c (-x oformat=chrome, folded) -------------------------------- */

struct eng_export;
void eng_export_free(struct eng_export *x);
/* A timestamp seen (a buffer snapshot's): counters are dated by it. */
void eng_export_time(eng_hdl_t *h, uint64_t ts);
/* One firing's text as a chrome event (nothing in other formats). */
void eng_export_firing(eng_hdl_t *h, FILE *fp, int cpu,
    const dtrace_probedesc_t *pd, uint64_t when, const char *text);
/* After a work tick: chrome counters. */
void eng_export_tick(eng_hdl_t *h, FILE *fp);
/* The final aggregation print; 1 if done in an export format. */
int eng_export_final(eng_hdl_t *h, FILE *fp);

/* ---- agg.c -------------------------------------------------------------- */

/* Library actions on aggregations by variable id. */
int eng_agg_clear_id(eng_hdl_t *h, dtrace_aggvarid_t id);
int eng_agg_trunc_id(eng_hdl_t *h, dtrace_aggvarid_t id, int64_t n);
int eng_agg_normalize_id(eng_hdl_t *h, dtrace_aggvarid_t id, int64_t n);
/* One merged aggregation entry (all CPUs), in the last snapshot. */
typedef struct eng_aggrow {
	dtrace_aggvarid_t ar_varid;
	const dtrace_aggdesc_t *ar_desc;	/* layout (records) */
	char *ar_data;			/* dtagd_size bytes, value merged */
	uint64_t ar_seq;		/* insertion order, for ties */
	int ar_hidden;			/* truncated away */
} eng_aggrow_t;
/* Merge one aggregation record laid out by d (its dtagd_varid set) into
 * the current snapshot (AGGSNAP data; tests). */
int eng_agg_add(eng_hdl_t *h, const dtrace_aggdesc_t *d, const char *rec);
/* The description of aggregation id if fetched already, else NULL
 * (ids up to the first NULL past the last are not). */
const dtrace_aggdesc_t *eng_agg_cached(const struct eng_aggstate *a,
    size_t id);
/* A description of variable varid's aggregation, fetched if need be
 * (a variable without entries); NULL if none is known. */
const dtrace_aggdesc_t *eng_agg_desc_var(eng_hdl_t *h,
    dtrace_aggvarid_t varid);
/* Merge one CPU's aggregation snapshot buf[0..size) (records at 8-byte
 * boundaries, each starting with its aggregation ID). */
int eng_agg_consume(eng_hdl_t *h, int cpu, const char *buf, size_t size);
/* Cache description d (malloc'd; taken even on failure) after checking
 * it: -1 if its records do not fit its size or its value record is not
 * the size its function needs. */
int eng_agg_desc_put(eng_hdl_t *h, dtrace_aggdesc_t *d);
/* Rows of the last snapshot, unsorted. */
size_t eng_agg_nrows(const struct eng_aggstate *a);
eng_aggrow_t *eng_agg_row(struct eng_aggstate *a, size_t i);
/* The value record of a row's layout. */
const dtrace_recdesc_t *eng_agg_valrec(const dtrace_aggdesc_t *d);
/* Rows of the last snapshot for varid (0: every variable), sorted as
 * printa sorts (sortpos ignored; plain: by value then key whatever the
 * options say); *np gets the count.  The array is malloc'd (caller
 * frees), rows are borrowed until the next snapshot. */
eng_aggrow_t **eng_agg_sorted(eng_hdl_t *h, dtrace_aggvarid_t varid,
    size_t *np, int plain);
/* Compare two rows' keys / values as dtrace sorts them. */
int eng_agg_keycmp(eng_hdl_t *h, const eng_aggrow_t *a, const eng_aggrow_t *b);
int eng_agg_valcmp(const eng_aggrow_t *a, const eng_aggrow_t *b);
/* The normalization factor and printed flag of variable varid. */
int64_t eng_agg_normal(eng_hdl_t *h, dtrace_aggvarid_t varid);
void eng_agg_set_printed(eng_hdl_t *h, dtrace_aggvarid_t varid);
int eng_agg_printed(eng_hdl_t *h, dtrace_aggvarid_t varid);
/* Every variable id seen, ascending; *np gets the count (borrowed). */
const dtrace_aggvarid_t *eng_agg_varids(eng_hdl_t *h, size_t *np);
/* The name of variable varid ("" for @, "?" if unknown). */
const char *eng_agg_name(eng_hdl_t *h, dtrace_aggvarid_t varid);
/* stddev() of a value record (count, sum, sumsq high, sumsq low). */
uint64_t eng_agg_stddev(const uint64_t *data, int64_t normal);
/* printa(): with fmt (NULL for the default layout) for ids[0..n). */
int eng_agg_printa(eng_hdl_t *h, FILE *fp, const char *fmt,
    const dtrace_aggvarid_t *ids, int n);

#endif /* ENG_CONSUME_H */
