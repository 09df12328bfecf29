/*
 * exp.h - experiments: a session recorded on disk and replayed (DESIGN.md
 * step 5, "Keep"; seed: analyzer-experiment-format).  Not public; the
 * front ends see eng_record_* and eng_replay_* in engine.h.
 *
 * An experiment is a directory (test.1.er) laid out as the Analyzer lays
 * out its own:
 *   log.xml        what was collected: the D source of every enabling,
 *                  options, probes matched, program and kernel versions,
 *                  word size, and the session's events with timestamps
 *   map.xml        objects mapped in traced processes, over time
 *   overview       one fixed-size entry per work tick: per-CPU buffer
 *                  figures, the global drop counters (struct exp_ov*)
 *   events         data file: the consumer's calls (marks) and the shim's
 *                  answers to GO, STOP, STATUS, and the options
 *   principal      data file: principal-buffer snapshots (BUFSNAP) as
 *                  the consumer received them
 *   aggregations   data file: aggregation snapshots (AGGSNAP)
 *   descriptions   data file: what decodes them: enabled probes (EPIDs
 *                  and record descriptions), probes, formats, aggregation
 *                  descriptions, clause pieces, aggregation names
 *   archives/symbols  data file: every address the consumer turned into
 *                  text, with that text (er_archive's role: stacks
 *                  print the same after the process, or the machine,
 *                  is gone)
 *   archives/NAME.HASH  the symbol table of each object map.xml loads
 *                  (exp_archive.c)
 *   notes          the comment given with -x recordnote=...
 *
 * How replay is exact.  The consumer reaches the shim only through
 * eng_ks_ioctl(); while recording, every answer it gets inside a public
 * call (eng_work, eng_status ...) is written down, and the call itself
 * is written as a mark.  Replay makes the same public calls in the same
 * order and answers each ioctl from the records, so the text printed is
 * the text the live session printed.  Answers come in two kinds:
 *   stream  GO, STOP, STATUS, BUFSNAP, AGGSNAP: taken in order;
 *   keyed   EPROBE, PROBES, FORMAT, AGGDESC, and the symbol, piece and
 *           aggregation-name lookups: written once, the first time they
 *           are asked, and looked up by key afterwards.
 *
 * Data files: a 64-byte file header, then blocks.  A block is a 32-byte
 * header (magic, payload length, first sequence number, time, record
 * count, checksum of the payload) and whole records; it is written with one
 * write, so a reader (of an experiment being written, or left by a
 * killed tracer) sees whole blocks and stops at the first that is cut
 * short or does not check.  Records carry a sequence number shared by
 * every file: replay merges the files by it.
 */
#ifndef ENG_EXP_H
#define ENG_EXP_H

#include <stdint.h>
#include "eng_impl.h"

#define EXP_MAGIC	"DTUIEXP\n"	/* 8 bytes, files' first */
/*
 * The format's version: a major that a reader must know (a newer major is
 * refused with a message saying so), and a minor that only adds record
 * kinds a reader may skip (a reader of an older minor skips the records of
 * kinds it does not know, with a note, and replays the rest).  Files of
 * major 1 written before the minor existed have 0 there.
 *   1.0  the records up to EXP_R_ECBSTAT
 *   1.1  EXP_R_PRED, EXP_R_ECBRUNS: the enablings pane's predicate and
 *        "where" column in a replay
 *   1.2  EXP_R_ECBTIME: what a clause's runs cost
 */
#define EXP_VERSION	1
#define EXP_MINOR	2
#define EXP_BLOCK_MAGIC	0x4b4c4244u	/* "DBLK" little-endian */
#define EXP_BLOCK_MAX	((uint32_t)1 << 28)	/* payload limit */

/* The data files, in the order they are flushed (events last: a block of
 * marks is only on disk after the answers it refers to). */
enum exp_file {
	EXP_F_DESCRIBE, EXP_F_SYMBOLS, EXP_F_PRINCIPAL, EXP_F_AGGREGATE,
	EXP_F_EVENTS, EXP_NFILES,
	EXP_F_OVERVIEW = 100		/* fixed entries, not blocks */
};

struct exp_fhdr {			/* every data file and overview: 64 bytes */
	char fh_magic[8];		/* EXP_MAGIC */
	uint32_t fh_version;		/* EXP_VERSION */
	uint32_t fh_kind;		/* enum exp_file */
	uint32_t fh_wordsize;		/* target's bits: 64 */
	uint32_t fh_ncpus;		/* CPU slots of the recording */
	uint64_t fh_wall;		/* start, ns since the epoch */
	uint64_t fh_entsize;		/* overview: bytes per entry */
	uint32_t fh_minor;		/* EXP_MINOR (0 before it existed) */
	uint8_t fh_pad[20];
};

struct exp_bhdr {			/* a block */
	uint32_t bh_magic;		/* EXP_BLOCK_MAGIC */
	uint32_t bh_len;		/* payload bytes */
	uint64_t bh_seq;		/* sequence number of its first record */
	uint64_t bh_time;		/* time of its first record (ns) */
	uint32_t bh_nrecs;		/* records in the payload */
	uint32_t bh_sum;		/* eng_exp_sum of the payload */
};

struct exp_rhdr {			/* a record, body padded to 8 bytes */
	uint16_t rh_type;		/* EXP_R_* */
	uint16_t rh_depth;		/* marks: nesting of the call */
	uint32_t rh_len;		/* body bytes */
	uint64_t rh_seq;		/* across every file, from 1 */
	uint64_t rh_time;		/* ns since the experiment began */
};

enum exp_rtype {
	EXP_R_MARK = 1,		/* events: struct exp_mark [+ text] */
	EXP_R_OPTS,		/* events: ENG_OPT_MAX dtrace_optval_t */
	EXP_R_GO,		/* events: struct exp_ans + uint32_t cpu */
	EXP_R_STOP,		/* events: struct exp_ans + uint32_t cpu */
	EXP_R_STATUS,		/* events: struct exp_ans + dtrace_status_t */
	EXP_R_BUFSNAP,		/* principal: struct exp_snap + data */
	EXP_R_AGGSNAP,		/* aggregations: struct exp_snap + data */
	EXP_R_EPROBE,		/* keyed (struct exp_key + value) below */
	EXP_R_PROBE,
	EXP_R_FORMAT,
	EXP_R_AGGDESC,
	EXP_R_PIECE,		/* a clause's esi_piece (int32) */
	EXP_R_AGGNAME,		/* an aggregation's name (string) */
	EXP_R_SYM,		/* symbols: text of (pid, addr, mode) */
	EXP_R_NORM,		/* symbols: eng_sym_norm of (pid, addr, mode) */
	EXP_R_ECBSTAT,		/* events: struct exp_ans + struct exp_ecbs +
				 * es_n struct exp_ecbcnt (optional: an
				 * experiment may have none) */
	EXP_R_PRED,		/* keyed (clause): its predicate as written,
				 * k_rc -1 if it has none (1.1) */
	EXP_R_ECBRUNS,		/* events: one byte per ECB of the last
				 * ECBSTAT, where it runs (ENG_RUN_*), when
				 * that changed (1.1) */
	EXP_R_ECBTIME,		/* events, after an ECBSTAT: es_n struct
				 * exp_ecbtime (1.2) */
	EXP_R_NTYPES		/* a record of a kind at or above this
				 * one is a newer minor's: skipped */
};

/* The public calls a mark stands for. */
enum exp_api { EXP_M_GO = 1, EXP_M_STOP, EXP_M_STATUS, EXP_M_WORK,
	       EXP_M_AGGSNAP, EXP_M_AGGPRINT, EXP_M_TEXT };

struct exp_mark { uint32_t mk_api; uint32_t mk_pad; };
struct exp_ans { int32_t an_rc; int32_t an_errno; };
struct exp_snap {
	int32_t sn_rc, sn_errno;
	uint32_t sn_cpu, sn_errors;
	uint64_t sn_size, sn_drops, sn_oldest, sn_timestamp;
	uint32_t sn_enc;		/* data as: EXP_ENC_RAW, EXP_ENC_ZRLE */
	uint32_t sn_pad;
};
/*
 * Snapshot data is mostly zero words (strings are strsize bytes, padded
 * with zeros), so it is written run-length coded when that is smaller:
 * 32-bit tokens, each a run of N 8-byte words: N | 0x80000000 for N
 * zero words, else N literal words whose 8N bytes follow the token.
 * sn_size is the decoded size.
 */
#define EXP_ENC_RAW	0
#define EXP_ENC_ZRLE	1
#define EXP_ZRUN	0x80000000u
struct exp_ecbs { uint32_t es_necbs, es_n; };
/* an ECB's counters as format 1.0 laid them out (dtrace_ecbstat_t's
 * first four), and its timed runs (1.2) in a record of their own, which
 * older readers skip */
struct exp_ecbcnt { uint64_t ec_fires, ec_predfalse, ec_drops, ec_errors; };
struct exp_ecbtime { uint64_t et_samples, et_ns; };
struct exp_key {
	uint64_t k_a, k_b, k_c;		/* e.g. pid, address, mode */
	int32_t k_rc, k_errno;		/* the answer's ioctl result */
};

/* overview: one entry per work tick */
struct exp_ovcpu {
	uint64_t oc_size, oc_used, oc_records, oc_bytes, oc_fires;
	uint64_t oc_drops, oc_aggdrops, oc_errors;
};
struct exp_ovhdr {
	uint64_t oh_time;		/* ns since the experiment began */
	uint64_t oh_seq;		/* the sequence number reached */
	dtrace_status_t oh_status;	/* global drop counters */
};


/* ---- the experiment state (eng_hdl_t.eh_exp) ----------------------------- */

struct exp_out {			/* a data file being written */
	int xo_fd;
	char *xo_buf;			/* the block being filled: records */
	size_t xo_len, xo_cap;
	uint64_t xo_seq, xo_time;	/* of its first record */
	uint32_t xo_nrecs;
};

struct exp_in {				/* a data file being read */
	int xi_fd;
	char xi_name[64];		/* as in messages: "principal" */
	uint64_t xi_size;		/* bytes when looked at */
	uint64_t xi_next;		/* offset of the next block */
	uint64_t xi_blkoff;		/* offset of the block in xi_blk */
	char *xi_blk;			/* its payload */
	size_t xi_blklen, xi_blkcap;
	size_t xi_pos;			/* next record in the payload */
	uint32_t xi_left;		/* records left in the block */
	int xi_has;			/* xi_cur is read and not yet taken */
	struct exp_rhdr xi_cur;
	const char *xi_body;		/* xi_cur's body, in xi_blk */
	uint64_t xi_curoff;		/* file offset of xi_cur */
	int xi_end;			/* nothing more to read */
};

struct exp_pmaps {			/* map.xml: a process's objects */
	int pm_pid;
	char **pm_lines;		/* "base end path", one per object */
	size_t pm_n;
	struct exp_pmaps *pm_next;
};

struct eng_exp {
	int x_want;			/* option "record" given */
	char *x_name;			/* its value; NULL: test.N.er */
	char *x_note;			/* option "recordnote" */
	int x_rec;			/* writing an experiment */
	int x_failed;			/* recording stopped on an error */
	char x_dir[1024];		/* the experiment's path */
	char x_err[1600];		/* why recording or replay stopped */
	uint64_t x_t0;			/* CLOCK_MONOTONIC ns at creation */
	uint64_t x_wall;		/* CLOCK_REALTIME ns at creation */
	uint64_t x_seq;			/* last sequence number given */
	int x_depth;			/* nesting of marked calls */
	struct exp_out x_out[EXP_NFILES];
	int x_ovfd;			/* overview */
	FILE *x_log, *x_map;		/* log.xml, map.xml */
	struct exp_keys *x_keys;	/* keyed answers written / read */
	char *x_zbuf;			/* coded snapshot data */
	size_t x_zcap;
	int x_nenab;			/* enablings logged */
	int x_exitlogged;		/* the exit event is in log.xml */
	struct exp_pmaps *x_pmaps;
	char **x_arch;			/* objects archived (exp_archive.c) */
	struct exp_descs *x_descs;	/* descendants (exp_desc.c) */
	uint64_t x_lastpiece;		/* clause whose piece was last put */
	int x_pieceput;			/* ... x_lastpiece is valid */
	size_t x_narch;

	int x_replay;			/* answering from an experiment */
	struct exp_in x_in[EXP_NFILES];
	char x_warn[1200];		/* why replay ended early */
	uint64_t x_lastseq;		/* last record taken */
	int x_ncpus;			/* of the recording */
	char x_optkeep[ENG_OPT_MAX];	/* set by the front end: kept */
	int x_stepping;			/* inside eng_replay_step/run */
	uint32_t x_minor;		/* the experiment's format minor */
	uint64_t x_nskip;		/* records of unknown kinds skipped */
	char x_skipnote[1200];		/* what a reader should know */
	uint32_t x_skiptype;		/* the first skipped one's kind */
	char x_skipfile[64];		/* ... and file */
	uint8_t *x_runs;		/* ECBRUNS: where each ECB runs, as */
	size_t x_nruns;			/* last recorded or replayed */
};

/* ---- exp_sum.c ---------------------------------------------------------- */
uint32_t eng_exp_sum(const void *p, size_t n);
/* The same sum over pieces: init, add..., end. */
struct exp_sum {
	uint64_t su_lane[4];
	uint64_t su_n;			/* bytes added */
	unsigned char su_tail[32];	/* bytes not yet in a lane */
	size_t su_ntail;
};
void eng_exp_sum_init(struct exp_sum *st);
void eng_exp_sum_add(struct exp_sum *st, const void *p, size_t n);
uint32_t eng_exp_sum_end(struct exp_sum *st);
/* Zero-run coding of snapshot data (n a multiple of 8): the coded size
 * into out (room for n + n / 2 + 8 bytes); decoding: 0, or -1 if in is
 * not a coding of exactly size bytes. */
size_t eng_exp_zrle(const char *p, size_t n, char *out);
int eng_exp_unzrle(const char *in, size_t n, char *out, size_t size);

/* ---- exp_keys.c: keyed answers, by (type, a, b, c) ---------------------- */
struct exp_keys;
struct exp_keyval {
	struct exp_key kv_key;
	int kv_type;
	void *kv_val;			/* malloc'd value, kv_len bytes */
	size_t kv_len;
};
void eng_exp_keys_free(struct exp_keys *t);
const struct exp_keyval *eng_exp_keys_get(const struct exp_keys *t,
    int type, uint64_t a, uint64_t b, uint64_t c);
/* Add (a copy of) a value; 0, or -1 out of memory.  *tp made if NULL. */
int eng_exp_keys_put(struct exp_keys **tp, int type,
    const struct exp_key *k, const void *val, size_t len);

/* ---- exp_write.c: recording -------------------------------------------- */
struct eng_exp;
/* Write one record to its file (body in two parts, b2 may be NULL);
 * returns 0, or -1 when recording has stopped. */
int eng_exp_put(eng_hdl_t *h, int type, int depth, const void *b1,
    size_t n1, const void *b2, size_t n2);
int eng_exp_recording(const eng_hdl_t *h);
/* log.xml: one event element (attrs already formatted, may be ""). */
void eng_exp_log_event(eng_hdl_t *h, const char *kind, const char *attrs);
void eng_exp_flush(eng_hdl_t *h);
void eng_exp_overview(eng_hdl_t *h);
void eng_exp_free(struct eng_exp *x);
/* Make the experiment if "record" was asked for and it is not made. */
int eng_exp_create(eng_hdl_t *h);

const char *eng_exp_fname(int file);	/* "principal" ... */
int eng_exp_file_of(int type);		/* enum exp_file of a record type */
void eng_exp_log_open(eng_hdl_t *h);	/* exp_log.c: log.xml, map.xml */
void eng_exp_close_log(struct eng_exp *x);
/* exp_hook.c: the state, made on first use (NULL: out of memory) */
struct eng_exp *eng_exp_get(eng_hdl_t *h);
/* Options "record[=NAME]" and "recordnote=TEXT": 1 if name is one of
 * them (set), -1 on error, 0 if not ours.  eng_exp_optchanged after any
 * other option index was set. */
int eng_exp_setopt(eng_hdl_t *h, const char *name, const char *value);
void eng_exp_optchanged(eng_hdl_t *h, int index);

/* A descendant's sub-experiment in dir: its data files (but archives/
 * symbols: it has no archives/) and overview, headers and no blocks (its
 * data is in the founder's).  0 or -1 with errno. */
int eng_exp_blank_files(struct eng_exp *x, const char *dir, int ncpus);
/* exp_log.c: s escaped for an XML attribute or text. */
void eng_exp_xml_str(FILE *fp, const char *s);

/* ---- exp_desc.c: sub-experiments of a -c command's descendants ----------- */
struct exp_descs;
/* Watch the descendants of target pid (at GO, before a held -c command
 * execs); read what they did (every work tick); close their
 * sub-experiments (the end of the recording). */
void eng_exp_desc_watch(eng_hdl_t *h, int pid);
void eng_exp_desc_poll(struct eng_exp *x);
void eng_exp_desc_free(struct eng_exp *x);

/* ---- exp_archive.c: archives/NAME.HASH, an object's symbol table ---------- */
void eng_exp_archive(struct eng_exp *x, const char *path);
void eng_exp_archive_free(struct eng_exp *x);

/* ---- exp_read.c: the data files, in sequence order ----------------------- */
int eng_exp_read_open(eng_hdl_t *h, const char *dir);
/* The next record (not taken) and its file; NULL at the end. */
const struct exp_rhdr *eng_exp_peek(eng_hdl_t *h, const char **bodyp,
    int *filep);
void eng_exp_take(eng_hdl_t *h, int file);
void eng_exp_where(eng_hdl_t *h, int file, char *buf, size_t len);

/* A record of a kind this build does not know (a newer minor's): taken,
 * counted and noted. */
int eng_exp_unknown(int type);
void eng_exp_skip(eng_hdl_t *h, int file);

/* ---- exp_replay.c ---------------------------------------------------------- */
int eng_exp_replaying(const eng_hdl_t *h);
/* Replaying, and the call is the front end's, not the replay's. */
int eng_exp_replay_idle(const eng_hdl_t *h);
int eng_exp_replay_ioctl(eng_hdl_t *h, int cmd, void *arg);
/* A keyed answer, reading on through the records if not yet seen. */
const struct exp_keyval *eng_exp_keyed(eng_hdl_t *h, int type, uint64_t a,
    uint64_t b, uint64_t c);

/* ---- hooks in the consumer ---------------------------------------------- */

/*
 * A public consumer call: recorded as a mark when recording and at the top
 * of the calls (nested calls are answered inside their caller), and left
 * (depth back, blocks flushed) when the scope ends.  Use as the first
 * statement: EXP_SCOPE(h, EXP_M_WORK);
 */
struct exp_scope { eng_hdl_t *es_h; int es_api; };
struct exp_scope eng_exp_enter(eng_hdl_t *h, int api);
void eng_exp_leave(struct exp_scope *s);
#define EXP_SCOPE(h, api) \
	struct exp_scope exp_scope_ __attribute__((cleanup(eng_exp_leave), \
	    unused)) = eng_exp_enter((h), (api))

/* A clause's predicate as written (NULL if none), recorded or replayed. */
const char *eng_exp_pred(eng_hdl_t *h, uint64_t stmtid);
/* Where each ECB runs (runs[i] for EPID i + 1, ENG_RUN_*): written down
 * when it changed (recording), or replaced by the one recorded at this
 * point (replaying: 1 if it was, runs then points to the recorded ones). */
void eng_exp_runs_note(eng_hdl_t *h, const uint8_t *runs, size_t n);
int eng_exp_runs_replay(eng_hdl_t *h, const uint8_t **runs, size_t *np);

/* Clause piece and aggregation name, recorded or replayed. */
int eng_exp_piece(eng_hdl_t *h, uint64_t stmtid);
const char *eng_exp_aggname(eng_hdl_t *h, dtrace_aggvarid_t varid);
/* Symbols: 1 if replay answered (buf / *out set), else 0; and the
 * recording side after a live lookup. */
int eng_exp_sym_replay(eng_hdl_t *h, int type, int pid, uint64_t addr,
    int mode, char *buf, size_t len, uint64_t *out);
void eng_exp_sym_note(eng_hdl_t *h, int type, int pid, uint64_t addr,
    int mode, const char *text, uint64_t out);
/* Drops and errors as reported (log.xml). */
void eng_exp_note_drop(eng_hdl_t *h, const eng_dropdata_t *dd);
void eng_exp_note_error(eng_hdl_t *h, const eng_errdata_t *ed);
/* An enabling made (log.xml: its D source and the probes it matched). */
void eng_exp_note_enabling(eng_hdl_t *h, const char *src, unsigned n);
/* A traced process's objects: read its mappings now (process control's
 * pmap for a target, pmap.c) and log what was loaded or unloaded since
 * the last reading (map.xml).  Called at every work tick for the
 * targets and at the first symbol lookup of any other process. */
void eng_exp_note_maps(eng_hdl_t *h, int pid);

#endif /* ENG_EXP_H */
