/*
 * elfsym.h - the symbol tables of one ELF object (engine/elfsym.c), and
 * the mappings of a process over time (engine/pmap.c).  Internal to the
 * engine: sym.c resolves addresses with them, the pid provider's probe
 * creation walks them, proc.c keeps one pmap per traced process.
 */
#ifndef ENG_ELFSYM_H
#define ENG_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/* One function or data object, at its link-time address (st_value). */
typedef struct eng_elfsym {
	uint64_t es_value, es_size;
	const char *es_name;		/* in the object's string block */
	uint8_t es_func;		/* STT_FUNC (or a PLT entry) */
	uint8_t es_rank;		/* alias preference: lower wins */
} eng_elfsym_t;

/*
 * A file's symbols: .symtab and .dynsym merged (aliases kept, each name
 * once per address), PLT entries as name@plt, sorted by address.
 * Objects are shared through a cache keyed by device, inode, size and
 * modification time; eng_elf_get takes a reference, eng_elf_put drops it.
 */
typedef struct eng_elfobj {
	char *eo_path;
	const char *eo_name;		/* basename of eo_path */
	int eo_dyn;			/* ET_DYN (symbols move by a bias) */
	int eo_stripped;		/* no .symtab: only .dynsym */
	uint64_t eo_vbase;		/* first PT_LOAD vaddr, page aligned */
	struct {
		uint64_t sg_vaddr, sg_off, sg_filesz;
	} eo_segs[8];			/* PT_LOAD segments (the first 8) */
	int eo_nsegs;
	eng_elfsym_t *eo_syms;
	size_t eo_nsyms;
	char *eo_strs;			/* the names */
	unsigned eo_refs;		/* guarded by the cache's lock */
	uint64_t eo_key[4];		/* dev, ino, size, mtime */
	struct eng_elfobj *eo_next;
} eng_elfobj_t;

/* The object in path (cached), or NULL with a message in err. */
eng_elfobj_t *eng_elf_get(const char *path, char *err, size_t errlen);
void eng_elf_put(eng_elfobj_t *o);
/* Parse an image in memory (the fuzz target; nothing cached). */
eng_elfobj_t *eng_elf_parse(const void *buf, size_t len, const char *path,
    char *err, size_t errlen);
void eng_elf_free(eng_elfobj_t *o);
/* The preferred symbol containing (or last at or below) vaddr, or NULL. */
const eng_elfsym_t *eng_elf_lookup(const eng_elfobj_t *o, uint64_t vaddr);
/* The file offset of link address vaddr (in a PT_LOAD's file bytes);
 * 0, or -1 if no segment holds it. */
int eng_elf_foff(const eng_elfobj_t *o, uint64_t vaddr, uint64_t *foff);
/* The dynamic linker path exe names (PT_INTERP) into buf; 0 or -1
 * (static, not ELF). */
int eng_elf_interp(const char *exe, char *buf, size_t len);
/* Drop every cached object nobody holds (tests, exit). */
void eng_elf_flush(void);

/* ---- a process's mappings -------------------------------------------- */

/* One object mapped in a process: its lowest mapping and load bias. */
typedef struct eng_pobj {
	char *po_path;
	uint64_t po_start, po_end;	/* lowest to highest mapped address */
	uint64_t po_base;		/* start of the offset-0 mapping */
	uint64_t po_bias;		/* runtime address - link address */
	int po_exec;			/* has an executable mapping */
	eng_elfobj_t *po_elf;		/* loaded on first use (may be NULL) */
	int po_tried;
	unsigned po_gen;		/* pmap generation it appeared in */
} eng_pobj_t;

/* An object mapped and unmapped between two readings of the maps. */
typedef struct eng_pgone {
	char *pg_path;
	uint64_t pg_start, pg_end;
} eng_pgone_t;
#define ENG_PGONE_MAX	256	/* kept until taken; the oldest go first */

typedef struct eng_pmap {
	int pm_pid;
	char *pm_exe;			/* /proc/PID/exe: the a.out */
	eng_pobj_t *pm_objs;
	size_t pm_nobjs;
	unsigned pm_gen;		/* bumped when objects come or go */
	double pm_read;			/* when maps were last read (mono s) */
	eng_pgone_t *pm_gone;		/* objects seen only by pmap_watch.c: */
	size_t pm_ngone;		/* a dlopen and dlclose between two
					 * readings; until map.xml takes them */
} eng_pmap_t;

eng_pmap_t *eng_pmap_new(int pid);
/* For a process not yet exec'd: the objects exe will map at its start
 * (itself, or a script's interpreter, and the libraries its dynamic
 * linker lists), without addresses.  0 or -1. */
int eng_pmap_predict(eng_pmap_t *pm, const char *exe);
void eng_pmap_free(eng_pmap_t *pm);
/* Reread /proc/PID/maps: objects mapped since stay as they were (their
 * symbols too), unmapped ones go.  1 if the set changed, 0 if not, -1 if
 * the maps could not be read (gone, a zombie: the old set is kept). */
int eng_pmap_update(eng_pmap_t *pm);
/* Add one file mapping (start to end, file offset off) to path's object
 * (made if new); 0, or -1 out of memory.  For mappings reported rather
 * than read (pmap_watch.c), of objects that have an executable mapping:
 * the object is marked po_exec. */
int eng_pmap_mapped(eng_pmap_t *pm, const char *path, uint64_t start,
    uint64_t end, uint64_t off);
/* The object holding addr, or NULL. */
eng_pobj_t *eng_pmap_find(eng_pmap_t *pm, uint64_t addr);
/* The object's symbols (loaded on first use), or NULL. */
eng_elfobj_t *eng_pmap_elf(eng_pmap_t *pm, eng_pobj_t *po);
/* dtrace's module name of an object: "a.out" for the executable. */
const char *eng_pmap_modname(const eng_pmap_t *pm, const eng_pobj_t *po);

/* pmap_watch.c: the file mappings a process makes from its exec on, as
 * the kernel reports them, kept after it exits (NULL if perf events are
 * refused); fill adds them to pm (1 if objects were added). */
typedef struct eng_pmwatch eng_pmwatch_t;
eng_pmwatch_t *eng_pmwatch_open(int pid);
int eng_pmwatch_fill(eng_pmwatch_t *w, eng_pmap_t *pm);
/* Take the ring's records; the number held.  Then, once /proc/PID/maps
 * was read after them, forget the first n: the reading covers them. */
size_t eng_pmwatch_drain(eng_pmwatch_t *w);
void eng_pmwatch_forget(eng_pmwatch_t *w, size_t n);
/* Before forgetting them: of the first n records, the objects with an
 * executable mapping that pm (just read) does not hold, added to its
 * pm_gone. */
void eng_pmwatch_gone(eng_pmwatch_t *w, size_t n, eng_pmap_t *pm);
/* Take pm's gone objects (the caller frees each pg_path and the array). */
eng_pgone_t *eng_pmap_take_gone(eng_pmap_t *pm, size_t *np);
void eng_pmwatch_close(eng_pmwatch_t *w);

/* Run fn on the pmap of a live eng_proc_t for pid (proc.c), under the
 * lock that keeps it alive; -1 if pid is no process of ours. */
int eng_proc_with_pmap(int pid, void (*fn)(eng_pmap_t *, void *),
    void *arg);
/* 1 if pid is a -c command of ours still held before its exec. */
int eng_proc_held(int pid);
/* Is pid a process created here (-c), held or not? */
int eng_proc_created(int pid);

#endif /* ENG_ELFSYM_H */
