/*
 * tracefs.c - finding (and if need be mounting) tracefs, listing its
 * events and parsing their format files.
 *
 * A format file names the event, its id (the tracepoint's common_type,
 * which perf_event_open takes as config) and one line per field:
 *
 *	field:const char * filename;	offset:24;	size:8;	signed:0;
 *
 * prov_tracefs_parse() turns that into prov_tf_format_t: C type and name
 * split, array length from "[N]", __data_loc/__rel_loc (dynamic arrays,
 * strings) flagged, common_* header fields marked.  Field accessors never
 * read outside the raw sample they are given.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "prov_impl.h"

static pthread_once_t root_once = PTHREAD_ONCE_INIT;
static const char *root;

static int has_events(const char *dir)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void find_root(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (has_events(dirs[i])) {
			root = dirs[i];
			return;
		}
	}
	if (mount("nodev", dirs[0], "tracefs", 0, NULL) == 0 &&
	    has_events(dirs[0])) {
		root = dirs[0];
		prov_note("mounted tracefs at %s", dirs[0]);
		return;
	}
	prov_note("tracefs is not mounted and cannot be mounted (%s)",
	    strerror(errno));
}

const char *prov_tracefs_root(void)
{
	pthread_once(&root_once, find_root);
	return root;
}

/* Split "TYPE NAME[N]" into type, name and array length. */
static int parse_decl(char *decl, prov_tf_field_t *f)
{
	char *end = decl + strlen(decl), *name, *br;

	while (end > decl && end[-1] == ' ')
		*--end = '\0';
	if (strncmp(decl, "__data_loc ", 11) == 0) {
		f->tff_dataloc = 1;
		decl += 11;
	} else if (strncmp(decl, "__rel_loc ", 10) == 0) {
		f->tff_dataloc = 2;
		decl += 10;
	}
	name = strrchr(decl, ' ');
	if (name == NULL)
		return -1;
	*name++ = '\0';
	if (*name == '*') {		/* "char *name" written without space */
		name++;
		strcat(decl, " *");
	}
	br = strchr(name, '[');
	if (br != NULL) {
		f->tff_array = atoi(br + 1);
		*br = '\0';
	}
	if (*name == '\0' || strlen(name) >= sizeof(f->tff_name) ||
	    strlen(decl) >= sizeof(f->tff_type))
		return -1;
	strcpy(f->tff_name, name);
	strcpy(f->tff_type, decl);
	f->tff_common = strncmp(name, "common_", 7) == 0;
	return 0;
}

/* One "field:" line; 0, 1 (not a field line) or -1. */
static int parse_field(char *line, prov_tf_field_t *f)
{
	char *decl = strstr(line, "field:"), *semi, *p;
	unsigned off, size;
	int sgn;

	if (decl == NULL)
		return 1;
	decl += 6;
	semi = strchr(decl, ';');
	if (semi == NULL)
		return -1;
	*semi = '\0';
	memset(f, 0, sizeof(*f));
	if (parse_decl(decl, f) != 0)
		return -1;
	p = strstr(semi + 1, "offset:");
	if (p == NULL || sscanf(p, "offset:%u;", &off) != 1)
		return -1;
	p = strstr(p, "size:");
	if (p == NULL || sscanf(p, "size:%u;", &size) != 1)
		return -1;
	p = strstr(p, "signed:");
	if (p == NULL || sscanf(p, "signed:%d;", &sgn) != 1)
		return -1;
	f->tff_offset = off;
	f->tff_size = size;
	f->tff_signed = sgn;
	return 0;
}

int prov_tracefs_parse(const char *text, prov_tf_format_t *fmt,
    char *err, size_t errlen)
{
	char *copy = strdup(text), *save = NULL, *line;
	int lineno = 0, rc = 0;

	if (copy == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(fmt, 0, sizeof(*fmt));
	fmt->tff_id = -1;
	for (line = strtok_r(copy, "\n", &save); line != NULL && rc == 0;
	    line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (strncmp(line, "name: ", 6) == 0) {
			snprintf(fmt->tff_event, sizeof(fmt->tff_event), "%s",
			    line + 6);
		} else if (strncmp(line, "ID: ", 4) == 0) {
			fmt->tff_id = atoi(line + 4);
		} else if (strncmp(line, "print fmt:", 10) == 0) {
			break;
		} else if (strstr(line, "field:") != NULL) {
			if (fmt->tff_nfields == PROV_TF_MAXFIELDS) {
				snprintf(err, errlen, "format line %d: more than "
				    "%d fields", lineno, PROV_TF_MAXFIELDS);
				rc = -1;
			} else if (parse_field(line,
			    &fmt->tff_fields[fmt->tff_nfields]) != 0) {
				snprintf(err, errlen, "format line %d: expected "
				    "\"field:TYPE NAME; offset:N; size:N; "
				    "signed:N;\"", lineno);
				rc = -1;
			} else {
				fmt->tff_nfields++;
			}
		}
	}
	if (rc == 0 && fmt->tff_id < 0) {
		snprintf(err, errlen, "format: no \"ID:\" line");
		rc = -1;
	}
	free(copy);
	return rc;
}

int prov_tracefs_format(const char *sys, const char *event,
    prov_tf_format_t *fmt)
{
	char path[512], buf[16384], err[128];
	const char *r = prov_tracefs_root();
	ssize_t n;
	int fd;

	if (r == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", r, sys, event);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return prov_tracefs_parse(buf, fmt, err, sizeof(err));
}

static int is_dir_entry(const struct dirent *d)
{
	return d->d_name[0] != '.' && (d->d_type == DT_DIR ||
	    d->d_type == DT_UNKNOWN);
}

static void each_event(const char *sys,
    void (*fn)(void *, const char *, const char *), void *arg)
{
	char path[512];
	DIR *dir;
	struct dirent *d;

	snprintf(path, sizeof(path), "%s/events/%s", root, sys);
	dir = opendir(path);
	if (dir == NULL)
		return;
	while ((d = readdir(dir)) != NULL)
		if (is_dir_entry(d))
			fn(arg, sys, d->d_name);
	closedir(dir);
}

int prov_tracefs_each(const char *sys,
    void (*fn)(void *arg, const char *sys, const char *event), void *arg)
{
	char path[512];
	DIR *dir;
	struct dirent *d;

	if (prov_tracefs_root() == NULL)
		return -1;
	if (sys != NULL) {
		each_event(sys, fn, arg);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/events", root);
	dir = opendir(path);
	if (dir == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL)
		if (is_dir_entry(d))
			each_event(d->d_name, fn, arg);
	closedir(dir);
	return 0;
}

int prov_tracefs_field(const prov_tf_format_t *fmt, const char *name)
{
	for (int i = 0; i < fmt->tff_nfields; i++)
		if (strcmp(fmt->tff_fields[i].tff_name, name) == 0)
			return i;
	return -1;
}

uint64_t prov_tracefs_int(const prov_tf_field_t *f, const uint8_t *raw,
    uint32_t rawlen)
{
	uint32_t size = f->tff_size;

	if (f->tff_dataloc)
		size = 4;
	if (size > 8 || f->tff_offset + size > rawlen)
		return 0;
	switch (size) {
	case 1: { int8_t v; memcpy(&v, raw + f->tff_offset, 1);
		return f->tff_signed ? (uint64_t)(int64_t)v : (uint8_t)v; }
	case 2: { int16_t v; memcpy(&v, raw + f->tff_offset, 2);
		return f->tff_signed ? (uint64_t)(int64_t)v : (uint16_t)v; }
	case 4: { int32_t v; memcpy(&v, raw + f->tff_offset, 4);
		return f->tff_signed ? (uint64_t)(int64_t)v : (uint32_t)v; }
	case 8: { uint64_t v; memcpy(&v, raw + f->tff_offset, 8);
		return v; }
	default:
		return 0;
	}
}

int prov_tracefs_is_str(const prov_tf_field_t *f)
{
	return strncmp(f->tff_type, "char", 4) == 0 &&
	    (f->tff_array > 0 || f->tff_dataloc);
}

const char *prov_tracefs_str(const prov_tf_field_t *f, const uint8_t *raw,
    uint32_t rawlen, uint32_t *lenp)
{
	uint32_t off, len, loc;

	if (!prov_tracefs_is_str(f))
		return NULL;
	if (f->tff_dataloc) {
		if (f->tff_offset + 4 > rawlen)
			return NULL;
		memcpy(&loc, raw + f->tff_offset, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if (f->tff_dataloc == 2)	/* __rel_loc: after the field */
			off += f->tff_offset + 4;
	} else {
		off = f->tff_offset;
		len = f->tff_size;
	}
	if (off > rawlen || len > rawlen - off)
		return NULL;
	*lenp = (uint32_t)strnlen((const char *)raw + off, len);
	return (const char *)raw + off;
}

uint32_t prov_tracefs_size(const prov_tf_format_t *fmt)
{
	uint32_t end = 0;

	for (int i = 0; i < fmt->tff_nfields; i++) {
		const prov_tf_field_t *f = &fmt->tff_fields[i];

		if (f->tff_offset + f->tff_size > end)
			end = f->tff_offset + f->tff_size;
	}
	return end;
}

int prov_tracefs_has_dataloc(const prov_tf_format_t *fmt)
{
	for (int i = 0; i < fmt->tff_nfields; i++)
		if (fmt->tff_fields[i].tff_dataloc)
			return 1;
	return 0;
}
