/*
 * evaltime.c - where a created (-c) process starts to be traced
 * (-x evaltime, dtrace's dt_proc stop points), for proc.c.
 *
 * The point is an instruction of an object mapped at the exec, named by
 * device, inode and file offset, and the pass through it that counts:
 *   preinit   the dynamic linker's _dl_debug_state at its second call
 *             (the first says objects are being added, the second that
 *             the libraries are loaded; no initializer has run);
 *   postinit, main
 *             the executable's main (glibc runs the libraries'
 *             initializers before the entry point and the executable's
 *             own just before main), or its entry point without a main
 *             symbol; a static executable's preinit is its entry point.
 * The ptrace route's helper holds the process there itself
 * (prov_target_evalhold); otherwise (root) this thread does it with ptrace
 * (eng_evalwait): an int3 over the instruction, passes before the counted
 * one stepped over, the code restored at the point, the process kept
 * stopped there as our tracee until eng_evalgo detaches it.  Only the
 * thread that execs is followed: before main there is no other.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "engine.h"
#include "eng_impl.h"
#include "elfsym.h"
#include "providers.h"

/* The entry point of the ELF file at path (0: none). */
static uint64_t entry_of(const char *path)
{
	uint64_t v = 0;
	GElf_Ehdr eh;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) != NULL) {
		if (gelf_getehdr(e, &eh) != NULL)
			v = eh.e_entry;
		elf_end(e);
	}
	close(fd);
	return v;
}

/* The file offset of function name in the object at path (or, with
 * name NULL or not found and entry set, of its entry point).  0 or -1. */
static int offset_of(const char *path, const char *name, int entry,
    uint64_t *foff)
{
	char err[256];
	eng_elfobj_t *o = eng_elf_get(path, err, sizeof(err));
	uint64_t v = 0;
	int rc;

	if (o == NULL)
		return -1;
	for (size_t i = 0; name != NULL && i < o->eo_nsyms && v == 0; i++)
		if (o->eo_syms[i].es_func &&
		    strcmp(o->eo_syms[i].es_name, name) == 0)
			v = o->eo_syms[i].es_value;
	if (v == 0 && entry)
		v = entry_of(path);
	rc = v != 0 ? eng_elf_foff(o, v, foff) : -1;
	eng_elf_put(o);
	return rc;
}

static int ident(const char *path, prov_evalpt_t *ev)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -1;
	ev->pev_dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);
	ev->pev_ino = st.st_ino;
	return 0;
}

int eng_evalpoint(const char *exe, int mode, prov_evalpt_t *ev)
{
	char interp[4096];

	memset(ev, 0, sizeof(*ev));
	ev->pev_hits = 1;
	if (mode == ENG_EVALTIME_PREINIT &&
	    eng_elf_interp(exe, interp, sizeof(interp)) == 0) {
		ev->pev_hits = 2;
		return ident(interp, ev) == 0 && offset_of(interp,
		    "_dl_debug_state", 0, &ev->pev_foff) == 0 ? 0 : -1;
	}
	return ident(exe, ev) == 0 && offset_of(exe, mode == ENG_EVALTIME_PREINIT ?
	    NULL : "main", 1, &ev->pev_foff) == 0 ? 0 : -1;
}

/* Where object (dev, ino) file offset foff is mapped executable in pid,
 * 0 if nowhere. */
static uint64_t vaddr_of(int pid, const prov_evalpt_t *ev)
{
	char path[64], line[4352];
	uint64_t v = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (v == 0 && fgets(line, sizeof(line), fp) != NULL) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, mnr;
		char perm[8];

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi,
		    perm, &off, &maj, &mnr, &ino) != 7 || perm[2] != 'x' ||
		    ino != ev->pev_ino || ((uint64_t)maj << 32 | mnr) !=
		    ev->pev_dev || ev->pev_foff < off ||
		    ev->pev_foff - off >= hi - lo)
			continue;
		v = lo + (ev->pev_foff - off);
	}
	fclose(fp);
	return v;
}

/* Write byte b at addr of stopped pid (the word around it).  0 or -1. */
static int poke_byte(int pid, uint64_t addr, uint8_t b, uint8_t *old)
{
	uint64_t base = addr & ~7ull, w;
	int k = (int)(addr - base);

	errno = 0;
	w = (uint64_t)ptrace(PTRACE_PEEKDATA, pid, (void *)base, 0);
	if (errno != 0)
		return -1;
	if (old != NULL)
		*old = (uint8_t)(w >> (8 * k));
	w = (w & ~(0xffull << (8 * k))) | (uint64_t)b << (8 * k);
	return ptrace(PTRACE_POKEDATA, pid, (void *)base, (void *)w) == 0 ?
	    0 : -1;
}

int eng_evalseize(int pid)
{
	return ptrace(PTRACE_SEIZE, pid, 0, (void *)(uintptr_t)
	    (PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) == 0 ? 0 : -1;
}

/* After eng_evalseize and the exec's release: run pid to the point.
 * 1 held there (our tracee, stopped), 0 it ended (*status: its wait
 * status), -1 the point was not found (let go, it runs on). */
int eng_evalwait(int pid, const prov_evalpt_t *ev, int *status)
{
	uint32_t hits = ev->pev_hits;
	uint64_t addr = 0;
	uint8_t orig = 0;
	int st, stepping = 0;

	for (;;) {
		struct user_regs_struct r;
		int sig = 0;

		if (waitpid(pid, &st, __WALL) != pid) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*status = st;
			return 0;
		}
		if (st >> 16 == PTRACE_EVENT_EXEC) {
			addr = vaddr_of(pid, ev);
			if (addr == 0 || poke_byte(pid, addr, 0xcc, &orig) != 0) {
				ptrace(PTRACE_DETACH, pid, 0, 0);
				return -1;
			}
		} else if (st >> 16 == 0 && WSTOPSIG(st) == SIGTRAP &&
		    addr != 0 && ptrace(PTRACE_GETREGS, pid, 0, &r) == 0 &&
		    (stepping || r.rip - 1 == addr)) {
			if (stepping) {		/* past it: the int3 back */
				stepping = 0;
				(void)poke_byte(pid, addr, 0xcc, NULL);
			} else {
				r.rip = addr;
				(void)poke_byte(pid, addr, orig, NULL);
				ptrace(PTRACE_SETREGS, pid, 0, &r);
				if (--hits == 0)
					return 1;
				stepping = 1;
				ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
				continue;
			}
		} else if (st >> 16 == 0) {
			sig = WSTOPSIG(st);	/* its own signal */
		}
		ptrace(stepping ? PTRACE_SINGLESTEP : PTRACE_CONT, pid, 0,
		    (void *)(uintptr_t)sig);
	}
}

void eng_evalgo(int pid)
{
	(void)ptrace(PTRACE_DETACH, pid, 0, 0);
}
