/*
 * sym.c - addresses to symbols for stack(), ustack(), sym(), usym(),
 * mod(), umod(), uaddr(), %a and %A.
 *
 * struct eng_symtab holds:
 *   - the kernel's symbols from /proc/kallsyms (read once, sorted by
 *     address), module "vmlinux" for the core kernel, else the [module];
 *   - per process (pid), its mapped objects (pmap.c), read at the first
 *     lookup (and again when a live process has an address outside
 *     them), each with the ELF symbols of its file (elfsym.c: shared
 *     between processes, loaded on first use); the load bias is applied
 *     to what a lookup returns.  A process that has gone keeps its
 *     symbols for lookups after it (a stack printed at END), but only the
 *     ENG_SYM_KEEP_GONE most recently looked up of them do: over a long
 *     session of short-lived processes the others are freed, and the
 *     ELF objects no process holds any more with them (as libdtrace
 *     keeps at most pgmax processes grabbed).
 * Lookups find the last symbol at or below the address; an address past
 * a sized symbol's end still resolves to it, as dtrace does with
 * stripped gaps.  Objects print by basename, as dtrace does.
 * eng_sym_norm gives the address an aggregation key is kept under: a
 * symbol's start, or an object's base (kernel: its lowest symbol; user:
 * the start of the file's first mapping).  Under the noresolve option
 * nothing resolves: addresses print as numbers.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "consume.h"
#include "elfsym.h"
#include "exp.h"

struct sym {
	uint64_t s_addr;
	uint64_t s_size;
	uint64_t s_key;			/* the address keys are kept under */
	char *s_name;
	const char *s_obj;		/* borrowed from the table's strings */
};

struct symvec {
	struct sym *v;
	size_t n, cap;
	int sorted;
};

/* A process whose addresses were looked up. */
struct proc {
	eng_pmap_t *p_map;
	uint64_t p_used;		/* st_clock at its last lookup */
	struct proc *p_next;
};

struct eng_symtab {
	struct symvec st_kernel;
	int st_kloaded;
	char **st_objs;			/* kernel module names */
	uint64_t *st_objbase;		/* their lowest symbol address */
	size_t st_nobjs;
	struct proc *st_procs;
	size_t st_nprocs;
	size_t st_prune_at;		/* prune when st_nprocs reaches it */
	uint64_t st_clock;		/* lookups so far */
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
	sv->v[sv->n].s_key = addr;
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

/*
 * A BPF program is named after its tag, a hash of its instructions: two
 * programs of one name in [bpf] are copies of one function (another
 * dtrace loaded the same program) and are kept under one key, the
 * address of the first, so func() and sym() print one row for them.
 * The kernel's own functions of one name (constprop clones) are
 * different code and stay apart, as in dtrace.
 */
static void bpf_alias(struct eng_symtab *st)
{
	struct symvec *sv = &st->st_kernel;
	const char *bpf = NULL;
	size_t *ix, n = 0;

	for (size_t i = 0; i < st->st_nobjs; i++)
		if (strcmp(st->st_objs[i], "bpf") == 0)
			bpf = st->st_objs[i];
	if (bpf == NULL || (ix = malloc(sv->n * sizeof (*ix))) == NULL)
		return;
	(void)find(sv, 0);		/* sorted: the first is the lowest */
	for (size_t i = 0; i < sv->n; i++) {
		if (sv->v[i].s_obj != bpf)
			continue;
		for (size_t j = 0; j < n; j++)
			if (strcmp(sv->v[ix[j]].s_name, sv->v[i].s_name) == 0) {
				sv->v[i].s_key = sv->v[ix[j]].s_key;
				break;
			}
		if (sv->v[i].s_key == sv->v[i].s_addr)
			ix[n++] = i;
	}
	free(ix);
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
	bpf_alias(st);
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

static int used_later(const void *x, const void *y)
{
	const struct proc *a = *(struct proc *const *)x;
	const struct proc *b = *(struct proc *const *)y;

	return (a->p_used < b->p_used) - (a->p_used > b->p_used);
}

/* Free the processes gone but the ENG_SYM_KEEP_GONE most recently looked
 * up, then the ELF objects nothing holds any more.  Run when the table
 * has doubled since the last time: one kill(2) per new process, spread. */
static void prune(struct eng_symtab *st)
{
	struct proc **gone, **pp;
	size_t n = 0;

	if ((gone = malloc(st->st_nprocs * sizeof (*gone))) == NULL)
		return;
	for (struct proc *p = st->st_procs; p != NULL; p = p->p_next)
		if (kill(p->p_map->pm_pid, 0) != 0 && errno == ESRCH)
			gone[n++] = p;
	if (n > ENG_SYM_KEEP_GONE) {
		qsort(gone, n, sizeof (*gone), used_later);
		for (size_t i = ENG_SYM_KEEP_GONE; i < n; i++)
			gone[i]->p_map->pm_pid = -1;	/* marked */
		for (pp = &st->st_procs; *pp != NULL; ) {
			struct proc *p = *pp;

			if (p->p_map->pm_pid != -1) {
				pp = &p->p_next;
				continue;
			}
			*pp = p->p_next;
			eng_pmap_free(p->p_map);
			free(p);
			st->st_nprocs--;
		}
		eng_elf_flush();
	}
	free(gone);
}

static struct proc *proc_get(struct eng_symtab *st, int pid)
{
	struct proc *p;

	for (p = st->st_procs; p != NULL; p = p->p_next)
		if (p->p_map->pm_pid == pid) {
			p->p_used = ++st->st_clock;
			return p;
		}
	if (st->st_nprocs >= st->st_prune_at) {
		prune(st);
		st->st_prune_at = 2 * st->st_nprocs + ENG_SYM_KEEP_GONE;
	}
	if ((p = calloc(1, sizeof (*p))) == NULL)
		return NULL;
	if ((p->p_map = eng_pmap_new(pid)) == NULL) {
		free(p);
		return NULL;
	}
	/* A process gone before its first lookup has nothing to keep: an
	 * entry for each would pile up over a long session of short-lived
	 * processes (and over the consumer fuzzer's made-up pids). */
	if (eng_pmap_update(p->p_map) < 0 && p->p_map->pm_nobjs == 0 &&
	    kill(pid, 0) != 0 && errno == ESRCH) {
		eng_pmap_free(p->p_map);
		free(p);
		return NULL;
	}
	p->p_used = ++st->st_clock;
	p->p_next = st->st_procs;
	st->st_procs = p;
	st->st_nprocs++;
	return p;
}

void eng_sym_touch(eng_hdl_t *h, int pid, int reread)
{
	struct eng_symtab *st = table(h);
	struct proc *p;

	if (st == NULL || pid <= 0 || (p = proc_get(st, pid)) == NULL)
		return;
	if (reread && (kill(pid, 0) == 0 || errno == EPERM)) {
		(void)eng_pmap_update(p->p_map);
		eng_exp_note_maps(h, pid);
	}
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
	struct sym us;			/* a user symbol, biased */
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
	/* noresolve (Oracle's option): every address stays a number */
	if (st == NULL || eng_opt_isset(h, ENG_OPT_NORESOLVE))
		return;
	if (pid == 0) {
		lookup_kernel(st, addr, r);
		return;
	}
	struct proc *p = proc_get(st, pid);
	eng_pobj_t *po;
	eng_elfobj_t *eo;
	const eng_elfsym_t *es;

	if (p == NULL)
		return;
	/* An address outside the known mappings of a live process: the
	 * process may have exec'd or mapped more; reread (rate-limited). */
	if ((po = eng_pmap_find(p->p_map, addr)) == NULL &&
	    mono() - p->p_map->pm_read > 0.1 &&
	    (kill(pid, 0) == 0 || errno == EPERM)) {
		(void)eng_pmap_update(p->p_map);
		po = eng_pmap_find(p->p_map, addr);
	}
	if (po == NULL)
		return;
	r->obj = strrchr(po->po_path, '/') + 1;
	r->base = po->po_start;
	if ((eo = eng_pmap_elf(p->p_map, po)) == NULL ||
	    (es = eng_elf_lookup(eo, addr - po->po_bias)) == NULL)
		return;
	r->us.s_addr = es->es_value + po->po_bias;
	r->us.s_key = r->us.s_addr;
	r->us.s_size = es->es_size;
	r->us.s_name = (char *)(uintptr_t)es->es_name;
	r->us.s_obj = r->obj;
	r->s = &r->us;
}

void eng_sym_text(eng_hdl_t *h, int pid, uint64_t addr, int mode,
    char *buf, size_t len)
{
	struct hit r;

	/* an experiment answers as it was first answered (exp.h) */
	if (eng_exp_sym_replay(h, EXP_R_SYM, pid, addr, mode, buf, len, NULL))
		return;
	lookup(h, pid, addr, &r);
	text(r.obj, r.s, addr, mode, buf, len);
	eng_exp_sym_note(h, EXP_R_SYM, pid, addr, mode, buf, 0);
}

uint64_t eng_sym_norm(eng_hdl_t *h, int pid, uint64_t addr, int mode)
{
	struct hit r;
	uint64_t out;

	if (eng_exp_sym_replay(h, EXP_R_NORM, pid, addr, mode, NULL, 0, &out))
		return out;
	lookup(h, pid, addr, &r);
	out = r.obj == NULL ? addr : mode == ENG_SYM_MOD ? r.base :
	    mode == ENG_SYM_NAME && r.s != NULL ? r.s->s_key : addr;
	eng_exp_sym_note(h, EXP_R_NORM, pid, addr, mode, NULL, out);
	return out;
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
		eng_pmap_free(p->p_map);
		free(p);
	}
	free(st);
	eng_elf_flush();	/* the objects only these processes held */
}

size_t eng_sym_nprocs(eng_hdl_t *h)
{
	struct eng_symtab *st = h->eh_cons->ec_sym;

	return st != NULL ? st->st_nprocs : 0;
}
