/*
 * perf.c - perf_event_open rings, one per CPU, and the drain thread that
 * turns their records into probe firings.
 *
 * Each CPU has two rings, each owned by a dummy software event: the event
 * ring, which every source on that CPU writes into through
 * PERF_EVENT_IOC_SET_OUTPUT, and the task ring (comm, exec, fork and exit
 * records, so the process cache follows them in event order).  Keeping
 * them apart makes the drop count exact: only event-ring losses are
 * probe drops.  A source (prov_perf_src_t) is one event
 * opened on every CPU; its samples start with PERF_SAMPLE_IDENTIFIER, and
 * the id map sends each sample to its source's callback.
 *
 * The drain thread (probe context) waits in epoll for a ring's watermark
 * or 20 ms, then consumes every ring from data_tail to data_head once,
 * merging the rings by timestamp, and publishes the new tails: no record
 * is read twice.  Every event samples IDENTIFIER, IP, TID, TIME and CPU
 * (and, when a probe asks, CALLCHAIN and REGS_USER: the firing thread's
 * user registers, put in uregs[] order by perf_ctx.c's prov_perf_ctx),
 * so a sample's time sits at a fixed offset and every record's sample_id
 * trailer has the same layout.  The kernel writes a ring's LOST record
 * with the next record it manages to put there, so a CPU's last losses
 * would wait for that CPU's next event: sources are therefore opened with
 * PERF_FORMAT_LOST (Linux 6.0+) and their lost-sample counters are read
 * by prov_perf_flush and when a source closes.  A ring's losses are the
 * larger of the two counts (LOST records, counters read), both exact but
 * late, and only the growth of that maximum is reported as drops on the
 * ring's CPU, so nothing is counted twice.
 *
 * Locking (perf_state_t says what guards each field): the id map and
 * the graveyard are guarded by maplk, held only for lookups and updates,
 * never across a callback (the shim may call kpo_disable with its own
 * lock held while this thread fires).  Closed
 * sources go to a graveyard freed by the drain thread between passes, so
 * a callback never runs on freed memory; records of a closed source that
 * are still in a ring are ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "providers.h"
#include "prov_impl.h"
#include "bpf_agg.h"
#include "perf_impl.h"

#define MAP_SLOTS 32768		/* id map (power of two) */
#define DEFAULT_RING_KB 1024
#define MAX_MERGE 64		/* rings drained: 2 per CPU */
#define TASK_RING_KB 256

typedef struct ring {
	int rg_fd;			/* dummy event owning the buffer */
	struct perf_event_mmap_page *rg_meta;
	uint8_t *rg_data;
	uint64_t rg_size;		/* data area bytes (power of two) */
	size_t rg_maplen;
	uint64_t rg_head, rg_tail;	/* during a drain pass */
	uint64_t rg_lostrec;		/* losses told by LOST records */
	uint64_t rg_lostcnt;		/* by sources' counters (lostlk) */
	uint64_t rg_lostrep;		/* reported as drops (lostlk) */
} ring_t;

struct prov_perf_src {
	int *ps_fds;			/* per CPU, -1 if none */
	uint64_t *ps_ids;
	uint64_t *ps_lost;		/* per CPU: lost counter last read */
	uint64_t ps_type;		/* sample_type */
	prov_perf_cb_t *ps_cb;
	void *ps_arg;
	struct prov_perf_src *ps_link;	/* graveyard */
};

/*
 * The perf route's state: one instance (perf), passed to the helpers
 * below.  Each field names what guards it.  "Start" fields are written
 * by rings_start under openlk before the drain thread exists (creating
 * the thread publishes them) and cleared by prov_perf_shutdown, which
 * runs when nothing else uses the rings; "drain thread" fields are
 * touched only by that thread (probe context: prov_perf_ctx runs in the
 * sources' callbacks, which it calls).
 */
typedef struct perf_state {
	pthread_mutex_t openlk;		/* opening and closing sources and
					 * the rings; held over maplk */
	pthread_mutex_t maplk;		/* idmap, graveyard; never held
					 * across a callback */
	pthread_mutex_t lostlk;		/* rings' rg_lostrec, rg_lostcnt,
					 * rg_lostrep; sources' ps_lost */
	int fmt_lost;			/* openlk: PERF_FORMAT_LOST works */
	struct {
		uint64_t id;
		prov_perf_src_t *src;
	} idmap[MAP_SLOTS];		/* maplk */
	prov_perf_src_t *graveyard;	/* maplk: closed, freed between
					 * drain passes */
	ring_t *rings;			/* start (NULL until then) */
	int ncpu;			/* start */
	int nrings;			/* start: 2 * ncpu, events then tasks */
	unsigned ring_kb;		/* set before the rings start
					 * (prov_set_ring_kb, environment) */
	int epfd, stopfd, flushfd;	/* start */
	pthread_t drainer;		/* start */
	int draining;			/* start: the drain thread runs */
	uint64_t passes;		/* atomic: drain passes completed */
	uint64_t drained;		/* atomic: the last pass began (ns) */
	uint64_t wall_off;		/* drain thread: realtime minus
					 * monotonic, per pass */
} perf_state_t;

static perf_state_t perf = {
	.openlk = PTHREAD_MUTEX_INITIALIZER,
	.maplk = PTHREAD_MUTEX_INITIALIZER,
	.lostlk = PTHREAD_MUTEX_INITIALIZER,
	.fmt_lost = 1,
	.epfd = -1, .stopfd = -1, .flushfd = -1,
};

int prov_perf_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

int prov_perf_wants_stack(dtrace_id_t id)
{
	if (id == DTRACE_IDNONE)
		return 0;
	return ks_probe_wants(id) & (PROV_SAMPLE_CHAIN | PROV_SAMPLE_UREGS);
}

int prov_set_ring_kb(unsigned kb)
{
	perf_state_t *pf = &perf;

	if (kb < 8 || (kb & (kb - 1)) != 0)
		return -1;
	pf->ring_kb = kb;
	return 0;
}

static int perf_open(struct perf_event_attr *attr, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, group,
	    PERF_FLAG_FD_CLOEXEC);
}

static void attr_common(struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
}

/* ---- id map ---- */

static size_t slot_of(uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 49) & (MAP_SLOTS - 1);
}

static void map_put(perf_state_t *pf, uint64_t id, prov_perf_src_t *src)
{
	size_t i = slot_of(id);

	while (pf->idmap[i].src != NULL && pf->idmap[i].id != id)
		i = (i + 1) & (MAP_SLOTS - 1);
	pf->idmap[i].id = id;
	pf->idmap[i].src = src;
}

/* Removal leaves a tombstone (src NULL, id kept) to keep probe chains. */
static void map_del(perf_state_t *pf, uint64_t id)
{
	size_t i = slot_of(id);

	for (int n = 0; n < MAP_SLOTS && (pf->idmap[i].id != 0 ||
	    pf->idmap[i].src != NULL); n++, i = (i + 1) & (MAP_SLOTS - 1)) {
		if (pf->idmap[i].id == id) {
			pf->idmap[i].src = NULL;
			return;
		}
	}
}

static prov_perf_src_t *map_get(perf_state_t *pf, uint64_t id)
{
	size_t i = slot_of(id);

	for (int n = 0; n < MAP_SLOTS && pf->idmap[i].id != 0; n++,
	    i = (i + 1) & (MAP_SLOTS - 1))
		if (pf->idmap[i].id == id)
			return pf->idmap[i].src;
	return NULL;
}

/* ---- rings ---- */

/* Open CPU cpu's ring: the event ring all sources write into, or (task)
 * the ring of comm/fork/exit records, kept apart so that records lost
 * there are not counted as probe drops and drops stay exact. */
static int ring_open(perf_state_t *pf, ring_t *r, int cpu, int task)
{
	struct perf_event_attr a;
	uint64_t kb = task ? TASK_RING_KB :
	    pf->ring_kb ? pf->ring_kb : DEFAULT_RING_KB;
	long page = sysconf(_SC_PAGESIZE);

	r->rg_fd = -1;
	memset(&a, 0, sizeof(a));
	attr_common(&a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
	    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.comm = task;
	a.comm_exec = task;
	a.task = task;
	a.mmap = task;			/* executable mappings (not data): */
	a.mmap2 = task;			/* usdt follows libraries */
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(kb * 1024 / 4);
	r->rg_fd = perf_open(&a, cpu, -1);
	if (r->rg_fd < 0)
		return -1;
	r->rg_size = kb * 1024;
	r->rg_maplen = (size_t)(r->rg_size + (uint64_t)page);
	r->rg_meta = mmap(NULL, r->rg_maplen, PROT_READ | PROT_WRITE,
	    MAP_SHARED, r->rg_fd, 0);
	if (r->rg_meta == MAP_FAILED) {
		close(r->rg_fd);
		r->rg_fd = -1;
		return -1;
	}
	r->rg_data = (uint8_t *)r->rg_meta + r->rg_meta->data_offset;
	r->rg_size = r->rg_meta->data_size;
	return 0;
}

static void *drain_main(void *arg);

/* Create the rings and the drain thread on first use.  openlk held. */
static int rings_start(perf_state_t *pf)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ok = 0;

	const char *env = getenv("DTUI_PERF_RING_KB");

	if (pf->rings != NULL)
		return 0;
	if (env != NULL && pf->ring_kb == 0)
		prov_set_ring_kb((unsigned)atoi(env));
	pf->ncpu = prov_perf_ncpus();
	if (pf->ncpu > MAX_MERGE / 2)
		pf->ncpu = MAX_MERGE / 2;
	pf->nrings = 2 * pf->ncpu;
	pf->rings = calloc((size_t)pf->nrings, sizeof(*pf->rings));
	pf->epfd = epoll_create1(EPOLL_CLOEXEC);
	pf->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pf->flushfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pf->rings == NULL || pf->epfd < 0 || pf->stopfd < 0 ||
	    pf->flushfd < 0)
		goto fail;
	ev.data.u32 = UINT32_MAX;
	epoll_ctl(pf->epfd, EPOLL_CTL_ADD, pf->stopfd, &ev);
	ev.data.u32 = UINT32_MAX - 1;
	epoll_ctl(pf->epfd, EPOLL_CTL_ADD, pf->flushfd, &ev);
	for (int i = 0; i < pf->nrings; i++) {
		if (ring_open(pf, &pf->rings[i], i % pf->ncpu,
		    i >= pf->ncpu) != 0)
			continue;
		ev.data.u32 = (uint32_t)i;
		epoll_ctl(pf->epfd, EPOLL_CTL_ADD, pf->rings[i].rg_fd, &ev);
		ok += i < pf->ncpu;
	}
	if (ok == 0) {
		ks_provider_error("perf_event_open: %s", strerror(errno));
		goto fail;
	}
	if (pthread_create(&pf->drainer, NULL, drain_main, pf) != 0)
		goto fail;
	pf->draining = 1;
	return 0;
fail:
	prov_perf_shutdown();
	return -1;
}

/* ---- sources ---- */

static void src_free(prov_perf_src_t *s)
{
	free(s->ps_fds);
	free(s->ps_ids);
	free(s->ps_lost);
	free(s);
}

/* ---- losses ---- */

/* Report the growth of ring cpu's losses as drops on that CPU. */
static void lost_report(perf_state_t *pf, int cpu)
{
	ring_t *r = &pf->rings[cpu];
	uint64_t m, d;

	pthread_mutex_lock(&pf->lostlk);
	m = r->rg_lostrec > r->rg_lostcnt ? r->rg_lostrec : r->rg_lostcnt;
	d = m - r->rg_lostrep;
	r->rg_lostrep = m;
	pthread_mutex_unlock(&pf->lostlk);
	if (d > 0)
		prov_drops_add((uint32_t)cpu, d);
}

/* Add what source s lost on CPU c since its counter was last read. */
static void lost_read(perf_state_t *pf, prov_perf_src_t *s, int c)
{
	uint64_t v[4];

	if (s->ps_fds[c] < 0 || read(s->ps_fds[c], v, sizeof(v)) != 16)
		return;			/* { value, lost } */
	pthread_mutex_lock(&pf->lostlk);
	if (v[1] > s->ps_lost[c]) {
		pf->rings[c].rg_lostcnt += v[1] - s->ps_lost[c];
		s->ps_lost[c] = v[1];
	}
	pthread_mutex_unlock(&pf->lostlk);
}

/* Read every open source's counters and report.  openlk held. */
static void lost_read_all(perf_state_t *pf)
{
	pthread_mutex_lock(&pf->maplk);
	for (size_t i = 0; i < MAP_SLOTS; i++) {
		prov_perf_src_t *s = pf->idmap[i].src;

		for (int c = 0; s != NULL && c < pf->ncpu; c++)
			if (s->ps_ids[c] == pf->idmap[i].id)
				lost_read(pf, s, c);
	}
	pthread_mutex_unlock(&pf->maplk);
	for (int c = 0; c < pf->ncpu; c++)
		lost_report(pf, c);
}

static int src_open_cpu(perf_state_t *pf, prov_perf_src_t *s,
    struct perf_event_attr *a, int c)
{
	if (pf->rings[c].rg_fd < 0)
		return 0;
	s->ps_fds[c] = perf_open(a, c, -1);
	if (s->ps_fds[c] < 0 && errno == EINVAL &&
	    (a->read_format & PERF_FORMAT_LOST)) {
		pf->fmt_lost = 0;		/* before Linux 6.0 */
		a->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		s->ps_fds[c] = perf_open(a, c, -1);
	}
	if (s->ps_fds[c] < 0)
		return -1;
	if (ioctl(s->ps_fds[c], PERF_EVENT_IOC_SET_OUTPUT, pf->rings[c].rg_fd)
	    != 0 || ioctl(s->ps_fds[c], PERF_EVENT_IOC_ID, &s->ps_ids[c]) != 0)
		return -1;
	pthread_mutex_lock(&pf->maplk);
	map_put(pf, s->ps_ids[c], s);
	pthread_mutex_unlock(&pf->maplk);
	return 0;
}

static void src_stop(perf_state_t *pf, prov_perf_src_t *s)
{
	for (int c = 0; c < pf->ncpu; c++) {
		if (s->ps_fds[c] < 0)
			continue;
		ioctl(s->ps_fds[c], PERF_EVENT_IOC_DISABLE, 0);
		pthread_mutex_lock(&pf->maplk);
		map_del(pf, s->ps_ids[c]);
		pthread_mutex_unlock(&pf->maplk);
		lost_read(pf, s, c);
		close(s->ps_fds[c]);
		s->ps_fds[c] = -1;
		lost_report(pf, c);
	}
}

int prov_perf_start(void)
{
	perf_state_t *pf = &perf;
	int rc;

	pthread_mutex_lock(&pf->openlk);
	rc = rings_start(pf);
	pthread_mutex_unlock(&pf->openlk);
	return rc;
}

prov_perf_src_t *prov_perf_open(const struct perf_event_attr *attr,
    int callchain, prov_perf_cb_t *cb, void *arg)
{
	perf_state_t *pf = &perf;
	struct perf_event_attr a = *attr;
	prov_perf_src_t *s;

	pthread_mutex_lock(&pf->openlk);
	if (rings_start(pf) != 0) {
		pthread_mutex_unlock(&pf->openlk);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL || (s->ps_fds = malloc(sizeof(int) * (size_t)pf->ncpu))
	    == NULL || (s->ps_ids = calloc((size_t)pf->ncpu, 8)) == NULL ||
	    (s->ps_lost = calloc((size_t)pf->ncpu, 8)) == NULL)
		goto nomem;
	attr_common(&a);
	a.sample_type |= PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
	    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (callchain & PROV_SAMPLE_CHAIN)
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	if ((callchain & PROV_SAMPLE_UREGS) && UREGS_MASK != 0) {
		a.sample_type |= PERF_SAMPLE_REGS_USER;
		a.sample_regs_user = UREGS_MASK;
	}
	if (callchain & PROV_SAMPLE_USTACK) {
		a.sample_type |= PERF_SAMPLE_STACK_USER;
		a.sample_stack_user = PROV_USTACK_BYTES;
	}
	a.disabled = 1;
	if (pf->fmt_lost)
		a.read_format |= PERF_FORMAT_LOST;
	s->ps_type = a.sample_type;
	s->ps_cb = cb;
	s->ps_arg = arg;
	for (int c = 0; c < pf->ncpu; c++)
		s->ps_fds[c] = -1;
	for (int c = 0; c < pf->ncpu; c++) {
		if (src_open_cpu(pf, s, &a, c) != 0) {
			ks_provider_error("perf_event_open on CPU %d: %s", c,
			    strerror(errno));
			src_stop(pf, s);
			src_free(s);
			pthread_mutex_unlock(&pf->openlk);
			return NULL;
		}
	}
	for (int c = 0; c < pf->ncpu; c++)
		if (s->ps_fds[c] >= 0)
			ioctl(s->ps_fds[c], PERF_EVENT_IOC_ENABLE, 0);
	pthread_mutex_unlock(&pf->openlk);
	return s;
nomem:
	if (s != NULL)
		src_free(s);
	pthread_mutex_unlock(&pf->openlk);
	ks_provider_error("perf: out of memory");
	return NULL;
}

int prov_perf_src_fd(const prov_perf_src_t *src, int cpu)
{
	perf_state_t *pf = &perf;

	return cpu >= 0 && cpu < pf->ncpu ? src->ps_fds[cpu] : -1;
}

prov_perf_src_t *prov_perf_tracepoint(int tpid, int callchain,
    prov_perf_cb_t *cb, void *arg)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)tpid;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	return prov_perf_open(&a, callchain, cb, arg);
}

void prov_perf_close(prov_perf_src_t *src)
{
	perf_state_t *pf = &perf;

	if (src == NULL)
		return;
	pthread_mutex_lock(&pf->openlk);
	src_stop(pf, src);
	pthread_mutex_lock(&pf->maplk);
	if (pf->draining) {
		src->ps_link = pf->graveyard;
		pf->graveyard = src;
		src = NULL;
	}
	pthread_mutex_unlock(&pf->maplk);
	pthread_mutex_unlock(&pf->openlk);
	if (src != NULL)
		src_free(src);
}

/* ---- parsing records ---- */

/* Parse a sample of source s into out; 0 or -1 if it is truncated. */
static int parse_sample(const prov_perf_src_t *s, const uint8_t *p,
    const uint8_t *end, prov_perf_sample_t *out)
{
	uint64_t t = s->ps_type;

#define TAKE(dst, n) do { if (p + (n) > end) return -1; \
	memcpy((dst), p, (n)); p += (n); } while (0)
	memset(out, 0, sizeof(*out));
	p += 8;					/* IDENTIFIER */
	if (t & PERF_SAMPLE_IP)
		TAKE(&out->pps_ip, 8);
	if (t & PERF_SAMPLE_TID) {
		TAKE(&out->pps_pid, 4);
		TAKE(&out->pps_tid, 4);
	}
	if (t & PERF_SAMPLE_TIME)
		TAKE(&out->pps_time, 8);
	if (t & PERF_SAMPLE_CPU) {
		TAKE(&out->pps_cpu, 4);
		p += 4;
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		TAKE(&nr, 8);
		if (nr > (uint64_t)(end - p) / 8)
			return -1;
		out->pps_chain = (const uint64_t *)p;
		out->pps_nchain = (uint32_t)nr;
		p += nr * 8;
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t sz;

		TAKE(&sz, 4);
		if (sz > (uint64_t)(end - p))
			return -1;
		out->pps_raw = p;
		out->pps_rawlen = sz;
		p += sz;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		uint64_t abi;

		TAKE(&abi, 8);
		if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
			if ((uint64_t)(end - p) < 8 * UREGS_N)
				return -1;
			out->pps_uregs = (const uint64_t *)p;
			out->pps_nuregs = UREGS_N;
			p += 8 * UREGS_N;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn;

		TAKE(&size, 8);
		if (size > 0) {
			if (size > (uint64_t)(end - p) ||
			    (uint64_t)(end - p) - size < 8)
				return -1;
			memcpy(&dyn, p + size, 8);
			out->pps_ustk = p;
			out->pps_ustklen = (uint32_t)(dyn < size ? dyn : size);
			p += size + 8;
		}
	}
#undef TAKE
	out->pps_user = out->pps_ip != 0 && out->pps_ip < 0x800000000000ull;
	return 0;
}

static void on_sample(perf_state_t *pf, const uint8_t *rec, uint32_t len)
{
	prov_perf_src_t *s;
	prov_perf_sample_t smp;
	uint64_t id;

	if (len < sizeof(struct perf_event_header) + 8)
		return;
	memcpy(&id, rec + sizeof(struct perf_event_header), 8);
	pthread_mutex_lock(&pf->maplk);
	s = map_get(pf, id);
	pthread_mutex_unlock(&pf->maplk);
	if (s == NULL || parse_sample(s, rec + sizeof(struct perf_event_header),
	    rec + len, &smp) != 0)
		return;
	s->ps_cb(s->ps_arg, &smp);
}

/* A MMAP2 record's body (n bytes): u32 pid, tid; u64 addr, len,
 * pgoff; u32 maj, min; u64 ino, ino_generation; u32 prot, flags; the
 * file name, NUL-padded; the sample id fields. */
static void on_mmap2(const struct perf_event_header *h, const uint8_t *body,
    uint32_t n)
{
	uint32_t pid, maj, min;
	uint64_t ino;
	char path[512];
	size_t k;

	if (n <= 64 || (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return;			/* (no device and inode then) */
	memcpy(&pid, body, 4);
	memcpy(&maj, body + 32, 4);
	memcpy(&min, body + 36, 4);
	memcpy(&ino, body + 40, 8);
	for (k = 0; k < n - 64 && k < sizeof(path) - 1 && body[64 + k]; k++)
		path[k] = (char)body[64 + k];
	if (k == sizeof(path) - 1 || k == n - 64)
		return;			/* too long, or cut */
	path[k] = '\0';
	prov_pcache_map((int32_t)pid, maj, min, ino, path);
}

/* One record of ring i (events of CPU i, or CPU i - ncpu's task
 * records); lost task records are not probe drops. */
static void on_record(perf_state_t *pf, int i, const uint8_t *rec, uint32_t len)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint8_t *body = rec + sizeof(*h);
	int cpu = i < pf->ncpu ? i : -1;
	uint32_t v[2];
	uint64_t lost;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(pf, rec, len);
		break;
	case PERF_RECORD_LOST:		/* u64 id, u64 lost */
		if (cpu >= 0 && len >= sizeof(*h) + 16) {
			memcpy(&lost, body + 8, 8);
			pthread_mutex_lock(&pf->lostlk);
			pf->rings[cpu].rg_lostrec += lost;
			pthread_mutex_unlock(&pf->lostlk);
			lost_report(pf, cpu);
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:	/* u64 lost: never made, not in
					 * the ring's or counters' counts */
		if (cpu >= 0 && len >= sizeof(*h) + 8) {
			memcpy(&lost, body, 8);
			prov_drops_add((uint32_t)cpu, lost);
		}
		break;
	case PERF_RECORD_COMM:		/* u32 pid, tid; char comm[] */
		if (len >= sizeof(*h) + 9) {
			char comm[16];

			memcpy(v, body, 8);
			snprintf(comm, sizeof(comm), "%.*s",
			    (int)(len - sizeof(*h) - 8), (const char *)body + 8);
			prov_pcache_comm((int32_t)v[1], (int32_t)v[0], comm);
			if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
				prov_pcache_exec((int32_t)v[1], (int32_t)v[0]);
		}
		break;
	case PERF_RECORD_FORK:		/* u32 pid, ppid, tid, ptid */
		if (len >= sizeof(*h) + 16) {
			uint32_t f[4];

			memcpy(f, body, 16);
			prov_pcache_fork((int32_t)f[0], (int32_t)f[1],
			    (int32_t)f[2], (int32_t)f[3]);
		}
		break;
	case PERF_RECORD_EXIT:		/* u32 pid, ppid, tid, ptid */
		if (len >= sizeof(*h) + 16) {
			uint32_t e[4];

			memcpy(e, body, 16);
			prov_vtime_forget((int32_t)e[2]);
			prov_pcache_exit((int32_t)e[0], (int32_t)e[2]);
		}
		break;
	case PERF_RECORD_MMAP2:
		on_mmap2(h, body, len - (uint32_t)sizeof(*h));
		break;
	default:
		break;
	}
}

/* The record at r's tail (copied to tmp if it wraps); NULL if the ring
 * holds no complete record up to r->rg_head. */
static const uint8_t *ring_peek(ring_t *r, uint8_t *tmp, uint32_t *lenp)
{
	struct perf_event_header h;
	uint64_t mask = r->rg_size - 1, off = r->rg_tail & mask;
	size_t first;

	if (r->rg_tail >= r->rg_head)
		return NULL;
	if (off + sizeof(h) <= r->rg_size) {
		memcpy(&h, r->rg_data + off, sizeof(h));
	} else {
		first = (size_t)(r->rg_size - off);
		memcpy(&h, r->rg_data + off, first);
		memcpy((uint8_t *)&h + first, r->rg_data, sizeof(h) - first);
	}
	if (h.size < sizeof(h) || r->rg_tail + h.size > r->rg_head) {
		r->rg_tail = r->rg_head;	/* corrupt: skip the rest */
		return NULL;
	}
	*lenp = h.size;
	if (off + h.size <= r->rg_size)
		return r->rg_data + off;
	first = (size_t)(r->rg_size - off);
	memcpy(tmp, r->rg_data + off, first);
	memcpy(tmp + first, r->rg_data, h.size - first);
	return tmp;
}

/* A record's timestamp: samples carry it after IDENTIFIER, IP and TID;
 * other records in the sample_id trailer (TID, TIME, CPU, IDENTIFIER),
 * identical for every event because they share those sample bits. */
static uint64_t rec_time(const uint8_t *rec, uint32_t len)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t t = 0;

	if (h->type == PERF_RECORD_SAMPLE) {
		if (len >= sizeof(*h) + 32)
			memcpy(&t, rec + sizeof(*h) + 24, 8);
	} else if (len >= sizeof(*h) + 32) {
		memcpy(&t, rec + len - 24, 8);
	}
	return t;
}

/* One pass: consume every record present in every ring exactly once, in
 * timestamp order across rings (so a fork seen on one CPU is known before
 * the child's first event on another), then publish the tails. */
static void drain_pass(perf_state_t *pf, uint8_t (*tmp)[65536])
{
	const uint8_t *rec[MAX_MERGE];
	uint32_t len[MAX_MERGE];
	int n = pf->nrings;

	for (int c = 0; c < n; c++) {
		ring_t *r = &pf->rings[c];

		rec[c] = NULL;
		if (r->rg_fd < 0)
			continue;
		r->rg_head = __atomic_load_n(&r->rg_meta->data_head,
		    __ATOMIC_ACQUIRE);
		r->rg_tail = r->rg_meta->data_tail;
		rec[c] = ring_peek(r, tmp[c], &len[c]);
	}
	for (;;) {
		int best = -1;
		uint64_t bt = UINT64_MAX;

		for (int c = 0; c < n; c++) {
			uint64_t t;

			if (rec[c] == NULL)
				continue;
			t = rec_time(rec[c], len[c]);
			if (best < 0 || t < bt) {
				best = c;
				bt = t;
			}
		}
		if (best < 0)
			break;
		on_record(pf, best, rec[best], len[best]);
		pf->rings[best].rg_tail += len[best];
		rec[best] = ring_peek(&pf->rings[best], tmp[best], &len[best]);
	}
	for (int c = 0; c < n; c++)
		if (pf->rings[c].rg_fd >= 0)
			__atomic_store_n(&pf->rings[c].rg_meta->data_tail,
			    pf->rings[c].rg_tail, __ATOMIC_RELEASE);
}

static void bury(perf_state_t *pf)
{
	prov_perf_src_t *g;

	pthread_mutex_lock(&pf->maplk);
	g = pf->graveyard;
	pf->graveyard = NULL;
	pthread_mutex_unlock(&pf->maplk);
	while (g != NULL) {
		prov_perf_src_t *next = g->ps_link;

		src_free(g);
		g = next;
	}
}

static void *drain_main(void *arg)
{
	perf_state_t *pf = arg;

	static uint8_t tmp[MAX_MERGE][65536] __attribute__((aligned(8)));
	struct epoll_event evs[64];

	for (;;) {
		int n = epoll_wait(pf->epfd, evs, 64, 20);

		for (int i = 0; i < n; i++) {
			uint64_t v;

			if (evs[i].data.u32 == UINT32_MAX)
				return NULL;
			if (evs[i].data.u32 == UINT32_MAX - 1)
				(void)!read(pf->flushfd, &v, sizeof(v));
		}
		uint64_t t0 = ks_gethrtime();

		pf->wall_off = ks_getwalltime() - t0;
		drain_pass(pf, tmp);
		bury(pf);
		prov_bpf_agg_drain(0);	/* kernel counts, every 100 ms */
		__atomic_store_n(&pf->drained, t0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&pf->passes, 1, __ATOMIC_RELEASE);
	}
}

uint64_t prov_perf_wall_off(void)
{
	return perf.wall_off;
}

uint64_t prov_perf_drained(void)
{
	perf_state_t *pf = &perf;

	return __atomic_load_n(&pf->drained, __ATOMIC_ACQUIRE);
}

void prov_perf_flush(void)
{
	perf_state_t *pf = &perf;
	uint64_t one = 1, start;

	if (!pf->draining || pthread_equal(pthread_self(), pf->drainer))
		return;
	start = __atomic_load_n(&pf->passes, __ATOMIC_ACQUIRE);
	if (write(pf->flushfd, &one, sizeof(one)) != sizeof(one))
		return;
	/* the pass in progress may have begun before the request */
	for (int i = 0; i < 1000 &&
	    __atomic_load_n(&pf->passes, __ATOMIC_ACQUIRE) < start + 2; i++)
		usleep(500);
	/* losses the kernel has not written as LOST records yet */
	pthread_mutex_lock(&pf->openlk);
	if (pf->rings != NULL)
		lost_read_all(pf);
	pthread_mutex_unlock(&pf->openlk);
}

void prov_perf_shutdown(void)
{
	perf_state_t *pf = &perf;

	if (pf->draining) {
		uint64_t one = 1;

		if (write(pf->stopfd, &one, sizeof(one)) == sizeof(one))
			pthread_join(pf->drainer, NULL);
		pf->draining = 0;
		bury(pf);
	}
	if (pf->rings != NULL) {
		for (int c = 0; c < pf->nrings; c++) {
			if (pf->rings[c].rg_fd < 0)
				continue;
			munmap(pf->rings[c].rg_meta, pf->rings[c].rg_maplen);
			close(pf->rings[c].rg_fd);
		}
		free(pf->rings);
		pf->rings = NULL;
	}
	if (pf->epfd >= 0)
		close(pf->epfd);
	if (pf->stopfd >= 0)
		close(pf->stopfd);
	if (pf->flushfd >= 0)
		close(pf->flushfd);
	pf->epfd = pf->stopfd = pf->flushfd = -1;
}
