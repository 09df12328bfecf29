/*
 * exp_desc.c - sub-experiments for the descendants of a traced process
 * (seed analyzer-experiment-format, "Subexperiments"): a process the
 * founder forks gets founder.er/_f1.er, _f2.er ... by the index of the
 * fork; a process that execs a new image starts a new one, _f1_x1.er;
 * their own forks nest in the name (_f1_x1_f1.er), every one a
 * directory of the founder's experiment.  A process made by clone(2)
 * with more than fork's or vfork's flags (its own files, a shared address
 * space without vfork's wait, new namespaces ...) is, as the seed has it
 * on Linux, a C descendant: _C1.er; vfork and posix_spawn count as
 * forks.  Threads are no descendants (they share their process's
 * experiment, as the seed's data files are shared by all threads): their
 * creation and exit are events in their process's log.xml.  Each
 * sub-experiment holds log.xml (its fork, exec and exit with their
 * times), map.xml (the objects it mapped, whose symbol tables go to the
 * founder's archives/) and the data files with their headers only: what
 * the clauses recorded is in the founder's.
 *
 * Every -c and -p target is followed.  The first is the founder; each
 * other is, as the seed names user processes in a kernel experiment, a
 * sub-experiment of its own, _NAME_PID_N.er, and its descendants' names
 * start from it (_NAME_PID_N_f1.er).
 *
 * What the descendants do is reported by the kernel: a software dummy
 * perf event per CPU on the founder, inherited by every process it
 * creates, reports forks, execs, exits and file mappings with their
 * CLOCK_MONOTONIC times into one ring per CPU and target, read at every
 * work tick and taken in time order.  On a -c command held before its
 * exec the events start at the exec, which itself starts no new image.
 * The clone flags come from the task:task_newtask tracepoint, sampled
 * on the same processes into the same rings (without it, every new
 * process is a fork).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "exp.h"
#include "consume.h"
#include "elfsym.h"

#define RING_PAGES	32		/* data pages of each CPU's ring */
/* clone(2) flags (linux/sched.h) that fork and vfork use */
/* VFORK VM PARENT_SETTID CHILD_CLEARTID CHILD_SETTID */
#define FORKISH_FLAGS	(0x00004000 | 0x00000100 | 0x00100000 | \
			 0x00200000 | 0x01000000)
#define CLONE_VM_	0x00000100
#define CLONE_VFORK_	0x00004000
#define CLONE_THREAD_	0x00010000
#define CSIGNAL_	0x000000ff
#define DESC_MAX	1024		/* sub-experiments made at most */

struct exp_desc {			/* a process and its current image */
	int d_pid;
	char d_name[512];		/* "" for the founder, "_f1_x1" ... */
	int d_nforks, d_nexecs, d_nclones;	/* of its current image */
	int d_skipexec;			/* held -c: its exec starts it */
	FILE *d_log, *d_map;		/* NULL for the founder's first image */
	struct dload { uint64_t base, size; char *path; } *d_loads;
	size_t d_nloads;		/* map.xml loads, unloaded at its end */
};
#define LOADS_MAX	1024		/* loads kept per image */

struct exp_descs {
	int ds_ncpu;
	int *ds_fd;			/* ds_nrings: per CPU and target */
	int *ds_tpfd;			/* ... and their task_newtask */
	void **ds_ring;
	int ds_nrings;
	size_t ds_len;			/* bytes of each ring (header page too) */
	struct exp_desc *ds_v;		/* live processes, the founder first */
	size_t ds_n;
	int ds_made;			/* sub-experiments made */
	int ds_tpid;			/* task_newtask's id; -1 */
	int ds_tpoff_pid, ds_tpoff_flags;	/* its fields' offsets */
	struct newtask { int nt_pid; uint64_t nt_flags; } *ds_nt;
	size_t ds_nnt;			/* new tasks' clone flags */
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

/* task:task_newtask's id and where its pid and clone_flags are, from
 * tracefs (ds_tpid -1 if it cannot be read). */
static void newtask_format(struct exp_descs *ds)
{
	static const char *const roots[] = { "/sys/kernel/tracing",
	    "/sys/kernel/debug/tracing" };
	char path[128], line[256];
	FILE *fp;

	ds->ds_tpid = ds->ds_tpoff_pid = ds->ds_tpoff_flags = -1;
	for (size_t i = 0; i < 2 && ds->ds_tpid < 0; i++) {
		snprintf(path, sizeof (path), "%s/events/task/task_newtask/"
		    "format", roots[i]);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof (line), fp) != NULL) {
			const char *o = strstr(line, "offset:");
			int off = o != NULL ? atoi(o + 7) : -1;

			if (strncmp(line, "ID: ", 4) == 0)
				ds->ds_tpid = atoi(line + 4);
			else if (strstr(line, " pid;") != NULL &&
			    strstr(line, "size:4;") != NULL)
				ds->ds_tpoff_pid = off;
			else if (strstr(line, " clone_flags;") != NULL &&
			    strstr(line, "size:8;") != NULL)
				ds->ds_tpoff_flags = off;
		}
		fclose(fp);
	}
	if (ds->ds_tpoff_pid < 0 || ds->ds_tpoff_flags < 0)
		ds->ds_tpid = -1;
}

/* Sample task_newtask on pid's processes into ring r (fd left -1 if
 * the kernel refuses: new processes are then forks). */
static void open_newtask(struct exp_descs *ds, int r, int cpu, int pid,
    int held)
{
	struct perf_event_attr a;
	int fd;

	ds->ds_tpfd[r] = -1;
	if (ds->ds_tpid < 0)
		return;
	memset(&a, 0, sizeof (a));
	a.size = sizeof (a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)ds->ds_tpid;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.inherit = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.disabled = held;
	a.enable_on_exec = held;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ds->ds_fd[r]) != 0) {
		close(fd);
		return;
	}
	ds->ds_tpfd[r] = fd;
}

/* Ring r: pid's processes on cpu.  0, or -1 if perf refuses. */
static int open_ring(struct exp_descs *ds, int r, int cpu, int pid, int held)
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
	ds->ds_tpfd[r] = -1;
	ds->ds_fd[r] = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (ds->ds_fd[r] < 0)
		return -1;
	ds->ds_ring[r] = mmap(NULL, ds->ds_len, PROT_READ | PROT_WRITE,
	    MAP_SHARED, ds->ds_fd[r], 0);
	if (ds->ds_ring[r] == MAP_FAILED)
		return -1;
	open_newtask(ds, r, cpu, pid, held);
	return 0;
}

static struct exp_descs *descs_new(eng_hdl_t *h)
{
	struct exp_descs *ds = calloc(1, sizeof (*ds));

	if (ds == NULL)
		return NULL;
	ds->ds_ncpu = h->eh_cons->ec_ncpus;
	newtask_format(ds);
	return ds;
}

/* Room for one more target's rings; 0 or -1. */
static int more_rings(struct exp_descs *ds)
{
	size_t n = (size_t)ds->ds_nrings + (size_t)ds->ds_ncpu;
	int *fd = realloc(ds->ds_fd, n * sizeof (*fd));
	int *tp = fd != NULL ? realloc(ds->ds_tpfd, n * sizeof (*tp)) : NULL;
	void **rg;

	if (fd != NULL)
		ds->ds_fd = fd;
	if (tp != NULL)
		ds->ds_tpfd = tp;
	if (fd == NULL || tp == NULL ||
	    (rg = realloc(ds->ds_ring, n * sizeof (*rg))) == NULL)
		return -1;
	ds->ds_ring = rg;
	for (size_t i = (size_t)ds->ds_nrings; i < n; i++)
		fd[i] = tp[i] = -1, rg[i] = MAP_FAILED;
	return 0;
}

static void sub_open(struct eng_exp *x, struct exp_descs *ds,
    struct exp_desc *d, uint64_t t, const char *how, int ppid);

/* A target's name as the seed's kernel experiments name user processes:
 * _NAME_PID_N (its comm, blanks and slashes made _). */
static void target_name(int pid, char *buf, size_t len)
{
	char path[64], comm[64] = "";
	FILE *fp;

	snprintf(path, sizeof (path), "/proc/%d/comm", pid);
	if ((fp = fopen(path, "r")) != NULL) {
		if (fgets(comm, sizeof (comm), fp) == NULL)
			comm[0] = '\0';
		fclose(fp);
	}
	comm[strcspn(comm, "\n")] = '\0';
	for (char *c = comm; *c != '\0'; c++)
		if (*c == '/' || *c == ' ' || *c == '.' ||
		    (unsigned char)*c < 32)
			*c = '_';
	snprintf(buf, len, "_%s_PID_%d", comm[0] ? comm : "process", pid);
}

void eng_exp_desc_watch(eng_hdl_t *h, int pid)
{
	struct eng_exp *x = h->eh_exp;
	struct exp_descs *ds;
	struct exp_desc *nv, *d;
	struct timespec ts;
	int held = eng_proc_held(pid), opened = 0, r0;

	if (x == NULL || !x->x_rec || pid <= 0 || x->x_failed)
		return;
	if ((ds = x->x_descs) == NULL && (ds = descs_new(h)) == NULL)
		return;
	x->x_descs = ds;
	if (find(ds, pid) != NULL)
		return;			/* watched already */
	if (more_rings(ds) != 0 || (nv = realloc(ds->ds_v, (ds->ds_n + 1) *
	    sizeof (*nv))) == NULL)
		return;
	ds->ds_v = nv;
	r0 = ds->ds_nrings;
	ds->ds_nrings += ds->ds_ncpu;
	for (int c = 0; c < ds->ds_ncpu; c++)	/* an offline CPU refuses */
		opened += open_ring(ds, r0 + c, c, pid, held) == 0;
	if (opened == 0) {
		char a[64];

		snprintf(a, sizeof (a), "watched=\"no\" pid=\"%d\"", pid);
		eng_exp_log_event(h, "descendants", a);
		return;		/* perf refused: no sub-experiments */
	}
	d = &ds->ds_v[ds->ds_n++];
	memset(d, 0, sizeof (*d));
	d->d_pid = pid;
	d->d_skipexec = held;
	if (ds->ds_n == 1)
		return;		/* the founder: the experiment itself */
	target_name(pid, d->d_name, sizeof (d->d_name));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sub_open(x, ds, d, (uint64_t)ts.tv_sec * 1000000000ull +
	    (uint64_t)ts.tv_nsec, "target", 0);
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

/* A process's own log: a sub-experiment's, or the founder's log.xml. */
static FILE *log_of(struct eng_exp *x, struct exp_descs *ds,
    struct exp_desc *d)
{
	return d == &ds->ds_v[0] ? x->x_log : d->d_log;
}

/* The clone flags task_newtask gave for pid (taken), or fork's if none
 * was seen. */
static uint64_t clone_flags(struct exp_descs *ds, int pid)
{
	for (size_t i = 0; i < ds->ds_nnt; i++)
		if (ds->ds_nt[i].nt_pid == pid) {
			uint64_t f = ds->ds_nt[i].nt_flags;

			ds->ds_nt[i] = ds->ds_nt[--ds->ds_nnt];
			return f;
		}
	return 17;			/* SIGCHLD: a fork */
}

static void on_fork(struct eng_exp *x, struct exp_descs *ds,
    const struct drec *r)
{
	uint32_t f[4];
	struct exp_desc *p, *nv, *d;
	uint64_t flags;
	FILE *lp;
	int clone;

	if (r->r_len < sizeof (f))
		return;
	memcpy(f, r->r_body, sizeof (f));
	if ((p = find(ds, (int)f[1])) == NULL)
		return;			/* not ours */
	flags = clone_flags(ds, (int)f[2]);
	if (f[0] == f[1]) {	/* a thread: an event of its process */
		if ((lp = log_of(x, ds, p)) != NULL)
			fprintf(lp, "<event kind=\"thread\" t=\"%.9f\" "
			    "tid=\"%u\" creator=\"%u\"/>\n", secs(x, r->r_time),
			    f[2], f[3]);
		return;
	}
	if (find(ds, (int)f[0]) != NULL)
		return;		/* seen through another target's rings */
	if ((nv = realloc(ds->ds_v, (ds->ds_n + 1) * sizeof (*nv))) == NULL)
		return;
	ds->ds_v = nv;
	p = find(ds, (int)f[1]);
	d = &nv[ds->ds_n++];
	memset(d, 0, sizeof (*d));
	d->d_pid = (int)f[0];
	/* fork and vfork (posix_spawn too): f; any other clone(2): C */
	clone = (flags & ~(uint64_t)(FORKISH_FLAGS | CSIGNAL_)) != 0 ||
	    ((flags & CLONE_VM_) && !(flags & CLONE_VFORK_));
	snprintf(d->d_name, sizeof (d->d_name), "%.480s_%c%d", p->d_name,
	    clone ? 'C' : 'f', clone ? ++p->d_nclones : ++p->d_nforks);
	sub_open(x, ds, d, r->r_time, clone ? "clone" : "fork", (int)f[1]);
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
	if (d->d_skipexec) {
		d->d_skipexec = 0;	/* the -c command's own exec */
		return;
	}
	sub_close(x, d, r->r_time, "exec");
	snprintf(name, sizeof (name), "%.480s_x%d", d->d_name, ++d->d_nexecs);
	memcpy(d->d_name, name, sizeof (name));
	d->d_nforks = d->d_nexecs = d->d_nclones = 0;	/* a new image
							 * counts its own */
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
	if ((d = find(ds, (int)f[0])) == NULL)
		return;			/* not ours */
	if (f[0] != f[2]) {		/* a thread's end */
		FILE *lp = log_of(x, ds, d);

		if (lp != NULL)
			fprintf(lp, "<event kind=\"thread-exit\" t=\"%.9f\" "
			    "tid=\"%u\"/>\n", secs(x, r->r_time), f[2]);
		return;
	}
	if (d == &ds->ds_v[0])
		return;		/* the founder: its log.xml ends it */
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
			if (eh.type == PERF_RECORD_SAMPLE) {
				/* task_newtask: pid, tid, time, raw */
				memcpy(&r->r_time, r->r_body + 8, 8);
			} else {
				/* sample_id_all: pid, tid, time last */
				memcpy(&r->r_time, r->r_body + r->r_len - 8,
				    8);
				r->r_len -= 16;
			}
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

/* A task_newtask sample: the new task's clone flags, kept until its fork
 * record asks (which the kernel writes just before). */
static void on_newtask(struct exp_descs *ds, const struct drec *r)
{
	uint32_t rawlen;
	int32_t pid;
	uint64_t flags;
	struct newtask *nv;
	const char *raw = r->r_body + 20;

	if (r->r_len < 20)
		return;
	memcpy(&rawlen, r->r_body + 16, 4);
	if (rawlen > r->r_len - 20 ||
	    (size_t)ds->ds_tpoff_pid + 4 > rawlen ||
	    (size_t)ds->ds_tpoff_flags + 8 > rawlen)
		return;
	memcpy(&pid, raw + ds->ds_tpoff_pid, 4);
	memcpy(&flags, raw + ds->ds_tpoff_flags, 8);
	if (ds->ds_nnt >= 4096 ||
	    (nv = realloc(ds->ds_nt, (ds->ds_nnt + 1) * sizeof (*nv))) == NULL)
		return;
	ds->ds_nt = nv;
	nv[ds->ds_nnt].nt_pid = pid;
	nv[ds->ds_nnt++].nt_flags = flags;
}

/* Every CPU's records since the last poll, in time order. */
static void poll_descs(struct eng_exp *x)
{
	struct exp_descs *ds = x->x_descs;
	struct drec *v = NULL;
	size_t n = 0, cap = 0;

	for (int c = 0; c < ds->ds_nrings; c++)
		drain(ds, c, &v, &n, &cap);
	if (n > 1)
		qsort(v, n, sizeof (*v), by_time);
	/* the clone flags first: a fork record comes before them */
	for (size_t i = 0; i < n; i++)
		if (v[i].r_type == PERF_RECORD_SAMPLE)
			on_newtask(ds, &v[i]);
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
	for (int c = 0; c < ds->ds_nrings; c++) {
		if (ds->ds_ring[c] != MAP_FAILED && ds->ds_ring[c] != NULL)
			munmap(ds->ds_ring[c], ds->ds_len);
		if (ds->ds_tpfd[c] >= 0)
			close(ds->ds_tpfd[c]);
		if (ds->ds_fd[c] >= 0)
			close(ds->ds_fd[c]);
	}
	free(ds->ds_fd);
	free(ds->ds_tpfd);
	free(ds->ds_ring);
	free(ds->ds_nt);
	free(ds->ds_v);
	free(ds);
	x->x_descs = NULL;
}
