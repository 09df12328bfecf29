/*
 * ptrace_up.c - uprobe.h's attachments by breakpoints, for the pid and
 * usdt providers without privileges (or with -x uroute=ptrace): the
 * consumer's half of the ptrace route's breakpoints (ptrace_bp.c, in the
 * helper process, plants them; ptrace_impl.h has the slots both see).
 *
 * Attaching takes one slot per site (object by device and inode, file
 * offset, semaphore), and for each process one more on the dynamic
 * linker's _dl_debug_state (PS_RBRK: the helper plants objects mapped
 * later when the linker reports them), then syncs with the helper: the
 * int3s are in when attach returns, for the objects mapped so far (a -c
 * child: at its exec).  Only processes the helper traces (-c, -p) can
 * have them: anything else is refused with the reason.
 *
 * A hit arrives on ptrace.c's reader thread as a PM_BREAK or PM_BRET
 * message, while the thread that hit waits stopped in the helper.  It is
 * handed to the attachment's callback as a prov_perf_sample_t as the
 * kernel route's are (registers in perf's order, the probed address as
 * the raw record, a call chain walked by frame pointers when asked), so
 * the providers cannot tell the routes apart; prov_uprobe_ctx() builds
 * the context from the message (prov_ptup_ctx) instead of perf's caches.
 *
 * Locking: ptup.lk guards the slots' users and the per-process linker
 * slots; a callback runs under it, so a detach that returned has no
 * callback running or to come.  The lock is never held while waiting for
 * the helper (which may itself wait for the reader to fire a hit).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <linux/perf_event.h>
#include "providers.h"
#include "uprobe.h"
#include "ptrace_impl.h"

#define NPROCS 64			/* processes with breakpoints */
#define MAXCHAIN 128
#define PERF_NREGS 20			/* perf's user registers (perf_impl.h) */

struct prov_ptup {
	int pu_pid, pu_flags;
	prov_uprobe_cb_t *pu_cb;
	void *pu_arg;
	int pu_n;
	int32_t pu_slots[];
};

/* perf's register order (x86 perf_regs.h, DS-GS left out) in
 * user_regs_struct indices: ax bx cx dx si di bp sp ip flags cs ss r8-r15 */
static const int8_t perf_from_pt[PERF_NREGS] = {
	10, 5, 11, 12, 13, 14, 4, 19, 16, 18, 17, 20, 9, 8, 7, 6, 3, 2, 1, 0,
};

static struct {
	pthread_mutex_t lk;
	int route;			/* atomic: -1 by privilege, 0 uprobes,
					 * 1 ptrace */
	struct {
		prov_ptup_t *uu_up;	/* lk: the slot's attachment */
		uint64_t uu_cookie;	/* lk */
	} users[PT_NSITES];
	int cursor;			/* lk: where free slots are sought */
	struct {
		int pid, slot, n;	/* lk: linker slot, attachments */
	} procs[NPROCS];
	int rbrk_found;			/* lk: 1 found, -1 not, 0 not sought */
	int attached;			/* atomic: an attachment was made */
	uint64_t rbrk_dev, rbrk_ino, rbrk_foff;	/* lk: _dl_debug_state */
	/* the reader thread's, for the hit being delivered */
	const prov_ptmsg_t *cur;
	prov_perf_sample_t sample;
	uint64_t regs[PERF_NREGS], raw, chain[MAXCHAIN];
	uint64_t uregs[PT_NREGS];
} ptup = { .lk = PTHREAD_MUTEX_INITIALIZER, .route = -1 };

static prov_ptup_t rbrk_owner;		/* users[] of a linker slot */

const char *prov_ptup_stats(uint64_t *hits, uint64_t *ns)
{
	prov_ptrace_bpstats(hits, ns);
	return __atomic_load_n(&ptup.attached, __ATOMIC_RELAXED) ? "ptrace" :
	    NULL;
}

int prov_ptup_route(void)
{
	int r = __atomic_load_n(&ptup.route, __ATOMIC_RELAXED);

	return r < 0 ? !prov_is_privileged() : r;
}

int prov_set_uroute(const char *v)
{
	if (strcmp(v, "ptrace") == 0) {
		if (prov_ptrace_init() != 0)
			return -1;
		__atomic_store_n(&ptup.route, 1, __ATOMIC_RELAXED);
	} else if (strcmp(v, "uprobes") == 0) {
		__atomic_store_n(&ptup.route, 0, __ATOMIC_RELAXED);
	} else {
		return -1;
	}
	return 0;
}

/* The file offset of vaddr v in the ELF file e (a PT_LOAD holds it). */
static uint64_t file_offset(Elf *e, uint64_t v)
{
	size_t n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) != NULL &&
		    ph.p_type == PT_LOAD && v >= ph.p_vaddr &&
		    v - ph.p_vaddr < ph.p_filesz)
			return v - ph.p_vaddr + ph.p_offset;
	return 0;
}

/* _dl_debug_state's file offset in the dynamic linker at path, 0 if
 * not found. */
static uint64_t rbrk_offset(const char *path)
{
	Elf_Scn *scn = NULL;
	uint64_t off = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf *e;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) != NULL) {
		while (off == 0 && (scn = elf_nextscn(e, scn)) != NULL) {
			Elf_Data *d;

			if (gelf_getshdr(scn, &sh) == NULL ||
			    (sh.sh_type != SHT_DYNSYM &&
			    sh.sh_type != SHT_SYMTAB) || sh.sh_entsize == 0 ||
			    (d = elf_getdata(scn, NULL)) == NULL)
				continue;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize;
			    i++) {
				const char *nm;

				if (gelf_getsym(d, (int)i, &sym) == NULL ||
				    (nm = elf_strptr(e, sh.sh_link,
				    sym.st_name)) == NULL ||
				    strcmp(nm, "_dl_debug_state") != 0)
					continue;
				off = file_offset(e, sym.st_value);
				break;
			}
		}
		elf_end(e);
	}
	close(fd);
	return off;
}

/* Find the dynamic linker (the one this process runs under: targets
 * built here use the same) and its _dl_debug_state (lk held). */
static void find_rbrk(void)
{
	char line[4352], path[4096];
	struct stat st;
	FILE *fp;

	if (ptup.rbrk_found != 0)
		return;
	ptup.rbrk_found = -1;
	if ((fp = fopen("/proc/self/maps", "r")) == NULL)
		return;
	path[0] = '\0';
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "%*s %*s %*s %*s %*s %4095s", path) == 1 &&
		    strstr(path, "/ld-linux") != NULL)
			break;
		else
			path[0] = '\0';
	fclose(fp);
	if (path[0] == '\0' || stat(path, &st) != 0 ||
	    (ptup.rbrk_foff = rbrk_offset(path)) == 0)
		return;
	ptup.rbrk_dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);
	ptup.rbrk_ino = st.st_ino;
	ptup.rbrk_found = 1;
}

/* A free slot (lk held), or -1. */
static int32_t slot_new(prov_ptsite_t *tab)
{
	for (int k = 0; k < PT_NSITES; k++) {
		int32_t j = (ptup.cursor + k) % PT_NSITES;

		if (ptup.users[j].uu_up == NULL &&
		    __atomic_load_n(&tab[j].ps_want, __ATOMIC_ACQUIRE) == 0 &&
		    __atomic_load_n(&tab[j].ps_addr, __ATOMIC_ACQUIRE) == 0 &&
		    __atomic_load_n(&tab[j].ps_semaddr, __ATOMIC_ACQUIRE) == 0) {
			ptup.cursor = j + 1;
			return j;
		}
	}
	return -1;
}

/* Fill slot j and make it wanted (lk held). */
static void slot_fill(prov_ptsite_t *tab, int32_t j, int pid, uint64_t dev,
    uint64_t ino, uint64_t foff, uint64_t refoff, uint32_t want)
{
	tab[j].ps_pid = pid;
	tab[j].ps_dev = dev;
	tab[j].ps_ino = ino;
	tab[j].ps_foff = foff;
	tab[j].ps_refoff = refoff;
	__atomic_store_n(&tab[j].ps_want, want, __ATOMIC_RELEASE);
}

/* Count an attachment of pid, with the linker's slot on its first (lk
 * held); d -1 uncounts it.  0, or -1 if no room. */
static int proc_count(prov_ptsite_t *tab, int pid, int d)
{
	int free = -1, i;

	for (i = 0; i < NPROCS && ptup.procs[i].pid != pid; i++)
		if (ptup.procs[i].pid == 0 && free < 0)
			free = i;
	if (i == NPROCS && d < 0)
		return 0;
	if (i == NPROCS) {
		if (free < 0)
			return -1;
		i = free;
		ptup.procs[i].pid = pid;
		ptup.procs[i].n = 0;
		ptup.procs[i].slot = -1;
		find_rbrk();
		if (ptup.rbrk_found > 0 &&
		    (ptup.procs[i].slot = slot_new(tab)) >= 0) {
			ptup.users[ptup.procs[i].slot].uu_up = &rbrk_owner;
			slot_fill(tab, ptup.procs[i].slot, pid, ptup.rbrk_dev,
			    ptup.rbrk_ino, ptup.rbrk_foff, 0, PS_RBRK);
		}
	}
	ptup.procs[i].n += d;
	if (ptup.procs[i].n <= 0) {
		int32_t j = ptup.procs[i].slot;

		if (j >= 0) {
			__atomic_store_n(&tab[j].ps_want, 0, __ATOMIC_RELEASE);
			ptup.users[j].uu_up = NULL;
		}
		ptup.procs[i].pid = 0;
	}
	return 0;
}

/* Free u's slots (lk held). */
static void release_slots(prov_ptsite_t *tab, prov_ptup_t *u)
{
	for (int i = 0; i < u->pu_n; i++) {
		__atomic_store_n(&tab[u->pu_slots[i]].ps_want, 0,
		    __ATOMIC_RELEASE);
		ptup.users[u->pu_slots[i]].uu_up = NULL;
	}
	(void)proc_count(tab, u->pu_pid, -1);
}

prov_ptup_t *prov_ptup_attach(const char *path,
    const prov_uprobe_site_t *sites, int nsites, int pid, int flags,
    prov_uprobe_cb_t *cb, void *arg)
{
	prov_ptsite_t *tab = prov_ptrace_sites();
	uint32_t want = (flags & PROV_UPROBE_RETURN) ? PS_RETURN : PS_ENTRY;
	prov_ptup_t *u;
	struct stat st;
	uint64_t dev;

	if (tab == NULL || pid <= 0 || !prov_ptrace_is_target(pid)) {
		ks_provider_error("without root or CAP_PERFMON, pid and usdt "
		    "probes fire only in processes traced with -c or -p");
		return NULL;
	}
	if (stat(path, &st) != 0) {
		ks_provider_error("cannot place breakpoints in %s: %s", path,
		    strerror(errno));
		return NULL;
	}
	if ((u = calloc(1, sizeof(*u) + sizeof(int32_t) * (size_t)nsites)) ==
	    NULL) {
		ks_provider_error("uprobe: out of memory");
		return NULL;
	}
	u->pu_pid = pid;
	u->pu_flags = flags;
	u->pu_cb = cb;
	u->pu_arg = arg;
	dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);
	pthread_mutex_lock(&ptup.lk);
	if (proc_count(tab, pid, 1) != 0)
		nsites = -1;
	for (int i = 0; i < nsites; i++) {
		int32_t j = slot_new(tab);

		if (j < 0) {
			nsites = -1;
			break;
		}
		ptup.users[j].uu_up = u;
		ptup.users[j].uu_cookie = sites[i].pus_cookie;
		u->pu_slots[u->pu_n++] = j;
		slot_fill(tab, j, pid, dev, st.st_ino, sites[i].pus_offset,
		    sites[i].pus_refctr, want);
	}
	if (nsites < 0)
		release_slots(tab, u);
	else
		__atomic_store_n(&ptup.attached, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ptup.lk);
	if (nsites < 0 || prov_ptrace_sync() != 0) {
		if (nsites >= 0)
			prov_ptup_detach(u);
		else
			free(u);
		ks_provider_error(nsites < 0 ? "too many breakpoints (at most "
		    "%d sites in %d processes)" : "the ptrace helper does not "
		    "answer", PT_NSITES, NPROCS);
		return NULL;
	}
	return u;
}

void prov_ptup_detach(prov_ptup_t *u)
{
	prov_ptsite_t *tab = prov_ptrace_sites();

	if (u == NULL)
		return;
	pthread_mutex_lock(&ptup.lk);
	release_slots(tab, u);
	pthread_mutex_unlock(&ptup.lk);
	(void)prov_ptrace_sync();	/* out of the process when we return */
	free(u);
}

/* The user call chain by frame pointers, as perf's (a context marker,
 * the pc, then each frame's return address), read while the thread is
 * stopped.  The count of entries. */
static uint32_t walk(int pid, uint64_t ip, uint64_t bp, uint64_t *out)
{
	uint32_t n = 0;

	out[n++] = (uint64_t)PERF_CONTEXT_USER;
	out[n++] = ip;
	while (n < MAXCHAIN && bp != 0) {
		uint64_t fr[2];
		struct iovec l = { fr, sizeof(fr) };
		struct iovec r = { (void *)(uintptr_t)bp, sizeof(fr) };

		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != sizeof(fr) ||
		    fr[1] == 0)
			break;
		out[n++] = fr[1];
		if (fr[0] <= bp)
			break;
		bp = fr[0];
	}
	return n;
}

void prov_ptup_fire(const prov_ptmsg_t *m)
{
	prov_perf_sample_t *s = &ptup.sample;
	prov_ptup_t *u;

	pthread_mutex_lock(&ptup.lk);
	if (m->pm_nr >= PT_NSITES || (u = ptup.users[m->pm_nr].uu_up) ==
	    NULL || u == &rbrk_owner || m->pm_nregs != PT_NREGS) {
		pthread_mutex_unlock(&ptup.lk);
		return;
	}
	memset(s, 0, sizeof(*s));
	s->pps_cpu = m->pm_cpu;
	s->pps_pid = m->pm_pid;
	s->pps_tid = m->pm_tid;
	s->pps_time = m->pm_time;
	/* the probed instruction, or for a return the return address */
	s->pps_ip = m->pm_kind == PM_BRET ? m->pm_args[1] : m->pm_args[0];
	s->pps_user = 1;
	for (int i = 0; i < PERF_NREGS; i++)
		ptup.regs[i] = m->pm_regs[perf_from_pt[i]];
	s->pps_uregs = ptup.regs;
	s->pps_nuregs = PERF_NREGS;
	ptup.raw = m->pm_args[0];	/* the probed address (the function) */
	s->pps_raw = (const uint8_t *)&ptup.raw;
	s->pps_rawlen = sizeof(ptup.raw);
	if (u->pu_flags & PROV_SAMPLE_CHAIN) {
		s->pps_nchain = walk(m->pm_pid, s->pps_ip, m->pm_regs[4],
		    ptup.chain);
		s->pps_chain = ptup.chain;
	}
	ptup.cur = m;
	u->pu_cb(u->pu_arg, ptup.users[m->pm_nr].uu_cookie, s);
	ptup.cur = NULL;
	pthread_mutex_unlock(&ptup.lk);
}

int prov_ptup_owns(const prov_perf_sample_t *s)
{
	return s == &ptup.sample && ptup.cur != NULL;
}

void prov_ptup_ctx(ks_probe_ctx_t *ctx, dtrace_id_t id,
    const prov_perf_sample_t *s)
{
	const prov_ptmsg_t *m = ptup.cur;

	memset(ctx, 0, sizeof(*ctx));
	ctx->kpc_id = id;
	ctx->kpc_cpu = m->pm_cpu;
	ctx->kpc_pid = m->pm_pid;
	ctx->kpc_tid = m->pm_tid;
	ctx->kpc_ppid = m->pm_ppid;
	ctx->kpc_uid = (uint32_t)getuid();
	ctx->kpc_gid = (uint32_t)getgid();
	ctx->kpc_timestamp = m->pm_time;
	ctx->kpc_walltimestamp = m->pm_time + ks_getwalltime() -
	    ks_gethrtime();
	ctx->kpc_vtimestamp = m->pm_vtime;
	memcpy(ctx->kpc_execname, m->pm_comm, sizeof(m->pm_comm));
	memcpy(ptup.uregs, m->pm_regs, sizeof(ptup.uregs));
	if (m->pm_kind == PM_BRET)
		ptup.uregs[16] = m->pm_args[1];	/* rip: the return address */
	ctx->kpc_uregs = ptup.uregs;
	ctx->kpc_nuregs = PT_NREGS;
	if (s->pps_nchain > 1) {
		ctx->kpc_ustack = s->pps_chain + 1;
		ctx->kpc_nustack = s->pps_nchain - 1;
		if (ctx->kpc_nustack > 1)
			ctx->kpc_ucaller = s->pps_chain[2];
	}
}
