/*
 * sym.c - addresses to symbols for stack(), ustack(), sym(), usym(),
 * mod(), umod(), uaddr(), %a and %A.
 *
 * struct eng_symtab holds:
 *   - the kernel's symbols from /proc/kallsyms (read once, sorted by
 *     address), module "vmlinux" for the core kernel, else the [module];
 *   - per process (pid), its executable mappings from /proc/PID/maps, read
 *     at the first lookup (and again when a live process has an address
 *     outside them), each with the ELF function and object symbols
 *     of its file (libelf: .symtab, else .dynsym), loaded on first use and
 *     kept sorted by address with the load bias applied.
 * Lookups find the last symbol at or below the address; an address past
 * a sized symbol's end still resolves to it, as dtrace does with
 * stripped gaps.  Objects print by basename, as dtrace does.
 * eng_sym_norm gives the address an aggregation key is kept under: a
 * symbol's start, or an object's base (kernel: its lowest symbol; user:
 * the start of the file's first mapping).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "consume.h"

struct sym {
	uint64_t s_addr;
	uint64_t s_size;
	char *s_name;
	const char *s_obj;		/* borrowed from the table's strings */
};

struct symvec {
	struct sym *v;
	size_t n, cap;
	int sorted;
};

struct mapping {
	uint64_t m_start, m_end, m_off;
	char *m_path;
	struct symvec m_syms;		/* loaded on demand */
	int m_loaded;
};

struct proc {
	int p_pid;
	double p_loaded;		/* when maps were read (monotonic s) */
	struct mapping *p_maps;
	size_t p_nmaps;
	struct proc *p_next;
};

struct eng_symtab {
	struct symvec st_kernel;
	int st_kloaded;
	char **st_objs;			/* kernel module names */
	uint64_t *st_objbase;		/* their lowest symbol address */
	size_t st_nobjs;
	struct proc *st_procs;
};

static int push(struct symvec *sv, uint64_t addr, uint64_t size,
    const char *name, const char *obj)
{
	if (sv->n == sv->cap) {
		size_t n = sv->cap ? sv->cap * 2 : 1024;
		struct sym *nv = realloc(sv->v, n * sizeof (*nv));

		if (nv == NULL)
			return -1;
		sv->v = nv;
		sv->cap = n;
	}
	if ((sv->v[sv->n].s_name = strdup(name)) == NULL)
		return -1;
	sv->v[sv->n].s_addr = addr;
	sv->v[sv->n].s_size = size;
	sv->v[sv->n].s_obj = obj;
	sv->n++;
	sv->sorted = 0;
	return 0;
}

static int symcmp(const void *x, const void *y)
{
	const struct sym *a = x, *b = y;

	return (a->s_addr > b->s_addr) - (a->s_addr < b->s_addr);
}

static void vec_free(struct symvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i].s_name);
	free(sv->v);
	memset(sv, 0, sizeof (*sv));
}

/* The last symbol at or below addr, or NULL. */
static const struct sym *find(struct symvec *sv, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!sv->sorted) {
		qsort(sv->v, sv->n, sizeof (*sv->v), symcmp);
		sv->sorted = 1;
	}
	hi = sv->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sv->v[mid].s_addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? &sv->v[lo - 1] : NULL;
}

/* The index of kernel object obj in st_objs (added if new), or -1. */
static long intern(struct eng_symtab *st, const char *obj)
{
	for (size_t i = 0; i < st->st_nobjs; i++)
		if (strcmp(st->st_objs[i], obj) == 0)
			return (long)i;
	char **no = realloc(st->st_objs, (st->st_nobjs + 1) * sizeof (*no));
	if (no == NULL)
		return -1;
	st->st_objs = no;
	uint64_t *nb = realloc(st->st_objbase, (st->st_nobjs + 1) *
	    sizeof (*nb));
	if (nb == NULL)
		return -1;
	st->st_objbase = nb;
	if ((no[st->st_nobjs] = strdup(obj)) == NULL)
		return -1;
	nb[st->st_nobjs] = UINT64_MAX;
	return (long)st->st_nobjs++;
}

/* The base address of kernel object obj (its lowest symbol), or 0. */
static uint64_t kbase(const struct eng_symtab *st, const char *obj)
{
	for (size_t i = 0; i < st->st_nobjs; i++)
		if (st->st_objs[i] == obj)
			return st->st_objbase[i];
	return 0;
}

static void load_kernel(struct eng_symtab *st)
{
	FILE *fp = fopen("/proc/kallsyms", "r");
	char line[512], name[256], mod[128];
	long core, o;

	st->st_kloaded = 1;
	if (fp == NULL)
		return;
	if ((core = intern(st, "vmlinux")) < 0) {
		fclose(fp);
		return;
	}
	while (fgets(line, sizeof (line), fp) != NULL) {
		unsigned long long addr;
		char type;
		int n;

		mod[0] = '\0';
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name,
		    mod);
		if (n < 3 || addr == 0 || strchr("tTwW", type) == NULL)
			continue;
		if ((o = n == 4 ? intern(st, mod) : core) < 0 ||
		    push(&st->st_kernel, addr, 0, name, st->st_objs[o]) != 0)
			break;
		if (addr < st->st_objbase[o])
			st->st_objbase[o] = addr;
	}
	fclose(fp);
}

static struct eng_symtab *table(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;

	if (c->ec_sym == NULL)
		c->ec_sym = calloc(1, sizeof (struct eng_symtab));
	return c->ec_sym;
}

/* ---- user processes ------------------------------------------------------ */

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void free_maps(struct proc *p)
{
	for (size_t i = 0; i < p->p_nmaps; i++) {
		free(p->p_maps[i].m_path);
		vec_free(&p->p_maps[i].m_syms);
	}
	free(p->p_maps);
	p->p_maps = NULL;
	p->p_nmaps = 0;
}

/* Read the mappings into q (empty). */
static void parse_maps(struct proc *q)
{
	char path[64], line[4096];
	FILE *fp;
	struct proc *p = q;

	snprintf(path, sizeof (path), "/proc/%d/maps", p->p_pid);
	if ((fp = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof (line), fp) != NULL) {
		unsigned long long s, e, off;
		char perm[8], file[4096];

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &s, &e,
		    perm, &off, file) < 4 || file[0] != '/')
			continue;
		struct mapping *nm = realloc(p->p_maps,
		    (p->p_nmaps + 1) * sizeof (*nm));
		if (nm == NULL)
			break;
		p->p_maps = nm;
		nm = &p->p_maps[p->p_nmaps];
		memset(nm, 0, sizeof (*nm));
		nm->m_start = s;
		nm->m_end = e;
		nm->m_off = off;
		if ((nm->m_path = strdup(file)) == NULL)
			break;
		p->p_nmaps++;
	}
	fclose(fp);
}

/* (Re)read p's mappings; a process that has gone (or a zombie, whose
 * maps are empty) keeps the ones known. */
static void read_maps(struct proc *p)
{
	struct proc q;

	memset(&q, 0, sizeof (q));
	q.p_pid = p->p_pid;
	p->p_loaded = mono();
	parse_maps(&q);
	if (q.p_nmaps == 0) {
		free_maps(&q);
		return;
	}
	/* keep the symbols already loaded for a file mapped where it was */
	for (size_t i = 0; i < q.p_nmaps; i++)
		for (size_t j = 0; j < p->p_nmaps; j++) {
			struct mapping *n = &q.p_maps[i], *o = &p->p_maps[j];

			if (!o->m_loaded || o->m_start != n->m_start ||
			    strcmp(o->m_path, n->m_path) != 0)
				continue;
			n->m_syms = o->m_syms;
			n->m_loaded = 1;
			memset(&o->m_syms, 0, sizeof (o->m_syms));
			o->m_loaded = 0;
			break;
		}
	free_maps(p);
	p->p_maps = q.p_maps;
	p->p_nmaps = q.p_nmaps;
}

static struct proc *load_proc(struct eng_symtab *st, int pid)
{
	struct proc *p = calloc(1, sizeof (*p));

	if (p == NULL)
		return NULL;
	p->p_pid = pid;
	p->p_next = st->st_procs;
	st->st_procs = p;
	read_maps(p);
	return p;
}

/* The load bias of path in p: start of its offset-0 mapping minus the
 * first PT_LOAD's page-aligned vaddr (0 for ET_EXEC). */
static uint64_t bias(const struct proc *p, const char *path, Elf *e)
{
	GElf_Ehdr eh;
	size_t n;
	uint64_t base = 0, vaddr = 0;

	if (gelf_getehdr(e, &eh) == NULL || eh.e_type != ET_DYN)
		return 0;
	for (size_t i = 0; i < p->p_nmaps; i++)
		if (strcmp(p->p_maps[i].m_path, path) == 0 &&
		    p->p_maps[i].m_off == 0) {
			base = p->p_maps[i].m_start;
			break;
		}
	if (elf_getphdrnum(e, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) != NULL &&
			    ph.p_type == PT_LOAD) {
				vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
				break;
			}
		}
	return base - vaddr;
}

static void load_elf_syms(const struct proc *p, struct mapping *m)
{
	const char *obj = strrchr(m->m_path, '/') ? strrchr(m->m_path, '/') + 1
	    : m->m_path;
	int fd = open(m->m_path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL, *dyn = NULL, *sym = NULL;

	m->m_loaded = 1;
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL) {
		close(fd);
		return;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			sym = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dyn = scn;
	}
	uint64_t b = bias(p, m->m_path, e);
	if ((scn = sym != NULL ? sym : dyn) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d = elf_getdata(scn, NULL);

		gelf_getshdr(scn, &sh);
		for (size_t i = 0; d != NULL && sh.sh_entsize > 0 &&
		    i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (gelf_getsym(d, (int)i, &s) == NULL || s.st_value == 0 ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
			    GELF_ST_TYPE(s.st_info) != STT_OBJECT) ||
			    (name = elf_strptr(e, sh.sh_link, s.st_name)) == NULL ||
			    *name == '\0')
				continue;
			push(&m->m_syms, s.st_value + b, s.st_size, name, obj);
		}
	}
	elf_end(e);
	close(fd);
}

static struct proc *proc_get(struct eng_symtab *st, int pid)
{
	for (struct proc *p = st->st_procs; p != NULL; p = p->p_next)
		if (p->p_pid == pid)
			return p;
	return load_proc(st, pid);
}

static int mapped(const struct proc *p, uint64_t addr)
{
	for (size_t i = 0; i < p->p_nmaps; i++)
		if (addr >= p->p_maps[i].m_start && addr < p->p_maps[i].m_end)
			return 1;
	return 0;
}

void eng_sym_touch(eng_hdl_t *h, int pid, int reread)
{
	struct eng_symtab *st = table(h);
	struct proc *p;

	if (st == NULL || pid <= 0 || (p = proc_get(st, pid)) == NULL)
		return;
	if (reread && (kill(pid, 0) == 0 || errno == EPERM))
		read_maps(p);
}

/* ---- the text ------------------------------------------------------------- */

static void text(const char *obj, const struct sym *s, uint64_t addr,
    int mode, char *buf, size_t len)
{
	if (obj == NULL) {
		snprintf(buf, len, "0x%" PRIx64, addr);
	} else if (mode == ENG_SYM_MOD) {
		snprintf(buf, len, "%s", obj);
	} else if (s == NULL) {
		snprintf(buf, len, "%s`0x%" PRIx64, obj, addr);
	} else if (mode == ENG_SYM_OFF && addr > s->s_addr) {
		snprintf(buf, len, "%s`%s+0x%" PRIx64, obj, s->s_name,
		    addr - s->s_addr);
	} else {
		snprintf(buf, len, "%s`%s", obj, s->s_name);
	}
}

/* What an address resolves to: its object (NULL if none), symbol (NULL
 * if none) and the object's base address (for mod()/umod() keys). */
struct hit {
	const char *obj;
	const struct sym *s;
	uint64_t base;
};

static void lookup_kernel(struct eng_symtab *st, uint64_t addr,
    struct hit *r)
{
	if (!st->st_kloaded)
		load_kernel(st);
	r->s = st->st_kernel.n > 0 ? find(&st->st_kernel, addr) : NULL;
	r->obj = r->s != NULL ? r->s->s_obj : NULL;
	r->base = r->obj != NULL ? kbase(st, r->obj) : 0;
}

static void lookup(eng_hdl_t *h, int pid, uint64_t addr, struct hit *r)
{
	struct eng_symtab *st = table(h);

	memset(r, 0, sizeof (*r));
	if (st == NULL)
		return;
	if (pid == 0) {
		lookup_kernel(st, addr, r);
		return;
	}
	struct proc *p = proc_get(st, pid);
	/* An address outside the known mappings of a live process: the
	 * process may have exec'd or mapped more; reread (rate-limited). */
	if (p != NULL && !mapped(p, addr) && mono() - p->p_loaded > 0.1 &&
	    (kill(pid, 0) == 0 || errno == EPERM))
		read_maps(p);
	for (size_t i = 0; p != NULL && i < p->p_nmaps; i++) {
		struct mapping *m = &p->p_maps[i];

		if (addr < m->m_start || addr >= m->m_end)
			continue;
		r->obj = strrchr(m->m_path, '/') + 1;
		/* Symbols of every mapping of this file land in the first,
		 * whose start is the object's base. */
		for (size_t j = 0; j < p->p_nmaps; j++)
			if (strcmp(p->p_maps[j].m_path, m->m_path) == 0) {
				m = &p->p_maps[j];
				break;
			}
		if (!m->m_loaded)
			load_elf_syms(p, m);
		r->s = m->m_syms.n > 0 ? find(&m->m_syms, addr) : NULL;
		r->base = m->m_start;
		return;
	}
}

void eng_sym_text(eng_hdl_t *h, int pid, uint64_t addr, int mode,
    char *buf, size_t len)
{
	struct hit r;

	lookup(h, pid, addr, &r);
	text(r.obj, r.s, addr, mode, buf, len);
}

uint64_t eng_sym_norm(eng_hdl_t *h, int pid, uint64_t addr, int mode)
{
	struct hit r;

	lookup(h, pid, addr, &r);
	if (r.obj == NULL)
		return addr;
	if (mode == ENG_SYM_MOD)
		return r.base;
	return mode == ENG_SYM_NAME && r.s != NULL ? r.s->s_addr : addr;
}

void eng_sym_free(struct eng_symtab *st)
{
	if (st == NULL)
		return;
	vec_free(&st->st_kernel);
	for (size_t i = 0; i < st->st_nobjs; i++)
		free(st->st_objs[i]);
	free(st->st_objs);
	free(st->st_objbase);
	while (st->st_procs != NULL) {
		struct proc *p = st->st_procs;

		st->st_procs = p->p_next;
		free_maps(p);
		free(p);
	}
	free(st);
}
