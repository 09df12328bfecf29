/*
 * uprobe.c - uprobes and uretprobes through the perf "uprobe" PMU.
 *
 * Each site is one perf event of the PMU named in
 * /sys/bus/event_source/devices/uprobe/type, opened on every CPU for
 * every process (config1 = the path, config2 = the file offset; the
 * format directory says which config bit makes it a return probe and
 * where a USDT semaphore's offset goes), writing into the per-CPU rings
 * of perf.c, whose drain thread calls us back.  Events opened for one
 * task would see only that thread (perf puts per-task events in the
 * task's own context), so a process's other threads would be missed:
 * system-wide events plus a pid test before the callback see them all.
 *
 * Why the perf PMU and not a BPF uprobe_multi link: it reuses the rings,
 * drops accounting and sample layout every other source uses, and the
 * kernel keeps the semaphore (ref_ctr_offset) for us.
 *
 * Locking: up (below) is written once under its pthread_once and only
 * read after.  A prov_uprobe_t is immutable between attach and detach;
 * perf.c guarantees no callback runs on it after prov_perf_close.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "uprobe.h"

#define PMU_DIR "/sys/bus/event_source/devices/uprobe"

/* What the kernel's uprobe PMU looks like (read once). */
static struct {
	pthread_once_t once;
	int type;			/* PMU type, -1: no uprobe PMU */
	uint64_t retbit;		/* config bit of "retprobe" */
	int refshift;			/* first config bit of ref_ctr_offset,
					 * -1: semaphores not supported */
	int refbits;			/* its width */
} up = { PTHREAD_ONCE_INIT, -1, 0, -1, 0 };

struct upsite {
	prov_uprobe_t *us_up;
	uint64_t us_cookie;
	prov_perf_src_t *us_src;	/* NULL until opened */
};

struct prov_uprobe {
	int pu_pid;			/* > 0: deliver only its hits */
	prov_uprobe_cb_t *pu_cb;
	void *pu_arg;
	int pu_nsites;
	struct upsite pu_sites[];
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

prov_uprobe_t *prov_uprobe_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg)
{
	prov_uprobe_t *u;

	if (!prov_uprobe_available())
		return NULL;
	if (nsites <= 0 || path == NULL || path[0] != '/') {
		ks_provider_error("uprobe: nothing to attach in '%s'",
		    path != NULL ? path : "");
		return NULL;
	}
	u = calloc(1, sizeof(*u) + sizeof(struct upsite) * (size_t)nsites);
	if (u == NULL) {
		ks_provider_error("uprobe: out of memory");
		return NULL;
	}
	u->pu_pid = pid;
	u->pu_cb = cb;
	u->pu_arg = arg;
	for (int i = 0; i < nsites; i++) {
		if (open_site(u, &u->pu_sites[i], path, &sites[i], flags) != 0) {
			prov_uprobe_detach(u);
			return NULL;
		}
		u->pu_nsites = i + 1;
	}
	return u;
}

void prov_uprobe_detach(prov_uprobe_t *u)
{
	if (u == NULL)
		return;
	for (int i = 0; i < u->pu_nsites; i++)
		prov_perf_close(u->pu_sites[i].us_src);
	free(u);
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
