/*
 * exp_log.c - the experiment's text files: log.xml (what was collected,
 * versions, word size, the session's events with their times), map.xml
 * (objects mapped in traced processes, loaded and unloaded over time) and
 * notes.
 *
 * Both XML files are written as the session goes, one element per line,
 * flushed at every tick, and closed (</experiment>, </map>) when
 * recording ends; a reader of an unfinished experiment sees every whole
 * line.  Times are seconds since the experiment began (t="...").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "exp.h"
#include "consume.h"
#include "elfsym.h"

static double secs(const struct eng_exp *x)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec * 1e9 + (double)ts.tv_nsec -
	    (double)x->x_t0) / 1e9;
}

/* s as XML attribute or text (quotes and markup escaped, controls
 * dropped). */
void eng_exp_xml_str(FILE *fp, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\n': fputs("&#10;", fp); break;
		case '\t': fputs("&#9;", fp); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, fp);
		}
	}
}

static void log_options(eng_hdl_t *h, FILE *fp)
{
	const char *const *names = eng_option_names();

	fputs("<options>\n", fp);
	for (int i = 0; names[i] != NULL; i++) {
		int64_t v;

		if (eng_getopt(h, names[i], &v) == 0 && v != DTRACEOPT_UNSET)
			fprintf(fp, "  <option name=\"%s\" value=\"%lld\"/>\n",
			    names[i], (long long)v);
	}
	fputs("</options>\n", fp);
}

static void write_notes(struct eng_exp *x)
{
	char path[1200];
	FILE *fp;

	if (x->x_note == NULL)
		return;
	snprintf(path, sizeof (path), "%s/notes", x->x_dir);
	if ((fp = fopen(path, "w")) == NULL)
		return;
	fprintf(fp, "%s\n", x->x_note);
	fclose(fp);
}

/* Open log.xml and map.xml and write their heads (eng_exp_create). */
void eng_exp_log_open(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;
	char path[1200], date[64];
	struct utsname u;
	time_t now = (time_t)(x->x_wall / 1000000000ull);
	struct tm tm;

	snprintf(path, sizeof (path), "%s/log.xml", x->x_dir);
	x->x_log = fopen(path, "w");
	snprintf(path, sizeof (path), "%s/map.xml", x->x_dir);
	x->x_map = fopen(path, "w");
	if (x->x_log == NULL || x->x_map == NULL)
		return;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof (u));
	gmtime_r(&now, &tm);
	strftime(date, sizeof (date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(x->x_log, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<experiment version=\"%d.%d\">\n"
	    "<collector program=\"%s\" version=\"%s\" pid=\"%d\"/>\n"
	    "<system os=\"%s\" release=\"%s\" machine=\"%s\" node=\"",
	    EXP_VERSION, EXP_MINOR, program_invocation_short_name,
	    ENG_VERSION_STRING, (int)getpid(), u.sysname, u.release,
	    u.machine);
	eng_exp_xml_str(x->x_log, u.nodename);
	fprintf(x->x_log, "\"/>\n<target wordsize=\"%d\" ncpus=\"%d\"/>\n"
	    "<start date=\"%s\" wall_ns=\"%llu\"/>\n", (int)sizeof (void *) * 8,
	    h->eh_cons->ec_ncpus, date, (unsigned long long)x->x_wall);
	fprintf(x->x_map, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map>\n");
	write_notes(x);
}

void eng_exp_log_event(eng_hdl_t *h, const char *kind, const char *attrs)
{
	struct eng_exp *x = h->eh_exp;

	if (x == NULL || !x->x_rec || x->x_log == NULL)
		return;
	fprintf(x->x_log, "<event kind=\"%s\" t=\"%.9f\"%s%s/>\n", kind,
	    secs(x), attrs[0] ? " " : "", attrs);
	if (strcmp(kind, "start") == 0)
		log_options(h, x->x_log);
}

static void map_elem(struct eng_exp *x, const char *what, int pid,
    const char *line);

void eng_exp_close_log(struct eng_exp *x)
{
	/* the recording ends: what is still mapped in the processes it
	 * followed is unloaded from its point of view, so every load in
	 * map.xml has its unload (and the last object a time span) */
	for (struct exp_pmaps *p = x->x_pmaps; p != NULL && x->x_map != NULL;
	    p = p->pm_next)
		for (size_t i = 0; i < p->pm_n; i++)
			map_elem(x, "unload", p->pm_pid, p->pm_lines[i]);
	if (x->x_log != NULL) {
		fprintf(x->x_log, "<event kind=\"end\" t=\"%.9f\"/>\n"
		    "</experiment>\n", secs(x));
		fclose(x->x_log);
		x->x_log = NULL;
	}
	if (x->x_map != NULL) {
		fputs("</map>\n", x->x_map);
		fclose(x->x_map);
		x->x_map = NULL;
	}
}

void eng_exp_note_drop(eng_hdl_t *h, const eng_dropdata_t *dd)
{
	char a[256];

	if (!eng_exp_recording(h))
		return;
	snprintf(a, sizeof (a), "drop=\"%d\" cpu=\"%d\" count=\"%llu\" "
	    "total=\"%llu\"", (int)dd->edd_kind, dd->edd_cpu,
	    (unsigned long long)dd->edd_drops,
	    (unsigned long long)dd->edd_total);
	eng_exp_log_event(h, "drops", a);
}

void eng_exp_note_error(eng_hdl_t *h, const eng_errdata_t *ed)
{
	char a[256];

	if (!eng_exp_recording(h))
		return;
	snprintf(a, sizeof (a), "epid=\"%u\" probe=\"%u\" fault=\"%d\" "
	    "addr=\"0x%llx\" action=\"%d\" offset=\"%lld\"", ed->eed_epid,
	    ed->eed_probe, ed->eed_fault, (unsigned long long)ed->eed_addr,
	    ed->eed_action, (long long)ed->eed_offset);
	eng_exp_log_event(h, "error", a);
}

/* The D source in a CDATA section ("]]>" split across two). */
static void cdata(FILE *fp, const char *s)
{
	const char *e;

	fputs("<![CDATA[", fp);
	while ((e = strstr(s, "]]>")) != NULL) {
		fwrite(s, 1, (size_t)(e - s) + 2, fp);
		fputs("]]><![CDATA[", fp);
		s = e + 2;
	}
	fputs(s, fp);
	fputs("]]>", fp);
}

void eng_exp_note_enabling(eng_hdl_t *h, const char *src, unsigned n)
{
	struct eng_exp *x = h->eh_exp;

	if (eng_exp_create(h) != 0 || x == NULL || !x->x_rec ||
	    x->x_log == NULL)
		return;
	fprintf(x->x_log, "<enabling id=\"%d\" t=\"%.9f\" probes=\"%u\">",
	    ++x->x_nenab, secs(x), n);
	cdata(x->x_log, src != NULL ? src : "");
	fputs("</enabling>\n", x->x_log);
}

static struct exp_pmaps *pmaps_get(struct eng_exp *x, int pid)
{
	struct exp_pmaps *p;

	for (p = x->x_pmaps; p != NULL; p = p->pm_next)
		if (p->pm_pid == pid)
			return p;
	if ((p = calloc(1, sizeof (*p))) == NULL)
		return NULL;
	p->pm_pid = pid;
	p->pm_next = x->x_pmaps;
	x->x_pmaps = p;
	return p;
}

static int has_line(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

/* What eng_exp_note_maps diffs: the objects of one process now, as
 * "base end path" lines (pmap.c's view, one per object). */
struct exp_mapnow {
	char **mn_v;
	size_t mn_n;
	int mn_read;			/* the pmap had real addresses */
	eng_pgone_t *mn_gone;		/* mapped and unmapped in between */
	size_t mn_ngone;
};

static void take_objects(eng_pmap_t *pm, void *arg)
{
	struct exp_mapnow *mn = arg;

	if (mn->mn_gone == NULL)
		mn->mn_gone = eng_pmap_take_gone(pm, &mn->mn_ngone);

	for (size_t i = 0; i < pm->pm_nobjs; i++) {
		const eng_pobj_t *po = &pm->pm_objs[i];
		char **nv;

		/* a held -c command's predicted objects have no addresses
		 * yet: they are logged once it has mapped them */
		if (po->po_end == 0 || po->po_path == NULL)
			continue;
		/* files mapped only as data (/etc/ld.so.cache while ld.so
		 * starts, a locale) are no load objects */
		if (!po->po_exec)
			continue;
		mn->mn_read = 1;
		if ((nv = realloc(mn->mn_v, (mn->mn_n + 1) *
		    sizeof (*nv))) == NULL)
			return;
		mn->mn_v = nv;
		if (asprintf(&nv[mn->mn_n], "0x%llx 0x%llx %s",
		    (unsigned long long)po->po_base,
		    (unsigned long long)po->po_end, po->po_path) < 0)
			return;
		mn->mn_n++;
	}
}

/* <load|unload pid t base size path/> for a "base end path" line. */
static void map_elem(struct eng_exp *x, const char *what, int pid,
    const char *line)
{
	unsigned long long base, end;
	int used = 0;

	if (sscanf(line, "%llx %llx %n", &base, &end, &used) < 2 || used == 0)
		return;
	fprintf(x->x_map, "<%s pid=\"%d\" t=\"%.9f\" base=\"0x%llx\" "
	    "size=\"%llu\" path=\"", what, pid, secs(x), base,
	    end > base ? end - base : 0);
	eng_exp_xml_str(x->x_map, line + used);
	fputs("\"/>\n", x->x_map);
	if (what[0] == 'l')		/* load: its symbols in archives/ */
		eng_exp_archive(x, line + used);
}

/* Is [start, end) of path part of an object one of lines lists? */
static int in_lines(char **v, size_t n, uint64_t start, uint64_t end,
    const char *path)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long long base, lend;
		int used = 0;

		if (sscanf(v[i], "%llx %llx %n", &base, &lend, &used) >= 2 &&
		    used > 0 && strcmp(v[i] + used, path) == 0 &&
		    start < lend && end > base)
			return 1;
	}
	return 0;
}

/* Objects mapped and unmapped since the last reading: a load and an
 * unload, both at this reading's time (when they were is not known).
 * One the last reading already saw (old) was logged as loaded then, and
 * its unload comes from the diff of the readings: not logged twice. */
static void log_gone(struct eng_exp *x, int pid, struct exp_mapnow *mn,
    char **old, size_t nold)
{
	for (size_t i = 0; i < mn->mn_ngone; i++) {
		eng_pgone_t *g = &mn->mn_gone[i];
		char *line;

		if (in_lines(old, nold, g->pg_start, g->pg_end, g->pg_path)) {
			free(g->pg_path);
			continue;
		}
		if (asprintf(&line, "0x%llx 0x%llx %s",
		    (unsigned long long)g->pg_start,
		    (unsigned long long)g->pg_end, g->pg_path) >= 0) {
			map_elem(x, "load", pid, line);
			map_elem(x, "unload", pid, line);
			free(line);
		}
		free(g->pg_path);
	}
	free(mn->mn_gone);
	mn->mn_gone = NULL;
	mn->mn_ngone = 0;
}

void eng_exp_note_maps(eng_hdl_t *h, int pid)
{
	struct eng_exp *x = h->eh_exp;
	struct exp_mapnow mn = { NULL, 0, 0, NULL, 0 };
	struct exp_pmaps *p;

	if (pid <= 0 || x == NULL || !x->x_rec || x->x_map == NULL ||
	    (p = pmaps_get(x, pid)) == NULL)
		return;
	/* a traced process: process control's pmap (read now); any other:
	 * a reading of its own */
	if (eng_proc_with_pmap(pid, take_objects, &mn) != 0) {
		eng_pmap_t *pm = eng_pmap_new(pid);

		if (pm != NULL && eng_pmap_update(pm) >= 0)
			take_objects(pm, &mn);
		eng_pmap_free(pm);
	}
	if (!mn.mn_read) {		/* not mapped yet, or gone: keep */
		log_gone(x, pid, &mn, p->pm_lines, p->pm_n);
		for (size_t i = 0; i < mn.mn_n; i++)
			free(mn.mn_v[i]);
		free(mn.mn_v);
		return;
	}
	for (size_t i = 0; i < mn.mn_n; i++)
		if (!has_line(p->pm_lines, p->pm_n, mn.mn_v[i]))
			map_elem(x, "load", pid, mn.mn_v[i]);
	log_gone(x, pid, &mn, p->pm_lines, p->pm_n);
	for (size_t i = 0; i < p->pm_n; i++) {
		if (!has_line(mn.mn_v, mn.mn_n, p->pm_lines[i]))
			map_elem(x, "unload", pid, p->pm_lines[i]);
		free(p->pm_lines[i]);
	}
	free(p->pm_lines);
	p->pm_lines = mn.mn_v;
	p->pm_n = mn.mn_n;
}
