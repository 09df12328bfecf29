/*
 * elfsym.c - the function and object symbols of an ELF file, through
 * libelf, cached per object.
 *
 * Both tables are read: .symtab (absent from stripped files) and
 * .dynsym, merged so that an address keeps every name once; PLT slots
 * get "name@plt" from .rela.plt (slot i is .plt.sec + 16i when the file
 * has .plt.sec, else .plt + 16(i+1), past the resolver stub).  Among
 * aliases at one address the preferred name for lookups is a global or
 * weak one before a local; then fewer leading underscores, then the
 * shorter (so "malloc" before "__libc_malloc", "getpid" before
 * "__getpid").
 *
 * Everything read from the file is bounds-checked through libelf (the
 * data sizes it returns, elf_strptr's range check); a file that is not
 * ELF, or whose header or section table cannot be read, is refused with
 * a message.  The cache is keyed by (dev, inode, size, mtime), so a
 * file rebuilt in place is read again.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfsym.h"

#define MAXSYMS (1u << 22)		/* more is a corrupt count */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static eng_elfobj_t *cache;		/* guarded by cache_lock */

/* Symbols being collected: names as offsets into a growing block. */
struct acc {
	eng_elfsym_t *v;
	size_t n, cap;
	char *strs;
	size_t slen, scap;
	int oom;
};

static void add(struct acc *a, uint64_t value, uint64_t size,
    const char *name, int func, int rank, const char *suffix)
{
	size_t nl = strlen(name), sl = strlen(suffix);

	if (a->oom || a->n >= MAXSYMS)
		return;
	if (a->n == a->cap) {
		size_t n = a->cap ? a->cap * 2 : 256;
		eng_elfsym_t *nv = realloc(a->v, n * sizeof (*nv));

		if (nv == NULL) {
			a->oom = 1;
			return;
		}
		a->v = nv;
		a->cap = n;
	}
	while (a->slen + nl + sl + 1 > a->scap) {
		size_t n = a->scap ? a->scap * 2 : 4096;
		char *ns = realloc(a->strs, n);

		if (ns == NULL) {
			a->oom = 1;
			return;
		}
		a->strs = ns;
		a->scap = n;
	}
	memcpy(a->strs + a->slen, name, nl);
	memcpy(a->strs + a->slen + nl, suffix, sl + 1);
	a->v[a->n] = (eng_elfsym_t){ .es_value = value, .es_size = size,
	    .es_name = (const char *)(uintptr_t)a->slen,
	    .es_func = (uint8_t)func, .es_rank = (uint8_t)rank };
	a->slen += nl + sl + 1;
	a->n++;
}

static int underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

static int symcmp(const void *x, const void *y)
{
	const eng_elfsym_t *a = x, *b = y;
	int d;

	if (a->es_value != b->es_value)
		return a->es_value < b->es_value ? -1 : 1;
	if (a->es_rank != b->es_rank)
		return a->es_rank - b->es_rank;
	if ((d = underscores(a->es_name) - underscores(b->es_name)) != 0)
		return d;
	if (strlen(a->es_name) != strlen(b->es_name))
		return strlen(a->es_name) < strlen(b->es_name) ? -1 : 1;
	return strcmp(a->es_name, b->es_name);
}

/* Symbols of one table (SHT_SYMTAB or SHT_DYNSYM section scn). */
static void read_table(Elf *e, Elf_Scn *scn, struct acc *a)
{
	GElf_Shdr sh;
	Elf_Data *d;

	if (gelf_getshdr(scn, &sh) == NULL || sh.sh_entsize == 0 ||
	    (d = elf_getdata(scn, NULL)) == NULL)
		return;
	for (size_t i = 1; i < d->d_size / sh.sh_entsize; i++) {
		GElf_Sym s;
		const char *name;
		int t, rank;

		if (gelf_getsym(d, (int)i, &s) == NULL)
			break;
		t = GELF_ST_TYPE(s.st_info);
		if (s.st_value == 0 || s.st_shndx == SHN_UNDEF ||
		    (t != STT_FUNC && t != STT_OBJECT &&
		    t != STT_GNU_IFUNC) ||
		    (name = elf_strptr(e, sh.sh_link, s.st_name)) == NULL ||
		    *name == '\0')
			continue;
		/* glibc's public names are often the weak aliases of
		 * global internal ones (getpid of __getpid): both rank
		 * alike, the underscores decide */
		rank = GELF_ST_BIND(s.st_info) == STB_LOCAL ? 2 : 0;
		add(a, s.st_value, s.st_size, name, t != STT_OBJECT, rank, "");
	}
}

static Elf_Scn *section(Elf *e, size_t shstrndx, const char *want,
    GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *n;

		if (gelf_getshdr(scn, out) != NULL &&
		    (n = elf_strptr(e, shstrndx, out->sh_name)) != NULL &&
		    strcmp(n, want) == 0)
			return scn;
	}
	return NULL;
}

/* name@plt for each .rela.plt slot that names a symbol. */
static void read_plt(Elf *e, struct acc *a)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel, *plt, *dyn;
	Elf_Data *rd, *dd;
	size_t shstrndx;
	uint64_t first;

	if (elf_getshdrstrndx(e, &shstrndx) != 0 ||
	    (rel = section(e, shstrndx, ".rela.plt", &rsh)) == NULL ||
	    rsh.sh_entsize == 0 || (rd = elf_getdata(rel, NULL)) == NULL ||
	    (dyn = elf_getscn(e, rsh.sh_link)) == NULL ||
	    gelf_getshdr(dyn, &dsh) == NULL || dsh.sh_entsize == 0 ||
	    (dd = elf_getdata(dyn, NULL)) == NULL)
		return;
	if ((plt = section(e, shstrndx, ".plt.sec", &psh)) != NULL)
		first = psh.sh_addr;
	else if ((plt = section(e, shstrndx, ".plt", &psh)) != NULL)
		first = psh.sh_addr + 16;
	else
		return;
	for (size_t i = 0; i < rd->d_size / rsh.sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;
		uint64_t at = first + 16 * i;

		if (gelf_getrela(rd, (int)i, &r) == NULL)
			break;
		if (at + 16 > psh.sh_addr + psh.sh_size)
			break;
		if (GELF_R_SYM(r.r_info) == 0 ||
		    gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &s) == NULL ||
		    (name = elf_strptr(e, dsh.sh_link, s.st_name)) == NULL ||
		    *name == '\0')
			continue;
		add(a, at, 16, name, 1, 3, "@plt");
	}
}

/* The PT_LOAD segments; eo_vbase from the first. */
static void read_loads(Elf *e, eng_elfobj_t *o)
{
	size_t n;
	int k = 0;

	if (elf_getphdrnum(e, &n) != 0)
		return;
	for (size_t i = 0; i < n && k < 8; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) == NULL ||
		    ph.p_type != PT_LOAD)
			continue;
		if (k == 0)
			o->eo_vbase = ph.p_vaddr & ~(uint64_t)0xfff;
		o->eo_segs[k].sg_vaddr = ph.p_vaddr;
		o->eo_segs[k].sg_off = ph.p_offset;
		o->eo_segs[k].sg_filesz = ph.p_filesz;
		k++;
	}
	o->eo_nsegs = k;
}

int eng_elf_foff(const eng_elfobj_t *o, uint64_t vaddr, uint64_t *foff)
{
	for (int i = 0; i < o->eo_nsegs; i++)
		if (vaddr >= o->eo_segs[i].sg_vaddr && vaddr -
		    o->eo_segs[i].sg_vaddr < o->eo_segs[i].sg_filesz) {
			*foff = vaddr - o->eo_segs[i].sg_vaddr +
			    o->eo_segs[i].sg_off;
			return 0;
		}
	return -1;
}

/* Sort, drop repeated (address, name) pairs, resolve name offsets. */
static void finish(struct acc *a, eng_elfobj_t *o)
{
	size_t k = 0;

	for (size_t i = 0; i < a->n; i++)
		a->v[i].es_name = a->strs + (uintptr_t)a->v[i].es_name;
	if (a->n > 0)
		qsort(a->v, a->n, sizeof (*a->v), symcmp);
	for (size_t i = 0; i < a->n; i++) {
		if (k > 0 && a->v[k - 1].es_value == a->v[i].es_value &&
		    strcmp(a->v[k - 1].es_name, a->v[i].es_name) == 0)
			continue;
		a->v[k++] = a->v[i];
	}
	o->eo_syms = a->v;
	o->eo_nsyms = k;
	o->eo_strs = a->strs;
}

static eng_elfobj_t *load(Elf *e, const char *path, char *err,
    size_t errlen)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	struct acc a;
	eng_elfobj_t *o;
	int symtab = 0;

	if (e == NULL || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		return NULL;
	}
	if (gelf_getehdr(e, &eh) == NULL || elf_getshdrnum(e, &(size_t){0})) {
		snprintf(err, errlen, "%s: corrupt ELF file: %s", path,
		    elf_errmsg(-1));
		return NULL;
	}
	if ((o = calloc(1, sizeof (*o))) == NULL ||
	    (o->eo_path = strdup(path)) == NULL) {
		free(o);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o->eo_name = strrchr(o->eo_path, '/') ? strrchr(o->eo_path, '/') + 1 :
	    o->eo_path;
	o->eo_dyn = eh.e_type == ET_DYN;
	read_loads(e, o);
	memset(&a, 0, sizeof (a));
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			read_table(e, scn, &a);
		symtab |= sh.sh_type == SHT_SYMTAB;
	}
	read_plt(e, &a);
	o->eo_stripped = !symtab;
	if (a.oom) {
		free(a.v);
		free(a.strs);
		eng_elf_free(o);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	finish(&a, o);
	return o;
}

eng_elfobj_t *eng_elf_parse(const void *buf, size_t len, const char *path,
    char *err, size_t errlen)
{
	eng_elfobj_t *o;
	Elf *e;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)(uintptr_t)buf, len);
	o = load(e, path, err, errlen);
	elf_end(e);
	return o;
}

void eng_elf_free(eng_elfobj_t *o)
{
	if (o == NULL)
		return;
	free(o->eo_syms);
	free(o->eo_strs);
	free(o->eo_path);
	free(o);
}

eng_elfobj_t *eng_elf_get(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	uint64_t key[4];
	eng_elfobj_t *o;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb) != 0) {
		snprintf(err, errlen, "%s: cannot open: %m", path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	key[0] = sb.st_dev;
	key[1] = sb.st_ino;
	key[2] = (uint64_t)sb.st_size;
	key[3] = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull +
	    (uint64_t)sb.st_mtim.tv_nsec;
	pthread_mutex_lock(&cache_lock);
	for (o = cache; o != NULL; o = o->eo_next)
		if (memcmp(o->eo_key, key, sizeof (key)) == 0 &&
		    strcmp(o->eo_path, path) == 0) {
			o->eo_refs++;
			pthread_mutex_unlock(&cache_lock);
			close(fd);
			return o;
		}
	pthread_mutex_unlock(&cache_lock);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	o = load(e, path, err, errlen);
	elf_end(e);
	close(fd);
	if (o == NULL)
		return NULL;
	memcpy(o->eo_key, key, sizeof (key));
	o->eo_refs = 1;
	pthread_mutex_lock(&cache_lock);
	o->eo_next = cache;
	cache = o;
	pthread_mutex_unlock(&cache_lock);
	return o;
}

/* Objects stay cached at no reference (a process's libraries are read
 * once per session); eng_elf_flush frees them. */
void eng_elf_put(eng_elfobj_t *o)
{
	if (o == NULL)
		return;
	pthread_mutex_lock(&cache_lock);
	if (o->eo_refs > 0)
		o->eo_refs--;
	pthread_mutex_unlock(&cache_lock);
}

void eng_elf_flush(void)
{
	pthread_mutex_lock(&cache_lock);
	for (eng_elfobj_t **pp = &cache; *pp != NULL; ) {
		eng_elfobj_t *o = *pp;

		if (o->eo_refs > 0) {
			pp = &o->eo_next;
			continue;
		}
		*pp = o->eo_next;
		eng_elf_free(o);
	}
	pthread_mutex_unlock(&cache_lock);
}

int eng_elf_interp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	size_t n;
	Elf *e;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL &&
	    elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) == NULL ||
			    ph.p_type != PT_INTERP || ph.p_filesz == 0 ||
			    ph.p_filesz >= len)
				continue;
			if (pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset) ==
			    (ssize_t)ph.p_filesz) {
				buf[ph.p_filesz - 1] = '\0';
				rc = 0;
			}
			break;
		}
	elf_end(e);
	close(fd);
	return rc;
}

const eng_elfsym_t *eng_elf_lookup(const eng_elfobj_t *o, uint64_t vaddr)
{
	size_t lo = 0, hi = o->eo_nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (o->eo_syms[mid].es_value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* the first (preferred) of the aliases at that address */
	uint64_t at = o->eo_syms[lo - 1].es_value;
	while (lo > 1 && o->eo_syms[lo - 2].es_value == at)
		lo--;
	return &o->eo_syms[lo - 1];
}
