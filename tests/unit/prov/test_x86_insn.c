/*
 * test_x86_insn.c - the x86-64 instruction decoder (providers/x86/):
 * lengths and kinds of hand-picked encodings (every prefix kind, REX.W
 * immediates, moffs, VEX/EVEX/XOP maps, groups whose immediate depends
 * on ModRM.reg, SIB without base, RIP-relative operands) and refusals
 * (invalid in 64-bit mode, reserved, truncated, longer than 15 bytes);
 * then every instruction `objdump -dw` shows in this machine's libc,
 * python3 and libstdc++, whose lengths binutils knows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "providers.h"

struct known {
	const char *hex;		/* the bytes, in hex */
	int len;			/* decoded length, -1 refused */
	int kind;
	int64_t rel;
};

static const struct known cases[] = {
	{ "c3", 1, PROV_X86_RET, 0 },
	{ "f3c3", 2, PROV_X86_RET, 0 },			/* repz ret */
	{ "f2c3", 2, PROV_X86_RET, 0 },			/* bnd ret */
	{ "c20800", 3, PROV_X86_RET, 0 },		/* ret $8 */
	{ "cb", 1, PROV_X86_OTHER, 0 },			/* far ret */
	{ "e9fbffffff", 5, PROV_X86_JMP, -5 },
	{ "ebfe", 2, PROV_X86_JMP, -2 },
	{ "66e900000000", 6, PROV_X86_JMP, 0 },		/* 66 ignored */
	{ "e810000000", 5, PROV_X86_CALL, 16 },
	{ "7405", 2, PROV_X86_JCC, 5 },
	{ "e3f0", 2, PROV_X86_JCC, -16 },		/* jrcxz */
	{ "0f8480000000", 6, PROV_X86_JCC, 128 },
	{ "ffe0", 2, PROV_X86_JMPIND, 0 },
	{ "3effe0", 3, PROV_X86_JMPIND, 0 },		/* notrack */
	{ "ff15aabbccdd", 6, PROV_X86_CALLIND, 0 },	/* call *x(%rip) */
	{ "ff2425ddccbbaa", 7, PROV_X86_JMPIND, 0 },	/* SIB, no base */
	{ "48b88877665544332211", 10, PROV_X86_OTHER, 0 },	/* movabs */
	{ "66b83412", 4, PROV_X86_OTHER, 0 },		/* mov $x,%ax */
	{ "b878563412", 5, PROV_X86_OTHER, 0 },
	{ "66480581000000", 7, PROV_X86_OTHER, 0 },	/* REX.W beats 66 */
	{ "6605ffff", 4, PROV_X86_OTHER, 0 },
	{ "a18877665544332211", 9, PROV_X86_OTHER, 0 },	/* moffs64 */
	{ "67a144332211", 6, PROV_X86_OTHER, 0 },	/* moffs32 */
	{ "f6c001", 3, PROV_X86_OTHER, 0 },		/* test $1,%al */
	{ "f6d0", 2, PROV_X86_OTHER, 0 },		/* not %al */
	{ "f7c078563412", 6, PROV_X86_OTHER, 0 },	/* test $x,%eax */
	{ "66f7c03412", 5, PROV_X86_OTHER, 0 },
	{ "f7d8", 2, PROV_X86_OTHER, 0 },		/* neg %eax */
	{ "c8100000", 4, PROV_X86_OTHER, 0 },		/* enter */
	{ "8b0500000000", 6, PROV_X86_OTHER, 0 },	/* rip-relative */
	{ "8b442408", 4, PROV_X86_OTHER, 0 },
	{ "8b8424ff000000", 7, PROV_X86_OTHER, 0 },
	{ "8b4500", 3, PROV_X86_OTHER, 0 },
	{ "c7058000000001000000", 10, PROV_X86_OTHER, 0 },	/* rip + imm */
	{ "f30f1efa", 4, PROV_X86_OTHER, 0 },		/* endbr64 */
	{ "0f0b", 2, PROV_X86_OTHER, 0 },		/* ud2 */
	{ "0f05", 2, PROV_X86_OTHER, 0 },		/* syscall */
	{ "0fa2", 2, PROV_X86_OTHER, 0 },		/* cpuid */
	{ "0fbae305", 4, PROV_X86_OTHER, 0 },		/* bt $5,%ebx */
	{ "660f3a0fc108", 6, PROV_X86_OTHER, 0 },	/* palignr */
	{ "660f3800c1", 5, PROV_X86_OTHER, 0 },		/* pshufb */
	{ "660f7800ff01", 6, PROV_X86_OTHER, 0 },	/* extrq ib ib */
	{ "0f0fc1b4", 4, PROV_X86_OTHER, 0 },		/* 3DNow! pfadd */
	{ "c5f877", 3, PROV_X86_OTHER, 0 },		/* vzeroupper */
	{ "c5fd6fc1", 4, PROV_X86_OTHER, 0 },		/* vmovdqa */
	{ "c5f970c11b", 5, PROV_X86_OTHER, 0 },		/* vpshufd ib */
	{ "c4e3790fc108", 6, PROV_X86_OTHER, 0 },	/* vpalignr */
	{ "c4e27d58c1", 5, PROV_X86_OTHER, 0 },		/* vpbroadcastd */
	{ "62f17c4810442401", 8, PROV_X86_OTHER, 0 },
	{ "62f37d4803c101", 7, PROV_X86_OTHER, 0 },	/* valignd ib */
	{ "8fe97880c1", 5, PROV_X86_OTHER, 0 },		/* XOP map 9 */
	{ "8fe878a2c110", 6, PROV_X86_OTHER, 0 },	/* XOP map 8 ib */
	{ "8fea7810c078563412", 9, PROV_X86_OTHER, 0 },	/* XOP map A */
	{ "8f00", 2, PROV_X86_OTHER, 0 },		/* pop (%rax) */
	{ "f0830424ff", 5, PROV_X86_OTHER, 0 },		/* lock add */
	{ "662e0f1f840000000000", 10, PROV_X86_OTHER, 0 },
	/* refused */
	{ "06", -1, 0, 0 },				/* push %es */
	{ "d6", -1, 0, 0 },
	{ "0f04", -1, 0, 0 },
	{ "0f3f", -1, 0, 0 },
	{ "48", -1, 0, 0 },				/* REX, no opcode */
	{ "e80000", -1, 0, 0 },				/* truncated */
	{ "8b84", -1, 0, 0 },				/* no SIB */
	{ "66c5f877", -1, 0, 0 },			/* VEX after 66 */
	{ "c4e0790fc1", -1, 0, 0 },			/* VEX map 0 */
	{ "6666666666666666666666666666669090", -1, 0, 0 },	/* > 15 */
	{ "62f17c48104424", -1, 0, 0 },			/* no disp8 */
	{ "", -1, 0, 0 },
};

static size_t unhex(const char *s, unsigned char *out)
{
	size_t n = 0;

	for (; s[0] != '\0' && s[1] != '\0'; s += 2) {
		unsigned v;

		sscanf(s, "%2x", &v);
		out[n++] = (unsigned char)v;
	}
	return n;
}

static void known(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		unsigned char b[32];
		size_t n = unhex(cases[i].hex, b);
		prov_x86_insn_t in;
		int len = prov_x86_decode(b, n, &in);

		if (len != cases[i].len)
			fail_msg("%s: length %d, want %d", cases[i].hex, len,
			    cases[i].len);
		if (len > 0 && (in.pxi_kind != cases[i].kind ||
		    in.pxi_rel != cases[i].rel || in.pxi_len != len))
			fail_msg("%s: kind %d rel %lld, want %d %lld",
			    cases[i].hex, in.pxi_kind, (long long)in.pxi_rel,
			    cases[i].kind, (long long)cases[i].rel);
	}
}

static void riprel(void **state)
{
	unsigned char b[16];
	prov_x86_insn_t in;

	(void)state;
	assert_int_equal(prov_x86_decode(b, unhex("488b0510000000", b), &in),
	    7);
	assert_true(in.pxi_riprel);
	assert_int_equal(prov_x86_decode(b, unhex("488b0424", b), &in), 4);
	assert_false(in.pxi_riprel);
}

/* Prefix bytes objdump may print on a line of their own. */
static int all_prefixes(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((b[i] >= 0x40 && b[i] <= 0x4f) || b[i] == 0x66 ||
		    b[i] == 0x67 || b[i] == 0xf0 || b[i] == 0xf2 ||
		    b[i] == 0xf3 || b[i] == 0x2e || b[i] == 0x3e ||
		    b[i] == 0x26 || b[i] == 0x36 || b[i] == 0x64 ||
		    b[i] == 0x65))
			return 0;
	return n > 0;
}

/* Decode every instruction objdump shows in path: its length must be
 * the one objdump printed.  The number checked, -1 if no objdump. */
static long against_objdump(const char *path, long *bad)
{
	char cmd[512], line[1024];
	unsigned char b[64];
	size_t pend = 0;
	long n = 0;
	FILE *fp;

	if (access(path, R_OK) != 0)
		return 0;
	snprintf(cmd, sizeof (cmd), "objdump -dw '%s' 2>/dev/null", path);
	if ((fp = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof (line), fp) != NULL) {
		char *t1 = strchr(line, '\t'), *t2, *s;
		prov_x86_insn_t in;
		size_t k = pend;

		if (t1 == NULL || (t2 = strchr(t1 + 1, '\t')) == NULL ||
		    strstr(t2, "(bad)") != NULL || strstr(t2, ".byte") != NULL) {
			pend = 0;
			continue;
		}
		for (s = t1 + 1; s < t2 && k < sizeof (b); ) {
			unsigned v;
			int used;

			if (sscanf(s, "%2x%n", &v, &used) != 1)
				break;
			b[k++] = (unsigned char)v;
			s += used;
			while (*s == ' ')
				s++;
		}
		if (all_prefixes(b + pend, k - pend) && k < 15) {
			pend = k;	/* prefixes shown apart: with the next */
			continue;
		}
		pend = 0;
		n++;
		/* objdump shows fwait with the x87 instruction after it */
		if (k > 1 && b[0] == 0x9b && prov_x86_decode(b, k, &in) == 1 &&
		    prov_x86_decode(b + 1, k - 1, &in) == (int)k - 1)
			continue;
		if (prov_x86_decode(b, k, &in) != (int)k && ++*bad <= 10) {
			fprintf(stderr, "%s: length %d, objdump %zu: %s", path,
			    prov_x86_decode(b, k, &in), k, t1 + 1);
		}
	}
	return pclose(fp) == 0 || n > 0 ? n : -1;
}

static void objdump_agrees(void **state)
{
	static const char *const files[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/bin/python3.11",
		"/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/lib/x86_64-linux-gnu/libm.so.6",
	};
	long total = 0, bad = 0;

	(void)state;
	if (system("objdump --version >/dev/null 2>&1") != 0)
		skip();
	for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++) {
		long n = against_objdump(files[i], &bad);

		assert_true(n >= 0);
		total += n;
	}
	fprintf(stderr, "%ld instructions checked against objdump, %ld "
	    "differ\n", total, bad);
	assert_true(total > 100000);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known),
		cmocka_unit_test(riprel),
		cmocka_unit_test(objdump_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
