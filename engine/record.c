/*
 * record.c - decoding a CPU's principal-buffer snapshot into dtrace(1M)'s
 * text, one probe firing at a time.
 *
 * A snapshot is a run of firings, each a dtrace_rechdr_t (EPID and
 * timestamp) followed by the ECB's records at the offsets its
 * dtrace_eprobedesc_t gives (offsets count from the header); the next
 * firing starts at the 8-byte-aligned end of dtepd_size.  EPID 0 is
 * padding.  Descriptions come from the shim once per EPID and are cached
 * in eng_consumer.ec_ep (with the probe's names).
 *
 * The layout of what is printed follows dtrace(1M) (OUTPUT-FORMATS.md):
 * the "CPU ID FUNCTION:NAME" header once, a "%3d %6d %32s " prefix per
 * firing unless quiet (flowindent: "%3d %-41s " with -> / <- / | and
 * two columns of indent per level), each record, and a newline per
 * firing unless quiet.  trace() prints integers by size, byte runs as a
 * string when they look like one and as a hex dump otherwise.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "consume.h"
#include "ccinfo.h"
#include "exp.h"

int64_t eng_rec_int(const char *p, size_t size, int sign)
{
	switch (size) {
	case 1: { uint8_t v; memcpy(&v, p, 1);
		return sign ? (int8_t)v : (int64_t)v; }
	case 2: { uint16_t v; memcpy(&v, p, 2);
		return sign ? (int16_t)v : (int64_t)v; }
	case 4: { uint32_t v; memcpy(&v, p, 4);
		return sign ? (int32_t)v : (int64_t)v; }
	case 8: { int64_t v; memcpy(&v, p, 8); return v; }
	default: return 0;
	}
}

/* Fetch the shim's description of epid and its probe into ep. */
static int fetch_epid(eng_hdl_t *h, dtrace_epid_t epid, eng_epcache_t *ep)
{
	int room = 16;
	dtrace_eprobedesc_t *d = NULL;

	for (;;) {
		size_t sz = sizeof (*d) + (size_t)room * sizeof (d->dtepd_rec[0]);
		dtrace_eprobedesc_t *nd = realloc(d, sz);

		if (nd == NULL) {
			free(d);
			return eng_error(h, "out of memory");
		}
		d = nd;
		memset(d, 0, sz);
		d->dtepd_epid = epid;
		d->dtepd_nrecs = room;
		if (eng_ks_ioctl(h, DTRACEIOC_EPROBE, d) != 0) {
			free(d);
			return eng_error(h, "failed to get description for "
			    "enabled probe ID %u: %s", epid,
			    ks_errmsg(h->eh_ks));
		}
		if (d->dtepd_nrecs <= room)
			break;
		room = d->dtepd_nrecs;
	}
	memset(&ep->ep_probe, 0, sizeof (ep->ep_probe));
	ep->ep_probe.dtpd_id = d->dtepd_probeid;
	if (eng_ks_ioctl(h, DTRACEIOC_PROBES, &ep->ep_probe) != 0 ||
	    ep->ep_probe.dtpd_id != d->dtepd_probeid) {
		memset(&ep->ep_probe, 0, sizeof (ep->ep_probe));
		ep->ep_probe.dtpd_id = d->dtepd_probeid;
	}
	if (eng_rec_desc_check(d) != 0) {
		free(d);
		return eng_error(h, "corrupt description for enabled probe "
		    "ID %u", epid);
	}
	ep->ep_desc = d;
	return 0;
}

/*
 * A description the decoder can trust: every record inside the firing
 * (after its header), the firing no larger than a buffer can be.  The
 * shim's are; a corrupt one is refused here once instead of being read
 * out of bounds at every firing.
 */
int eng_rec_size_ok(const dtrace_recdesc_t *r)
{
	switch (r->dtrd_action) {
	case DTRACEACT_USTACK: case DTRACEACT_JSTACK:	/* pid, then pcs */
		return r->dtrd_size >= 8 + 8 * (uint64_t)(r->dtrd_arg &
		    0xffffffffu);
	case DTRACEACT_USYM: case DTRACEACT_UMOD: case DTRACEACT_UADDR:
		return r->dtrd_size >= 16;		/* pid, pc */
	case DTRACEACT_SYM: case DTRACEACT_MOD: case DTRACEACT_TRACEMEM_DYNSIZE:
		return r->dtrd_size >= 8;
	case DTRACEACT_TRACEMEM:
		return (r->dtrd_arg != DTRACE_TRACEMEM_SIZE &&
		    r->dtrd_arg != DTRACE_TRACEMEM_SSIZE) || r->dtrd_size >= 8;
	case DTRACEACT_EXIT:
		return r->dtrd_size >= 4;
	default:
		return 1;
	}
}

int eng_rec_desc_check(const dtrace_eprobedesc_t *d)
{
	if (d->dtepd_size > (1u << 30) ||
	    (d->dtepd_nrecs > 0 && d->dtepd_size < sizeof (dtrace_rechdr_t)))
		return -1;
	for (int i = 0; i < d->dtepd_nrecs; i++) {
		const dtrace_recdesc_t *r = &d->dtepd_rec[i];

		if (r->dtrd_offset < sizeof (dtrace_rechdr_t) ||
		    r->dtrd_offset > d->dtepd_size ||
		    r->dtrd_size > d->dtepd_size - r->dtrd_offset ||
		    !eng_rec_size_ok(r))
			return -1;
	}
	return 0;
}

const eng_epcache_t *eng_rec_epid(eng_hdl_t *h, dtrace_epid_t epid)
{
	struct eng_consumer *c = h->eh_cons;
	eng_epcache_t ep;

	if (epid < c->ec_nep && c->ec_ep[epid].ep_desc != NULL)
		return &c->ec_ep[epid];
	/* the shim describes it before the cache grows to hold it: a
	 * corrupt record's EPID is refused without growing the cache */
	if (epid > (1u << 20)) {
		eng_error(h, "corrupt record: no enabled probe ID %u", epid);
		return NULL;
	}
	if (fetch_epid(h, epid, &ep) != 0)
		return NULL;
	if (epid >= c->ec_nep) {
		size_t n = (size_t)epid + 16;
		eng_epcache_t *ne = realloc(c->ec_ep, n * sizeof (*ne));

		if (ne == NULL) {
			free(ep.ep_desc);
			eng_error(h, "out of memory");
			return NULL;
		}
		memset(ne + c->ec_nep, 0, (n - c->ec_nep) * sizeof (*ne));
		c->ec_ep = ne;
		c->ec_nep = n;
	}
	c->ec_ep[epid] = ep;
	return &c->ec_ep[epid];
}

static void hexdump(FILE *fp, const unsigned char *c, size_t n)
{
	const int margin = 5;

	fprintf(fp, "\n%*s      ", margin, "");
	for (int i = 0; i < 16; i++)
		fprintf(fp, "  %c", "0123456789abcdef"[i]);
	fputs("  0123456789abcdef\n", fp);
	for (size_t i = 0; i < n; i += 16) {
		size_t j;

		fprintf(fp, "%*s%5zx:", margin, "", i);
		for (j = i; j < i + 16 && j < n; j++)
			fprintf(fp, " %02x", c[j]);
		while (j++ % 16)
			fputs("   ", fp);
		fputs("  ", fp);
		for (j = i; j < i + 16 && j < n; j++)
			fputc(c[j] < ' ' || c[j] > '~' ? '.' : c[j], fp);
		fputc('\n', fp);
	}
}

static int printable(unsigned char ch)
{
	return isprint(ch) || isspace(ch) || ch == '\b' || ch == '\a';
}

void eng_rec_bytes(eng_hdl_t *h, FILE *fp, const char *p, size_t n,
    int width, int quiet, int forceraw)
{
	const unsigned char *c = (const unsigned char *)p;
	size_t i, j;

	if (n == 0)
		return;
	if (forceraw || eng_opt_isset(h, DTRACEOPT_RAWBYTES)) {
		hexdump(fp, c, n);
		return;
	}
	for (i = 0; i < n; i++) {
		if (printable(c[i]))
			continue;
		if (c[i] == '\0' && i > 0) {
			for (j = i + 1; j < n && c[j] == '\0'; j++)
				continue;
			if (j != n)
				break;
			if (quiet)
				fputs(p, fp);
			else
				fprintf(fp, " %s%*s", width < 0 ? " " : "",
				    width, p);
			return;
		}
		break;
	}
	if (i == n) {
		fprintf(fp, "  %-*.*s", width, (int)n, p);
		return;
	}
	hexdump(fp, c, n);
}

static int stackindent(eng_hdl_t *h)
{
	dtrace_optval_t v = eng_opt_get(h, DTRACEOPT_STACKINDENT);

	return v == DTRACEOPT_UNSET ? 14 : (int)v;
}

void eng_rec_stack(eng_hdl_t *h, FILE *fp, const char *fmt, const char *p,
    int depth, int size)
{
	int indent = stackindent(h);
	char text[1024];

	fputc('\n', fp);
	for (int i = 0; i < depth; i++) {
		uint64_t pc = (uint64_t)eng_rec_int(p + (size_t)i * size,
		    (size_t)size, 0);

		if (pc == 0)
			break;
		eng_sym_text(h, 0, pc, ENG_SYM_OFF, text, sizeof (text));
		fprintf(fp, "%*s", indent, "");
		fprintf(fp, fmt != NULL ? fmt : "%s", text);
		fputc('\n', fp);
	}
}

void eng_rec_ustack(eng_hdl_t *h, FILE *fp, const char *fmt, const char *p,
    int depth)
{
	int indent = stackindent(h);
	int pid = (int)eng_rec_int(p, 8, 0);
	char text[1024];

	fputc('\n', fp);
	for (int i = 0; i < depth; i++) {
		uint64_t pc = (uint64_t)eng_rec_int(p + 8 + (size_t)i * 8, 8, 0);

		if (pc == 0)
			break;
		eng_sym_text(h, pid, pc, ENG_SYM_OFF, text, sizeof (text));
		fprintf(fp, "%*s", indent, "");
		fprintf(fp, fmt != NULL ? fmt : "%s", text);
		fputc('\n', fp);
	}
}

void eng_rec_sym(eng_hdl_t *h, FILE *fp, const char *fmt, int act,
    const char *p)
{
	char text[1024];
	int user = act == DTRACEACT_USYM || act == DTRACEACT_UMOD ||
	    act == DTRACEACT_UADDR;
	int pid = user ? (int)eng_rec_int(p, 8, 0) : 0;
	uint64_t pc = (uint64_t)eng_rec_int(user ? p + 8 : p, 8, 0);
	int mode = ENG_SYM_NAME;

	if (act == DTRACEACT_MOD || act == DTRACEACT_UMOD)
		mode = ENG_SYM_MOD;
	else if (act == DTRACEACT_UADDR)
		mode = ENG_SYM_OFF;
	eng_sym_text(h, pid, pc, mode, text, sizeof (text));
	fprintf(fp, fmt != NULL ? fmt : "  %-50s", text);
}

/* ---- flowindent ----------------------------------------------------- */

static void prefix(eng_hdl_t *h, FILE *fp, int cpu, const eng_epcache_t *ep,
    int flow, int quiet)
{
	struct eng_consumer *c = h->eh_cons;
	const dtrace_probedesc_t *pd = &ep->ep_probe;
	char buf[DTRACE_FUNCNAMELEN + DTRACE_NAMELEN + 64];

	if (!flow) {
		if (!quiet) {
			snprintf(buf, sizeof (buf), "%s:%s", pd->dtpd_func,
			    pd->dtpd_name);
			fprintf(fp, "%3d %6u %32s ", cpu, pd->dtpd_id, buf);
		}
		return;
	}
	int sys = strcmp(pd->dtpd_provider, "syscall") == 0;
	const char *pfx = "| ";
	int entry = strcmp(pd->dtpd_name, "entry") == 0;
	int ret = strcmp(pd->dtpd_name, "return") == 0;

	if (entry)
		pfx = sys ? "=> " : "-> ";
	else if (ret)
		pfx = sys ? "<= " : "<- ";
	if (ret && c->ec_indent > 0)
		c->ec_indent -= 2;
	if (entry || ret)
		snprintf(buf, sizeof (buf), "%*s%s%s", c->ec_indent, "", pfx,
		    pd->dtpd_func);
	else
		snprintf(buf, sizeof (buf), "%*s%s%s:%s", c->ec_indent, "",
		    pfx, pd->dtpd_func, pd->dtpd_name);
	fprintf(fp, "%3d %-41s ", cpu, buf);
	if (entry)
		c->ec_indent += 2;
}

static void header(eng_hdl_t *h, FILE *fp, int flow, int quiet)
{
	struct eng_consumer *c = h->eh_cons;

	if (c->ec_header)
		return;
	c->ec_header = 1;
	if (!flow) {
		if (!quiet)
			fprintf(fp, "%3s %6s %32s\n", "CPU", "ID",
			    "FUNCTION:NAME");
	} else {
		fprintf(fp, "%3s %-41s\n", "CPU", "FUNCTION");
	}
}

/* ---- records ------------------------------------------------------------ */

/* Where a firing's records are: the ECB, its data, the cursor. */
struct firing {
	const eng_epcache_t *ep;
	const char *base;		/* the rechdr */
	int cpu;
	int quiet;
};

static const char *recdata(const struct firing *f, int i)
{
	return f->base + f->ep->ep_desc->dtepd_rec[i].dtrd_offset;
}

static const char *fmtstr(eng_hdl_t *h, uint16_t id)
{
	struct eng_consumer *c = h->eh_cons;
	dtrace_fmtdesc_t fd;

	if (id == 0)
		return NULL;
	if (id < c->ec_nfmt && c->ec_fmt[id] != NULL)
		return c->ec_fmt[id];
	if (id >= c->ec_nfmt) {
		size_t n = (size_t)id + 16;
		char **nf = realloc(c->ec_fmt, n * sizeof (*nf));

		if (nf == NULL)
			return NULL;
		memset(nf + c->ec_nfmt, 0, (n - c->ec_nfmt) * sizeof (*nf));
		c->ec_fmt = nf;
		c->ec_nfmt = n;
	}
	memset(&fd, 0, sizeof (fd));
	fd.dtfd_format = id;
	if (eng_ks_ioctl(h, DTRACEIOC_FORMAT, &fd) != 0)
		return NULL;
	if (fd.dtfd_length <= 0 ||
	    (fd.dtfd_string = calloc(1, (size_t)fd.dtfd_length + 1)) == NULL)
		return NULL;
	if (eng_ks_ioctl(h, DTRACEIOC_FORMAT, &fd) != 0) {
		free(fd.dtfd_string);
		return NULL;
	}
	c->ec_fmt[id] = fd.dtfd_string;
	return fd.dtfd_string;
}

/* The following n records of firing f as printf arguments. */
static int collect(const struct firing *f, int i, int n, eng_pfarg_t *args)
{
	int nrecs = f->ep->ep_desc->dtepd_nrecs, k;

	for (k = 0; k < n && i + 1 + k < nrecs; k++) {
		args[k].pa_rec = &f->ep->ep_desc->dtepd_rec[i + 1 + k];
		args[k].pa_data = recdata(f, i + 1 + k);
		args[k].pa_normal = 1;
	}
	return k;
}

/*
 * system(), freopen(): the formatted string, then act on it.  freopen()
 * points fp's descriptor at the file (appending), so everything printed
 * to fp afterwards, aggregations included, goes there, as with dtrace;
 * freopen("") points it back at the original.  Not when replaying an
 * experiment.
 */
static void proc_action(eng_hdl_t *h, FILE *fp, int act, const char *s)
{
	struct eng_consumer *c = h->eh_cons;
	int fd = fileno(fp), nfd;

	fflush(fp);
	/* a replayed session neither runs commands nor writes files */
	if (eng_exp_replaying(h))
		return;
	if (act == DTRACEACT_SYSTEM) {
		fflush(stdout);
		if (system(s) == -1)
			eng_error(h, "system() failed");
		return;
	}
	if (fd < 0)
		return;
	if (*s == '\0') {
		if (c->ec_stdoutfd >= 0)
			dup2(c->ec_stdoutfd, fd);
		return;
	}
	if ((nfd = open(s, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0666)) < 0) {
		eng_error(h, "couldn't freopen() \"%s\": %s", s,
		    strerror(errno));
		return;
	}
	if (c->ec_stdoutfd < 0)
		c->ec_stdoutfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	dup2(nfd, fd);
	close(nfd);
}

/* printf/printa/system/freopen at record i; returns records used. */
static int printflike(eng_hdl_t *h, FILE *fp, const struct firing *f, int i)
{
	const dtrace_recdesc_t *rec = &f->ep->ep_desc->dtepd_rec[i];
	const char *fmt = fmtstr(h, rec->dtrd_format);
	int want = (int)rec->dtrd_uarg, n;
	eng_pfarg_t stackargs[16];
	eng_pfarg_t *args = want <= 16 ? stackargs :
	    calloc((size_t)want + 1, sizeof (*args));

	if (args == NULL)
		return 1;
	n = collect(f, i, want, args);
	if (rec->dtrd_action == DTRACEACT_PRINTA) {
		dtrace_aggvarid_t *ids = calloc((size_t)n + 1, sizeof (*ids));

		for (int k = 0; ids != NULL && k < n; k++)
			ids[k] = eng_rec_int(args[k].pa_data,
			    args[k].pa_rec->dtrd_size, 0);
		if (ids != NULL)
			eng_agg_printa(h, fp, fmt, ids, n);
		free(ids);
	} else if (fmt != NULL && rec->dtrd_action == DTRACEACT_PRINTF) {
		eng_printf(h, fp, fmt, args, n, NULL, 0);
	} else if (fmt != NULL) {
		char *s = NULL;
		size_t len = 0;
		FILE *mf = open_memstream(&s, &len);

		if (mf != NULL) {
			eng_printf(h, mf, fmt, args, n, NULL, 0);
			fclose(mf);
			proc_action(h, fp, rec->dtrd_action, s);
			free(s);
		}
	}
	if (args != stackargs)
		free(args);
	return 1 + n;
}

/* Consumer-side actions (clear, trunc, normalize, setopt...). */
static int libact(eng_hdl_t *h, FILE *fp, const struct firing *f, int i)
{
	const dtrace_recdesc_t *rec = &f->ep->ep_desc->dtepd_rec[i];
	int nrecs = f->ep->ep_desc->dtepd_nrecs;
	int extra = (int)rec->dtrd_uarg;
	const char *arg1 = i + 1 < nrecs && extra > 0 ? recdata(f, i + 1) : NULL;
	const dtrace_recdesc_t *r1 = arg1 != NULL ? rec + 1 : NULL;
	int64_t id = eng_rec_int(recdata(f, i), rec->dtrd_size, 0);
	int64_t n = r1 != NULL ? eng_rec_int(arg1, r1->dtrd_size, 1) : 0;

	switch (rec->dtrd_arg) {
	case DT_ACT_CLEAR:
		eng_agg_clear_id(h, id);
		break;
	case DT_ACT_DENORMALIZE:
		eng_agg_normalize_id(h, id, 1);
		break;
	case DT_ACT_NORMALIZE:
		eng_agg_normalize_id(h, id, n);
		break;
	case DT_ACT_TRUNC:
		eng_agg_trunc_id(h, id, r1 != NULL ? n : 0);
		break;
	case DT_ACT_SETOPT: {
		char name[256], val[256];
		const char *v = NULL;

		snprintf(name, sizeof (name), "%.*s", (int)rec->dtrd_size,
		    recdata(f, i));
		if (arg1 != NULL && r1->dtrd_size > 8) {	/* a string: */
			snprintf(val, sizeof (val), "%.*s",	/* bounded */
			    (int)r1->dtrd_size, arg1);
			v = val;
		}
		if (eng_setopt(h, name, v) != 0) {
			char text[700];

			snprintf(text, sizeof (text), "couldn't set option "
			    "\"%s\" to \"%s\": %s", name, v != NULL ? v : "1",
			    eng_errmsg(h));
			eng_drops_note(h, "setopt", text);
		}
		break;
	}
	case DT_ACT_FTRUNCATE:
		fflush(fp);
		if (ftruncate(fileno(fp), 0) == 0)
			fseeko(fp, 0, SEEK_SET);
		break;
	default:
		break;
	}
	return 1 + (extra < nrecs - i - 1 ? extra : nrecs - i - 1);
}

/* tracemem() at record i, with a dynamic size record after it. */
static int tracemem(eng_hdl_t *h, FILE *fp, const struct firing *f, int i)
{
	const dtrace_recdesc_t *rec = &f->ep->ep_desc->dtepd_rec[i];
	int nrecs = f->ep->ep_desc->dtepd_nrecs, used = 1;
	int64_t size = rec->dtrd_size;

	if (i + 1 < nrecs && (rec[1].dtrd_action == DTRACEACT_TRACEMEM_DYNSIZE
	    || (rec[1].dtrd_action == DTRACEACT_TRACEMEM &&
	    (rec[1].dtrd_arg == DTRACE_TRACEMEM_SIZE ||
	    rec[1].dtrd_arg == DTRACE_TRACEMEM_SSIZE)))) {
		int64_t dyn = eng_rec_int(recdata(f, i + 1), 8, 1);

		if (dyn >= 0 && dyn < size)
			size = dyn;
		if (dyn < 0)
			size = 0;
		used = 2;
	}
	eng_rec_bytes(h, fp, recdata(f, i), (size_t)size, -33, f->quiet, 1);
	return used;
}

/* trace() of a value. */
static void datum(eng_hdl_t *h, FILE *fp, const dtrace_recdesc_t *rec,
    const char *p, int quiet)
{
	int sign = rec->dtrd_arg == ENG_REC_SIGNED;
	int uns = rec->dtrd_arg == ENG_REC_UNSIGNED;
	/* the Linux dtrace's columns when the type is known, dtrace's
	 * historical ones otherwise */
	int w = rec->dtrd_size == 8 ? (uns ? 20 : sign ? 19 : 16) :
	    rec->dtrd_size == 4 ? (sign || uns ? 10 : 8) :
	    rec->dtrd_size == 2 ? 5 : 3;

	if (quiet)
		w = 0;
	switch (rec->dtrd_uarg == ENG_UARG_STRING ? 0 : rec->dtrd_size) {
	case 8:
		if (uns)
			fprintf(fp, "%s%*llu", quiet ? "" : " ", w,
			    (unsigned long long)eng_rec_int(p, 8, 0));
		else
			fprintf(fp, "%s%*lld", quiet ? "" : " ", w,
			    (long long)eng_rec_int(p, 8, 1));
		break;
	case 4:
		if (uns)
			fprintf(fp, "%s%*u", quiet ? "" : " ", w,
			    (unsigned)eng_rec_int(p, 4, 0));
		else
			fprintf(fp, "%s%*d", quiet ? "" : " ", w,
			    (int)eng_rec_int(p, 4, 1));
		break;
	case 2: case 1:
		fprintf(fp, "%s%*d", quiet ? "" : " ", w,
		    (int)eng_rec_int(p, rec->dtrd_size, sign));
		break;
	default:
		eng_rec_bytes(h, fp, p, rec->dtrd_size, -33, quiet, 0);
		break;
	}
}

/* Format record i of a firing; returns how many records it used. */
static int record(eng_hdl_t *h, FILE *fp, struct firing *f, int i)
{
	const dtrace_recdesc_t *rec = &f->ep->ep_desc->dtepd_rec[i];
	const char *p = recdata(f, i);
	int act = rec->dtrd_action;

	if (DTRACEACT_ISPRINTFLIKE(act))
		return printflike(h, fp, f, i);
	switch (act) {
	case DTRACEACT_LIBACT:
		return libact(h, fp, f, i);
	case DTRACEACT_EXIT:
		h->eh_cons->ec_exited = 1;
		h->eh_cons->ec_exitstatus = (int)eng_rec_int(p, 4, 1);
		return 1;
	case DTRACEACT_TRACEMEM:
		return tracemem(h, fp, f, i);
	case DTRACEACT_TRACEMEM_DYNSIZE:
		return 1;
	case DTRACEACT_STACK:
		if (rec->dtrd_arg > 0)
			eng_rec_stack(h, fp, NULL, p, (int)rec->dtrd_arg,
			    (int)(rec->dtrd_size / rec->dtrd_arg));
		return 1;
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
		eng_rec_ustack(h, fp, NULL, p,
		    (int)(rec->dtrd_arg & 0xffffffffu));
		return 1;
	case DTRACEACT_SYM: case DTRACEACT_MOD: case DTRACEACT_USYM:
	case DTRACEACT_UMOD: case DTRACEACT_UADDR:
		eng_rec_sym(h, fp, NULL, act, p);
		return 1;
	case DTRACEACT_DIFEXPR:
		if (rec->dtrd_size > 0)
			datum(h, fp, rec, p, f->quiet);
		return 1;
	default:
		return 1;		/* speculate, raise, chill ...: no text */
	}
}

int eng_rec_one(eng_hdl_t *h, FILE *fp, const eng_epcache_t *ep,
    const char *base, int i)
{
	struct firing f = { ep, base, 0, eng_opt_isset(h, DTRACEOPT_QUIET) };

	return record(h, fp, &f, i);
}

/* End the open line of a split clause's firing, if any. */
static void end_pieces(eng_hdl_t *h, FILE *fp)
{
	struct eng_consumer *c = h->eh_cons;

	if (c->ec_pieceopen && fp != NULL)
		fputc('\n', fp);
	c->ec_pieceopen = 0;
}

/* The firing's timestamp, from its header (which need not be aligned:
 * buffers come from callers too). */
static uint64_t firing_time(const struct firing *f)
{
	dtrace_rechdr_t rh;

	memcpy(&rh, f->base, sizeof (rh));
	return DTRACE_RECORD_LOAD_TIMESTAMP(&rh);
}

/*
 * Format one firing to fp.  The pieces of a clause the compiler split at
 * an if/else (eng_cc_stmtinfo's esi_piece: 1 first, 2 later) fire one
 * after the other on one CPU: they share one line, as one firing.  Pieces
 * that record nothing leave no record, so "the same firing" is told by
 * CPU, probe and the firing's timestamp, not by which piece comes first.
 */
static void firing(eng_hdl_t *h, FILE *fp, struct firing *f)
{
	struct eng_consumer *c = h->eh_cons;
	int flow = eng_opt_isset(h, DTRACEOPT_FLOWINDENT);
	const dtrace_eprobedesc_t *d = f->ep->ep_desc;
	int piece = eng_exp_piece(h, d->dtepd_uarg);
	uint32_t probe = f->ep->ep_probe.dtpd_id;
	uint64_t ts = firing_time(f);

	f->quiet = eng_opt_isset(h, DTRACEOPT_QUIET);
	header(h, fp, flow, f->quiet);
	if (!(piece != 0 && c->ec_pieceopen && c->ec_piececpu == f->cpu &&
	    c->ec_pieceprobe == probe && c->ec_piecets == ts)) {
		end_pieces(h, fp);
		prefix(h, fp, f->cpu, f->ep, flow, f->quiet);
	}
	for (int i = 0; i < d->dtepd_nrecs; )
		i += record(h, fp, f, i);
	if (f->quiet)
		return;
	if (piece != 0) {
		c->ec_pieceopen = 1;
		c->ec_piececpu = f->cpu;
		c->ec_pieceprobe = probe;
		c->ec_piecets = ts;
	} else {
		fputc('\n', fp);
	}
}

/* One firing to the buffered handler (if any), through a memory
 * stream. */
static void firing_buffered(eng_hdl_t *h, struct firing *f)
{
	struct eng_consumer *c = h->eh_cons;
	dtrace_rechdr_t rh;
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);
	eng_bufdata_t bd;

	if (mf == NULL)
		return;
	memcpy(&rh, f->base, sizeof (rh));
	if (eng_opt_get(h, ENG_OPT_OFORMAT) == ENG_OFORMAT_JSON)
		eng_json_firing(h, mf, f->ep, f->base, f->cpu);
	else
		firing(h, mf, f);
	end_pieces(h, mf);	/* each firing's text stands alone */
	fclose(mf);
	/* Without a handler the text goes nowhere, but the records have
	 * still been acted on (exit(), clear(), setopt() ...). */
	if (c->ec_buffered == NULL) {
		free(text);
		return;
	}
	bd.ebd_text = text;
	bd.ebd_len = len;
	bd.ebd_cpu = f->cpu;
	bd.ebd_probe = f->ep->ep_probe.dtpd_id;
	bd.ebd_epid = rh.dtrh_epid;
	bd.ebd_timestamp = DTRACE_RECORD_LOAD_TIMESTAMP(&rh);
	c->ec_buffered(&bd, c->ec_buffered_arg);
	free(text);
}

/* One firing for an export format (export.c): its text as an event
 * (chrome) or nowhere (folded), the records acted on either way. */
static void firing_export(eng_hdl_t *h, FILE *fp, struct firing *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);

	if (mf == NULL)
		return;
	firing(h, mf, f);
	end_pieces(h, mf);
	fclose(mf);
	eng_export_firing(h, fp, f->cpu, &f->ep->ep_probe, firing_time(f),
	    text);
	free(text);
}

int eng_rec_consume(eng_hdl_t *h, FILE *fp, int cpu, const char *buf,
    size_t size)
{
	size_t off = 0;

	while (off + sizeof (dtrace_rechdr_t) <= size) {
		dtrace_rechdr_t rh;
		const eng_epcache_t *ep;
		struct firing f;

		memcpy(&rh, buf + off, sizeof (rh));
		if (rh.dtrh_epid == DTRACE_EPIDNONE) {
			off += 8;
			continue;
		}
		if ((ep = eng_rec_epid(h, rh.dtrh_epid)) == NULL) {
			end_pieces(h, fp);
			return -1;
		}
		if (ep->ep_desc->dtepd_size == 0 ||
		    off + ep->ep_desc->dtepd_size > size) {
			end_pieces(h, fp);
			return eng_error(h, "corrupt record for enabled probe "
			    "ID %u at offset %zu on CPU %d", rh.dtrh_epid, off,
			    cpu);
		}
		f.ep = ep;
		f.base = buf + off;
		f.cpu = cpu;
		/* before the handlers: looking up another EPID (an ERROR
		 * record's faulting one) may move the cache ep points into */
		off += (ep->ep_desc->dtepd_size + 7) & ~(size_t)7;
		if (ep->ep_desc->dtepd_uarg == DT_ECB_ERROR)
			eng_drops_error(h, ep, f.base);
		else if (fp == NULL)
			firing_buffered(h, &f);
		else if (eng_opt_get(h, ENG_OPT_OFORMAT) == ENG_OFORMAT_JSON)
			eng_json_firing(h, fp, ep, f.base, cpu);
		else if (eng_opt_get(h, ENG_OPT_OFORMAT) >= ENG_OFORMAT_CHROME)
			firing_export(h, fp, &f);
		else
			firing(h, fp, &f);
	}
	end_pieces(h, fp);
	return 0;
}
