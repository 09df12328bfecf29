/*
 * pmap_watch.c - the mappings a -c command makes, as the kernel reports
 * them (perf's PERF_RECORD_MMAP2), for a command that exits before
 * /proc/PID/maps was ever read: a short-lived target's objects still
 * reach its pmap (symbols, map.xml).  A software dummy event on the held
 * child, enabled at its exec, records every file mapping into a ring that
 * outlives the process; eng_pmwatch_fill turns them into objects.
 * Unmappings are not reported by perf: for a live process the reading of
 * /proc/PID/maps (pmap.c) stays the truth.  Records older than a
 * successful reading are forgotten (eng_pmwatch_forget), so that when the
 * process is gone the fill adds only what it mapped since it was last
 * read (a library ld.so mapped after an early reading at the exec).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "elfsym.h"

#define WATCH_PAGES	16		/* data pages of the ring */

struct eng_pmwatch {
	int pw_fd;
	void *pw_ring;
	size_t pw_len;			/* mapped bytes (header page + data) */
	struct pw_map { char *path; uint64_t s, e, off; int x; } *pw_maps;
	size_t pw_n;
};

eng_pmwatch_t *eng_pmwatch_open(int pid)
{
	struct perf_event_attr a;
	eng_pmwatch_t *w = calloc(1, sizeof (*w));
	long pg = sysconf(_SC_PAGESIZE);

	if (w == NULL)
		return NULL;
	memset(&a, 0, sizeof (a));
	a.size = sizeof (a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = 1;
	a.mmap_data = 1;		/* a library's r-- offset-0 mapping too */
	a.mmap2 = 1;			/* with prot: objects are what runs */
	a.disabled = 1;
	a.enable_on_exec = 1;		/* not the copy of us before the exec */
	w->pw_fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
	w->pw_len = (size_t)pg * (WATCH_PAGES + 1);
	if (w->pw_fd < 0 || (w->pw_ring = mmap(NULL, w->pw_len, PROT_READ |
	    PROT_WRITE, MAP_SHARED, w->pw_fd, 0)) == MAP_FAILED) {
		if (w->pw_fd >= 0)
			close(w->pw_fd);
		free(w);
		return NULL;
	}
	return w;
}

void eng_pmwatch_close(eng_pmwatch_t *w)
{
	if (w == NULL)
		return;
	munmap(w->pw_ring, w->pw_len);
	close(w->pw_fd);
	for (size_t i = 0; i < w->pw_n; i++)
		free(w->pw_maps[i].path);
	free(w->pw_maps);
	free(w);
}

/* One PERF_RECORD_MMAP2 body: pid, tid, addr, len, pgoff, device,
 * inode, its generation, prot, flags, filename ("//anon" for none). */
static void add_map(eng_pmwatch_t *w, const char *b, size_t n)
{
	struct pw_map *nv;
	uint64_t addr, len, off;
	uint32_t prot;
	const char *file = b + 64;

	if (n <= 64 || memchr(file, '\0', n - 64) == NULL ||
	    file[0] != '/' || file[1] == '/')
		return;
	memcpy(&prot, b + 56, 4);
	memcpy(&addr, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&off, b + 24, 8);
	if ((nv = realloc(w->pw_maps, (w->pw_n + 1) * sizeof (*nv))) == NULL)
		return;
	w->pw_maps = nv;
	if ((nv[w->pw_n].path = strdup(file)) == NULL)
		return;
	nv[w->pw_n].s = addr;
	nv[w->pw_n].e = addr + len;
	nv[w->pw_n].off = off;
	nv[w->pw_n].x = (prot & PROT_EXEC) != 0;
	w->pw_n++;
}

/* Take the records the ring holds. */
static void drain(eng_pmwatch_t *w)
{
	struct perf_event_mmap_page *mp = w->pw_ring;
	char *data = (char *)w->pw_ring + mp->data_offset;
	uint64_t size = mp->data_size, head, tail = mp->data_tail;
	char rec[sizeof (struct perf_event_header) + 4096 + 64];

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	while (tail + sizeof (struct perf_event_header) <= head) {
		struct perf_event_header eh;

		for (size_t i = 0; i < sizeof (eh); i++)
			((char *)&eh)[i] = data[(tail + i) % size];
		if (eh.size < sizeof (eh) || tail + eh.size > head)
			break;
		if (eh.type == PERF_RECORD_MMAP2 && eh.size <= sizeof (rec)) {
			for (size_t i = 0; i < eh.size; i++)
				rec[i] = data[(tail + i) % size];
			add_map(w, rec + sizeof (eh), eh.size - sizeof (eh));
		}
		tail += eh.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/* Does path have an executable mapping?  (Else it is data, like the
 * dynamic linker's /etc/ld.so.cache, mapped and unmapped at start.) */
static int runs(const eng_pmwatch_t *w, const char *path)
{
	for (size_t i = 0; i < w->pw_n; i++)
		if (w->pw_maps[i].x && strcmp(w->pw_maps[i].path, path) == 0)
			return 1;
	return 0;
}

size_t eng_pmwatch_drain(eng_pmwatch_t *w)
{
	drain(w);
	return w->pw_n;
}

void eng_pmwatch_forget(eng_pmwatch_t *w, size_t n)
{
	if (n > w->pw_n)
		n = w->pw_n;
	if (n == 0)
		return;			/* (pw_maps may be NULL: no memmove) */
	for (size_t i = 0; i < n; i++)
		free(w->pw_maps[i].path);
	memmove(w->pw_maps, w->pw_maps + n, (w->pw_n - n) *
	    sizeof (w->pw_maps[0]));
	w->pw_n -= n;
}

int eng_pmwatch_fill(eng_pmwatch_t *w, eng_pmap_t *pm)
{
	size_t had = pm->pm_nobjs;

	drain(w);
	if (w->pw_n == 0)
		return 0;
	for (size_t i = 0; i < w->pw_n; i++) {
		const struct pw_map *m = &w->pw_maps[i];

		if (!runs(w, m->path))
			continue;

		if (i == 0 && pm->pm_exe == NULL)
			pm->pm_exe = strdup(m->path);	/* the exec's own */
		(void)eng_pmap_mapped(pm, m->path, m->s, m->e, m->off);
	}
	return pm->pm_nobjs != had;
}

/* Is an object of pm at path mapped over [s, e)? */
static int holds(const eng_pmap_t *pm, const char *path, uint64_t s,
    uint64_t e)
{
	for (size_t i = 0; i < pm->pm_nobjs; i++) {
		const eng_pobj_t *po = &pm->pm_objs[i];

		if (po->po_path != NULL && strcmp(po->po_path, path) == 0 &&
		    s < po->po_end && e > po->po_start)
			return 1;
	}
	return 0;
}

static void add_gone(eng_pmap_t *pm, const char *path, uint64_t s,
    uint64_t e)
{
	eng_pgone_t *v;

	for (size_t i = 0; i < pm->pm_ngone; i++) {	/* one per object */
		eng_pgone_t *g = &pm->pm_gone[i];

		if (strcmp(g->pg_path, path) == 0 && s <= g->pg_end &&
		    e >= g->pg_start) {
			g->pg_start = s < g->pg_start ? s : g->pg_start;
			g->pg_end = e > g->pg_end ? e : g->pg_end;
			return;
		}
	}
	if (pm->pm_ngone == ENG_PGONE_MAX) {		/* nobody takes them */
		free(pm->pm_gone[0].pg_path);
		memmove(pm->pm_gone, pm->pm_gone + 1, (pm->pm_ngone - 1) *
		    sizeof (*pm->pm_gone));
		pm->pm_ngone--;
	}
	if ((v = realloc(pm->pm_gone, (pm->pm_ngone + 1) * sizeof (*v))) ==
	    NULL)
		return;
	pm->pm_gone = v;
	if ((v[pm->pm_ngone].pg_path = strdup(path)) == NULL)
		return;
	v[pm->pm_ngone].pg_start = s;
	v[pm->pm_ngone].pg_end = e;
	pm->pm_ngone++;
}

/*
 * Perf reports mappings but not unmappings: a mapping of an object that
 * the reading just made does not hold was unmapped since the reading
 * before, with its object (a dlopen and dlclose within one tick).  The
 * object's range is that of its mappings reported together.
 */
void eng_pmwatch_gone(eng_pmwatch_t *w, size_t n, eng_pmap_t *pm)
{
	if (n > w->pw_n)
		n = w->pw_n;
	if (n == 0)
		return;			/* (pw_maps may be NULL: no memmove) */
	for (size_t i = 0; i < n; i++) {
		const struct pw_map *m = &w->pw_maps[i];

		if (runs(w, m->path) && !holds(pm, m->path, m->s, m->e))
			add_gone(pm, m->path, m->s, m->e);
	}
}

eng_pgone_t *eng_pmap_take_gone(eng_pmap_t *pm, size_t *np)
{
	eng_pgone_t *v = pm->pm_gone;

	*np = pm->pm_ngone;
	pm->pm_gone = NULL;
	pm->pm_ngone = 0;
	return v;
}
