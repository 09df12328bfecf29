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
 * Sites uprobes cannot probe (an instruction with a lock prefix, or one
 * the kernel's decoder refuses: ENOTSUPP) are left out and counted
 * (prov_uprobe_refused), not failing the attachment: lock-prefixed ones
 * are seen in the file before attaching, and a link the kernel refuses
 * is split in halves until the refused sites stand alone.
 *
 * Both write into perf.c's per-CPU rings, whose drain thread calls us
 * back.  The state is one uprobe_state_t (below), passed to the helpers;
 * its fields say what guards them.  A detached multi attachment is freed
 * once a drain pass that began after its detach has completed
 * (prov_perf_drained), so a callback reading it never sees freed
 * memory.  A prov_uprobe_t is immutable between attach and detach.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <linux/bpf.h>
#include "uprobe_impl.h"
#include "bpf_util.h"
#include "bpf_filter.h"

#define PMU_DIR "/sys/bus/event_source/devices/uprobe"

#define MSLOTS 1024		/* multi attachments at once */
#define NKINDS 4		/* output sets: call chains x stack bytes */
/* BPF_TRACE_UPROBE_MULTI and its link attributes (Linux 6.6 uapi; the
 * headers here may be older) */
#define ATTACH_UPROBE_MULTI	48
#define UPROBE_MULTI_RETURN	1u
#define ERR_NOTSUPP		524	/* the kernel's ENOTSUPP */
#define RECSIZE			24	/* {tag, cookie, probed address} */
#define TRACE_ENTRY		8	/* struct trace_entry, a uprobe trace
					 * record's head (perf route) */

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
	int pu_refused;			/* sites left out (see above) */
	int pu_multi;			/* 1: the multi route's */
	int *pu_links;			/* multi: its links (split sets) */
	int pu_nlinks;
	int pu_slot;			/* multi: its slot */
	ukern_t pu_k;			/* multi: its probes in the kernel */
	uint64_t *pu_ucookies;		/* multi: the caller's cookie of each
					 * site (the BPF cookie's low half) */
	int pu_nuc;
	uint64_t pu_dead;		/* multi: when it was detached */
	prov_uprobe_t *pu_next;		/* multi: up.dead list */
	int pu_nsites;			/* perf: sites opened */
	prov_ptup_t *pu_pt;		/* the ptrace route's, or NULL */
	struct upsite pu_sites[];	/* perf route */
};

/*
 * The state of uprobe.c: one instance (uprobe_state), passed to the
 * helpers below.  Each field names what guards it.  lk is taken before
 * perf.c's locks (out_map opens output events).
 */
typedef struct uprobe_state {
	/* the PMU, written once under once, read-only after */
	pthread_once_t once;
	int type;			/* once: PMU type, -1 no uprobe PMU */
	uint64_t retbit;		/* once: config bit of "retprobe" */
	int refshift;			/* once: first config bit of
					 * ref_ctr_offset, -1: semaphores not
					 * supported */
	int refbits;			/* once: its width */
	pthread_mutex_t lk;		/* the multi route's fields below */
	int multi;			/* lk (read atomically): multi route
					 * 1 works, -1 refused, 0 untried */
	int outmap[NKINDS];		/* lk: PERF_EVENT_ARRAY, -1 none */
	prov_perf_src_t *outsrc[NKINDS];	/* lk: its BPF_OUTPUT events */
	struct {
		prov_uprobe_t *ms_up;	/* lk for writes; read atomically by
					 * the drain thread */
		uint32_t ms_gen;	/* 0 free; atomic (lk for writes): a
					 * record whose tag names another
					 * generation is from a detached
					 * attachment, left in a ring */
	} slot[MSLOTS];
	uint32_t gen;			/* lk: last generation given */
	prov_uprobe_t *dead;		/* lk: detached, not yet freed */
	struct {			/* drain thread only: the captures */
		const uint8_t *raw;	/* of the hit whose pps_raw this is */
		int n;			/* in c[1..n]; c[0]: its stack */
		ks_ucapture_t c[1 + PROV_UPROBE_NCAP];
	} caps;
	const char *route;		/* atomic: the last attachment's */
	uint64_t hits, hitns;		/* drain thread writes, atomic reads:
					 * hits delivered, ns spent on them */
} uprobe_state_t;

static uprobe_state_t uprobe_state = {
	.once = PTHREAD_ONCE_INIT,
	.type = -1,
	.refshift = -1,
	.lk = PTHREAD_MUTEX_INITIALIZER,
	.outmap = { -1, -1, -1, -1 },
};

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

/* pthread_once's: no argument, so the one instance. */
static void pmu_probe(void)
{
	uprobe_state_t *us = &uprobe_state;
	int bit, width, type;
	FILE *fp;

	if ((fp = fopen(PMU_DIR "/type", "r")) == NULL)
		return;
	if (fscanf(fp, "%d", &type) != 1)
		type = -1;
	fclose(fp);
	if (type < 0 || read_format("retprobe", &bit, &width) != 0)
		return;
	us->retbit = 1ull << bit;
	if (read_format("ref_ctr_offset", &us->refshift, &us->refbits) != 0)
		us->refshift = -1;
	us->type = type;
}

int prov_uprobe_available(void)
{
	uprobe_state_t *us = &uprobe_state;

	if (prov_ptup_route())
		return 1;		/* breakpoints, for -c/-p targets */
	pthread_once(&us->once, pmu_probe);
	if (us->type < 0) {
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

/* Does err say the kernel cannot probe the instruction at a site (its
 * decoder refuses it, or the offset is not one it can place)? */
static int refused_insn(int err)
{
	return err == ERR_NOTSUPP || err == EINVAL;
}

/*
 * Copy into out the sites whose instruction does not start with a lock
 * prefix: uprobes refuse those, and a refused site costs a failed link
 * over the whole set.  The count kept; *refused counts the others.
 */
static int probeable(const char *path, const prov_uprobe_site_t *sites,
    int nsites, prov_uprobe_site_t *out, int *refused)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), k = 0;

	for (int i = 0; i < nsites; i++) {
		unsigned char c = 0;

		if (fd >= 0 && pread(fd, &c, 1, (off_t)sites[i].pus_offset) ==
		    1 && c == 0xf0) {
			(*refused)++;
			continue;
		}
		out[k++] = sites[i];
	}
	if (fd >= 0)
		close(fd);
	return k;
}

/* Deliver a hit to u's callback, counting it and its time (drain
 * thread). */
static void deliver(uprobe_state_t *us, const prov_uprobe_t *u,
    uint64_t cookie, const prov_perf_sample_t *s)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	u->pu_cb(u->pu_arg, cookie, s);
	clock_gettime(CLOCK_MONOTONIC, &b);
	__atomic_store_n(&us->hitns, us->hitns + (uint64_t)((b.tv_sec -
	    a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec)),
	    __ATOMIC_RELAXED);
	__atomic_store_n(&us->hits, us->hits + 1, __ATOMIC_RELAXED);
}

const char *prov_uprobe_stats(uint64_t *hits, uint64_t *ns)
{
	uprobe_state_t *us = &uprobe_state;

	*hits = __atomic_load_n(&us->hits, __ATOMIC_RELAXED);
	*ns = __atomic_load_n(&us->hitns, __ATOMIC_RELAXED);
	return __atomic_load_n(&us->route, __ATOMIC_ACQUIRE);
}

/* ---- the perf route ---- */

static void on_hit(void *arg, const prov_perf_sample_t *s)
{
	const struct upsite *site = arg;
	const prov_uprobe_t *u = site->us_up;
	prov_perf_sample_t copy = *s;

	if (u->pu_pid > 0 && s->pps_pid != u->pu_pid)
		return;
	/* the trace record: a struct trace_entry, then the probed address
	 * (a return probe's: its function's, then the return address) */
	if (s->pps_rawlen >= TRACE_ENTRY + 8) {
		copy.pps_raw = s->pps_raw + TRACE_ENTRY;
		copy.pps_rawlen = s->pps_rawlen - TRACE_ENTRY;
	} else {
		copy.pps_raw = NULL;
		copy.pps_rawlen = 0;
	}
	deliver(&uprobe_state, u, site->us_cookie, &copy);
}

/* 0 opened, 1 refused (an instruction uprobes cannot probe), -1 not. */
static int open_site(const uprobe_state_t *us, prov_uprobe_t *u,
    struct upsite *site, const char *path, const prov_uprobe_site_t *ps,
    int flags)
{
	struct perf_event_attr a;
	int err;

	if (ps->pus_refctr != 0 && (us->refshift < 0 || (us->refbits < 64 &&
	    (ps->pus_refctr >> us->refbits) != 0))) {
		ks_provider_error("%s: semaphore at offset %#llx cannot be "
		    "given to this kernel's uprobes", path,
		    (unsigned long long)ps->pus_refctr);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.type = (uint32_t)us->type;
	a.config = (flags & PROV_UPROBE_RETURN) ? us->retbit : 0;
	if (ps->pus_refctr != 0)
		a.config |= ps->pus_refctr << us->refshift;
	a.config1 = (uint64_t)(uintptr_t)path;
	a.config2 = ps->pus_offset;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;	/* the probed address */
	site->us_up = u;
	site->us_cookie = ps->pus_cookie;
	site->us_src = prov_perf_open(&a, (flags & (PROV_SAMPLE_CHAIN |
	    PROV_SAMPLE_USTACK)) | PROV_SAMPLE_UREGS, on_hit, site);
	if (site->us_src == NULL) {
		err = errno;
		if (refused_insn(err))
			return 1;
		ks_provider_error("cannot place a uprobe at %s offset %#llx: %s",
		    path, (unsigned long long)ps->pus_offset,
		    err == ENOENT ? "no such file" : strerror(err));
		return -1;
	}
	return 0;
}

/* The perf route: one perf uprobe event per site (see above). */
static prov_uprobe_t *perf_attach(const uprobe_state_t *us, const char *path,
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
	for (int i = 0; i < nsites; i++) {
		int rc = open_site(us, u, &u->pu_sites[u->pu_nsites], path,
		    &sites[i], flags);

		if (rc < 0) {
			prov_uprobe_detach(u);
			return NULL;
		}
		if (rc > 0)
			u->pu_refused++;
		else
			u->pu_nsites++;
	}
	return u;
}

/* ---- the multi route ---- */

/* Drain thread: a {tag, cookie, address} record of an output set. */
static void on_output(void *arg, const prov_perf_sample_t *s)
{
	uprobe_state_t *us = arg;
	prov_perf_sample_t copy = *s;
	const prov_uprobe_t *u;
	uint64_t tag, cookie;
	uint32_t idx, gen;

	if (s->pps_rawlen < RECSIZE)
		return;
	memcpy(&tag, s->pps_raw, 8);	/* the ring is only 4-aligned */
	memcpy(&cookie, s->pps_raw + 8, 8);
	idx = (uint32_t)tag;
	gen = (uint32_t)(tag >> 32);
	if (idx >= MSLOTS || gen == 0 ||
	    __atomic_load_n(&us->slot[idx].ms_gen, __ATOMIC_ACQUIRE) != gen)
		return;			/* detached: a record left in a ring */
	u = __atomic_load_n(&us->slot[idx].ms_up, __ATOMIC_ACQUIRE);
	if (u == NULL || (uint32_t)cookie >= (uint32_t)u->pu_nuc)
		return;
	cookie = u->pu_ucookies[(uint32_t)cookie];
	copy.pps_raw = s->pps_raw + 16;	/* the probed address */
	copy.pps_rawlen = s->pps_rawlen - 16;
	us->caps.raw = copy.pps_raw;
	us->caps.n = ucap_parse(copy.pps_raw, copy.pps_rawlen, us->caps.c + 1);
	deliver(us, u, cookie, &copy);
	us->caps.raw = NULL;
}

/* The output map of set kind (see multi_new), made on first use (lk
 * held) with its events sampling what sample says; -1 if not. */
static int out_map(uprobe_state_t *us, int kind, int sample)
{
	if (us->outmap[kind] < 0)
		us->outmap[kind] = prov_bpf_output_open(sample, on_output, us,
		    &us->outsrc[kind]);
	return us->outmap[kind];
}

/* The attachment's program (uprobe_kern.c: a dispatch to its probes'
 * filtered bodies when k has them, then a record of {tag, cookie,
 * probed address}); its fd or -1. */
static int load_prog(const ukern_t *k, int map, uint64_t tag)
{
	struct bpf_insn p[UK_MAXINSNS + UK_RECMAX];
	int n = ukern_stub(p, k, map, tag);

	return prov_bpf_prog_load_as(p, n, BPF_PROG_TYPE_KPROBE,
	    ATTACH_UPROBE_MULTI);
}

static int link_sites(int prog, const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags)
{
	uint64_t *offs = calloc((size_t)nsites, 8 * 3);
	union bpf_attr at;
	link_attr_t la;
	int fd, err;

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
	err = errno;
	free(offs);
	errno = err;
	return fd;
}

/*
 * Link the nsites sites with prog into u->pu_links.  The kernel refuses
 * a whole link for one instruction it cannot probe, so a refused set is
 * split in halves until the refused sites stand alone; those are left
 * out, counted in pu_refused.  0, or -1 with errno for another refusal.
 */
static int link_split(prov_uprobe_t *u, int prog, const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags)
{
	int fd = link_sites(prog, path, sites, nsites, pid, flags);

	if (fd >= 0) {
		u->pu_links[u->pu_nlinks++] = fd;
		return 0;
	}
	if (!refused_insn(errno))
		return -1;
	if (nsites == 1) {
		u->pu_refused++;
		return 0;
	}
	if (link_split(u, prog, path, sites, nsites / 2, pid, flags) != 0)
		return -1;
	return link_split(u, prog, path, sites + nsites / 2,
	    nsites - nsites / 2, pid, flags);
}

/* Free u and close its links. */
static void multi_free(prov_uprobe_t *u)
{
	for (int i = 0; i < u->pu_nlinks; i++)
		close(u->pu_links[i]);	/* every site goes, semaphores drop */
	ukern_free(&u->pu_k);
	free(u->pu_links);
	free(u->pu_ucookies);
	free(u);
}

/* Free the detached attachments no callback can be reading (lk held):
 * a drain pass that began after their detach has completed. */
static void reap(uprobe_state_t *us)
{
	uint64_t drained = prov_perf_drained();
	prov_uprobe_t **pp = &us->dead, *u;

	while ((u = *pp) != NULL) {
		if (u->pu_dead < drained) {
			*pp = u->pu_next;
			__atomic_store_n(&us->slot[u->pu_slot].ms_up, NULL,
			    __ATOMIC_RELEASE);
			multi_free(u);
		} else {
			pp = &u->pu_next;
		}
	}
}

/* A free slot (lk held), or -1. */
static int slot_new(uprobe_state_t *us)
{
	for (int i = 0; i < MSLOTS; i++)
		if (us->slot[i].ms_up == NULL &&
		    __atomic_load_n(&us->slot[i].ms_gen, __ATOMIC_RELAXED) == 0)
			return i;
	return -1;
}

/* Stop u's records (the drain thread drops them from now on) and close
 * its links. */
static void unlink_all(uprobe_state_t *us, prov_uprobe_t *u)
{
	__atomic_store_n(&us->slot[u->pu_slot].ms_gen, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < u->pu_nlinks; i++)
		close(u->pu_links[i]);	/* every site goes, semaphores drop */
	u->pu_nlinks = 0;
}

/* Queue u to be freed when no callback can be reading it (lk held). */
static void bury(uprobe_state_t *us, prov_uprobe_t *u)
{
	u->pu_dead = ks_gethrtime();
	u->pu_next = us->dead;
	us->dead = u;
	reap(us);
}

/* A new multi attachment for the sites in a published slot, with the
 * program of its output set loaded into *prog and the sites' BPF
 * cookies in bpfc (lk held); NULL with errno set, and *refused set when
 * the kernel has no such route (its program is refused). */
static prov_uprobe_t *multi_new(uprobe_state_t *us,
    const prov_uprobe_site_t *sites, int nsites, int flags, int *prog,
    int *refused, uint64_t *bpfc)
{
	int kind = ((flags & PROV_SAMPLE_CHAIN) ? 1 : 0) |
	    ((flags & PROV_SAMPLE_USTACK) ? 2 : 0);
	int map, s, err;
	prov_uprobe_t *u;
	uint64_t tag;

	if ((map = out_map(us, kind, PROV_SAMPLE_UREGS | (flags &
	    (PROV_SAMPLE_CHAIN | PROV_SAMPLE_USTACK)))) < 0 ||
	    (s = slot_new(us)) < 0 || (u = calloc(1, sizeof(*u))) == NULL)
		goto fail;
	u->pu_k.uk_map = u->pu_k.uk_spec = u->pu_k.uk_scratch = -1;
	if ((u->pu_links = calloc((size_t)nsites, sizeof(int))) == NULL ||
	    (u->pu_ucookies = calloc((size_t)nsites, 8)) == NULL) {
		multi_free(u);
		goto fail;
	}
	for (int i = 0; i < nsites; i++)
		u->pu_ucookies[i] = sites[i].pus_cookie;
	u->pu_nuc = nsites;
	if (++us->gen == 0)
		us->gen = 1;
	tag = (uint64_t)us->gen << 32 | (uint32_t)s;
	(void)ukern_new(&u->pu_k, sites, nsites, map, tag, bpfc);
	if ((*prog = load_prog(&u->pu_k, map, tag)) < 0 &&
	    u->pu_k.uk_map >= 0) {
		ukern_free(&u->pu_k);	/* without: records, captures kept */
		(void)ucap_maps(&u->pu_k, sites, nsites);
		*prog = load_prog(&u->pu_k, map, tag);
		for (int i = 0; i < nsites; i++)
			bpfc[i] = (uint64_t)UK_NOPROBE << 32 | (uint32_t)i;
	}
	if (*prog < 0 && u->pu_k.uk_spec >= 0) {
		ucap_free(&u->pu_k);	/* strings read late, as before */
		*prog = load_prog(&u->pu_k, map, tag);
	}
	if (*prog < 0) {
		err = errno;
		/* out of descriptors or memory is this moment's shortage,
		 * not a kernel without the route: no switching for good */
		*refused = err != EMFILE && err != ENFILE && err != ENOMEM;
		multi_free(u);
		errno = err;
		return NULL;
	}
	u->pu_multi = 1;
	u->pu_slot = s;
	/* published before the links exist: their first hit finds it */
	__atomic_store_n(&us->slot[s].ms_up, u, __ATOMIC_RELEASE);
	__atomic_store_n(&us->slot[s].ms_gen, us->gen, __ATOMIC_RELEASE);
	return u;
fail:
	errno = errno != 0 ? errno : ENOMEM;
	return NULL;
}

/* The multi route; NULL with errno set, and *refused set when the
 * kernel has no such route. */
static prov_uprobe_t *multi_attach(uprobe_state_t *us, const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg, int *refused)
{
	prov_uprobe_site_t *ls = calloc((size_t)nsites, sizeof(*ls));
	uint64_t *bpfc = calloc((size_t)nsites, 8);
	prov_uprobe_t *u;
	int prog, err = 0;

	if (ls == NULL || bpfc == NULL) {
		free(ls);
		free(bpfc);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&us->lk);
	reap(us);
	if ((u = multi_new(us, sites, nsites, flags, &prog, refused,
	    bpfc)) == NULL) {
		err = errno;
		pthread_mutex_unlock(&us->lk);
		free(ls);
		free(bpfc);
		errno = err;
		return NULL;
	}
	u->pu_pid = pid;
	u->pu_cb = cb;
	u->pu_arg = arg;
	for (int i = 0; i < nsites; i++) {	/* linked with BPF cookies */
		ls[i] = sites[i];
		ls[i].pus_cookie = bpfc[i];
	}
	if (link_split(u, prog, path, ls, nsites, pid, flags) != 0) {
		err = errno;
		unlink_all(us, u);	/* links made before the refusal */
		bury(us, u);		/* may have fired */
		u = NULL;
	} else {
		us->multi = 1;
	}
	close(prog);			/* the links hold it */
	pthread_mutex_unlock(&us->lk);
	free(ls);
	free(bpfc);
	errno = err;
	return u;
}

static void multi_detach(uprobe_state_t *us, prov_uprobe_t *u)
{
	unlink_all(us, u);
	pthread_mutex_lock(&us->lk);
	bury(us, u);
	pthread_mutex_unlock(&us->lk);
}

/* May the multi route be tried (not refused before, not turned off)? */
static int multi_wanted(const uprobe_state_t *us)
{
	const char *r = getenv("DTUI_UPROBE_ROUTE");

	if (r != NULL && strcmp(r, "perf") == 0)
		return 0;
	return __atomic_load_n(&us->multi, __ATOMIC_RELAXED) >= 0;
}

/* Attach the probeable sites (see prov_uprobe_attach) by a route. */
static prov_uprobe_t *route_attach(uprobe_state_t *us, const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg)
{
	prov_uprobe_t *u;
	int err, refused = 0;

	if (nsites == 0 || !multi_wanted(us))
		return perf_attach(us, path, sites, nsites, pid, flags, cb,
		    arg);
	if ((u = multi_attach(us, path, sites, nsites, pid, flags, cb, arg,
	    &refused)) != NULL)
		return u;
	err = errno;
	if (err == ESRCH || (err == ENOENT && pid > 0 && kill(pid, 0) != 0 &&
	    errno == ESRCH)) {
		/* it exited before its probes were placed (a process seen at
		 * its exec that did not live long; its file may be gone
		 * too): nothing to trace */
		ks_provider_error("uprobe: no such process %d", pid);
		ks_provider_gone();
		return NULL;
	}
	if (!refused) {
		/* not the perf route's one by one: a thousand sites would take
		 * minutes there to fail the same way */
		ks_provider_error("cannot place uprobes in %s (%d sites): %s",
		    path, nsites, err == ENOENT ? "no such file" :
		    strerror(err));
		return NULL;
	}
	pthread_mutex_lock(&us->lk);
	us->multi = -1;
	pthread_mutex_unlock(&us->lk);
	prov_note("uprobes one by one (uprobe_multi refused: %s)",
	    strerror(err));
	return perf_attach(us, path, sites, nsites, pid, flags, cb, arg);
}

prov_uprobe_t *prov_uprobe_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg)
{
	uprobe_state_t *us = &uprobe_state;
	prov_uprobe_site_t *ok;
	prov_uprobe_t *u;
	int n, refused = 0;

	if (!prov_uprobe_available())
		return NULL;
	if (nsites <= 0 || path == NULL || path[0] != '/') {
		ks_provider_error("uprobe: nothing to attach in '%s'",
		    path != NULL ? path : "");
		return NULL;
	}
	if (prov_ptup_route()) {
		if ((u = calloc(1, sizeof(*u))) != NULL &&
		    (u->pu_pt = prov_ptup_attach(path, sites, nsites, pid,
		    flags, cb, arg)) == NULL) {
			free(u);
			return NULL;
		}
		if (u == NULL)
			ks_provider_error("uprobe: out of memory");
		return u;
	}
	if ((ok = calloc((size_t)nsites, sizeof(*ok))) == NULL) {
		ks_provider_error("uprobe: out of memory");
		return NULL;
	}
	n = probeable(path, sites, nsites, ok, &refused);
	u = route_attach(us, path, ok, n, pid, flags, cb, arg);
	free(ok);
	if (u != NULL) {
		u->pu_refused += refused;
		__atomic_store_n(&us->route, u->pu_multi ? "uprobe_multi" :
		    "perf", __ATOMIC_RELEASE);
	}
	return u;
}

void prov_uprobe_settle(void)
{
	if (__atomic_load_n(&uprobe_state.multi, __ATOMIC_RELAXED) > 0)
		prov_bpf_filter_update();
}

int prov_uprobe_refused(const prov_uprobe_t *u)
{
	return u != NULL ? u->pu_refused : 0;
}

void prov_uprobe_detach(prov_uprobe_t *u)
{
	if (u == NULL)
		return;
	if (u->pu_pt != NULL) {
		prov_ptup_detach(u->pu_pt);
		free(u);
		return;
	}
	if (u->pu_multi) {
		multi_detach(&uprobe_state, u);
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
	uprobe_state_t *us = &uprobe_state;

	pthread_mutex_lock(&us->lk);
	for (int k = 0; k < NKINDS; k++) {
		prov_perf_close(us->outsrc[k]);
		us->outsrc[k] = NULL;
		if (us->outmap[k] >= 0)
			close(us->outmap[k]);
		us->outmap[k] = -1;
	}
	while (us->dead != NULL) {
		prov_uprobe_t *u = us->dead;

		us->dead = u->pu_next;
		__atomic_store_n(&us->slot[u->pu_slot].ms_up, NULL,
		    __ATOMIC_RELEASE);
		multi_free(u);
	}
	pthread_mutex_unlock(&us->lk);
}

/* ---- reading a hit ---- */

void prov_uprobe_ctx(ks_probe_ctx_t *ctx, dtrace_id_t id,
    const prov_perf_sample_t *s)
{
	uprobe_state_t *us = &uprobe_state;
	ks_ucapture_t *c = us->caps.c;	/* drain thread only */
	int ncap;

	if (prov_ptup_owns(s)) {	/* the ptrace route's reader thread */
		prov_ptup_ctx(ctx, id, s);
		return;
	}
	prov_perf_ctx(ctx, id, s);
	ncap = s->pps_raw != NULL && s->pps_raw == us->caps.raw ?
	    us->caps.n : 0;
	c[0].kuc_addr = prov_perf_ureg(s, PROV_UREG_RSP);
	c[0].kuc_len = s->pps_ustklen;
	c[0].kuc_data = s->pps_ustklen > 0 ? s->pps_ustk : NULL;
	if (s->pps_ustklen == 0 && ncap == 0)
		return;
	ctx->kpc_ucap = c;
	ctx->kpc_nucap = 1 + (uint32_t)ncap;
}

unsigned prov_uprobe_capargs(dtrace_id_t id)
{
	return ((unsigned)ks_probe_wants(id) & KS_WANT_UARGS) >> 16;
}

uint64_t prov_uprobe_probed(const prov_perf_sample_t *s)
{
	uint64_t ip;

	if (s->pps_raw == NULL || s->pps_rawlen < 8)
		return 0;
	memcpy(&ip, s->pps_raw, 8);
	return ip;
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
