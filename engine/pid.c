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
 * probe).  A glob in the name field makes entry and return probes when
 * it matches those names and an instruction probe at every instruction
 * whose hex offset it matches, as dtrace's glob offset probes.
 *
 * A function's instructions come from decoding its bytes in the file
 * (prov_x86_decode, dt_instr_size's role).  Return probes are uprobes
 * at every returning instruction, as fasttrap's: each ret, and each
 * jump out of the function (a tail call); arg0 is that instruction's
 * offset.  An instruction probe must start an instruction (dtrace's
 * "not aligned" error otherwise).  Where the decoder stops (bytes it
 * does not know), no instruction probe is planted past that point and
 * the function's return probe falls back to a uretprobe with arg0 0;
 * the pid provider notes it (prov_pid_undecoded).
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

/* A function's instructions, decoded from its bytes in the file. */
struct fn {
	uint32_t *offs;			/* where each instruction starts */
	size_t noffs;
	uint64_t *rets;			/* the returning ones (see above) */
	size_t nrets;
	int whole;			/* 1: decoded to its last byte */
	uint64_t stop;			/* else where the decoder stopped */
	unsigned char *text;		/* its bytes (scratch) */
	size_t cap;			/* room in offs, rets, text */
};

struct walk {
	const dtrace_probedesc_t *pd;
	int pid;
	unsigned created;
	int entry, ret;			/* names to make */
	int hasoff, globoff;		/* one offset, or offsets by glob */
	uint64_t off;			/* instruction probe offset */
	unsigned gen;			/* the pmap's generation walked */
	int fd;				/* the object being walked, or -1 */
	int err;			/* -1: an error was reported */
	eng_hdl_t *h;
	struct fn fn;
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
	w->globoff = n[0] == '\0' || strpbrk(n, "*?[\\") != NULL;
	if (!w->globoff && !w->entry && !w->ret) {
		errno = 0;
		w->off = strtoull(n, &end, 16);
		if (errno != 0 || *end != '\0')
			return -1;
		w->hasoff = 1;
	}
	return w->entry || w->ret || w->hasoff || w->globoff ? 0 : -1;
}

/* Room for n instructions and bytes in f; 0 or -1. */
static int fn_room(struct fn *f, size_t n)
{
	uint32_t *o;
	uint64_t *r;
	unsigned char *t;

	if (n <= f->cap)
		return 0;
	if ((o = realloc(f->offs, n * sizeof (*o))) != NULL)
		f->offs = o;
	if ((r = realloc(f->rets, n * sizeof (*r))) != NULL)
		f->rets = r;
	if ((t = realloc(f->text, n)) != NULL)
		f->text = t;
	if (o == NULL || r == NULL || t == NULL)
		return -1;
	f->cap = n;
	return 0;
}

static void fn_free(struct fn *f)
{
	free(f->offs);
	free(f->rets);
	free(f->text);
	memset(f, 0, sizeof (*f));
}

/*
 * Decode the size bytes at file offset foff of fd into w->fn: every
 * instruction's offset, and the returning ones: ret, and a direct jump
 * whose target is outside the function (a tail call), as fasttrap's
 * return probes.  0, or -1 when the bytes cannot be read.
 */
static int decode(struct walk *w, uint64_t foff, uint64_t size)
{
	struct fn *f = &w->fn;
	uint64_t i = 0;

	f->noffs = f->nrets = 0;
	f->whole = 0;
	f->stop = 0;
	if (w->fd < 0 || size == 0 || size > (64u << 20) ||
	    fn_room(f, (size_t)size) != 0 ||
	    pread(w->fd, f->text, (size_t)size, (off_t)foff) != (ssize_t)size)
		return -1;
	while (i < size) {
		prov_x86_insn_t in;
		int64_t to;

		if (prov_x86_decode(f->text + i, (size_t)(size - i), &in) <= 0)
			break;
		f->offs[f->noffs++] = (uint32_t)i;
		to = (int64_t)(i + in.pxi_len) + in.pxi_rel;
		if (in.pxi_kind == PROV_X86_RET || (in.pxi_kind ==
		    PROV_X86_JMP && (to < 0 || (uint64_t)to >= size)))
			f->rets[f->nrets++] = i;
		i += in.pxi_len;
	}
	f->whole = i == size;
	f->stop = i;
	return 0;
}

/* Is off where an instruction of the decoded function starts? */
static int starts_insn(const struct fn *f, uint64_t off)
{
	size_t lo = 0, hi = f->noffs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->offs[mid] == off)
			return 1;
		if (f->offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The instruction probes the name field asks for, in a decoded
 * function (ps filled but for the offset). */
static void make_offsets(struct walk *w, const prov_pid_site_t *fps,
    uint64_t foff, const eng_elfsym_t *s)
{
	const struct fn *f = &w->fn;
	prov_pid_site_t site = *fps, *ps = &site;
	char off[32];

	ps->pps_kind = PROV_PID_OFFSET;
	ps->pps_name = off;
	if (w->hasoff) {
		if (w->off != 0 && w->off >= s->es_size)
			return;
		if (w->off != 0 && !starts_insn(f, w->off)) {
			if (!f->whole && w->off >= f->stop)
				prov_pid_undecoded(ps->pps_mod, ps->pps_func,
				    f->stop);
			else if (strpbrk(w->pd->dtpd_func, "*?[\\") == NULL &&
			    w->err == 0)
				w->err = eng_error(w->h, "offset 0x%llx is not "
				    "aligned on an instruction",
				    (unsigned long long)w->off);
			return;
		}
		snprintf(off, sizeof (off), "%llx", (unsigned long long)w->off);
		ps->pps_foff = foff + w->off;
		w->created += prov_pid_probe(ps) != DTRACE_IDNONE;
		return;
	}
	for (size_t i = 0; i < f->noffs; i++) {
		snprintf(off, sizeof (off), "%x", f->offs[i]);
		if (!matches(w->pd->dtpd_name, off))
			continue;
		ps->pps_foff = foff + f->offs[i];
		w->created += prov_pid_probe(ps) != DTRACE_IDNONE;
	}
	if (!f->whole)
		prov_pid_undecoded(ps->pps_mod, ps->pps_func, f->stop);
}

static void make(struct walk *w, const char *mod, const char *path,
    const eng_elfobj_t *eo, const eng_elfsym_t *s, const char *func)
{
	prov_pid_site_t ps = { .pps_pid = w->pid, .pps_mod = mod,
	    .pps_func = func, .pps_path = path };
	uint64_t foff;
	int decoded = 0;

	if (eng_elf_foff(eo, s->es_value, &foff) != 0)
		return;
	if (w->entry) {
		ps.pps_kind = PROV_PID_ENTRY;
		ps.pps_name = "entry";
		ps.pps_foff = foff;
		w->created += prov_pid_probe(&ps) != DTRACE_IDNONE;
	}
	if (w->ret || w->globoff || (w->hasoff && w->off != 0))
		decoded = decode(w, foff, s->es_size) == 0;
	if (w->ret && (!decoded || !w->fn.whole || w->fn.nrets > 0)) {
		/* (a function that never returns has no return probe) */
		ps.pps_kind = PROV_PID_RETURN;
		ps.pps_name = "return";
		ps.pps_foff = foff;
		ps.pps_rets = decoded && w->fn.whole ? w->fn.rets : NULL;
		ps.pps_nrets = decoded && w->fn.whole ? w->fn.nrets : 0;
		if (ps.pps_rets == NULL && s->es_size > 0)
			prov_pid_undecoded(mod, func, decoded ? w->fn.stop : 0);
		w->created += prov_pid_probe(&ps) != DTRACE_IDNONE;
		ps.pps_rets = NULL;
		ps.pps_nrets = 0;
	}
	if (w->hasoff && w->off == 0) {
		ps.pps_kind = PROV_PID_OFFSET;
		ps.pps_name = "0";
		ps.pps_foff = foff;
		w->created += prov_pid_probe(&ps) != DTRACE_IDNONE;
	} else if ((w->hasoff || w->globoff) && decoded) {
		make_offsets(w, &ps, foff, s);
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
		w->fd = open(po->po_path, O_RDONLY | O_CLOEXEC);
		walk_object(w, mod, po->po_path, eo);
		if (w->fd >= 0)
			close(w->fd);
		w->fd = -1;
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
	w.h = h;
	w.fd = -1;
	if ((w.pid = pid_of(pd->dtpd_provider)) == 0 || names(&w) != 0)
		return 0;
	if (eng_proc_with_pmap(w.pid, walk_map, &w) == 0) {
		fn_free(&w.fn);
		remember(h, pd, w.gen);
		return w.err;
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
	fn_free(&w.fn);
	eng_pmap_free(pm);
	return w.err;
}
