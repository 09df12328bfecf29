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

	int ec_header;			/* CPU/ID header printed */
	int ec_indent;			/* flowindent depth */
	int ec_exited;			/* an exit() record was seen */
	int ec_exitstatus;		/* its value */
	int ec_done;			/* STATUS said exiting/killed */
	dtrace_status_t ec_status;	/* last status (global counters) */
	uint64_t *ec_drops;		/* per-CPU principal drops reported */
	uint64_t *ec_aggdrops;		/* per-CPU agg drops reported */
	uint64_t *ec_errors;		/* per-CPU errors seen */

	int ec_wakefd[2];		/* eng_wakeup() pipe */
	uint64_t ec_nextswitch;		/* deadlines for eng_sleep (ns) */
	uint64_t ec_nextagg;
	uint64_t ec_nextstatus;

	struct eng_aggstate *ec_agg;	/* agg.c */
	struct eng_symtab *ec_sym;	/* sym.c */
	FILE *ec_out;			/* where freopen() sent output */
};

/* opt.c: every option at its default. */
void eng_opt_defaults(eng_hdl_t *h);
/* handle.c: free the consumer state (NULL is fine). */
void eng_cons_free(struct eng_consumer *c);
/* agg.c, sym.c: free their state (NULL is fine). */
void eng_agg_free(struct eng_aggstate *a);
void eng_sym_free(struct eng_symtab *s);

#endif /* ENG_CONSUME_H */
