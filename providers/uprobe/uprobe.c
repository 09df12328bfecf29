/*
 * uprobe.c - uprobes and uretprobes, by one of two routes:
 *
 * multi: a BPF uprobe_multi link (Linux 6.6) places every site of an
 * attachment in one bpf(2) call, for one process (the kernel tests the
 * pid) or all, with the sites' semaphores; a small program emits {tag,
 * site cookie} with bpf_perf_event_output into a BPF_OUTPUT event of the
 * CPU, whose sample carries the user registers, call chain and stack
 * bytes the attachment asked for (the program's context is the probed
 * registers).  Closing the link removes every site with one wait for the
 * kernel, where the perf route waits once per event (~0.1 s each).
 *
 * perf: each site is one perf event of the PMU named in
 * /sys/bus/event_source/devices/uprobe/type, opened on every CPU for
 * every process (config1 = the path, config2 = the file offset; the
 * format directory says which config bit makes it a return probe and
 * where a semaphore's offset goes).  Events opened for one task would
 * see only that thread, so a pid is tested before the callback.  Used
 * when the multi route is refused (older kernels) or DTUI_UPROBE_ROUTE is
 * "perf".
 *
 * Both write into perf.c's per-CPU rings, whose drain thread calls us
 * back.  Locking: up.lk guards the multi route's maps, output events and
 * slots (a slot's generation is also read, atomically, by the drain
 * thread, which drops records of a slot whose generation moved on: a
 * record of a detached attachment still in a ring).  A detached multi
 * attachment is freed once a drain pass that began after its detach has
 * completed (prov_perf_drained), so a callback reading it never sees
 * freed memory.  A prov_uprobe_t is immutable between attach and detach.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <linux/bpf.h>
#include "uprobe.h"
#include "bpf_util.h"

#define PMU_DIR "/sys/bus/event_source/devices/uprobe"

#define MSLOTS 1024		/* multi attachments at once */
#define NKINDS 4		/* output sets: call chains x stack bytes */
/* BPF_TRACE_UPROBE_MULTI and its link attributes (Linux 6.6 uapi; the
 * headers here may be older) */
#define ATTACH_UPROBE_MULTI	48
#define UPROBE_MULTI_RETURN	1u

typedef struct link_attr {		/* union bpf_attr's link_create */
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, um_flags, pid;
} link_attr_t;

struct upsite {
	prov_uprobe_t *us_up;
	uint64_t us_cookie;
	prov_perf_src_t *us_src;	/* NULL until opened */
};

struct prov_uprobe {
	int pu_pid;			/* > 0: deliver only its hits */
	prov_uprobe_cb_t *pu_cb;
	void *pu_arg;
	int pu_link;			/* multi: the link, else -1 */
	int pu_slot;			/* multi: its slot */
	uint64_t pu_dead;		/* multi: when it was detached */
	prov_uprobe_t *pu_next;		/* multi: up.dead list */
	int pu_nsites;			/* perf: sites opened */
	struct upsite pu_sites[];	/* perf route */
};

static struct {
	/* the PMU, written once under once, read-only after */
	pthread_once_t once;
	int type;			/* PMU type, -1: no uprobe PMU */
	uint64_t retbit;		/* config bit of "retprobe" */
	int refshift;			/* first config bit of ref_ctr_offset,
					 * -1: semaphores not supported */
	int refbits;			/* its width */
	pthread_mutex_t lk;
	int multi;			/* multi route: 1 works, -1 refused,
					 * 0 untried (lk) */
	int outmap[NKINDS];		/* PERF_EVENT_ARRAY, -1 none (lk) */
	prov_perf_src_t *outsrc[NKINDS];	/* its BPF_OUTPUT events (lk) */
	struct {
		prov_uprobe_t *ms_up;	/* lk; read by the drain thread */
		uint32_t ms_gen;	/* 0 free; atomic */
	} slot[MSLOTS];
	uint32_t gen;			/* last generation given (lk) */
	prov_uprobe_t *dead;		/* detached, not yet freed (lk) */
} up = { PTHREAD_ONCE_INIT, -1, 0, -1, 0, PTHREAD_MUTEX_INITIALIZER, 0,
	{ -1, -1, -1, -1 }, { NULL }, { { NULL, 0 } }, 0, NULL };

/* "config:32-63" or "config:0" into first bit and width; -1 if not. */
static int read_format(const char *name, int *first, int *width)
{
	char path[128], buf[64];
	int lo, hi, n;
	FILE *fp;

	snprintf(path, sizeof(path), PMU_DIR "/format/%s", name);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	n = fgets(buf, sizeof(buf), fp) != NULL ? 1 : 0;
	fclose(fp);
	if (n == 0 || strncmp(buf, "config:", 7) != 0)
		return -1;
	n = sscanf(buf + 7, "%d-%d", &lo, &hi);
	if (n < 1 || lo < 0 || lo > 63)
		return -1;
	if (n == 1)
		hi = lo;
	if (hi < lo || hi > 63)
		return -1;
	*first = lo;
	*width = hi - lo + 1;
	return 0;
}

static void pmu_probe(void)
{
	int bit, width, type;
	FILE *fp;

	if ((fp = fopen(PMU_DIR "/type", "r")) == NULL)
		return;
	if (fscanf(fp, "%d", &type) != 1)
		type = -1;
	fclose(fp);
	if (type < 0 || read_format("retprobe", &bit, &width) != 0)
		return;
	up.retbit = 1ull << bit;
	if (read_format("ref_ctr_offset", &up.refshift, &up.refbits) != 0)
		up.refshift = -1;
	up.type = type;
}

int prov_uprobe_available(void)
{
	pthread_once(&up.once, pmu_probe);
	if (up.type < 0) {
		ks_provider_error("uprobes are not available: no uprobe PMU "
		    "in " PMU_DIR);
		return 0;
	}
	if (!prov_is_privileged()) {
		ks_provider_error("uprobes need root or CAP_PERFMON");
		return 0;
	}
	return 1;
}

static void on_hit(void *arg, const prov_perf_sample_t *s)
{
	const struct upsite *us = arg;
	const prov_uprobe_t *u = us->us_up;

	if (u->pu_pid > 0 && s->pps_pid != u->pu_pid)
		return;
	u->pu_cb(u->pu_arg, us->us_cookie, s);
}

static int open_site(prov_uprobe_t *u, struct upsite *us, const char *path,
    const prov_uprobe_site_t *site, int flags)
{
	struct perf_event_attr a;
	int err;

	if (site->pus_refctr != 0 && (up.refshift < 0 || (up.refbits < 64 &&
	    (site->pus_refctr >> up.refbits) != 0))) {
		ks_provider_error("%s: semaphore at offset %#llx cannot be "
		    "given to this kernel's uprobes", path,
		    (unsigned long long)site->pus_refctr);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.type = (uint32_t)up.type;
	a.config = (flags & PROV_UPROBE_RETURN) ? up.retbit : 0;
	if (site->pus_refctr != 0)
		a.config |= site->pus_refctr << up.refshift;
	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = site->pus_offset;
	a.sample_period = 1;
	us->us_up = u;
	us->us_cookie = site->pus_cookie;
	us->us_src = prov_perf_open(&a, (flags & (PROV_SAMPLE_CHAIN |
	    PROV_SAMPLE_USTACK)) | PROV_SAMPLE_UREGS, on_hit, us);
	if (us->us_src == NULL) {
		err = errno;
		ks_provider_error("cannot place a uprobe at %s offset %#llx: %s",
		    path, (unsigned long long)site->pus_offset,
		    err == ENOENT ? "no such file" : strerror(err));
		return -1;
	}
	return 0;
}

/* The perf route: one perf uprobe event per site (see above). */
static prov_uprobe_t *perf_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg)
{
	prov_uprobe_t *u;

	u = calloc(1, sizeof(*u) + sizeof(struct upsite) * (size_t)nsites);
	if (u == NULL) {
		ks_provider_error("uprobe: out of memory");
		return NULL;
	}
	u->pu_pid = pid;
	u->pu_cb = cb;
	u->pu_arg = arg;
	u->pu_link = -1;
	for (int i = 0; i < nsites; i++) {
		if (open_site(u, &u->pu_sites[i], path, &sites[i], flags) != 0) {
			prov_uprobe_detach(u);
			return NULL;
		}
		u->pu_nsites = i + 1;
	}
	return u;
}

/* ---- the multi route ---- */

/* Drain thread: a {tag, cookie} record of output set kind. */
static void on_output(void *arg, const prov_perf_sample_t *s)
{
	prov_perf_sample_t copy = *s;
	const prov_uprobe_t *u;
	uint64_t tag, cookie;
	uint32_t idx, gen;

	if (s->pps_rawlen < 16)
		return;
	memcpy(&tag, s->pps_raw, 8);
	memcpy(&cookie, s->pps_raw + 8, 8);
	idx = (uint32_t)tag;
	gen = (uint32_t)(tag >> 32);
	if (idx >= MSLOTS || gen == 0 ||
	    __atomic_load_n(&up.slot[idx].ms_gen, __ATOMIC_ACQUIRE) != gen)
		return;			/* detached: a record left in a ring */
	u = __atomic_load_n(&up.slot[idx].ms_up, __ATOMIC_ACQUIRE);
	if (u == NULL)
		return;
	copy.pps_raw = s->pps_raw + 16;
	copy.pps_rawlen = s->pps_rawlen - 16;
	u->pu_cb(u->pu_arg, cookie, &copy);
}

static int map_cpu(int map, int cpu, int fd)
{
	union bpf_attr at;
	uint32_t key = (uint32_t)cpu;

	memset(&at, 0, sizeof(at));
	at.map_fd = (uint32_t)map;
	at.key = (uint64_t)(uintptr_t)&key;
	at.value = (uint64_t)(uintptr_t)&fd;
	return (int)prov_bpf_call(BPF_MAP_UPDATE_ELEM, &at);
}

/* The output map of set kind (PROV_SAMPLE_CHAIN, PROV_SAMPLE_USTACK
 * bits / 2 ... see kind_of), made on first use (lk held); -1 if not. */
static int out_map(int kind, int sample)
{
	struct perf_event_attr a;
	int ncpu = prov_perf_ncpus();

	if (up.outmap[kind] >= 0)
		return up.outmap[kind];
	up.outmap[kind] = prov_bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY,
	    4, 4, (uint32_t)ncpu, 0);
	if (up.outmap[kind] < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	up.outsrc[kind] = prov_perf_open(&a, sample, on_output, NULL);
	if (up.outsrc[kind] == NULL)
		goto fail;
	for (int c = 0; c < ncpu; c++) {
		int fd = prov_perf_src_fd(up.outsrc[kind], c);

		if (fd >= 0 && map_cpu(up.outmap[kind], c, fd) != 0)
			goto fail;
	}
	return up.outmap[kind];
fail:
	prov_perf_close(up.outsrc[kind]);
	up.outsrc[kind] = NULL;
	close(up.outmap[kind]);
	up.outmap[kind] = -1;
	return -1;
}

/* r6 = ctx; fp[-8] = get_attach_cookie(ctx); fp[-16] = tag;
 * perf_event_output(ctx, map, CURRENT_CPU, fp - 16, 16); return 0 */
static int load_prog(int map, uint64_t tag)
{
	struct bpf_insn p[16];
	union bpf_attr at;
	int n = 0;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_attach_cookie);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -8, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 1, 0, 0, (int32_t)tag);
	p[n++] = ins(0, 0, 0, 0, (int32_t)(tag >> 32));
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 1, -16, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0, map);
	p[n++] = ins(0, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, -1);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 4, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, -16);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0, 16);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	memset(&at, 0, sizeof(at));
	at.prog_type = BPF_PROG_TYPE_KPROBE;
	at.expected_attach_type = ATTACH_UPROBE_MULTI;
	at.insns = (uint64_t)(uintptr_t)p;
	at.insn_cnt = (uint32_t)n;
	at.license = (uint64_t)(uintptr_t)"GPL";
	return (int)prov_bpf_call(BPF_PROG_LOAD, &at);
}

static int link_sites(int prog, const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags)
{
	uint64_t *offs = calloc((size_t)nsites, 8 * 3);
	union bpf_attr at;
	link_attr_t la;
	int fd;

	if (offs == NULL)
		return -1;
	for (int i = 0; i < nsites; i++) {
		offs[i] = sites[i].pus_offset;
		offs[nsites + i] = sites[i].pus_refctr;
		offs[2 * nsites + i] = sites[i].pus_cookie;
	}
	memset(&la, 0, sizeof(la));
	la.prog_fd = (uint32_t)prog;
	la.attach_type = ATTACH_UPROBE_MULTI;
	la.path = (uint64_t)(uintptr_t)path;
	la.offsets = (uint64_t)(uintptr_t)offs;
	la.ref_ctr_offsets = (uint64_t)(uintptr_t)(offs + nsites);
	la.cookies = (uint64_t)(uintptr_t)(offs + 2 * nsites);
	la.cnt = (uint32_t)nsites;
	la.um_flags = (flags & PROV_UPROBE_RETURN) ? UPROBE_MULTI_RETURN : 0;
	la.pid = pid > 0 ? (uint32_t)pid : 0;
	memset(&at, 0, sizeof(at));
	memcpy(&at, &la, sizeof(la));
	fd = (int)prov_bpf_call(BPF_LINK_CREATE, &at);
	free(offs);
	return fd;
}

/* Free the detached attachments no callback can be reading (lk held):
 * a drain pass that began after their detach has completed. */
static void reap(void)
{
	uint64_t drained = prov_perf_drained();
	prov_uprobe_t **pp = &up.dead, *u;

	while ((u = *pp) != NULL) {
		if (u->pu_dead < drained) {
			*pp = u->pu_next;
			__atomic_store_n(&up.slot[u->pu_slot].ms_up, NULL,
			    __ATOMIC_RELEASE);
			free(u);
		} else {
			pp = &u->pu_next;
		}
	}
}

/* A free slot (lk held), or -1. */
static int slot_new(void)
{
	for (int i = 0; i < MSLOTS; i++)
		if (up.slot[i].ms_up == NULL &&
		    __atomic_load_n(&up.slot[i].ms_gen, __ATOMIC_RELAXED) == 0)
			return i;
	return -1;
}

/* The multi route; NULL with errno set, and *refused set when the
 * kernel has no such route (its program is refused). */
static prov_uprobe_t *multi_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg, int *refused)
{
	int kind = ((flags & PROV_SAMPLE_CHAIN) ? 1 : 0) |
	    ((flags & PROV_SAMPLE_USTACK) ? 2 : 0);
	int map, prog, s, err;
	prov_uprobe_t *u;
	uint64_t tag;

	pthread_mutex_lock(&up.lk);
	reap();
	if ((map = out_map(kind, PROV_SAMPLE_UREGS | (flags &
	    (PROV_SAMPLE_CHAIN | PROV_SAMPLE_USTACK)))) < 0 ||
	    (s = slot_new()) < 0 || (u = calloc(1, sizeof(*u))) == NULL) {
		err = errno != 0 ? errno : ENOMEM;
		pthread_mutex_unlock(&up.lk);
		errno = err;
		return NULL;
	}
	if (++up.gen == 0)
		up.gen = 1;
	tag = (uint64_t)up.gen << 32 | (uint32_t)s;
	u->pu_pid = pid;
	u->pu_cb = cb;
	u->pu_arg = arg;
	u->pu_slot = s;
	/* published before the link exists: its first hit finds it */
	__atomic_store_n(&up.slot[s].ms_up, u, __ATOMIC_RELEASE);
	__atomic_store_n(&up.slot[s].ms_gen, up.gen, __ATOMIC_RELEASE);
	u->pu_link = -1;
	if ((prog = load_prog(map, tag)) >= 0) {
		u->pu_link = link_sites(prog, path, sites, nsites, pid, flags);
		err = errno;
		close(prog);		/* the link holds it */
	} else {
		err = errno;
		*refused = 1;
	}
	if (u->pu_link < 0) {
		__atomic_store_n(&up.slot[s].ms_gen, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&up.slot[s].ms_up, NULL, __ATOMIC_RELEASE);
		free(u);
		u = NULL;
	} else {
		up.multi = 1;
	}
	pthread_mutex_unlock(&up.lk);
	errno = err;
	return u;
}

static void multi_detach(prov_uprobe_t *u)
{
	__atomic_store_n(&up.slot[u->pu_slot].ms_gen, 0, __ATOMIC_RELEASE);
	close(u->pu_link);	/* every site goes, semaphores drop */
	pthread_mutex_lock(&up.lk);
	u->pu_dead = ks_gethrtime();
	u->pu_next = up.dead;
	up.dead = u;
	reap();
	pthread_mutex_unlock(&up.lk);
}

/* May the multi route be tried (not refused before, not turned off)? */
static int multi_wanted(void)
{
	const char *r = getenv("DTUI_UPROBE_ROUTE");

	if (r != NULL && strcmp(r, "perf") == 0)
		return 0;
	return __atomic_load_n(&up.multi, __ATOMIC_RELAXED) >= 0;
}

prov_uprobe_t *prov_uprobe_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg)
{
	prov_uprobe_t *u;
	int err, refused = 0;

	if (!prov_uprobe_available())
		return NULL;
	if (nsites <= 0 || path == NULL || path[0] != '/') {
		ks_provider_error("uprobe: nothing to attach in '%s'",
		    path != NULL ? path : "");
		return NULL;
	}
	if (!multi_wanted())
		return perf_attach(path, sites, nsites, pid, flags, cb, arg);
	if ((u = multi_attach(path, sites, nsites, pid, flags, cb, arg,
	    &refused)) != NULL)
		return u;
	err = errno;
	if (err == ESRCH) {
		ks_provider_error("uprobe: no such process %d", pid);
		return NULL;
	}
	if (!refused) {
		/* not the perf route's one by one: a thousand sites would take
		 * minutes there to fail the same way */
		ks_provider_error("cannot place uprobes in %s (%d sites): %s",
		    path, nsites, err == ENOENT ? "no such file" :
		    err == 524 ? "an instruction uprobes cannot probe" :
		    strerror(err));
		return NULL;
	}
	pthread_mutex_lock(&up.lk);
	up.multi = -1;
	pthread_mutex_unlock(&up.lk);
	prov_note("uprobes one by one (uprobe_multi refused: %s)",
	    strerror(err));
	return perf_attach(path, sites, nsites, pid, flags, cb, arg);
}

void prov_uprobe_detach(prov_uprobe_t *u)
{
	if (u == NULL)
		return;
	if (u->pu_link >= 0) {
		multi_detach(u);
		return;
	}
	for (int i = 0; i < u->pu_nsites; i++)
		prov_perf_close(u->pu_sites[i].us_src);
	free(u);
}

/* Close the multi route's output events and maps (at shutdown, before
 * perf's; every attachment detached). */
void prov_uprobe_shutdown(void)
{
	pthread_mutex_lock(&up.lk);
	for (int k = 0; k < NKINDS; k++) {
		prov_perf_close(up.outsrc[k]);
		up.outsrc[k] = NULL;
		if (up.outmap[k] >= 0)
			close(up.outmap[k]);
		up.outmap[k] = -1;
	}
	while (up.dead != NULL) {
		prov_uprobe_t *u = up.dead;

		up.dead = u->pu_next;
		__atomic_store_n(&up.slot[u->pu_slot].ms_up, NULL,
		    __ATOMIC_RELEASE);
		free(u);
	}
	pthread_mutex_unlock(&up.lk);
}

/* ---- reading a hit ---- */

void prov_uprobe_ctx(ks_probe_ctx_t *ctx, dtrace_id_t id,
    const prov_perf_sample_t *s)
{
	static ks_ucapture_t stk;

	prov_perf_ctx(ctx, id, s);
	if (s->pps_ustklen == 0)
		return;
	stk.kuc_addr = prov_perf_ureg(s, PROV_UREG_RSP);
	stk.kuc_len = s->pps_ustklen;
	stk.kuc_data = s->pps_ustk;
	ctx->kpc_ucap = &stk;
	ctx->kpc_nucap = 1;
}

int prov_uprobe_read(const prov_perf_sample_t *s, uint64_t addr, void *buf,
    uint32_t len)
{
	uint64_t sp = prov_perf_ureg(s, PROV_UREG_RSP);
	struct iovec local, remote;

	if (s->pps_ustklen > 0 && addr >= sp && addr - sp <= s->pps_ustklen &&
	    len <= s->pps_ustklen - (addr - sp)) {
		memcpy(buf, s->pps_ustk + (addr - sp), len);
		return 0;
	}
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	return process_vm_readv(s->pps_pid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)len ? 0 : -1;
}
