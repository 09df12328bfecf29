/*
 * x86_insn.c - the length and the control-flow kind of one x86-64
 * instruction (64-bit mode), from its encoding alone: the role of
 * libdtrace's dt_instr_size for the pid provider (return and instruction
 * probes, engine/pid.c) and of a displaced-step decoder for the ptrace
 * route.
 *
 * An instruction is: legacy prefixes (F0 F2 F3, segment 26 2E 36 3E 64
 * 65, operand size 66, address size 67), a REX byte (40-4F, counted
 * only directly before the opcode), the opcode (one byte; 0F and a
 * byte; 0F 38 or 0F 3A and a byte; or a VEX (C4, C5), EVEX (62) or XOP
 * (8F with map >= 8) prefix naming the map), a ModRM byte when the
 * opcode takes one, then SIB and displacement as ModRM says, then the
 * immediate the opcode takes.  At most 15 bytes.  Opcodes invalid in
 * 64-bit mode and reserved ones are refused (-1): a caller must not
 * guess where the next instruction starts.
 *
 * The tables are per opcode map, one bit per opcode (has ModRM) and one
 * nibble (immediate kind); they are written from the opcode maps of the
 * Intel SDM volume 2 appendix A and the AMD APM volume 3.
 */
#include <string.h>
#include "providers.h"

/* immediate kinds */
enum {
	I0,		/* none */
	IB,		/* 1 byte */
	IW,		/* 2 bytes */
	IZ,		/* 2 with 66, else 4 (also with REX.W) */
	IV,		/* mov r, imm: 8 with REX.W, 2 with 66, else 4 */
	IWB,		/* enter: 2 + 1 */
	IMO,		/* moffs: 8, or 4 with 67 */
	IGRP3,		/* F6/F7: IB/IZ when ModRM.reg is 0 or 1 (test) */
	IBAD		/* invalid in 64-bit mode (or reserved) */
};

/* One-byte map: immediate kind of each opcode (prefix bytes and escapes
 * never reach this table). */
static const unsigned char imm1[256] = {
	/* 00-3F: ALU rows; x4/xC ib, x5/xD iz; push/pop seg, daa... bad */
	[0x04] = IB, [0x05] = IZ, [0x06] = IBAD, [0x07] = IBAD,
	[0x0C] = IB, [0x0D] = IZ, [0x0E] = IBAD,
	[0x14] = IB, [0x15] = IZ, [0x16] = IBAD, [0x17] = IBAD,
	[0x1C] = IB, [0x1D] = IZ, [0x1E] = IBAD, [0x1F] = IBAD,
	[0x24] = IB, [0x25] = IZ, [0x27] = IBAD,
	[0x2C] = IB, [0x2D] = IZ, [0x2F] = IBAD,
	[0x34] = IB, [0x35] = IZ, [0x37] = IBAD,
	[0x3C] = IB, [0x3D] = IZ, [0x3F] = IBAD,
	[0x60] = IBAD, [0x61] = IBAD,
	[0x68] = IZ, [0x69] = IZ, [0x6A] = IB, [0x6B] = IB,
	[0x70] = IB, [0x71] = IB, [0x72] = IB, [0x73] = IB,
	[0x74] = IB, [0x75] = IB, [0x76] = IB, [0x77] = IB,
	[0x78] = IB, [0x79] = IB, [0x7A] = IB, [0x7B] = IB,
	[0x7C] = IB, [0x7D] = IB, [0x7E] = IB, [0x7F] = IB,
	[0x80] = IB, [0x81] = IZ, [0x82] = IBAD, [0x83] = IB,
	[0x9A] = IBAD,
	[0xA0] = IMO, [0xA1] = IMO, [0xA2] = IMO, [0xA3] = IMO,
	[0xA8] = IB, [0xA9] = IZ,
	[0xB0] = IB, [0xB1] = IB, [0xB2] = IB, [0xB3] = IB,
	[0xB4] = IB, [0xB5] = IB, [0xB6] = IB, [0xB7] = IB,
	[0xB8] = IV, [0xB9] = IV, [0xBA] = IV, [0xBB] = IV,
	[0xBC] = IV, [0xBD] = IV, [0xBE] = IV, [0xBF] = IV,
	[0xC0] = IB, [0xC1] = IB, [0xC2] = IW, [0xC6] = IB, [0xC7] = IZ,
	[0xC8] = IWB, [0xCA] = IW, [0xCD] = IB, [0xCE] = IBAD,
	[0xD4] = IBAD, [0xD5] = IBAD, [0xD6] = IBAD,
	[0xE0] = IB, [0xE1] = IB, [0xE2] = IB, [0xE3] = IB,
	[0xE4] = IB, [0xE5] = IB, [0xE6] = IB, [0xE7] = IB,
	[0xE8] = IZ, [0xE9] = IZ, [0xEA] = IBAD, [0xEB] = IB,
	[0xF6] = IGRP3, [0xF7] = IGRP3,
};

/* One bit per opcode: takes a ModRM byte.  Written as 16-bit rows
 * (bit n = opcode row*16 + n). */
static const unsigned short modrm1[16] = {
	0x0f0f, 0x0f0f, 0x0f0f, 0x0f0f,	/* 00-3F: x0-x3, x8-xB */
	0x0000, 0x0000,			/* 40-5F */
	0x0a08,				/* 60-6F: 63, 69, 6B */
	0x0000,				/* 70-7F */
	0xffff,				/* 80-8F */
	0x0000, 0x0000, 0x0000,		/* 90-BF */
	0x00c3,				/* C0-CF: C0 C1 C6 C7 */
	0xff0f,				/* D0-DF: D0-D3, D8-DF */
	0x0000,				/* E0-EF */
	0xc0c0,				/* F0-FF: F6 F7 FE FF */
};

/* Two-byte map (0F xx): ModRM bit per opcode. */
static const unsigned short modrm2[16] = {
	0xa00f,				/* 00-0F: 00-03, 0D, 0F (3DNow!) */
	0xffff,				/* 10-1F */
	0xff0f,				/* 20-2F: 20-23, 28-2F */
	0x0000,				/* 30-3F */
	0xffff, 0xffff, 0xffff,		/* 40-6F */
	0xf37f,				/* 70-7F: not 77 (emms), 7A, 7B */
	0x0000,				/* 80-8F: jcc rel32 */
	0xffff,				/* 90-9F: setcc */
	0xf838,				/* A0-AF: A3-A5, AB-AF */
	0xffff,				/* B0-BF */
	0x00ff,				/* C0-CF: C0-C7 (C8-CF bswap) */
	0xffff, 0xffff, 0xffff,		/* D0-FF */
};

/* Two-byte map: refused opcodes (undefined or invalid in 64-bit). */
static const unsigned short bad2[16] = {
	0x1410,				/* 04, 0A, 0C */
	0x0000,
	0x00f0,				/* 24-27 */
	0xff00,				/* 38-3F (38, 3A are escapes) */
	0, 0, 0,
	0x0c00,				/* 7A, 7B */
	0, 0,
	0x00c0,				/* A6, A7 */
	0, 0, 0, 0,
	0x0000,
};

static int bit(const unsigned short *rows, unsigned op)
{
	return (rows[op >> 4] >> (op & 15)) & 1;
}

/* Two-byte map: immediate kind. */
static int imm2(unsigned op, int p66, int pf2)
{
	switch (op) {
	case 0x0F:			/* 3DNow!: the opcode is an imm8 */
	case 0x70: case 0x71: case 0x72: case 0x73:
	case 0xA4: case 0xAC: case 0xBA:
	case 0xC2: case 0xC4: case 0xC5: case 0xC6:
		return IB;
	case 0x78:			/* extrq/insertq ib ib; vmread none */
		return p66 || pf2 ? IW : I0;
	default:
		return I0;
	}
}

/* Bytes of ModRM, SIB and displacement at p (n available), or -1. */
static int modrm_len(const unsigned char *p, size_t n, int *riprel)
{
	unsigned mod, rm;
	int len = 1;

	if (n < 1)
		return -1;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {			/* SIB */
		if (n < 2)
			return -1;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;	/* no base: disp32 */
	} else if (mod == 0 && rm == 5) {
		*riprel = 1;
		len += 4;
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len;
}

/* Size of immediate kind k, or -1. */
static int imm_len(int k, int p66, int p67, int rexw)
{
	switch (k) {
	case I0:	return 0;
	case IB:	return 1;
	case IW:	return 2;
	case IZ:	return p66 && !rexw ? 2 : 4;
	case IV:	return rexw ? 8 : p66 ? 2 : 4;
	case IWB:	return 3;
	case IMO:	return p67 ? 4 : 8;
	default:	return -1;
	}
}

/* VEX/EVEX/XOP map 1 (0F): the opcodes with an imm8. */
static int vex_map1_imm(unsigned op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xC2 || op == 0xC4 ||
	    op == 0xC5 || op == 0xC6;
}

/* What the decoder has seen of one instruction. */
struct dec {
	const unsigned char *p;
	size_t max;			/* bytes that may be read: <= 15 */
	size_t i;			/* next byte */
	int p66, p67, pf2, pf3, rex, vex;
	unsigned op, map;		/* opcode and its map (1 = 0F) */
	int riprel;
	unsigned reg;			/* ModRM.reg, when there is one */
};

/* Legacy prefixes and REX; 0 at the opcode, -1 if out of bytes. */
static int prefixes(struct dec *d)
{
	for (; d->i < d->max; d->i++) {
		unsigned c = d->p[d->i];

		if (c >= 0x40 && c <= 0x4F) {
			d->rex = (int)c;
			continue;
		}
		switch (c) {
		case 0x66: d->p66 = 1; break;
		case 0x67: d->p67 = 1; break;
		case 0xF2: d->pf2 = 1; break;
		case 0xF3: d->pf3 = 1; break;
		case 0xF0: case 0x2E: case 0x36: case 0x3E:
		case 0x26: case 0x64: case 0x65:
			break;
		default:
			return 0;
		}
		d->rex = 0;		/* a REX not last is ignored */
	}
	return -1;
}

static int modrm(struct dec *d)
{
	int n;

	if (d->i >= d->max)
		return -1;
	d->reg = (d->p[d->i] >> 3) & 7;
	if ((n = modrm_len(d->p + d->i, d->max - d->i, &d->riprel)) < 0)
		return -1;
	d->i += (size_t)n;
	return 0;
}

/*
 * A VEX (C4, C5), EVEX (62) or XOP (8F) prefix at d->i - 1 (byte c),
 * then its opcode, ModRM and immediate; the immediate's size, or -1.
 */
static int vex(struct dec *d, unsigned c)
{
	size_t plen = c == 0xC5 ? 1 : c == 0x62 ? 3 : 2;
	unsigned b1;

	if (d->p66 || d->pf2 || d->pf3 || d->rex || d->i + plen >= d->max)
		return -1;		/* #UD, or out of bytes */
	b1 = d->p[d->i];
	if (c == 0xC5)
		d->map = 1;
	else if (c == 0x62)
		d->map = b1 & 7;
	else
		d->map = b1 & 0x1F;
	if (c == 0x62 && (d->map == 0 || d->map == 4 || d->map == 7 ||
	    (d->p[d->i + 1] & 4) == 0))
		return -1;
	if ((c == 0xC4 && (d->map < 1 || d->map > 3)) ||
	    (c == 0x8F && (d->map < 8 || d->map > 10)))
		return -1;
	d->vex = 1;
	d->i += plen;
	d->op = d->p[d->i++];
	if (!(c != 0x62 && d->map == 1 && d->op == 0x77) && modrm(d) != 0)
		return -1;		/* (vzeroupper/vzeroall: no ModRM) */
	switch (d->map) {
	case 1:		return vex_map1_imm(d->op) ? 1 : 0;
	case 3:		return 1;
	case 8:		return 1;
	case 10:	return 4;
	default:	return 0;
	}
}

/* The 0F maps, from the byte after 0F; the immediate's size, or -1. */
static int map2(struct dec *d)
{
	int k;

	if (d->i >= d->max)
		return -1;
	d->op = d->p[d->i++];
	d->map = 1;
	if (d->op == 0x38 || d->op == 0x3A) {
		d->map = d->op == 0x38 ? 2 : 3;
		if (d->i >= d->max)
			return -1;
		d->op = d->p[d->i++];
		if (modrm(d) != 0)
			return -1;
		return d->map == 3 ? 1 : 0;
	}
	if (bit(bad2, d->op))
		return -1;
	if (bit(modrm2, d->op) && modrm(d) != 0)
		return -1;
	k = imm2(d->op, d->p66, d->pf2);
	if (d->op >= 0x80 && d->op <= 0x8F)
		return 4;		/* jcc rel32: 66 does not shorten it */
	return imm_len(k, d->p66, d->p67, d->rex & 8);
}

/* The one-byte map; the immediate's size, or -1. */
static int map1(struct dec *d)
{
	int k = imm1[d->op];

	d->map = 0;
	if (k == IBAD)
		return -1;
	if (bit(modrm1, d->op) && modrm(d) != 0)
		return -1;
	if (d->op == 0xE8 || d->op == 0xE9)
		return 4;		/* call/jmp rel32, as jcc */
	if (k == IGRP3)
		return d->reg > 1 ? 0 : d->op == 0xF6 ? 1 :
		    imm_len(IZ, d->p66, d->p67, d->rex & 8);
	return imm_len(k, d->p66, d->p67, d->rex & 8);
}

/* The branch kind and displacement of a decoded instruction. */
static void classify(const struct dec *d, int imm, prov_x86_insn_t *out)
{
	const unsigned char *ip = d->p + d->i - imm;	/* the immediate */
	unsigned op = d->op;
	int rel = 0;

	out->pxi_kind = PROV_X86_OTHER;
	if (d->vex)
		return;
	if (d->map == 0) {
		if (op == 0xC3 || op == 0xC2)
			out->pxi_kind = PROV_X86_RET;
		else if (op == 0xE9 || op == 0xEB)
			out->pxi_kind = PROV_X86_JMP, rel = 1;
		else if (op == 0xE8)
			out->pxi_kind = PROV_X86_CALL, rel = 1;
		else if ((op >= 0x70 && op <= 0x7F) ||
		    (op >= 0xE0 && op <= 0xE3))
			out->pxi_kind = PROV_X86_JCC, rel = 1;
		else if (op == 0xFF && d->reg == 2)
			out->pxi_kind = PROV_X86_CALLIND;
		else if (op == 0xFF && d->reg == 4)
			out->pxi_kind = PROV_X86_JMPIND;
	} else if (d->map == 1 && op >= 0x80 && op <= 0x8F) {
		out->pxi_kind = PROV_X86_JCC;
		rel = 1;
	}
	if (!rel)
		return;
	if (imm == 1) {
		out->pxi_rel = (int8_t)ip[0];
	} else {
		int32_t v;

		memcpy(&v, ip, 4);
		out->pxi_rel = v;
	}
}

int prov_x86_decode(const void *code, size_t n, prov_x86_insn_t *out)
{
	struct dec d;
	unsigned c;
	int imm;

	memset(&d, 0, sizeof (d));
	memset(out, 0, sizeof (*out));
	d.p = code;
	d.max = n < PROV_X86_MAXLEN ? n : PROV_X86_MAXLEN;
	if (prefixes(&d) != 0)
		return -1;
	c = d.p[d.i++];
	if (c == 0x0F)
		imm = map2(&d);
	else if (c == 0xC4 || c == 0xC5 || c == 0x62 ||
	    (c == 0x8F && d.i < d.max && (d.p[d.i] & 0x1F) >= 8))
		imm = vex(&d, c);
	else {
		d.op = c;
		imm = map1(&d);
	}
	if (imm < 0 || d.i + (size_t)imm > d.max)
		return -1;
	d.i += (size_t)imm;
	out->pxi_len = (uint8_t)d.i;
	out->pxi_riprel = (uint8_t)d.riprel;
	classify(&d, imm, out);
	return (int)d.i;
}
