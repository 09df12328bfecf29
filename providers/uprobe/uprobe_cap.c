/*
 * uprobe_cap.c - user memory copied at the event by a multi attachment's
 * program: the strings (or bytes) its sites' arguments point to, so that
 * copyinstr(arg1) of a hit works when the process has exited (or reused
 * its buffer) by the time the drain thread reads the record, as the
 * system call route captures its string arguments (bpf.c).
 *
 * Each site says where up to PROV_UPROBE_NCAP argument values are
 * (prov_uprobe_cap_t: a register, or 8 bytes at a register plus a
 * displacement: a USDT operand on the stack).  Those descriptions go into
 * an ARRAY map indexed by the site's index (its BPF cookie's low half);
 * the program looks its site up, copies the probed registers into a
 * per-CPU scratch record (too big for the BPF stack) and, for each
 * capture, reads PROV_UCAP_BYTES at the value (bytes for copyin), or the
 * string there when that range cannot be read (a string near the end of
 * a mapping), then emits
 *
 *   {tag, cookie, probed address, ncap, ncap x {addr, len, bytes[256]}}
 *
 * len: PROV_UCAP_BYTES + 1 when the whole range was read, else
 * probe_read_user_str's result (bytes with the NUL, or -errno).  The
 * record's size is known on each path (captures are packed from the
 * first), as perf_event_output wants.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "uprobe_impl.h"
#include "bpf_util.h"

#define HDR	32
#define SLOT	(16 + PROV_UCAP_BYTES)
#define REGS	(HDR + PROV_UPROBE_NCAP * SLOT)	/* the probed registers */
#define NREGS	21				/* struct pt_regs, x86_64 */
#define SCRATCH	(REGS + NREGS * 8)

int ucap_maps(ukern_t *k, const prov_uprobe_site_t *sites, int n)
{
	union bpf_attr at;
	int any = 0;

	k->uk_spec = k->uk_scratch = -1;
	for (int i = 0; i < n && !any; i++)
		any = sites[i].pus_caps[0].puc_kind != PROV_UCAP_NONE;
	if (!any)
		return 0;
	if ((k->uk_spec = prov_bpf_map_create(BPF_MAP_TYPE_ARRAY, 4,
	    sizeof(sites[0].pus_caps), (uint32_t)n, 0)) < 0 ||
	    (k->uk_scratch = prov_bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, 4,
	    SCRATCH, 1, 0)) < 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		uint32_t key = (uint32_t)i;

		if (sites[i].pus_caps[0].puc_kind == PROV_UCAP_NONE)
			continue;
		memset(&at, 0, sizeof(at));
		at.map_fd = (uint32_t)k->uk_spec;
		at.key = (uint64_t)(uintptr_t)&key;
		at.value = (uint64_t)(uintptr_t)sites[i].pus_caps;
		if (prov_bpf_call(BPF_MAP_UPDATE_ELEM, &at) != 0)
			goto fail;
	}
	return 0;
fail:
	ucap_free(k);
	return -1;
}

void ucap_free(ukern_t *k)
{
	if (k->uk_spec >= 0)
		close(k->uk_spec);
	if (k->uk_scratch >= 0)
		close(k->uk_scratch);
	k->uk_spec = k->uk_scratch = -1;
}

/* The map's fd into r as a 64-bit immediate (two instructions). */
static int ld_map(struct bpf_insn *p, int r, int fd)
{
	p[0] = ins(BPF_LD | BPF_DW | BPF_IMM, (uint8_t)r, BPF_PSEUDO_MAP_FD,
	    0, fd);
	p[1] = ins(0, 0, 0, 0, 0);
	return 2;
}

/* Capture j of the site (r9 its descriptions, r8 the scratch record);
 * jumps to out[j] are left at the positions put into *fix. */
static int emit_cap(struct bpf_insn *p, int j, int *fix, int *nfix)
{
	int16_t d = (int16_t)(8 * j), s = (int16_t)(HDR + j * SLOT);
	int n = 0;

	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_B, 1, 9, d, 0);
	fix[(*nfix)++] = n;
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 0, PROV_UCAP_NONE);
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_B, 2, 9, (int16_t)(d + 1), 0);
	fix[(*nfix)++] = n;
	p[n++] = ins(BPF_JMP | BPF_JGT | BPF_K, 2, 0, 0, NREGS - 1);
	p[n++] = ins(BPF_ALU64 | BPF_LSH | BPF_K, 2, 0, 0, 3);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_X, 2, 8, 0, 0);
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 3, 2, REGS, 0);
	/* a register's value, or the 8 bytes at register + disp (0 when
	 * they cannot be read: probe_read_user zeroes on failure) */
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 9, PROV_UCAP_REG);
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_W, 4, 9, (int16_t)(d + 4), 0);
	p[n++] = ins(BPF_ALU64 | BPF_LSH | BPF_K, 4, 0, 0, 32);
	p[n++] = ins(BPF_ALU64 | BPF_ARSH | BPF_K, 4, 0, 0, 32);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_X, 3, 4, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -8);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 8);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user);
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 3, 10, -8, 0);
	/* the bytes there, else the string there */
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 8, 3, s, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 8, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, s + 16);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, PROV_UCAP_BYTES);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0,
	    PROV_UCAP_BYTES + 1);
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 6, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 8, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, s + 16);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, PROV_UCAP_BYTES);
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 3, 8, s, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0,
	    BPF_FUNC_probe_read_user_str);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 2, 0, 0, 0);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 8, 2, (int16_t)(s + 8), 0);
	return n;
}

int ucap_record(struct bpf_insn *p, const ukern_t *k, int outmap,
    uint64_t tag)
{
	int fix[PROV_UPROBE_NCAP + 1][4], nfix[PROV_UPROBE_NCAP + 1];
	int out[PROV_UPROBE_NCAP + 1], tailfix[PROV_UPROBE_NCAP + 1];
	int n = 0, f0;

	memset(nfix, 0, sizeof(nfix));
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_attach_cookie);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 7, 0, 0, 0);
	p[n++] = ins(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 0);
	n += ld_map(p + n, 1, k->uk_scratch);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	f0 = n;				/* no scratch: nothing to emit */
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 8, 0, 0, 0);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 8, 7, 8, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_func_ip);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 8, 0, 16, 0);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 1, 0, 0, (int32_t)tag);
	p[n++] = ins(0, 0, 0, 0, (int32_t)(tag >> 32));
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 8, 1, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 8, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, REGS);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, NREGS * 8);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 3, 6, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0,
	    BPF_FUNC_probe_read_kernel);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_W, 10, 7, -4, 0);
	n += ld_map(p + n, 1, k->uk_spec);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	fix[0][nfix[0]++] = n;
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 9, 0, 0, 0);
	for (int j = 0; j < PROV_UPROBE_NCAP; j++) {
		int base = n, m = nfix[j];

		n += emit_cap(p + n, j, fix[j], &nfix[j]);
		for (int i = m; i < nfix[j]; i++)
			fix[j][i] += base;
	}
	/* out[j]: j captures made; emit them */
	for (int j = PROV_UPROBE_NCAP; j >= 0; j--) {
		out[j] = n;
		p[n++] = ins(BPF_ST | BPF_MEM | BPF_DW, 8, 0, 24, j);
		p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 5, 0, 0,
		    HDR + j * SLOT);
		tailfix[j] = n;
		p[n++] = ins(BPF_JMP | BPF_JA, 0, 0, 0, 0);
	}
	for (int j = 0; j <= PROV_UPROBE_NCAP; j++) {
		p[tailfix[j]].off = (int16_t)(n - tailfix[j] - 1);
		for (int i = 0; i < nfix[j]; i++)
			p[fix[j][i]].off = (int16_t)(out[j] - fix[j][i] - 1);
	}
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	n += ld_map(p + n, 2, outmap);
	p[n++] = ins(BPF_ALU | BPF_MOV | BPF_K, 3, 0, 0, -1);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 4, 8, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output);
	p[f0].off = (int16_t)(n - f0 - 1);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

int ucap_parse(const uint8_t *raw, uint32_t len, ks_ucapture_t *out)
{
	uint64_t n;

	if (len < HDR - 16)
		return 0;
	memcpy(&n, raw + 8, 8);		/* raw: from the probed address */
	if (n > PROV_UPROBE_NCAP || len < HDR - 16 + n * SLOT)
		return 0;
	for (uint64_t j = 0; j < n; j++) {
		const uint8_t *s = raw + HDR - 16 + j * SLOT;
		int64_t got;

		memcpy(&out[j].kuc_addr, s, 8);
		memcpy(&got, s + 8, 8);
		/* the whole range; or a string, cut at its last byte when
		 * the kernel put a NUL there (the rest is read live) */
		out[j].kuc_len = got == PROV_UCAP_BYTES + 1 ? PROV_UCAP_BYTES :
		    got == PROV_UCAP_BYTES ? PROV_UCAP_BYTES - 1 :
		    got > 0 ? (uint32_t)got : 0;
		out[j].kuc_data = s + 16;
	}
	return (int)n;
}
