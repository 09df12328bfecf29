/*
 * bpf_sys.c - every system call probe through one BPF program per
 * direction, on raw_syscalls:sys_enter and raw_syscalls:sys_exit.
 *
 * Why: a perf tracepoint event per syscall probe (syscalls:sys_enter_X)
 * costs an RCU wait when it is removed, ~10-60 ms each, so the 362 probes
 * of syscall:::entry took seconds to start and to exit.  Here two events
 * exist at most, whatever the number of probes.
 *
 * Shape: for each direction a PROG_ARRAY indexed by the native system
 * call number (sysmaps[ret]) and a stub attached to the raw tracepoint:
 *
 *   r3 = ctx->id; if r3 > SYS_MAXNR goto out
 *   tail_call(ctx, sysmaps[ret], r3)       (the key is a variable, so
 *                                           entries change in us)
 *   out: r0 = 0; exit                      (no body: the event is dropped)
 *
 * The miss returns 0, unlike bpf_filter.c's stubs: perf then builds no
 * sample for the tracepoint's perf events, which saves ~17 ns on every
 * system call of the machine (125 -> 108 ns per getppid() here, 74
 * untraced) while any syscall probe is on.  A perf-ring reader of
 * raw_syscalls in another tool (perf record) misses those events then,
 * as it misses the ones our predicate filters drop.  What remains (~35
 * ns) is the raw tracepoint's record and the BPF run; a raw (BTF-less
 * BPF_PROG_TYPE_RAW_TRACEPOINT) program would avoid the record, but
 * needs bodies that read arguments from pt_regs.
 *
 * Entry nr holds the probe's body (bpf.c's copy or capture program behind
 * bpf_filter.c's predicate prologue: prov_bpf_fload_at), so a syscall no
 * probe enabled costs one tail-call miss in the kernel and nothing in
 * user space, and enabling or disabling one syscall touches only its own
 * entry: other syscalls lose and double nothing.  The raw records lay out
 * id (long) and args[6] / ret where the syscalls:* formats put
 * __syscall_nr (int, the low half on little-endian x86_64) and the
 * arguments / ret, so bodies and argument maps built from the
 * per-syscall format files read them unchanged.
 *
 * raw_syscalls also fires for 32-bit (ia32 emulation) calls, numbered in
 * the i386 table; syscalls:* does not.  Each body starts with
 * prov_bpf_sys_prologue, which drops calls made with TS_COMPAT set in the
 * task's thread_info.status (offset from the kernel's BTF; one direct load
 * from bpf_get_current_task_btf() where the verifier allows it, else read
 * with bpf_probe_read_kernel()).  Without BTF
 * there is no raw route (prov_bpf_sys_map fails; callers keep the
 * per-tracepoint route), and so on every architecture but x86_64, whose
 * names by number (sysnames.c) map probes to numbers.
 *
 * A direction's event and array live while bodies use them (users[],
 * prov_bpf_sys_map holds, prov_bpf_sys_put releases): the last put hands
 * the event to bpf.c's background closer, since closing it detaches the
 * program and waits for RCU (~80 ms here), and while it stays attached
 * every system call of the machine pays for the tracepoint (~35 ns).
 * Shutdown takes both events first (prov_bpf_sys_detach).  Guarded by
 * lk.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include "prov_impl.h"
#include "bpf_util.h"

#define SYS_MAXNR 1024			/* entries of each array */
#define TS_COMPAT 0x0002		/* x86 thread_info.status bit */

/*
 * The state of bpf_sys.c: one instance (sysroute), passed to the helpers
 * below.  Each field names what guards it; [0] is the entry direction,
 * [1] the return.
 */
typedef struct sys_state {
	pthread_mutex_t lk;		/* the fields down to broken */
	int sysmaps[2];			/* lk: the dispatch arrays */
	int sysefds[2];			/* lk: the stubs' events */
	int users[2];			/* lk: holds of prov_bpf_sys_map */
	int compat_off;			/* lk for its one write (start);
					 * -2: not looked up, -1: none.
					 * prov_bpf_sys_prologue reads it
					 * once a map exists */
	int broken;			/* lk: failed once, do not retry */
	int fast;			/* the short prologue loads: -1 not
					 * tried yet; unguarded, every thread
					 * finds the same */
} sys_state_t;

static sys_state_t sysroute = {
	.lk = PTHREAD_MUTEX_INITIALIZER,
	.sysmaps = { -1, -1 },
	.sysefds = { -1, -1 },
	.compat_off = -2,
	.fast = -1,
};

/* ---- system call numbers ---- */

#if defined(__x86_64__)
/* Calls newer than sysnames.c's table (the numbering all architectures
 * share from 424 on). */
static const char *const newer[] = {
	[451 - 451] = "cachestat", [452 - 451] = "fchmodat2",
	[453 - 451] = "map_shadow_stack", [454 - 451] = "futex_wake",
	[455 - 451] = "futex_wait", [456 - 451] = "futex_requeue",
	[457 - 451] = "statmount", [458 - 451] = "listmount",
	[459 - 451] = "lsm_get_self_attr", [460 - 451] = "lsm_set_self_attr",
	[461 - 451] = "lsm_list_modules", [462 - 451] = "mseal",
	[463 - 451] = "setxattrat", [464 - 451] = "getxattrat",
	[465 - 451] = "listxattrat", [466 - 451] = "removexattrat",
	[467 - 451] = "open_tree_attr", [468 - 451] = "file_getattr",
	[469 - 451] = "file_setattr",
};
#endif

int prov_bpf_sys_nr(const char *name)
{
#if defined(__x86_64__)
	/* tracefs names that differ from the table's (the SYSCALL_DEFINE
	 * name, not the unistd one) */
	static const char *const alias[][2] = {
		{ "newstat", "stat" }, { "newfstat", "fstat" },
		{ "newlstat", "lstat" }, { "newuname", "uname" },
		{ "sendfile64", "sendfile" }, { "umount", "umount2" },
	};
	unsigned n = prov_sysname_count();

	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++)
		if (strcmp(name, newer[i]) == 0 && n <= 451)
			return (int)i + 451;
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strcmp(name, alias[i][0]) == 0)
			name = alias[i][1];
	for (unsigned nr = 0; nr < n && nr < SYS_MAXNR; nr++) {
		const char *s = prov_sysname(nr);

		if (s != NULL && strcmp(s, name) == 0)
			return (int)nr;
	}
#else
	(void)name;
#endif
	return -1;
}

/* ---- thread_info.status from BTF ---- */

static const char *btf_str(const char *strs, uint32_t len, uint32_t off)
{
	return off < len ? strs + off : "";
}

/* Bytes of kind-specific data after a btf_type. */
static size_t btf_extra(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO:
		return vlen * 8;
	case BTF_KIND_DATASEC: case BTF_KIND_ENUM64:
		return vlen * 12;
	default:
		return 0;
	}
}

/* Byte offset of member mname of struct sname, or -1. */
static int btf_member_off(const uint8_t *b, size_t len, const char *sname,
    const char *mname)
{
	const struct btf_header *h = (const void *)b;
	const uint8_t *p, *end;
	const char *strs;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > len)
		return -1;
	strs = (const char *)b + h->hdr_len + h->str_off;
	p = b + h->hdr_len + h->type_off;
	end = p + h->type_len;
	while (p + sizeof(struct btf_type) <= end) {
		const struct btf_type *t = (const void *)p;
		const struct btf_member *m = (const void *)(t + 1);

		p += sizeof(*t) + btf_extra(t);
		if (BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT || p > end ||
		    strcmp(btf_str(strs, h->str_len, t->name_off), sname))
			continue;
		for (uint32_t i = 0; i < BTF_INFO_VLEN(t->info); i++)
			if (strcmp(btf_str(strs, h->str_len, m[i].name_off),
			    mname) == 0)
				return (int)(BTF_INFO_KFLAG(t->info) ?
				    BTF_MEMBER_BIT_OFFSET(m[i].offset) :
				    m[i].offset) / 8;
	}
	return -1;
}

/* Offset of thread_info.status inside task_struct, or -1. */
static int find_compat_off(void)
{
	struct stat st;
	uint8_t *b;
	int fd, ti, st_off = -1;
	ssize_t got = 0, r;

	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_size <= 0 ||
	    (b = malloc((size_t)st.st_size)) == NULL) {
		close(fd);
		return -1;
	}
	while (got < st.st_size &&
	    (r = read(fd, b + got, (size_t)(st.st_size - got))) > 0)
		got += r;
	close(fd);
	ti = btf_member_off(b, (size_t)got, "task_struct", "thread_info");
	if (ti >= 0 && (st_off = btf_member_off(b, (size_t)got,
	    "thread_info", "status")) >= 0)
		st_off += ti;
	free(b);
	return st_off;
}

/* The fast form: bpf_get_current_task_btf() gives a pointer the
 * verifier knows as struct task_struct, so status is one direct load
 * (about 15 ns less per call than the helper read).  r6 = r1 on entry,
 * r1 = r6 on the way out, as the slow form. */
static int fast_prologue(sys_state_t *sy, struct bpf_insn *p)
{
	int n = 0;

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0,
	    BPF_FUNC_get_current_task_btf);
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_W, 1, 0, (int16_t)sy->compat_off,
	    0);
	p[n++] = ins(BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, TS_COMPAT);
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	return n;
}

/* Does this kernel's verifier take the fast form in a tracepoint
 * program?  Asked once, by loading it. */
static int fast_ok(sys_state_t *sy)
{
	struct bpf_insn p[16];
	int n, fd, ok;

	if (sy->fast >= 0)
		return sy->fast;
	n = fast_prologue(sy, p);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	fd = prov_bpf_prog_load(p, n);
	ok = fd >= 0;
	if (fd >= 0)
		close(fd);
	sy->fast = ok;
	return ok;
}

int prov_bpf_sys_prologue(struct bpf_insn *p)
{
	sys_state_t *sy = &sysroute;
	int n = 0;

	if (sy->compat_off < 0)
		return -1;
	if (sy->compat_off <= 32767 && fast_ok(sy))
		return fast_prologue(sy, p);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_task);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 3, 0, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, sy->compat_off);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -8);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 4);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel);
	p[n++] = ins(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 3, 0);	/* unread */
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_W, 1, 10, -8, 0);
	p[n++] = ins(BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, TS_COMPAT);
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	return n;
}

/* ---- the arrays and the stubs ---- */

/* Attach the stub of direction ret to its raw tracepoint: event fd. */
static int attach_stub(int ret, int map)
{
	prov_tf_format_t fmt;
	struct bpf_insn p[8];

	if (prov_tracefs_format("raw_syscalls", ret ? "sys_exit" :
	    "sys_enter", &fmt) != 0)
		return -1;
	p[0] = ins(BPF_LDX | BPF_MEM | BPF_DW, 3, 1, 8, 0);
	p[1] = ins(BPF_JMP | BPF_JGT | BPF_K, 3, 0, 3, SYS_MAXNR - 1);
	p[2] = ins(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_MAP_FD, 0, map);
	p[3] = ins(0, 0, 0, 0, 0);
	p[4] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call);
	p[5] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[6] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return prov_bpf_load_attach(p, 7, (uint64_t)fmt.tff_id);
}

static int start(sys_state_t *sy, int ret)
{
	if (sy->compat_off == -2)
		sy->compat_off = find_compat_off();
	if (sy->compat_off < 0)
		return -1;
	sy->sysmaps[ret] = prov_bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, 4, 4,
	    SYS_MAXNR, 0);
	if (sy->sysmaps[ret] < 0)
		return -1;
	sy->sysefds[ret] = attach_stub(ret, sy->sysmaps[ret]);
	if (sy->sysefds[ret] < 0) {
		close(sy->sysmaps[ret]);
		sy->sysmaps[ret] = -1;
		return -1;
	}
	return 0;
}

int prov_bpf_sys_map(int ret)
{
	sys_state_t *sy = &sysroute;
	int map;

	ret = ret != 0;
	pthread_mutex_lock(&sy->lk);
	if (sy->sysmaps[ret] < 0 && !sy->broken && start(sy, ret) != 0)
		sy->broken = 1;
	map = sy->sysmaps[ret];
	if (map >= 0)
		sy->users[ret]++;
	pthread_mutex_unlock(&sy->lk);
	return map;
}

int prov_bpf_sys_busy(void)
{
	sys_state_t *sy = &sysroute;
	int busy;

	pthread_mutex_lock(&sy->lk);
	busy = sy->users[0] + sy->users[1] > 0;
	pthread_mutex_unlock(&sy->lk);
	return busy;
}

int prov_bpf_sys_put(int ret, int *fd)
{
	sys_state_t *sy = &sysroute;
	int n = 0;

	ret = ret != 0;
	pthread_mutex_lock(&sy->lk);
	if (sy->users[ret] > 0 && --sy->users[ret] == 0) {
		if (sy->sysefds[ret] >= 0)
			fd[n++] = sy->sysefds[ret];
		sy->sysefds[ret] = -1;
		if (sy->sysmaps[ret] >= 0)	/* empty now; bodies gone */
			close(sy->sysmaps[ret]);
		sy->sysmaps[ret] = -1;
	}
	pthread_mutex_unlock(&sy->lk);
	return n;
}

int prov_bpf_sys_detach(int *fds)
{
	sys_state_t *sy = &sysroute;
	int n = 0;

	pthread_mutex_lock(&sy->lk);
	for (int r = 0; r < 2; r++) {
		if (sy->sysefds[r] >= 0)
			fds[n++] = sy->sysefds[r];
		sy->sysefds[r] = -1;
	}
	pthread_mutex_unlock(&sy->lk);
	return n;
}

void prov_bpf_sys_close(void)
{
	sys_state_t *sy = &sysroute;

	pthread_mutex_lock(&sy->lk);
	for (int r = 0; r < 2; r++) {
		if (sy->sysefds[r] >= 0)
			close(sy->sysefds[r]);
		sy->sysefds[r] = -1;
		if (sy->sysmaps[r] >= 0)
			close(sy->sysmaps[r]);
		sy->sysmaps[r] = -1;
	}
	sy->broken = 0;
	pthread_mutex_unlock(&sy->lk);
}
