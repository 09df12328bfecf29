/*
 * note.c - the .note.stapsdt notes of an ELF object, read with libelf.
 *
 * Addresses in a note are link-time addresses; when the object was
 * prelinked (moved after linking), the note's base differs from section
 * .stapsdt.base's address and every address moves by the difference.
 * The uprobe source wants file offsets: each address is looked up in the
 * PT_LOAD segments (an address outside their file-backed part is refused:
 * a probe there could not be placed, and its semaphore would not be in
 * the file).  The function holding each probe comes from .symtab, else
 * .dynsym.
 *
 * Everything read from the file is checked before use: the file is
 * untrusted input (tests/fuzz/usdt_notes feeds it garbage).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "usdt_impl.h"

#define NT_STAPSDT 3

typedef struct reader {
	Elf *elf;
	int is64;
	char *err;
	size_t errlen;
	usdt_notes_t *out;
	int cap;
} reader_t;

static int fail(reader_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(reader_t *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The section named name, or NULL. */
static Elf_Scn *section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n != NULL && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* File offset of link-time address v (in a PT_LOAD's file part). */
static int vaddr_offset(Elf *elf, uint64_t v, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
		    ph.p_type != PT_LOAD)
			continue;
		if (v >= ph.p_vaddr && v - ph.p_vaddr < ph.p_filesz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

/*
 * Call fn(arg, name, sym) for each defined symbol of .symtab, then of
 * .dynsym, until it returns non-zero (then that value); 0 at the end.
 */
static int walk_syms(Elf *elf, int (*fn)(void *, const char *,
    const GElf_Sym *), void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;

	for (int pass = 0; pass < 2; pass++) {
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type !=
			    (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
			    sh.sh_entsize == 0 ||
			    (d = elf_getdata(scn, NULL)) == NULL)
				continue;
			for (size_t i = 0; i < d->d_size / sh.sh_entsize; i++) {
				const char *n;
				int rc;

				if (gelf_getsym(d, (int)i, &sym) == NULL ||
				    sym.st_shndx == SHN_UNDEF ||
				    (n = elf_strptr(elf, sh.sh_link,
				    sym.st_name)) == NULL)
					continue;
				if ((rc = fn(arg, n, &sym)) != 0)
					return rc;
			}
		}
	}
	return 0;
}

struct sym_want { const char *name; uint64_t *vaddr; };

static int want_name(void *arg, const char *name, const GElf_Sym *sym)
{
	struct sym_want *w = arg;

	if (strcmp(name, w->name) != 0)
		return 0;
	*w->vaddr = sym->st_value;
	return 1;
}

/* Look name up in .symtab then .dynsym: lookup callback of args.c. */
static int sym_lookup(void *arg, const char *name, uint64_t *vaddr)
{
	struct sym_want w = { name, vaddr };

	return walk_syms(arg, want_name, &w) ? 0 : -1;
}

/* Give the notes whose pc lies in this FUNC symbol its name. */
static int name_notes(void *arg, const char *name, const GElf_Sym *sym)
{
	reader_t *r = arg;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_size == 0 ||
	    *name == '\0')
		return 0;
	for (int k = 0; k < r->out->un_n; k++) {
		usdt_note_t *un = &r->out->un_notes[k];

		if (un->un_func == NULL && un->un_pc >= sym->st_value &&
		    un->un_pc - sym->st_value < sym->st_size)
			un->un_func = strdup(name);
	}
	return 0;
}

/* Name each note's function: the FUNC symbol whose range holds its pc
 * (.symtab first: it names static functions too). */
static void name_functions(reader_t *r)
{
	(void)walk_syms(r->elf, name_notes, r);
	for (int k = 0; k < r->out->un_n; k++)
		if (r->out->un_notes[k].un_func == NULL)
			r->out->un_notes[k].un_func = strdup("");
}

/* A NUL-terminated string at *pos within desc[0, len); advances. */
static const char *str_at(const char *desc, size_t len, size_t *pos)
{
	const char *s = desc + *pos;
	const char *nul;

	if (*pos >= len || (nul = memchr(s, '\0', len - *pos)) == NULL)
		return NULL;
	*pos += (size_t)(nul - s) + 1;
	return s;
}

static uint64_t word(const char *p, int is64)
{
	uint64_t v = 0;
	uint32_t w;

	if (is64) {
		memcpy(&v, p, 8);
	} else {
		memcpy(&w, p, 4);
		v = w;
	}
	return v;
}

/* One note's description (desc, len bytes); base: .stapsdt.base's
 * address, or 0 if the object has none. */
static int one_note(reader_t *r, const char *desc, size_t len,
    uint64_t base)
{
	size_t asz = r->is64 ? 8 : 4, pos = 3 * asz;
	const char *prov, *name, *args;
	uint64_t pc, nbase, sema;
	usdt_note_t *un;
	char aerr[128];

	if (len < pos)
		return fail(r, "a stapsdt note is too short");
	pc = word(desc, r->is64);
	nbase = word(desc + asz, r->is64);
	sema = word(desc + 2 * asz, r->is64);
	if ((prov = str_at(desc, len, &pos)) == NULL ||
	    (name = str_at(desc, len, &pos)) == NULL)
		return fail(r, "a stapsdt note has no provider or name");
	if ((args = str_at(desc, len, &pos)) == NULL)
		args = "";
	if (*prov == '\0' || *name == '\0')
		return fail(r, "a stapsdt note has an empty name");
	if (base != 0 && nbase != 0) {		/* prelinked: move */
		pc += base - nbase;
		if (sema != 0)
			sema += base - nbase;
	}
	if (r->out->un_n == r->cap) {
		int cap = r->cap ? r->cap * 2 : 16;
		usdt_note_t *p = realloc(r->out->un_notes,
		    sizeof(*p) * (size_t)cap);

		if (p == NULL)
			return fail(r, "out of memory");
		r->out->un_notes = p;
		r->cap = cap;
	}
	un = &r->out->un_notes[r->out->un_n];
	memset(un, 0, sizeof(*un));
	un->un_pc = pc;
	if (vaddr_offset(r->elf, pc, &un->un_off) != 0)
		return fail(r, "probe %s is outside the object's loaded "
		    "segments", name);
	if (sema != 0 && vaddr_offset(r->elf, sema, &un->un_semaoff) != 0)
		return fail(r, "the semaphore of probe %s is outside the "
		    "object's loaded data", name);
	un->un_prov = strdup(prov);
	un->un_name = strdup(name);
	un->un_argstr = strdup(args);
	r->out->un_n++;
	if (un->un_prov == NULL || un->un_name == NULL ||
	    un->un_argstr == NULL)
		return fail(r, "out of memory");
	un->un_nargs = usdt_args_parse(args, un->un_args, USDT_MAXARGS,
	    sym_lookup, r->elf, aerr, sizeof(aerr));
	return 0;
}

static int read_notes(reader_t *r, Elf_Scn *scn, uint64_t base)
{
	Elf_Data *d = NULL;
	GElf_Nhdr nh;
	size_t off = 0, noff, doff, next;

	while ((d = elf_getdata(scn, d)) != NULL) {
		off = 0;
		while (off < d->d_size && (next = gelf_getnote(d, off, &nh,
		    &noff, &doff)) > 0) {
			if (nh.n_type == NT_STAPSDT && nh.n_namesz == 8 &&
			    memcmp((const char *)d->d_buf + noff, "stapsdt",
			    8) == 0 && one_note(r, (const char *)d->d_buf +
			    doff, nh.n_descsz, base) != 0)
				return -1;
			off = next;
		}
	}
	return 0;
}

int usdt_notes_read(const void *img, size_t len, usdt_notes_t *out,
    char *err, size_t errlen)
{
	reader_t r = { NULL, 0, err, errlen, out, 0 };
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	uint64_t base = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	r.elf = elf_memory((char *)(uintptr_t)img, len);
	if (r.elf == NULL || elf_kind(r.elf) != ELF_K_ELF ||
	    gelf_getehdr(r.elf, &eh) == NULL) {
		if (r.elf != NULL)
			elf_end(r.elf);
		snprintf(err, errlen, "not an ELF file");
		return -1;
	}
	r.is64 = gelf_getclass(r.elf) == ELFCLASS64;
	if ((scn = section(r.elf, ".stapsdt.base")) != NULL &&
	    gelf_getshdr(scn, &sh) != NULL)
		base = sh.sh_addr;
	if ((scn = section(r.elf, ".note.stapsdt")) != NULL) {
		rc = read_notes(&r, scn, base);
		if (rc == 0)
			name_functions(&r);
	}
	elf_end(r.elf);
	if (rc != 0)
		usdt_notes_free(out);
	return rc;
}

int usdt_notes_file(const char *path, usdt_notes_t *out, char *err,
    size_t errlen)
{
	struct stat st;
	void *img;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) != 0) {
		int e = errno;		/* kept for the caller (EMFILE...) */

		snprintf(err, errlen, "cannot open: %s", strerror(e));
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		snprintf(err, errlen, "not an ELF file");
		return -1;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		snprintf(err, errlen, "cannot map: %m");
		return -1;
	}
	rc = usdt_notes_read(img, (size_t)st.st_size, out, err, errlen);
	munmap(img, (size_t)st.st_size);
	return rc;
}

void usdt_notes_free(usdt_notes_t *n)
{
	for (int i = 0; i < n->un_n; i++) {
		free(n->un_notes[i].un_prov);
		free(n->un_notes[i].un_name);
		free(n->un_notes[i].un_func);
		free(n->un_notes[i].un_argstr);
	}
	free(n->un_notes);
	memset(n, 0, sizeof(*n));
}
