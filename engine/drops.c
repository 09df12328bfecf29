/*
 * drops.c - drop and error reports in dtrace(1M)'s words.
 *
 * Per-CPU drops: "N drop[s] on CPU c", "N aggregation drop[s] on CPU c".
 * Global counters (from STATUS, reported as they grow): dynamic variable
 * drops (plain, with non-empty rinsing list, with non-empty dirty list),
 * speculative drops, failed speculations (busy / unavailable), stack
 * string table overflows, errors in ERROR probe enablings.  -x droptags
 * puts "[DTRACEDROP_*] " before the count.  Errors come from the
 * engine's ERROR clause: "error on enabled probe ID ...", and from the
 * providers' faults (a source failing mid-session, ks_fault_next), which
 * go to the error handler as "dtrace: <text>".  Messages go to
 * the drop and error handlers with the "dtrace: " prefix; without a
 * handler nothing is printed (the library never prints).
 */
#include <inttypes.h>
#include <string.h>
#include "consume.h"
#include "exp.h"

static const char *const droptag[] = {
	"DTRACEDROP_PRINCIPAL", "DTRACEDROP_AGGREGATION",
	"DTRACEDROP_DYNAMIC", "DTRACEDROP_DYNRINSE", "DTRACEDROP_DYNDIRTY",
	"DTRACEDROP_SPEC", "DTRACEDROP_SPECBUSY", "DTRACEDROP_SPECUNAVAIL",
	"DTRACEDROP_STKSTROVERFLOW", "DTRACEDROP_DBLERROR",
};

const char *eng_drops_faultstr(int fault)
{
	switch (fault) {
#define FAULT_CASE(code, words) case code: return words;
	DTRACEFLT_NAMES(FAULT_CASE)
#undef FAULT_CASE
	default: return "unknown fault";
	}
}

static void deliver(eng_hdl_t *h, dtrace_dropkind_t kind, int cpu,
    uint64_t n, uint64_t total, const char *what)
{
	struct eng_consumer *c = h->eh_cons;
	char msg[512];
	eng_dropdata_t dd;

	if (eng_opt_get(h, ENG_OPT_OFORMAT) == ENG_OFORMAT_JSON)
		snprintf(msg, sizeof (msg), "{\"type\":\"drop\",\"kind\":\"%s\","
		    "\"cpu\":%d,\"count\":%" PRIu64 ",\"total\":%" PRIu64
		    ",\"message\":\"%s\"}\n", droptag[kind], cpu, n, total, what);
	else if (eng_opt_isset(h, ENG_OPT_DROPTAGS))
		snprintf(msg, sizeof (msg), "dtrace: [%s] %s\n", droptag[kind],
		    what);
	else
		snprintf(msg, sizeof (msg), "dtrace: %s\n", what);
	dd.edd_kind = kind;
	dd.edd_cpu = cpu;
	dd.edd_drops = n;
	dd.edd_total = total;
	dd.edd_msg = msg;
	eng_exp_note_drop(h, &dd);
	if (c->ec_drop != NULL)
		c->ec_drop(&dd, c->ec_drop_arg);
}

void eng_drops_cpu(eng_hdl_t *h, int cpu, dtrace_dropkind_t kind,
    uint64_t n)
{
	struct eng_consumer *c = h->eh_cons;
	uint64_t *tot = kind == DTRACEDROP_AGGREGATION ? c->ec_aggdrops :
	    c->ec_drops;
	char what[128];

	if (n == 0 || cpu < 0 || cpu >= c->ec_ncpus)
		return;
	tot[cpu] += n;
	snprintf(what, sizeof (what), "%" PRIu64 " %sdrop%s on CPU %d", n,
	    kind == DTRACEDROP_AGGREGATION ? "aggregation " : "",
	    n > 1 ? "s" : "", cpu);
	deliver(h, kind, cpu, n, tot[cpu], what);
}

/* One global counter: report its growth. */
static void global(eng_hdl_t *h, dtrace_dropkind_t kind, uint64_t old,
    uint64_t now, const char *str, const char *details)
{
	char what[160];
	uint64_t n = now - old;

	if (now <= old)
		return;
	snprintf(what, sizeof (what), "%" PRIu64 " %s%s%s", n, str,
	    n > 1 ? "s" : "", details);
	deliver(h, kind, -1, n, now, what);
}

void eng_drops_status(eng_hdl_t *h, const dtrace_status_t *now)
{
	const dtrace_status_t *o = &h->eh_cons->ec_status;

	global(h, DTRACEDROP_DYNAMIC, o->dtst_dyndrops, now->dtst_dyndrops,
	    "dynamic variable drop", "");
	global(h, DTRACEDROP_DYNRINSE, o->dtst_dyndrops_rinsing,
	    now->dtst_dyndrops_rinsing, "dynamic variable drop",
	    " with non-empty rinsing list");
	global(h, DTRACEDROP_DYNDIRTY, o->dtst_dyndrops_dirty,
	    now->dtst_dyndrops_dirty, "dynamic variable drop",
	    " with non-empty dirty list");
	global(h, DTRACEDROP_SPEC, o->dtst_specdrops, now->dtst_specdrops,
	    "speculative drop", "");
	global(h, DTRACEDROP_SPECBUSY, o->dtst_specdrops_busy,
	    now->dtst_specdrops_busy, "failed speculation",
	    " (available buffer(s) still busy)");
	global(h, DTRACEDROP_SPECUNAVAIL, o->dtst_specdrops_unavail,
	    now->dtst_specdrops_unavail, "failed speculation",
	    " (no speculative buffer available)");
	global(h, DTRACEDROP_STKSTROVERFLOW, o->dtst_stkstroverflows,
	    now->dtst_stkstroverflows, "jstack()/ustack() string table "
	    "overflow", "");
	global(h, DTRACEDROP_DBLERROR, o->dtst_dblerrors, now->dtst_dblerrors,
	    "error", " in ERROR probe enabling");
}

/* -x oformat=json: the error as one object; msg holds the text and is
 * replaced.  Probe names are plain identifiers (no quoting needed). */
static void json_error(char *msg, size_t len, const eng_errdata_t *ed,
    const dtrace_probedesc_t *pd)
{
	char text[1024];
	size_t n = strlen(msg);

	snprintf(text, sizeof (text), "%.*s", (int)(n > 9 ? n - 9 : 0),
	    msg + 8);		/* without "dtrace: " and the newline */
	for (char *t = text; *t != '\0'; t++)
		if (*t == '"' || *t == '\\')
			*t = '\'';
	snprintf(msg, len, "{\"type\":\"error\",\"epid\":%u,\"id\":%u,"
	    "\"probe\":\"%s:%s:%s:%s\",\"fault\":\"%s\",\"action\":%d,"
	    "\"offset\":%" PRId64 ",\"address\":%" PRIu64 ",\"message\":\"%s\"}\n",
	    ed->eed_epid, ed->eed_probe, pd ? pd->dtpd_provider : "",
	    pd ? pd->dtpd_mod : "", pd ? pd->dtpd_func : "",
	    pd ? pd->dtpd_name : "", eng_drops_faultstr(ed->eed_fault),
	    ed->eed_action, (int64_t)ed->eed_offset, ed->eed_addr, text);
}

/* The ERROR clause traced arg1..arg5: EPID, action, offset, fault, addr. */
void eng_drops_error(eng_hdl_t *h, const eng_epcache_t *ep, const char *data)
{
	struct eng_consumer *c = h->eh_cons;
	const dtrace_eprobedesc_t *d = ep->ep_desc;
	uint64_t v[5] = { 0 };
	const eng_epcache_t *bad;
	char msg[4096], where[64], details[64], off[64];
	eng_errdata_t ed;

	for (int i = 0; i < 5 && i < d->dtepd_nrecs; i++)
		v[i] = (uint64_t)eng_rec_int(data + d->dtepd_rec[i].dtrd_offset,
		    d->dtepd_rec[i].dtrd_size, 1);
	memset(&ed, 0, sizeof (ed));
	ed.eed_epid = (dtrace_epid_t)v[0];
	ed.eed_action = (int)v[1];
	ed.eed_offset = v[2];
	ed.eed_fault = (int)v[3];
	ed.eed_addr = v[4];
	bad = eng_rec_epid(h, ed.eed_epid);
	ed.eed_probe = bad != NULL ? bad->ep_probe.dtpd_id : 0;
	if (ed.eed_action == 0)
		snprintf(where, sizeof (where), "predicate");
	else
		snprintf(where, sizeof (where), "action #%d", ed.eed_action);
	details[0] = off[0] = '\0';
	if (ed.eed_fault == DTRACEFLT_BADADDR ||
	    ed.eed_fault == DTRACEFLT_BADALIGN ||
	    ed.eed_fault == DTRACEFLT_BADSTACK)
		snprintf(details, sizeof (details), " (0x%" PRIx64 ")",
		    ed.eed_addr);
	if ((int64_t)ed.eed_offset != -1)
		snprintf(off, sizeof (off), " at DIF offset %" PRIu64,
		    ed.eed_offset);
	const dtrace_probedesc_t *pd = bad != NULL ? &bad->ep_probe : NULL;
	snprintf(msg, sizeof (msg), "dtrace: error on enabled probe ID %u "
	    "(ID %u: %s:%s:%s:%s): %s%s in %s%s\n", ed.eed_epid, ed.eed_probe,
	    pd ? pd->dtpd_provider : "", pd ? pd->dtpd_mod : "",
	    pd ? pd->dtpd_func : "", pd ? pd->dtpd_name : "",
	    eng_drops_faultstr(ed.eed_fault), details, where, off);
	if (eng_opt_get(h, ENG_OPT_OFORMAT) == ENG_OFORMAT_JSON)
		json_error(msg, sizeof (msg), &ed, pd);
	ed.eed_msg = msg;
	eng_exp_note_error(h, &ed);
	if (c->ec_err != NULL)
		c->ec_err(&ed, c->ec_err_arg);
}

void eng_drops_note(eng_hdl_t *h, const char *type, const char *text)
{
	struct eng_consumer *c = h->eh_cons;
	char msg[1024], esc[720];
	eng_errdata_t ed;
	size_t i;

	memset(&ed, 0, sizeof (ed));
	if (eng_opt_get(h, ENG_OPT_OFORMAT) == ENG_OFORMAT_JSON) {
		for (i = 0; text[i] != '\0' && i < sizeof (esc) - 1; i++)
			esc[i] = text[i] == '"' || text[i] == '\\' ? '\'' :
			    text[i];
		esc[i] = '\0';
		snprintf(msg, sizeof (msg), "{\"type\":\"%s\","
		    "\"message\":\"%s\"}\n", type, esc);
	} else {
		snprintf(msg, sizeof (msg), "dtrace: %s\n", text);
	}
	ed.eed_msg = msg;
	if (c->ec_err != NULL)
		c->ec_err(&ed, c->ec_err_arg);
}

void eng_drops_faults(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;
	uint64_t missed;
	char text[256];

	while (ks_fault_next(&c->ec_faultseq, text, sizeof (text), &missed)) {
		if (missed > 0) {
			char more[64];

			snprintf(more, sizeof (more), "%" PRIu64 " more provider "
			    "fault%s not shown", missed, missed > 1 ? "s" : "");
			eng_drops_note(h, "fault", more);
		}
		eng_drops_note(h, "fault", text);
	}
}
