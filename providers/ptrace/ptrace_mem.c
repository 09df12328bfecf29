/*
 * ptrace_mem.c - the helper's access to a tracee (ptrace_bp.c's
 * breakpoints and -x evaltime point): its memory, through /proc/PID/mem
 * (while its threads run too) or PEEK/POKEDATA (a stopped thread), its
 * registers, and where its objects are mapped (/proc/PID/maps, one
 * process's at a time).  Single-threaded like the helper: no locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include "ptrace_impl.h"

#define NMAPS 4096			/* mappings of one process */
#define MAPSBUF (1 << 20)

typedef struct bpmap {
	uint64_t lo, hi, pgoff, dev, ino;
	uint8_t x, w;
} bpmap_t;

static struct {
	bpmap_t maps[NMAPS];		/* one process's, read last */
	int nmaps;
	char buf[MAPSBUF];
} ms;

/* ---- memory ---- */

/* Read or write the process's memory through /proc/PID/mem (works while
 * its threads run, and on read-only code).  0 or -1. */
int ptm_mem_rw(int32_t pid, uint64_t addr, void *buf, size_t len, int wr)
{
	char path[40];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	if ((fd = open(path, (wr ? O_RDWR : O_RDONLY) | O_CLOEXEC)) < 0)
		return -1;
	n = wr ? pwrite(fd, buf, len, (off_t)addr) :
	    pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* A word of a stopped thread's memory (PTRACE_PEEKDATA). */
int ptm_peek(pid_t tid, uint64_t addr, uint64_t *v)
{
	errno = 0;
	*v = (uint64_t)ptrace(PTRACE_PEEKDATA, tid, (void *)addr, 0);
	return errno == 0 ? 0 : -1;
}

int ptm_poke(pid_t tid, uint64_t addr, uint64_t v)
{
	return ptrace(PTRACE_POKEDATA, tid, (void *)addr, (void *)v) == 0 ?
	    0 : -1;
}

/* n bytes at addr of a stopped thread, by aligned words. */
int ptm_peek_bytes(pid_t tid, uint64_t addr, uint8_t *out, int n)
{
	for (int i = 0; i < n; ) {
		uint64_t base = (addr + (uint64_t)i) & ~7ull, w;
		int k = (int)(addr + (uint64_t)i - base);

		if (ptm_peek(tid, base, &w) != 0)
			return -1;
		for (; k < 8 && i < n; k++)
			out[i++] = (uint8_t)(w >> (8 * k));
	}
	return 0;
}

int ptm_poke_byte(pid_t tid, uint64_t addr, uint8_t b)
{
	uint64_t base = addr & ~7ull, w;
	int k = (int)(addr - base);

	if (ptm_peek(tid, base, &w) != 0)
		return -1;
	w = (w & ~(0xffull << (8 * k))) | (uint64_t)b << (8 * k);
	return ptm_poke(tid, base, w);
}

int ptm_getregs(pid_t tid, struct user_regs_struct *r)
{
	return ptrace(PTRACE_GETREGS, tid, 0, r) == 0 ? 0 : -1;
}

void ptm_setregs(pid_t tid, struct user_regs_struct *r)
{
	(void)ptrace(PTRACE_SETREGS, tid, 0, r);
}

/* ---- where objects are mapped ---- */

static uint64_t hexnum(const char **p)
{
	uint64_t v = 0;

	for (;; (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			v = v * 16 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* Parse one maps line ("lo-hi perms pgoff maj:min inode path"). */
static void parse_map(const char *p)
{
	bpmap_t *m = &ms.maps[ms.nmaps];

	m->lo = hexnum(&p);
	p++;
	m->hi = hexnum(&p);
	if (*p++ != ' ' || strlen(p) < 5)
		return;
	m->w = p[1] == 'w';
	m->x = p[2] == 'x';
	p += 5;
	m->pgoff = hexnum(&p);
	p++;
	m->dev = hexnum(&p) << 32;
	p++;
	m->dev |= hexnum(&p);
	m->ino = 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		m->ino = m->ino * 10 + (uint64_t)(*p - '0');
	if (m->ino != 0 && ms.nmaps < NMAPS)
		ms.nmaps++;
}

/* Read pid's file mappings into ms.maps.  0 or -1. */
int ptm_read_maps(int32_t pid)
{
	char path[40];
	size_t got = 0;
	ssize_t n;
	int fd;

	ms.nmaps = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (got < MAPSBUF - 1 && (n = read(fd, ms.buf + got,
	    MAPSBUF - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	ms.buf[got] = '\0';
	for (char *l = ms.buf, *e; *l != '\0'; l = e + 1) {
		if ((e = strchr(l, '\n')) == NULL)
			break;
		*e = '\0';
		parse_map(l);
	}
	return 0;
}

/* Where file offset off of the slot's object is mapped (executable or
 * writable), 0 if nowhere. */
uint64_t ptm_to_vaddr(const prov_ptsite_t *s, uint64_t off, int exec)
{
	for (int i = 0; i < ms.nmaps; i++) {
		const bpmap_t *m = &ms.maps[i];

		if (m->ino == s->ps_ino && m->dev == s->ps_dev &&
		    off >= m->pgoff && off - m->pgoff < m->hi - m->lo &&
		    (exec ? m->x : m->w))
			return m->lo + (off - m->pgoff);
	}
	return 0;
}
