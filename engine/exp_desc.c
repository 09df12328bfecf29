/*
 * exp_desc.c - sub-experiments for the descendants of a traced process
 * (seed analyzer-experiment-format, "Subexperiments"): a process the
 * founder forks gets founder.er/_f1.er, _f2.er ... by the index of the
 * fork; a process that execs a new image starts a new one, _f1_x1.er;
 * their own forks nest in the name (_f1_x1_f1.er), every one a
 * directory of the founder's experiment.  Each holds log.xml (its fork,
 * exec and exit with their times), map.xml (the objects it mapped, whose
 * symbol tables go to the founder's archives/) and the data files with
 * their headers only: what the clauses recorded is in the founder's.
 *
 * What the descendants do is reported by the kernel: a software dummy
 * perf event per CPU on the founder, inherited by every process it
 * creates, reports forks, execs, exits and file mappings with their
 * CLOCK_MONOTONIC times into one ring per CPU, read at every work tick
 * and taken in time order.  On a -c command held before its exec the
 * events start at the exec, which itself starts no new image.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "exp.h"
#include "consume.h"
#include "elfsym.h"

#define RING_PAGES	32		/* data pages of each CPU's ring */
#define DESC_MAX	1024		/* sub-experiments made at most */

struct exp_desc {			/* a process and its current image */
	int d_pid;
	char d_name[512];		/* "" for the founder, "_f1_x1" ... */
	int d_nforks, d_nexecs;		/* of its current image */
	FILE *d_log, *d_map;		/* NULL for the founder's first image */
	struct dload { uint64_t base, size; char *path; } *d_loads;
	size_t d_nloads;		/* map.xml loads, unloaded at its end */
};
#define LOADS_MAX	1024		/* loads kept per image */

struct exp_descs {
	int ds_ncpu;
	int *ds_fd;
	void **ds_ring;
	size_t ds_len;			/* bytes of each ring (header page too) */
	int ds_skipexec;		/* the held founder's exec is its start */
	struct exp_desc *ds_v;		/* live processes, the founder first */
	size_t ds_n;
	int ds_made;			/* sub-experiments made */
};

struct drec {				/* one ring record, copied out */
	uint64_t r_time;
	uint32_t r_type, r_misc;
	size_t r_len;			/* body bytes (without the header) */
	char *r_body;
};

static double secs(const struct eng_exp *x, uint64_t t)
{
	return t > x->x_t0 ? (double)(t - x->x_t0) / 1e9 : 0;
}

static struct exp_desc *find(struct exp_descs *ds, int pid)
{
	for (size_t i = 0; i < ds->ds_n; i++)
		if (ds->ds_v[i].d_pid == pid)
			return &ds->ds_v[i];
	return NULL;
}

static int open_ring(struct exp_descs *ds, int cpu, int pid, int held)
{
	struct perf_event_attr a;
	long pg = sysconf(_SC_PAGESIZE);

	memset(&a, 0, sizeof (a));
	a.size = sizeof (a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
	a.inherit = 1;			/* every process it creates, and theirs */
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;	/* the experiment's clock */
	a.disabled = held;
	a.enable_on_exec = held;	/* not the copy of us before the exec */
	ds->ds_len = (size_t)pg * (RING_PAGES + 1);
	ds->ds_fd[cpu] = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (ds->ds_fd[cpu] < 0)
		return -1;
	ds->ds_ring[cpu] = mmap(NULL, ds->ds_len, PROT_READ | PROT_WRITE,
	    MAP_SHARED, ds->ds_fd[cpu], 0);
	return ds->ds_ring[cpu] == MAP_FAILED ? -1 : 0;
}

void eng_exp_desc_watch(eng_hdl_t *h, int pid)
{
	struct eng_exp *x = h->eh_exp;
	struct exp_descs *ds;
	int held = eng_proc_held(pid);

	if (x == NULL || !x->x_rec || x->x_descs != NULL || pid <= 0 ||
	    (ds = calloc(1, sizeof (*ds))) == NULL)
		return;
	ds->ds_ncpu = h->eh_cons->ec_ncpus;
	ds->ds_fd = calloc((size_t)ds->ds_ncpu, sizeof (*ds->ds_fd));
	ds->ds_ring = calloc((size_t)ds->ds_ncpu, sizeof (*ds->ds_ring));
	ds->ds_v = calloc(1, sizeof (*ds->ds_v));
	if (ds->ds_fd == NULL || ds->ds_ring == NULL || ds->ds_v == NULL) {
		free(ds->ds_fd);
		free(ds->ds_ring);
		free(ds->ds_v);
		free(ds);
		return;
	}
	x->x_descs = ds;
	for (int c = 0; c < ds->ds_ncpu; c++)
		ds->ds_fd[c] = -1, ds->ds_ring[c] = MAP_FAILED;
	int opened = 0;

	for (int c = 0; c < ds->ds_ncpu; c++)	/* an offline CPU refuses */
		opened += open_ring(ds, c, pid, held) == 0;
	if (opened == 0) {
		eng_exp_log_event(h, "descendants", "watched=\"no\"");
		eng_exp_desc_free(x);	/* perf refused: the founder's */
		return;			/* experiment alone */
	}
	ds->ds_v[0].d_pid = pid;
	ds->ds_n = 1;
	ds->ds_skipexec = held;
}

/* ---- a sub-experiment -------------------------------------------------- */

static void sub_open(struct eng_exp *x, struct exp_descs *ds,
    struct exp_desc *d, uint64_t t, const char *how, int ppid)
{
	char dir[1400], path[1500];

	d->d_log = d->d_map = NULL;
	if (ds->ds_made >= DESC_MAX)
		return;
	snprintf(dir, sizeof (dir), "%.800s/%.500s.er", x->x_dir, d->d_name);
	if ((mkdir(dir, 0755) != 0 && errno != EEXIST) ||
	    eng_exp_blank_files(x, dir, ds->ds_ncpu) != 0)
		return;
	ds->ds_made++;
	snprintf(path, sizeof (path), "%s/log.xml", dir);
	d->d_log = fopen(path, "w");
	snprintf(path, sizeof (path), "%s/map.xml", dir);
	d->d_map = fopen(path, "w");
	if (d->d_log != NULL)
		fprintf(d->d_log, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<experiment version=\"%d.%d\">\n<target wordsize=\"%d\" "
		    "ncpus=\"%d\"/>\n<process pid=\"%d\" ppid=\"%d\"/>\n"
		    "<event kind=\"%s\" t=\"%.9f\"/>\n", EXP_VERSION, EXP_MINOR,
		    (int)sizeof (void *) * 8, ds->ds_ncpu, d->d_pid, ppid, how,
		    secs(x, t));
	if (d->d_map != NULL)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map>\n",
		    d->d_map);
	if (x->x_log != NULL)
		fprintf(x->x_log, "<event kind=\"descendant\" t=\"%.9f\" "
		    "pid=\"%d\" how=\"%s\" experiment=\"%s.er\"/>\n",
		    secs(x, t), d->d_pid, how, d->d_name);
}

/* One <load> or <unload> line of d's map.xml. */
static void map_line(struct eng_exp *x, struct exp_desc *d, const char *what,
    uint64_t t, const struct dload *l)
{
	fprintf(d->d_map, "<%s pid=\"%d\" t=\"%.9f\" base=\"0x%llx\" "
	    "size=\"%llu\" path=\"", what, d->d_pid, secs(x, t),
	    (unsigned long long)l->base, (unsigned long long)l->size);
	eng_exp_xml_str(d->d_map, l->path);
	fputs("\"/>\n", d->d_map);
}

/* The image ends (exec, exit, the recording's end): its objects are
 * unloaded, as the founder's are in its map.xml. */
static void sub_close(struct eng_exp *x, struct exp_desc *d, uint64_t t,
    const char *why)
{
	for (size_t i = 0; i < d->d_nloads; i++) {
		if (d->d_map != NULL)
			map_line(x, d, "unload", t, &d->d_loads[i]);
		free(d->d_loads[i].path);
	}
	free(d->d_loads);
	d->d_loads = NULL;
	d->d_nloads = 0;
	if (d->d_log != NULL) {
		fprintf(d->d_log, "<event kind=\"%s\" t=\"%.9f\"/>\n"
		    "<event kind=\"end\" t=\"%.9f\"/>\n</experiment>\n", why,
		    secs(x, t), secs(x, t));
		fclose(d->d_log);
	}
	if (d->d_map != NULL) {
		fputs("</map>\n", d->d_map);
		fclose(d->d_map);
	}
	d->d_log = d->d_map = NULL;
}

/* ---- the kernel's records ---------------------------------------------- */

static void on_fork(struct eng_exp *x, struct exp_descs *ds,
    const struct drec *r)
{
	uint32_t f[4];
	struct exp_desc *p, *nv, *d;

	if (r->r_len < sizeof (f))
		return;
	memcpy(f, r->r_body, sizeof (f));
	if (f[0] == f[1] || (p = find(ds, (int)f[1])) == NULL)
		return;			/* a thread, or not ours */
	if ((nv = realloc(ds->ds_v, (ds->ds_n + 1) * sizeof (*nv))) == NULL)
		return;
	ds->ds_v = nv;
	p = find(ds, (int)f[1]);
	d = &nv[ds->ds_n++];
	memset(d, 0, sizeof (*d));
	d->d_pid = (int)f[0];
	snprintf(d->d_name, sizeof (d->d_name), "%.480s_f%d", p->d_name,
	    ++p->d_nforks);
	sub_open(x, ds, d, r->r_time, "fork", (int)f[1]);
}

static void on_exec(struct eng_exp *x, struct exp_descs *ds,
    const struct drec *r)
{
	uint32_t pid;
	struct exp_desc *d;
	char name[sizeof (d->d_name)];

	if (r->r_len < 8 || !(r->r_misc & PERF_RECORD_MISC_COMM_EXEC))
		return;
	memcpy(&pid, r->r_body, 4);
	if ((d = find(ds, (int)pid)) == NULL)
		return;
	if (d == &ds->ds_v[0] && ds->ds_skipexec) {
		ds->ds_skipexec = 0;	/* the -c command's own exec */
		return;
	}
	sub_close(x, d, r->r_time, "exec");
	snprintf(name, sizeof (name), "%.480s_x%d", d->d_name, ++d->d_nexecs);
	memcpy(d->d_name, name, sizeof (name));
	d->d_nforks = d->d_nexecs = 0;	/* a new image counts its own */
	sub_open(x, ds, d, r->r_time, "exec", 0);
}

static void on_exit_rec(struct eng_exp *x, struct exp_descs *ds,
    const struct drec *r)
{
	uint32_t f[4];
	struct exp_desc *d;

	if (r->r_len < sizeof (f))
		return;
	memcpy(f, r->r_body, sizeof (f));
	if (f[0] != f[2] || (d = find(ds, (int)f[0])) == NULL ||
	    d == &ds->ds_v[0])
		return;			/* a thread, not ours, the founder */
	sub_close(x, d, r->r_time, "exit");
	*d = ds->ds_v[--ds->ds_n];
}

static void on_mmap(struct eng_exp *x, struct exp_descs *ds,
    const struct drec *r)
{
	/* pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot, flags */
	const size_t name_off = 4 + 4 + 8 * 3 + 4 * 2 + 8 * 2 + 4 * 2;
	uint32_t pid, prot;
	uint64_t addr, len;
	struct exp_desc *d;
	struct dload l, *nv;
	const char *path;

	if (r->r_len <= name_off)
		return;
	memcpy(&pid, r->r_body, 4);
	memcpy(&addr, r->r_body + 8, 8);
	memcpy(&len, r->r_body + 16, 8);
	memcpy(&prot, r->r_body + name_off - 8, 4);
	path = r->r_body + name_off;
	if ((d = find(ds, (int)pid)) == NULL || d->d_map == NULL ||
	    !(prot & PROT_EXEC) || path[0] != '/' ||
	    memchr(path, '\0', r->r_len - name_off) == NULL)
		return;
	l.base = addr;
	l.size = len;
	l.path = (char *)path;
	map_line(x, d, "load", r->r_time, &l);
	eng_exp_archive(x, path);	/* in the founder's archives/ */
	if (d->d_nloads < LOADS_MAX && (nv = realloc(d->d_loads,
	    (d->d_nloads + 1) * sizeof (*nv))) != NULL) {
		d->d_loads = nv;
		if ((nv[d->d_nloads].path = strdup(path)) != NULL) {
			nv[d->d_nloads].base = addr;
			nv[d->d_nloads].size = len;
			d->d_nloads++;
		}
	}
}

/* ---- reading the rings ------------------------------------------------- */

/* Copy out one ring's records (appended to *v); the ring is emptied. */
static void drain(struct exp_descs *ds, int cpu, struct drec **v, size_t *n,
    size_t *cap)
{
	struct perf_event_mmap_page *mp = ds->ds_ring[cpu];
	const char *data;
	uint64_t size, head, tail;

	if (mp == MAP_FAILED)
		return;
	data = (const char *)mp + mp->data_offset;
	size = mp->data_size;
	tail = mp->data_tail;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	while (tail + sizeof (struct perf_event_header) <= head) {
		struct perf_event_header eh;
		struct drec *r;

		for (size_t i = 0; i < sizeof (eh); i++)
			((char *)&eh)[i] = data[(tail + i) % size];
		if (eh.size < sizeof (eh) + 16 || tail + eh.size > head)
			break;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct drec *nv = realloc(*v, nc * sizeof (*nv));

			if (nv == NULL)
				break;
			*v = nv;
			*cap = nc;
		}
		r = &(*v)[*n];
		r->r_type = eh.type;
		r->r_misc = eh.misc;
		r->r_len = eh.size - sizeof (eh);
		if ((r->r_body = malloc(r->r_len)) != NULL) {
			for (size_t i = 0; i < r->r_len; i++)
				r->r_body[i] = data[(tail + sizeof (eh) + i) %
				    size];
			/* sample_id_all: pid, tid, time last */
			memcpy(&r->r_time, r->r_body + r->r_len - 8, 8);
			r->r_len -= 16;
			(*n)++;
		}
		tail += eh.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int by_time(const void *a, const void *b)
{
	const struct drec *x = a, *y = b;

	return x->r_time < y->r_time ? -1 : x->r_time > y->r_time;
}

/* Every CPU's records since the last poll, in time order. */
static void poll_descs(struct eng_exp *x)
{
	struct exp_descs *ds = x->x_descs;
	struct drec *v = NULL;
	size_t n = 0, cap = 0;

	for (int c = 0; c < ds->ds_ncpu; c++)
		drain(ds, c, &v, &n, &cap);
	if (n > 1)
		qsort(v, n, sizeof (*v), by_time);
	for (size_t i = 0; i < n; i++) {
		switch (v[i].r_type) {
		case PERF_RECORD_FORK: on_fork(x, ds, &v[i]); break;
		case PERF_RECORD_COMM: on_exec(x, ds, &v[i]); break;
		case PERF_RECORD_EXIT: on_exit_rec(x, ds, &v[i]); break;
		case PERF_RECORD_MMAP2: on_mmap(x, ds, &v[i]); break;
		default: break;
		}
		free(v[i].r_body);
	}
	free(v);
	for (size_t i = 0; i < ds->ds_n; i++) {
		if (ds->ds_v[i].d_log != NULL)
			fflush(ds->ds_v[i].d_log);
		if (ds->ds_v[i].d_map != NULL)
			fflush(ds->ds_v[i].d_map);
	}
}

void eng_exp_desc_poll(struct eng_exp *x)
{
	if (x != NULL && x->x_descs != NULL && x->x_rec)
		poll_descs(x);
}

void eng_exp_desc_free(struct eng_exp *x)
{
	struct exp_descs *ds = x->x_descs;
	struct timespec ts;
	uint64_t now;

	if (ds == NULL)
		return;
	if (x->x_rec && ds->ds_v != NULL)
		poll_descs(x);		/* what happened since the last tick */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (size_t i = 0; ds->ds_v != NULL && i < ds->ds_n; i++)
		sub_close(x, &ds->ds_v[i], now, "end of recording");
	for (int c = 0; c < ds->ds_ncpu && ds->ds_fd != NULL; c++) {
		if (ds->ds_ring != NULL && ds->ds_ring[c] != MAP_FAILED &&
		    ds->ds_ring[c] != NULL)
			munmap(ds->ds_ring[c], ds->ds_len);
		if (ds->ds_fd[c] >= 0)
			close(ds->ds_fd[c]);
	}
	free(ds->ds_fd);
	free(ds->ds_ring);
	free(ds->ds_v);
	free(ds);
	x->x_descs = NULL;
}
