/*
 * pid.c - creating pid provider probes on demand (libdtrace's dt_pid
 * role): a description whose provider is pid<PID> (after $target and
 * macro expansion) makes the probes it names before it is matched.
 *
 * The process's objects come from its eng_proc_t when it is ours (a -c
 * process held before its exec lists what its file will map: itself
 * and the libraries its dynamic linker names), else from its maps now.
 * Modules are named as dtrace names them: "a.out" for the executable,
 * the file name for the others ("libc.so.6"); functions are the ELF
 * function symbols and PLT slots (elfsym.c), one probe per address (the
 * preferred alias, or the alias the description names).  Probe names:
 * "entry", "return", and a hex offset into the function (an instruction
 * probe).  A glob in the name field makes entry and return probes (not
 * one per instruction: that needs an instruction decoder, which dtui
 * does not have).  Return probes are uretprobes: the returning
 * instruction is not known, so arg0 is the offset of the function's
 * last byte when that is a ret (0xc3), else 0.
 *
 * Objects loaded later (dlopen) are followed for processes of ours: every
 * 50 ms of eng_work the descriptions seen are walked again when the
 * process's objects changed, and the shim matches the enablings to the
 * new probes (retained enablings).  Calls made before that are missed.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "eng_impl.h"
#include "elfsym.h"
#include "providers.h"

struct walk {
	const dtrace_probedesc_t *pd;
	int pid;
	unsigned created;
	int entry, ret;			/* names to make */
	int hasoff;
	uint64_t off;			/* instruction probe offset */
	unsigned gen;			/* the pmap's generation walked */
};

static int matches(const char *pat, const char *s)
{
	return pat[0] == '\0' || fnmatch(pat, s, 0) == 0;
}

/* The probe-name field: which probes to make.  0, or -1 if none. */
static int names(struct walk *w)
{
	const char *n = w->pd->dtpd_name;
	char *end;

	w->entry = matches(n, "entry");
	w->ret = matches(n, "return");
	if (n[0] != '\0' && strpbrk(n, "*?[\\") == NULL && !w->entry &&
	    !w->ret) {
		errno = 0;
		w->off = strtoull(n, &end, 16);
		if (errno != 0 || *end != '\0')
			return -1;
		w->hasoff = 1;
	}
	return w->entry || w->ret || w->hasoff ? 0 : -1;
}

/* arg0 of a return probe: see the comment at the top. */
static uint64_t ret_offset(const char *path, uint64_t foff, uint64_t size)
{
	unsigned char c = 0;
	int fd;

	if (size == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (pread(fd, &c, 1, (off_t)(foff + size - 1)) != 1)
		c = 0;
	close(fd);
	return c == 0xc3 ? size - 1 : 0;
}

static void make(struct walk *w, const char *mod, const char *path,
    const eng_elfobj_t *eo, const eng_elfsym_t *s, const char *func)
{
	prov_pid_site_t ps = { .pps_pid = w->pid, .pps_mod = mod,
	    .pps_func = func, .pps_path = path };
	char off[32];
	uint64_t foff;

	if (eng_elf_foff(eo, s->es_value, &foff) != 0)
		return;
	if (w->entry) {
		ps.pps_kind = PROV_PID_ENTRY;
		ps.pps_name = "entry";
		ps.pps_foff = foff;
		w->created += prov_pid_probe(&ps) != DTRACE_IDNONE;
	}
	if (w->ret) {
		ps.pps_kind = PROV_PID_RETURN;
		ps.pps_name = "return";
		ps.pps_foff = foff;
		ps.pps_retoff = ret_offset(path, foff, s->es_size);
		w->created += prov_pid_probe(&ps) != DTRACE_IDNONE;
	}
	if (w->hasoff && (w->off == 0 || w->off < s->es_size)) {
		snprintf(off, sizeof (off), "%llx", (unsigned long long)w->off);
		ps.pps_kind = PROV_PID_OFFSET;
		ps.pps_name = off;
		ps.pps_foff = foff + w->off;
		w->created += prov_pid_probe(&ps) != DTRACE_IDNONE;
	}
}

/* Every function of one object the description's function field
 * matches: one probe set per address. */
static void walk_object(struct walk *w, const char *mod, const char *path,
    const eng_elfobj_t *eo)
{
	const char *want = w->pd->dtpd_func;

	for (size_t i = 0; i < eo->eo_nsyms; ) {
		size_t j = i;
		const eng_elfsym_t *hit = NULL;

		/* the aliases at this address, preferred first */
		for (; j < eo->eo_nsyms && eo->eo_syms[j].es_value ==
		    eo->eo_syms[i].es_value; j++)
			if (hit == NULL && eo->eo_syms[j].es_func &&
			    matches(want, eo->eo_syms[j].es_name))
				hit = &eo->eo_syms[j];
		if (hit != NULL)
			make(w, mod, path, eo, hit, hit->es_name);
		i = j;
	}
}

static void walk_map(eng_pmap_t *pm, void *arg)
{
	struct walk *w = arg;

	w->gen = pm->pm_gen;
	for (size_t i = 0; i < pm->pm_nobjs; i++) {
		eng_pobj_t *po = &pm->pm_objs[i];
		const char *mod = eng_pmap_modname(pm, po);
		eng_elfobj_t *eo;

		if (!matches(w->pd->dtpd_mod, mod) ||
		    (eo = eng_pmap_elf(pm, po)) == NULL)
			continue;
		walk_object(w, mod, po->po_path, eo);
	}
}

/* pid<digits>: the pid, else 0. */
static int pid_of(const char *prov)
{
	char *end;
	long v;

	if (strncmp(prov, "pid", 3) != 0 || prov[3] < '1' || prov[3] > '9')
		return 0;
	v = strtol(prov + 3, &end, 10);
	return *end == '\0' && v > 0 && v < (1L << 30) ? (int)v : 0;
}

/* The pid descriptions a handle has seen, for following dlopen. */
struct eng_pidstate {
	dtrace_probedesc_t *ps_descs;
	int ps_n;
	unsigned *ps_gen;		/* by desc: its process's pmap gen */
	uint64_t ps_next;		/* next follow (monotonic ns) */
};

/* Note pd and the generation of its process's objects it was walked at. */
static void remember(eng_hdl_t *h, const dtrace_probedesc_t *pd,
    unsigned gen)
{
	struct eng_pidstate *ps = h->eh_pid;
	dtrace_probedesc_t *nd;
	unsigned *ng;

	if (ps == NULL && (ps = h->eh_pid = calloc(1, sizeof (*ps))) == NULL)
		return;
	for (int i = 0; i < ps->ps_n; i++)
		if (strcmp(ps->ps_descs[i].dtpd_provider, pd->dtpd_provider) == 0 &&
		    strcmp(ps->ps_descs[i].dtpd_mod, pd->dtpd_mod) == 0 &&
		    strcmp(ps->ps_descs[i].dtpd_func, pd->dtpd_func) == 0 &&
		    strcmp(ps->ps_descs[i].dtpd_name, pd->dtpd_name) == 0) {
			ps->ps_gen[i] = gen;
			return;
		}
	if ((nd = realloc(ps->ps_descs, (size_t)(ps->ps_n + 1) *
	    sizeof (*nd))) == NULL)
		return;
	ps->ps_descs = nd;
	if ((ng = realloc(ps->ps_gen, (size_t)(ps->ps_n + 1) *
	    sizeof (*ng))) == NULL)
		return;
	ps->ps_gen = ng;
	nd[ps->ps_n] = *pd;
	ng[ps->ps_n++] = gen;
}

void eng_pid_free(eng_hdl_t *h)
{
	if (h->eh_pid == NULL)
		return;
	free(h->eh_pid->ps_descs);
	free(h->eh_pid->ps_gen);
	free(h->eh_pid);
	h->eh_pid = NULL;
}

static void read_gen(eng_pmap_t *pm, void *arg)
{
	*(unsigned *)arg = pm->pm_gen;
}

void eng_pid_follow(eng_hdl_t *h)
{
	struct eng_pidstate *ps = h->eh_pid;
	struct timespec ts;
	uint64_t now;
	int changed = 0;
	uint32_t nnew = 0;
	char err[256];

	if (ps == NULL || ps->ps_n == 0 || h->eh_ks == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now < ps->ps_next)
		return;
	ps->ps_next = now + 50000000ull;	/* 50 ms */
	for (int i = 0; i < ps->ps_n; i++) {
		unsigned gen = 0;
		int pid = pid_of(ps->ps_descs[i].dtpd_provider);

		/* (reads the maps again: pm_gen moves when objects come) */
		if (eng_proc_with_pmap(pid, read_gen, &gen) != 0 ||
		    gen == ps->ps_gen[i])
			continue;
		(void)eng_pid_provide(h, &ps->ps_descs[i]);	/* new gen */
		changed = 1;
	}
	if (changed && ks_enable_retained(h->eh_ks, &nnew) == 0 && nnew > 0)
		(void)prov_pid_commit(err, sizeof (err));
}

int eng_pid_provide(eng_hdl_t *h, const dtrace_probedesc_t *pd)
{
	struct walk w;
	eng_pmap_t *pm;

	memset(&w, 0, sizeof (w));
	w.pd = pd;
	if ((w.pid = pid_of(pd->dtpd_provider)) == 0 || names(&w) != 0)
		return 0;
	if (eng_proc_with_pmap(w.pid, walk_map, &w) == 0) {
		remember(h, pd, w.gen);
		return 0;
	}
	/* not one of ours: as dtrace grabs it, see it as it is now */
	if (kill(w.pid, 0) != 0 && errno != EPERM)
		return eng_error(h, "failed to grab pid %d: %s", w.pid,
		    strerror(errno));
	if ((pm = eng_pmap_new(w.pid)) == NULL)
		return eng_error(h, "failed to allocate memory");
	if (eng_pmap_update(pm) < 0) {
		eng_pmap_free(pm);
		return eng_error(h, "failed to grab pid %d: %s", w.pid,
		    strerror(errno == ENOENT ? ESRCH : errno == EACCES ?
		    EPERM : errno));
	}
	walk_map(pm, &w);
	eng_pmap_free(pm);
	return 0;
}
