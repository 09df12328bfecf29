/*
 * dtrace_abi.h - the ABI shared by the engine (libdtrace's role) and the
 * kernel shim (the DTrace kernel module's role): the sys/dtrace.h of dtui.
 *
 * Everything here is named and numbered as in the OpenDTrace specification
 * (../shared/seeds/opendtrace-specification.txt) and the illumos headers it
 * describes, so code reads like the spec:
 *   - DIF: opcodes (Tables 8.1-8.4), instruction formats (ch. 7.2),
 *     subroutines (Tables 10.1-10.2), built-in variables (ch. 9), types.
 *   - DOF: file header, section headers and the loadable section structures
 *     (ch. 6, Table 6.1).
 *   - Records: dtrace_rechdr_t, dtrace_recdesc_t, dtrace_eprobedesc_t,
 *     dtrace_aggdesc_t, dtrace_probedesc_t (ch. 5).
 *   - Action, aggregation, fault and drop kinds, options, status, and the
 *     ioctl-like command set of the shim.
 *
 * Where the spec contradicts itself the tables win and numbers stay unique;
 * each such place carries a "spec:" comment.  Nothing here allocates or has
 * behaviour; this header compiles on its own.
 */
#ifndef DTRACE_ABI_H
#define DTRACE_ABI_H

#include <stdint.h>
#include <stddef.h>

typedef uint32_t dtrace_id_t;		/* probe identifier */
typedef uint32_t dtrace_epid_t;		/* enabled probe identifier */
typedef uint32_t dtrace_aggid_t;	/* aggregation identifier */
typedef int64_t dtrace_aggvarid_t;	/* compiler's aggregation variable id */
typedef uint16_t dtrace_actkind_t;	/* action kind */
typedef int64_t dtrace_optval_t;	/* option value */
typedef uint32_t dif_instr_t;		/* one DIF instruction */
typedef uint32_t dof_secidx_t;		/* index into DOF section headers */
typedef uint32_t dof_stridx_t;		/* offset into a DOF string table */

#define DTRACE_IDNONE		0
#define DTRACE_EPIDNONE		0
#define DTRACE_AGGIDNONE	0
#define DTRACE_AGGVARIDNONE	0
#define DOF_SECIDX_NONE		((dof_secidx_t)-1)
#define DOF_STRIDX_NONE		((dof_stridx_t)-1)

#define DTRACE_PROVNAMELEN	64
#define DTRACE_MODNAMELEN	64
#define DTRACE_FUNCNAMELEN	192
#define DTRACE_NAMELEN		64
#define DTRACE_FULLNAMELEN	(DTRACE_PROVNAMELEN + DTRACE_MODNAMELEN + \
				 DTRACE_FUNCNAMELEN + DTRACE_NAMELEN + 4)
#define DTRACE_ARGTYPELEN	128
#define DTRACE_MAXARGS		10	/* arg0 .. arg9 */

/* ---------------------------------------------------------------------- */
/* DIF: instruction set (spec ch. 7-8)                                    */
/* ---------------------------------------------------------------------- */

#define DIF_VERSION_1		1
#define DIF_VERSION_2		2
#define DIF_VERSION		DIF_VERSION_2
#define DIF_DIR_NREGS		8	/* integer registers, %r0 is zero */
#define DIF_DTR_NREGS		8	/* tuple registers (tuple stack depth) */

/*
 * Operand formats, used by the verifier and the disassembler:
 *   R1_R2_RD  r1, r2 -> rd          R1_RD   r1 -> rd        R1_R2  compare
 *   R1        test r1               LABEL   B-format        RD     ret rd
 *   NONE      no operands           INT_RD  setx idx -> rd   STR_RD sets
 *   VAR_RD    16-bit var -> rd      RS_VAR  rs -> 16-bit var
 *   AVAR_R2_RD 8-bit array var, index r2 -> rd
 *   SUBR_RD   call subr -> rd       TUPLE   pusht* type, r2 size, rs value
 *   R1_RD_ST  store r1 to [rd]      XLATE   translator reference
 */
enum dif_opfmt {
	DIF_FMT_NONE, DIF_FMT_R1_R2_RD, DIF_FMT_R1_RD, DIF_FMT_R1_R2,
	DIF_FMT_R1, DIF_FMT_LABEL, DIF_FMT_RD, DIF_FMT_INT_RD,
	DIF_FMT_STR_RD, DIF_FMT_VAR_RD, DIF_FMT_RS_VAR, DIF_FMT_AVAR_R2_RD,
	DIF_FMT_SUBR_RD, DIF_FMT_TUPLE, DIF_FMT_R1_RD_ST, DIF_FMT_XLATE,
	DIF_FMT_R2_RD
};

/*
 * value, name, operand format, meaning.  Numbers are from Tables 8.1-8.4.
 * spec: Table 8.2 gives RLDUW the number 75, which RLDUH already has; the
 * sequence (and illumos) make RLDUW 76.  Table 8.1 labels SREM "unsigned"
 * and UREM "signed"; the names are right and the labels swapped.
 */
#define DIF_OPCODES(X) \
	X(0x01, OR,      R1_R2_RD,   "rd = r1 | r2") \
	X(0x02, XOR,     R1_R2_RD,   "rd = r1 ^ r2") \
	X(0x03, AND,     R1_R2_RD,   "rd = r1 & r2") \
	X(0x04, SLL,     R1_R2_RD,   "rd = r1 << r2") \
	X(0x05, SRL,     R1_R2_RD,   "rd = r1 >> r2 (logical)") \
	X(0x06, SUB,     R1_R2_RD,   "rd = r1 - r2") \
	X(0x07, ADD,     R1_R2_RD,   "rd = r1 + r2") \
	X(0x08, MUL,     R1_R2_RD,   "rd = r1 * r2") \
	X(0x09, SDIV,    R1_R2_RD,   "rd = r1 / r2 (signed)") \
	X(0x0a, UDIV,    R1_R2_RD,   "rd = r1 / r2 (unsigned)") \
	X(0x0b, SREM,    R1_R2_RD,   "rd = r1 % r2 (signed)") \
	X(0x0c, UREM,    R1_R2_RD,   "rd = r1 % r2 (unsigned)") \
	X(0x0d, NOT,     R1_RD,      "rd = ~r1") \
	X(0x0e, MOV,     R1_RD,      "rd = r1") \
	X(0x0f, CMP,     R1_R2,      "cc = r1 - r2") \
	X(0x10, TST,     R1,         "cc = r1 - 0") \
	X(0x11, BA,      LABEL,      "pc = label") \
	X(0x12, BE,      LABEL,      "if cc_z: pc = label") \
	X(0x13, BNE,     LABEL,      "if !cc_z: pc = label") \
	X(0x14, BG,      LABEL,      "if !(cc_z | (cc_n ^ cc_v)): pc = label") \
	X(0x15, BGU,     LABEL,      "if !(cc_c | cc_z): pc = label") \
	X(0x16, BGE,     LABEL,      "if !(cc_n ^ cc_v): pc = label") \
	X(0x17, BGEU,    LABEL,      "if !cc_c: pc = label") \
	X(0x18, BL,      LABEL,      "if cc_n ^ cc_v: pc = label") \
	X(0x19, BLU,     LABEL,      "if cc_c: pc = label") \
	X(0x1a, BLE,     LABEL,      "if cc_z | (cc_n ^ cc_v): pc = label") \
	X(0x1b, BLEU,    LABEL,      "if cc_c | cc_z: pc = label") \
	X(0x1c, LDSB,    R1_RD,      "rd = (int8_t)[r1]") \
	X(0x1d, LDSH,    R1_RD,      "rd = (int16_t)[r1]") \
	X(0x1e, LDSW,    R1_RD,      "rd = (int32_t)[r1]") \
	X(0x1f, LDUB,    R1_RD,      "rd = (uint8_t)[r1]") \
	X(0x20, LDUH,    R1_RD,      "rd = (uint16_t)[r1]") \
	X(0x21, LDUW,    R1_RD,      "rd = (uint32_t)[r1]") \
	X(0x22, LDX,     R1_RD,      "rd = (uint64_t)[r1]") \
	X(0x23, RET,     RD,         "return rd") \
	X(0x24, NOP,     NONE,       "no operation") \
	X(0x25, SETX,    INT_RD,     "rd = inttab[idx]") \
	X(0x26, SETS,    STR_RD,     "rd = &strtab[idx]") \
	X(0x27, SCMP,    R1_R2,      "cc = strcmp(r1, r2)") \
	X(0x28, LDGA,    AVAR_R2_RD, "rd = builtin_array[r2]") \
	X(0x29, LDGS,    VAR_RD,     "rd = global scalar var") \
	X(0x2a, STGS,    RS_VAR,     "global scalar var = rs") \
	X(0x2b, LDTA,    AVAR_R2_RD, "thread-local array (unused)") \
	X(0x2c, LDTS,    VAR_RD,     "rd = thread-local scalar var") \
	X(0x2d, STTS,    RS_VAR,     "thread-local scalar var = rs") \
	X(0x2e, SRA,     R1_R2_RD,   "rd = r1 >> r2 (arithmetic)") \
	X(0x2f, CALL,    SUBR_RD,    "rd = subr(tuple stack)") \
	X(0x30, PUSHTR,  TUPLE,      "push ref rs of size r2") \
	X(0x31, PUSHTV,  TUPLE,      "push value rs") \
	X(0x32, POPTS,   NONE,       "pop the tuple stack") \
	X(0x33, FLUSHTS, NONE,       "empty the tuple stack") \
	X(0x34, LDGAA,   VAR_RD,     "rd = global assoc var[tuple]") \
	X(0x35, LDTAA,   VAR_RD,     "rd = thread-local assoc var[tuple]") \
	X(0x36, STGAA,   RS_VAR,     "global assoc var[tuple] = rs") \
	X(0x37, STTAA,   RS_VAR,     "thread-local assoc var[tuple] = rs") \
	X(0x38, LDLS,    VAR_RD,     "rd = clause-local var") \
	X(0x39, STLS,    RS_VAR,     "clause-local var = rs") \
	X(0x3a, ALLOCS,  R1_RD,      "rd = scratch alloc of r1 bytes") \
	X(0x3b, COPYS,   R1_R2_RD,   "copy r2 bytes from [r1] to [rd]") \
	X(0x3c, STB,     R1_RD_ST,   "[rd] = (uint8_t)r1") \
	X(0x3d, STH,     R1_RD_ST,   "[rd] = (uint16_t)r1") \
	X(0x3e, STW,     R1_RD_ST,   "[rd] = (uint32_t)r1") \
	X(0x3f, STX,     R1_RD_ST,   "[rd] = (uint64_t)r1") \
	X(0x40, ULDSB,   R1_RD,      "rd = (int8_t)user[r1]") \
	X(0x41, ULDSH,   R1_RD,      "rd = (int16_t)user[r1]") \
	X(0x42, ULDSW,   R1_RD,      "rd = (int32_t)user[r1]") \
	X(0x43, ULDUB,   R1_RD,      "rd = (uint8_t)user[r1]") \
	X(0x44, ULDUH,   R1_RD,      "rd = (uint16_t)user[r1]") \
	X(0x45, ULDUW,   R1_RD,      "rd = (uint32_t)user[r1]") \
	X(0x46, ULDX,    R1_RD,      "rd = (uint64_t)user[r1]") \
	X(0x47, RLDSB,   R1_RD,      "rd = (int8_t)[r1], if readable") \
	X(0x48, RLDSH,   R1_RD,      "rd = (int16_t)[r1], if readable") \
	X(0x49, RLDSW,   R1_RD,      "rd = (int32_t)[r1], if readable") \
	X(0x4a, RLDUB,   R1_RD,      "rd = (uint8_t)[r1], if readable") \
	X(0x4b, RLDUH,   R1_RD,      "rd = (uint16_t)[r1], if readable") \
	X(0x4c, RLDUW,   R1_RD,      "rd = (uint32_t)[r1], if readable") \
	X(0x4d, RLDX,    R1_RD,      "rd = (uint64_t)[r1], if readable") \
	X(0x4e, XLATE,   XLATE,      "translate (refused by the verifier)") \
	X(0x4f, XLARG,   XLATE,      "translator argument (refused)")

enum dif_opcode {
#define DIF_OP_ENUM(v, n, f, d) DIF_OP_##n = v,
	DIF_OPCODES(DIF_OP_ENUM)
#undef DIF_OP_ENUM
	DIF_OP_MAX = 0x4f
};

/* Field extraction (spec ch. 7.2). */
#define DIF_INSTR_OP(i)		(((i) >> 24) & 0xff)
#define DIF_INSTR_R1(i)		(((i) >> 16) & 0xff)
#define DIF_INSTR_R2(i)		(((i) >>  8) & 0xff)
#define DIF_INSTR_RD(i)		((i) & 0xff)
#define DIF_INSTR_RS(i)		((i) & 0xff)
#define DIF_INSTR_LABEL(i)	((i) & 0xffffff)
#define DIF_INSTR_VAR(i)	(((i) >>  8) & 0xffff)
#define DIF_INSTR_INTEGER(i)	(((i) >>  8) & 0xffff)
#define DIF_INSTR_STRING(i)	(((i) >>  8) & 0xffff)
#define DIF_INSTR_SUBR(i)	(((i) >>  8) & 0xffff)
#define DIF_INSTR_TYPE(i)	(((i) >> 16) & 0xff)
#define DIF_INSTR_XLREF(i)	(((i) >>  8) & 0xffff)

/* Encoding. */
#define DIF_INSTR_FMT(op, r1, r2, d) \
	(((uint32_t)(op) << 24) | ((uint32_t)(r1) << 16) | \
	 ((uint32_t)(r2) << 8) | (uint32_t)(d))
#define DIF_INSTR_NOT(r1, d)		DIF_INSTR_FMT(DIF_OP_NOT, r1, 0, d)
#define DIF_INSTR_MOV(r1, d)		DIF_INSTR_FMT(DIF_OP_MOV, r1, 0, d)
#define DIF_INSTR_CMP(op, r1, r2)	DIF_INSTR_FMT(op, r1, r2, 0)
#define DIF_INSTR_TST(r1)		DIF_INSTR_FMT(DIF_OP_TST, r1, 0, 0)
#define DIF_INSTR_BRANCH(op, label) \
	(((uint32_t)(op) << 24) | ((uint32_t)(label) & 0xffffff))
#define DIF_INSTR_LOAD(op, r1, d)	DIF_INSTR_FMT(op, r1, 0, d)
#define DIF_INSTR_STORE(op, r1, d)	DIF_INSTR_FMT(op, r1, 0, d)
#define DIF_INSTR_SETX(idx, d) \
	(((uint32_t)DIF_OP_SETX << 24) | ((uint32_t)(idx) << 8) | (d))
#define DIF_INSTR_SETS(idx, d) \
	(((uint32_t)DIF_OP_SETS << 24) | ((uint32_t)(idx) << 8) | (d))
#define DIF_INSTR_RET(d)		DIF_INSTR_FMT(DIF_OP_RET, 0, 0, d)
#define DIF_INSTR_NOP			DIF_INSTR_FMT(DIF_OP_NOP, 0, 0, 0)
#define DIF_INSTR_LDA(op, v, r2, d)	DIF_INSTR_FMT(op, v, r2, d)
#define DIF_INSTR_LDV(op, v, d) \
	(((uint32_t)(op) << 24) | ((uint32_t)(v) << 8) | (d))
#define DIF_INSTR_STV(op, v, rs) \
	(((uint32_t)(op) << 24) | ((uint32_t)(v) << 8) | (rs))
#define DIF_INSTR_CALL(s, d) \
	(((uint32_t)DIF_OP_CALL << 24) | ((uint32_t)(s) << 8) | (d))
#define DIF_INSTR_PUSHTS(op, t, r2, rs)	DIF_INSTR_FMT(op, t, r2, rs)
#define DIF_INSTR_POPTS			DIF_INSTR_FMT(DIF_OP_POPTS, 0, 0, 0)
#define DIF_INSTR_FLUSHTS		DIF_INSTR_FMT(DIF_OP_FLUSHTS, 0, 0, 0)
#define DIF_INSTR_ALLOCS(r1, d)		DIF_INSTR_FMT(DIF_OP_ALLOCS, r1, 0, d)
#define DIF_INSTR_COPYS(r1, r2, d)	DIF_INSTR_FMT(DIF_OP_COPYS, r1, r2, d)

#define DIF_REG_R0		0	/* always zero */
#define DIF_INTOFF_MAX		0xffff	/* largest inttab/strtab index */
#define DIF_STROFF_MAX		0xffff
#define DIF_LABEL_MAX		0xffffff

/* Built-in variables (spec ch. 9); ids below OTHER_UBASE are built in. */
#define DIF_VAR_ARRAY_MIN	0x0000
#define DIF_VAR_ARRAY_UBASE	0x0080
#define DIF_VAR_ARRAY_MAX	0x00ff
#define DIF_VAR_OTHER_MIN	0x0100
#define DIF_VAR_OTHER_UBASE	0x0500
#define DIF_VAR_OTHER_MAX	0xffff

#define DIF_VAR_ARGS		0x0000	/* args[] */
#define DIF_VAR_REGS		0x0001	/* regs[] (kernel; unavailable) */
#define DIF_VAR_UREGS		0x0002	/* uregs[] */
#define DIF_VAR_CURTHREAD	0x0100
#define DIF_VAR_TIMESTAMP	0x0101
#define DIF_VAR_VTIMESTAMP	0x0102
#define DIF_VAR_IPL		0x0103
#define DIF_VAR_EPID		0x0104
#define DIF_VAR_ID		0x0105
#define DIF_VAR_ARG0		0x0106
#define DIF_VAR_ARG1		0x0107
#define DIF_VAR_ARG2		0x0108
#define DIF_VAR_ARG3		0x0109
#define DIF_VAR_ARG4		0x010a
#define DIF_VAR_ARG5		0x010b
#define DIF_VAR_ARG6		0x010c
#define DIF_VAR_ARG7		0x010d
#define DIF_VAR_ARG8		0x010e
#define DIF_VAR_ARG9		0x010f
#define DIF_VAR_STACKDEPTH	0x0110
#define DIF_VAR_CALLER		0x0111
#define DIF_VAR_PROBEPROV	0x0112
#define DIF_VAR_PROBEMOD	0x0113
#define DIF_VAR_PROBEFUNC	0x0114
#define DIF_VAR_PROBENAME	0x0115
#define DIF_VAR_PID		0x0116
#define DIF_VAR_TID		0x0117
#define DIF_VAR_EXECNAME	0x0118
#define DIF_VAR_ZONENAME	0x0119
#define DIF_VAR_WALLTIMESTAMP	0x011a
#define DIF_VAR_USTACKDEPTH	0x011b
#define DIF_VAR_UCALLER		0x011c
#define DIF_VAR_PPID		0x011d
#define DIF_VAR_UID		0x011e
#define DIF_VAR_GID		0x011f
#define DIF_VAR_ERRNO		0x0120
#define DIF_VAR_CPU		0x0200	/* FreeBSD's number for `cpu` */
/* dtui's own, behind curpsinfo->pr_psargs and pr_argc: illumos reads
 * them from the kernel's proc structure, which has no Linux twin. */
#define DIF_VAR_PSARGS		0x0300	/* initial arguments, <= 80 bytes */
#define DIF_VAR_ARGC		0x0301	/* their number */

/*
 * Subroutines (spec Tables 10.1-10.2).  spec: the table gives copyoutmbuf
 * the number 9 as well as copyinstr; copyinstr keeps 9 and the FreeBSD-only
 * copyoutmbuf is not defined.  47 is unassigned in the table.
 */
#define DIF_SUBRS(X) \
	X(0,  rand) X(1, mutex_owned) X(2, mutex_owner) \
	X(3,  mutex_type_adaptive) X(4, mutex_type_spin) \
	X(5,  rw_read_held) X(6, rw_write_held) X(7, rw_iswriter) \
	X(8,  copyin) X(9, copyinstr) X(10, speculation) X(11, progenyof) \
	X(12, strlen) X(13, copyout) X(14, copyoutstr) X(15, alloca) \
	X(16, bcopy) X(17, copyinto) X(18, msgdsize) X(19, msgsize) \
	X(20, getmajor) X(21, getminor) X(22, ddi_pathname) X(23, strjoin) \
	X(24, lltostr) X(25, basename) X(26, dirname) X(27, cleanpath) \
	X(28, strchr) X(29, strrchr) X(30, strstr) X(31, strtok) \
	X(32, substr) X(33, index) X(34, rindex) X(35, htons) X(36, htonl) \
	X(37, htonll) X(38, ntohs) X(39, ntohl) X(40, ntohll) \
	X(41, inet_ntop) X(42, inet_ntoa) X(43, inet_ntoa6) X(44, toupper) \
	X(45, tolower) X(46, memref) X(48, sx_shared_held) \
	X(49, sx_exclusive_held) X(50, sx_isexclusive) X(51, memstr) \
	X(52, getf) X(53, json) X(54, strtoll) X(55, random) X(56, uuidstr) \
	X(57, link_ntop)

enum dif_subr {
#define DIF_SUBR_ENUM(v, n) DIF_SUBR_##n = v,
	DIF_SUBRS(DIF_SUBR_ENUM)
#undef DIF_SUBR_ENUM
	DIF_SUBR_MAX = 57
};

/* Type of a DIF object's result or a variable (dtrace_diftype_t). */
#define DIF_TYPE_CTF		0	/* integer/pointer, size in dtdt_size */
#define DIF_TYPE_STRING		1	/* string of at most strsize bytes */
#define DIF_TF_BYREF		0x1	/* value is a reference (pointer) */
#define DIF_TF_BYUREF		0x2	/* reference to user memory */

typedef struct dtrace_diftype {
	uint8_t dtdt_kind;		/* DIF_TYPE_CTF or DIF_TYPE_STRING */
	uint8_t dtdt_ckind;		/* CTF kind, if DIF_TYPE_CTF */
	uint8_t dtdt_flags;		/* DIF_TF_* */
	uint8_t dtdt_pad;
	uint32_t dtdt_size;		/* size in bytes of the value */
} dtrace_diftype_t;

/* CTF kinds used in dtdt_ckind (spec Table 4.1). */
#define CTF_K_UNKNOWN	0
#define CTF_K_INTEGER	1
#define CTF_K_FLOAT	2
#define CTF_K_POINTER	3
#define CTF_K_ARRAY	4
#define CTF_K_FUNCTION	5
#define CTF_K_STRUCT	6
#define CTF_K_UNION	7
#define CTF_K_ENUM	8
#define CTF_K_FORWARD	9
#define CTF_K_TYPEDEF	10
#define CTF_K_VOLATILE	11
#define CTF_K_CONST	12
#define CTF_K_RESTRICT	13

/* Variable table entry (DOF_SECT_VARTAB). */
#define DIFV_KIND_ARRAY		0
#define DIFV_KIND_SCALAR	1
#define DIFV_SCOPE_GLOBAL	0
#define DIFV_SCOPE_THREAD	1
#define DIFV_SCOPE_LOCAL	2
#define DIFV_F_REF		0x1	/* variable is read */
#define DIFV_F_MOD		0x2	/* variable is written */

typedef struct dtrace_difv {
	uint32_t dtdv_name;		/* name, offset in string table */
	uint32_t dtdv_id;		/* variable id (>= OTHER_UBASE) */
	uint8_t dtdv_kind;		/* DIFV_KIND_* */
	uint8_t dtdv_scope;		/* DIFV_SCOPE_* */
	uint16_t dtdv_flags;		/* DIFV_F_* */
	dtrace_diftype_t dtdv_type;	/* type of the variable's value */
} dtrace_difv_t;

/* ---------------------------------------------------------------------- */
/* DOF (spec ch. 6)                                                        */
/* ---------------------------------------------------------------------- */

#define DOF_ID_MAG0		0
#define DOF_ID_MAG1		1
#define DOF_ID_MAG2		2
#define DOF_ID_MAG3		3
#define DOF_ID_MODEL		4
#define DOF_ID_ENCODING		5
#define DOF_ID_VERSION		6
#define DOF_ID_DIFVERS		7
#define DOF_ID_DIFIREG		8
#define DOF_ID_DIFTREG		9
#define DOF_ID_PAD		10
#define DOF_ID_SIZE		16

#define DOF_MAG_MAG0		0x7F
#define DOF_MAG_MAG1		'D'
#define DOF_MAG_MAG2		'O'
#define DOF_MAG_MAG3		'F'
#define DOF_MODEL_ILP32		1
#define DOF_MODEL_LP64		2
#define DOF_ENCODE_LSB		1
#define DOF_ENCODE_MSB		2
#define DOF_VERSION_1		1
#define DOF_VERSION_2		2
#define DOF_VERSION		DOF_VERSION_2

typedef struct dof_hdr {
	uint8_t dofh_ident[DOF_ID_SIZE];	/* magic, model, encoding... */
	uint32_t dofh_flags;			/* must be zero */
	uint32_t dofh_hdrsize;			/* sizeof (dof_hdr_t) */
	uint32_t dofh_secsize;			/* sizeof (dof_sec_t) */
	uint32_t dofh_secnum;			/* number of section headers */
	uint64_t dofh_secoff;			/* offset of section headers */
	uint64_t dofh_loadsz;			/* size of the loadable part */
	uint64_t dofh_filesz;			/* size of the whole file */
	uint64_t dofh_pad;
} dof_hdr_t;

#define DOF_SECT_NONE		0
#define DOF_SECT_COMMENTS	1
#define DOF_SECT_SOURCE		2
#define DOF_SECT_ECBDESC	3
#define DOF_SECT_PROBEDESC	4
#define DOF_SECT_ACTDESC	5
#define DOF_SECT_DIFOHDR	6
#define DOF_SECT_DIF		7
#define DOF_SECT_STRTAB		8
#define DOF_SECT_VARTAB		9
#define DOF_SECT_RELTAB		10
#define DOF_SECT_TYPTAB		11
#define DOF_SECT_URELHDR	12
#define DOF_SECT_KRELHDR	13
#define DOF_SECT_OPTDESC	14
#define DOF_SECT_PROVIDER	15
#define DOF_SECT_PROBES		16
#define DOF_SECT_PRARGS		17
#define DOF_SECT_PROFFS		18
#define DOF_SECT_INTTAB		19
#define DOF_SECT_UTSNAME	20
#define DOF_SECT_XLTAB		21
#define DOF_SECT_XLMEMBERS	22
#define DOF_SECT_XLIMPORT	23
#define DOF_SECT_XLEXPORT	24
#define DOF_SECT_PREXPORT	25
#define DOF_SECT_PRENOFFS	26

#define DOF_SECF_LOAD		1	/* section is loadable */

typedef struct dof_sec {
	uint32_t dofs_type;		/* DOF_SECT_* */
	uint32_t dofs_align;		/* alignment, a power of two */
	uint32_t dofs_flags;		/* DOF_SECF_* */
	uint32_t dofs_entsize;		/* size of one entry, 0 if none */
	uint64_t dofs_offset;		/* offset of data from file start */
	uint64_t dofs_size;		/* size of data in bytes */
} dof_sec_t;

typedef struct dof_ecbdesc {
	dof_secidx_t dofe_probes;	/* PROBEDESC section */
	dof_secidx_t dofe_pred;		/* DIFOHDR of predicate, or NONE */
	dof_secidx_t dofe_actions;	/* ACTDESC section, or NONE */
	uint32_t dofe_pad;
	uint64_t dofe_uarg;		/* library argument */
} dof_ecbdesc_t;

typedef struct dof_probedesc {
	dof_secidx_t dofp_strtab;	/* STRTAB for the names */
	dof_stridx_t dofp_provider;	/* provider glob */
	dof_stridx_t dofp_mod;		/* module glob */
	dof_stridx_t dofp_func;		/* function glob */
	dof_stridx_t dofp_name;		/* name glob */
	uint32_t dofp_id;		/* probe id, or DTRACE_IDNONE */
} dof_probedesc_t;

typedef struct dof_actdesc {
	dof_secidx_t dofa_difo;		/* DIFOHDR, or NONE */
	dof_secidx_t dofa_strtab;	/* STRTAB for dofa_arg, or NONE */
	uint32_t dofa_kind;		/* DTRACEACT_* */
	uint32_t dofa_ntuple;		/* number of subsequent tuple actions */
	uint64_t dofa_arg;		/* kind-specific argument */
	uint64_t dofa_uarg;		/* library argument */
} dof_actdesc_t;

typedef struct dof_difohdr {
	dtrace_diftype_t dofd_rtype;	/* return type */
	dof_secidx_t dofd_links[1];	/* DIF, INTTAB, STRTAB, VARTAB... */
} dof_difohdr_t;

typedef struct dof_optdesc {
	uint32_t dofo_option;		/* DTRACEOPT_* */
	dof_secidx_t dofo_strtab;	/* STRTAB for a string value, or NONE */
	uint64_t dofo_value;		/* value or string offset */
} dof_optdesc_t;

/* ---------------------------------------------------------------------- */
/* Actions, aggregations, records (spec ch. 5)                             */
/* ---------------------------------------------------------------------- */

#define DTRACEACT_NONE			0
#define DTRACEACT_DIFEXPR		1	/* trace() of a DIF result */
#define DTRACEACT_EXIT			2
#define DTRACEACT_PRINTF		3
#define DTRACEACT_PRINTA		4
#define DTRACEACT_LIBACT		5	/* consumer-side action */
#define DTRACEACT_TRACEMEM		6
#define DTRACEACT_TRACEMEM_DYNSIZE	7

#define DTRACEACT_PROC			0x0100
#define DTRACEACT_USTACK		(DTRACEACT_PROC + 1)
#define DTRACEACT_JSTACK		(DTRACEACT_PROC + 2)
#define DTRACEACT_USYM			(DTRACEACT_PROC + 3)
#define DTRACEACT_UMOD			(DTRACEACT_PROC + 4)
#define DTRACEACT_UADDR			(DTRACEACT_PROC + 5)

#define DTRACEACT_PROC_DESTRUCTIVE	0x0200
#define DTRACEACT_STOP			(DTRACEACT_PROC_DESTRUCTIVE + 1)
#define DTRACEACT_RAISE			(DTRACEACT_PROC_DESTRUCTIVE + 2)
#define DTRACEACT_SYSTEM		(DTRACEACT_PROC_DESTRUCTIVE + 3)
#define DTRACEACT_FREOPEN		(DTRACEACT_PROC_DESTRUCTIVE + 4)
#define DTRACEACT_PROC_CONTROL		0x0300

#define DTRACEACT_KERNEL		0x0400
#define DTRACEACT_STACK			(DTRACEACT_KERNEL + 1)
#define DTRACEACT_SYM			(DTRACEACT_KERNEL + 2)
#define DTRACEACT_MOD			(DTRACEACT_KERNEL + 3)

#define DTRACEACT_KERNEL_DESTRUCTIVE	0x0500
#define DTRACEACT_BREAKPOINT		(DTRACEACT_KERNEL_DESTRUCTIVE + 1)
#define DTRACEACT_PANIC			(DTRACEACT_KERNEL_DESTRUCTIVE + 2)
#define DTRACEACT_CHILL			(DTRACEACT_KERNEL_DESTRUCTIVE + 3)

#define DTRACEACT_SPECULATIVE		0x0600
#define DTRACEACT_SPECULATE		(DTRACEACT_SPECULATIVE + 1)
#define DTRACEACT_COMMIT		(DTRACEACT_SPECULATIVE + 2)
#define DTRACEACT_DISCARD		(DTRACEACT_SPECULATIVE + 3)

#define DTRACEACT_CLASS(x)		((x) & 0xff00)
#define DTRACEACT_ISDESTRUCTIVE(x) \
	(DTRACEACT_CLASS(x) == DTRACEACT_PROC_DESTRUCTIVE || \
	 DTRACEACT_CLASS(x) == DTRACEACT_KERNEL_DESTRUCTIVE)
#define DTRACEACT_ISSPECULATIVE(x) \
	(DTRACEACT_CLASS(x) == DTRACEACT_SPECULATIVE)
#define DTRACEACT_ISPRINTFLIKE(x) \
	((x) == DTRACEACT_PRINTF || (x) == DTRACEACT_PRINTA || \
	 (x) == DTRACEACT_SYSTEM || (x) == DTRACEACT_FREOPEN)

#define DTRACEACT_AGGREGATION		0x0700
#define DTRACEAGG_COUNT			(DTRACEACT_AGGREGATION + 1)
#define DTRACEAGG_MIN			(DTRACEACT_AGGREGATION + 2)
#define DTRACEAGG_MAX			(DTRACEACT_AGGREGATION + 3)
#define DTRACEAGG_AVG			(DTRACEACT_AGGREGATION + 4)
#define DTRACEAGG_SUM			(DTRACEACT_AGGREGATION + 5)
#define DTRACEAGG_STDDEV		(DTRACEACT_AGGREGATION + 6)
#define DTRACEAGG_QUANTIZE		(DTRACEACT_AGGREGATION + 7)
#define DTRACEAGG_LQUANTIZE		(DTRACEACT_AGGREGATION + 8)
#define DTRACEAGG_LLQUANTIZE		(DTRACEACT_AGGREGATION + 9)
#define DTRACEACT_ISAGG(x)	(DTRACEACT_CLASS(x) == DTRACEACT_AGGREGATION)

/*
 * Arguments of DTRACEACT_LIBACT records (dofa_arg): actions the consumer
 * carries out when it meets the record.  Not part of any kernel ABI.
 */
#define DT_ACT_CLEAR		1	/* clear(@a): record holds agg var id */
#define DT_ACT_NORMALIZE	2	/* normalize(@a, n): id, then n */
#define DT_ACT_DENORMALIZE	3	/* denormalize(@a): id */
#define DT_ACT_TRUNC		4	/* trunc(@a[, n]): id, then n */
#define DT_ACT_SETOPT		5	/* setopt(name[, value]) */
#define DT_ACT_FTRUNCATE	6

/* tracemem() dtrd_arg values. */
#define DTRACE_TRACEMEM_STATIC	0x1
#define DTRACE_TRACEMEM_DYNAMIC	0x2
#define DTRACE_TRACEMEM_SIZE	0x3
#define DTRACE_TRACEMEM_SSIZE	0x4

/* quantize(): 127 power-of-two buckets, zero in the middle. */
#define DTRACE_QUANTIZE_NBUCKETS	(((sizeof (uint64_t) * 8) - 1) * 2 + 1)
#define DTRACE_QUANTIZE_ZEROBUCKET	((sizeof (uint64_t) * 8) - 1)
#define DTRACE_QUANTIZE_BUCKETVAL(buck)					\
	(int64_t)((buck) < DTRACE_QUANTIZE_ZEROBUCKET ?			\
	-(1LL << (DTRACE_QUANTIZE_ZEROBUCKET - 1 - (buck))) :		\
	(buck) == DTRACE_QUANTIZE_ZEROBUCKET ? 0 :			\
	1LL << ((buck) - DTRACE_QUANTIZE_ZEROBUCKET - 1))

/* lquantize(): first word encodes step, levels and base. */
#define DTRACE_LQUANTIZE_STEPSHIFT	48
#define DTRACE_LQUANTIZE_STEPMASK	((uint64_t)UINT16_MAX << 48)
#define DTRACE_LQUANTIZE_LEVELSHIFT	32
#define DTRACE_LQUANTIZE_LEVELMASK	((uint64_t)UINT16_MAX << 32)
#define DTRACE_LQUANTIZE_BASESHIFT	0
#define DTRACE_LQUANTIZE_BASEMASK	UINT32_MAX
#define DTRACE_LQUANTIZE_STEP(x)	\
	(uint16_t)(((x) & DTRACE_LQUANTIZE_STEPMASK) >> 48)
#define DTRACE_LQUANTIZE_LEVELS(x)	\
	(uint16_t)(((x) & DTRACE_LQUANTIZE_LEVELMASK) >> 32)
#define DTRACE_LQUANTIZE_BASE(x)	\
	(int32_t)((x) & DTRACE_LQUANTIZE_BASEMASK)
#define DTRACE_LQUANTIZE_ENCODE(step, levels, base) \
	(((uint64_t)(uint16_t)(step) << 48) | \
	 ((uint64_t)(uint16_t)(levels) << 32) | (uint64_t)(uint32_t)(base))

/* llquantize(): first word encodes factor, low, high and steps. */
#define DTRACE_LLQUANTIZE_FACTORSHIFT	48
#define DTRACE_LLQUANTIZE_LOWSHIFT	32
#define DTRACE_LLQUANTIZE_HIGHSHIFT	16
#define DTRACE_LLQUANTIZE_NSTEPSHIFT	0
#define DTRACE_LLQUANTIZE_FACTOR(x)	(uint16_t)(((x) >> 48) & 0xffff)
#define DTRACE_LLQUANTIZE_LMAG(x)	(uint16_t)(((x) >> 32) & 0xffff)
#define DTRACE_LLQUANTIZE_HMAG(x)	(uint16_t)(((x) >> 16) & 0xffff)
#define DTRACE_LLQUANTIZE_STEPS(x)	(uint16_t)((x) & 0xffff)
#define DTRACE_LLQUANTIZE_ENCODE(factor, low, high, steps) \
	(((uint64_t)(uint16_t)(factor) << 48) | \
	 ((uint64_t)(uint16_t)(low) << 32) | \
	 ((uint64_t)(uint16_t)(high) << 16) | (uint64_t)(uint16_t)(steps))

/* Header in front of every record in a principal buffer (spec Fig. 5.1). */
typedef struct dtrace_rechdr {
	dtrace_epid_t dtrh_epid;	/* enabled probe id; 0 is padding */
	uint32_t dtrh_timestamp_hi;	/* timestamp, high 32 bits */
	uint32_t dtrh_timestamp_lo;	/* timestamp, low 32 bits */
} dtrace_rechdr_t;
#define DTRACE_RECORD_LOAD_TIMESTAMP(dtrh) \
	((((uint64_t)(dtrh)->dtrh_timestamp_hi) << 32) | \
	 (uint64_t)(dtrh)->dtrh_timestamp_lo)

typedef struct dtrace_recdesc {
	dtrace_actkind_t dtrd_action;	/* kind of action */
	uint16_t dtrd_pad;
	uint32_t dtrd_size;		/* size of record */
	uint32_t dtrd_offset;		/* offset in the ECB's data */
	uint16_t dtrd_alignment;	/* required alignment */
	uint16_t dtrd_format;		/* format id (FORMAT), 0 if none */
	uint64_t dtrd_arg;		/* action argument */
	uint64_t dtrd_uarg;		/* library argument */
} dtrace_recdesc_t;

typedef struct dtrace_eprobedesc {
	dtrace_epid_t dtepd_epid;	/* enabled probe id */
	dtrace_id_t dtepd_probeid;	/* probe id */
	uint64_t dtepd_uarg;		/* library argument (dofe_uarg) */
	uint32_t dtepd_size;		/* total record size incl. header */
	int dtepd_nrecs;		/* number of record descriptions */
	dtrace_recdesc_t dtepd_rec[1];	/* dtepd_nrecs of them */
} dtrace_eprobedesc_t;

#define DTRACE_AGD_PRINTED	0x1

typedef struct dtrace_aggdesc {
	char *dtagd_name;		/* not filled in by the shim */
	dtrace_aggvarid_t dtagd_varid;	/* not filled in by the shim */
	int dtagd_flags;		/* not filled in by the shim */
	dtrace_aggid_t dtagd_id;	/* aggregation id */
	dtrace_epid_t dtagd_epid;	/* enabled probe id */
	uint32_t dtagd_size;		/* size of one aggregation record */
	int dtagd_nrecs;		/* rec[0] aggid, keys, value last */
	uint32_t dtagd_pad;
	dtrace_recdesc_t dtagd_rec[1];
} dtrace_aggdesc_t;

typedef struct dtrace_probedesc {
	dtrace_id_t dtpd_id;
	char dtpd_provider[DTRACE_PROVNAMELEN];
	char dtpd_mod[DTRACE_MODNAMELEN];
	char dtpd_func[DTRACE_FUNCNAMELEN];
	char dtpd_name[DTRACE_NAMELEN];
} dtrace_probedesc_t;

typedef struct dtrace_argdesc {
	dtrace_id_t dtargd_id;		/* probe id */
	int dtargd_ndx;			/* argument number */
	int dtargd_mapping;		/* mapping of argument */
	char dtargd_native[DTRACE_ARGTYPELEN];	/* native type name */
	char dtargd_xlate[DTRACE_ARGTYPELEN];	/* translated type name */
} dtrace_argdesc_t;
#define DTRACE_ARGNONE		-1

typedef struct dtrace_fmtdesc {
	char *dtfd_string;		/* format string buffer */
	int dtfd_length;		/* size of that buffer */
	uint16_t dtfd_format;		/* format id */
} dtrace_fmtdesc_t;

/* A buffer snapshot: BUFSNAP and AGGSNAP fill one per CPU. */
typedef struct dtrace_bufdesc {
	uint64_t dtbd_size;		/* in: capacity; out: bytes copied */
	uint32_t dtbd_cpu;		/* CPU */
	uint32_t dtbd_errors;		/* errors on this CPU */
	uint64_t dtbd_drops;		/* drops on this CPU since last snap */
	char *dtbd_data;		/* caller's buffer */
	uint64_t dtbd_oldest;		/* offset of the oldest record */
	uint64_t dtbd_timestamp;	/* when the snapshot was taken */
} dtrace_bufdesc_t;

/* ---------------------------------------------------------------------- */
/* Faults, drops, status                                                  */
/* ---------------------------------------------------------------------- */

#define DTRACEFLT_UNKNOWN	0	/* unknown fault */
#define DTRACEFLT_BADADDR	1	/* bad address */
#define DTRACEFLT_BADALIGN	2	/* bad alignment */
#define DTRACEFLT_ILLOP		3	/* illegal operation */
#define DTRACEFLT_DIVZERO	4	/* divide by zero */
#define DTRACEFLT_NOSCRATCH	5	/* out of scratch space */
#define DTRACEFLT_KPRIV		6	/* illegal kernel access */
#define DTRACEFLT_UPRIV		7	/* illegal user access */
#define DTRACEFLT_TUPOFLOW	8	/* tuple stack overflow */
#define DTRACEFLT_BADSTACK	9	/* bad stack */
#define DTRACEFLT_BADSIZE	10	/* bad size */
#define DTRACEFLT_BADINDEX	11	/* index out of bounds */
#define DTRACEFLT_LIBRARY	1000	/* library-level fault */

/* dtrace(1M)'s words for each fault: one list for the shim's messages and
 * the consumer's "error on enabled probe" lines; anything else is
 * "unknown fault". */
#define DTRACEFLT_NAMES(X) \
	X(DTRACEFLT_BADADDR,   "invalid address") \
	X(DTRACEFLT_BADALIGN,  "invalid alignment") \
	X(DTRACEFLT_ILLOP,     "illegal operation") \
	X(DTRACEFLT_DIVZERO,   "divide-by-zero") \
	X(DTRACEFLT_NOSCRATCH, "out of scratch space") \
	X(DTRACEFLT_KPRIV,     "invalid kernel access") \
	X(DTRACEFLT_UPRIV,     "invalid user access") \
	X(DTRACEFLT_TUPOFLOW,  "tuple stack overflow") \
	X(DTRACEFLT_BADSTACK,  "bad stack") \
	X(DTRACEFLT_BADSIZE,   "invalid size") \
	X(DTRACEFLT_BADINDEX,  "index out of bounds") \
	X(DTRACEFLT_LIBRARY,   "library-level fault")

/* Drop kinds, as the consumer reports them. */
typedef enum dtrace_dropkind {
	DTRACEDROP_PRINCIPAL,		/* principal buffer */
	DTRACEDROP_AGGREGATION,		/* aggregation buffer */
	DTRACEDROP_DYNAMIC,		/* dynamic variable space */
	DTRACEDROP_DYNRINSE,		/* ... with non-empty rinsing list */
	DTRACEDROP_DYNDIRTY,		/* ... with non-empty dirty list */
	DTRACEDROP_SPEC,		/* speculative buffer */
	DTRACEDROP_SPECBUSY,		/* speculation busy */
	DTRACEDROP_SPECUNAVAIL,		/* no speculative buffer */
	DTRACEDROP_STKSTROVERFLOW,	/* stack string table overflow */
	DTRACEDROP_DBLERROR		/* error in ERROR probe */
} dtrace_dropkind_t;

typedef struct dtrace_status {
	uint64_t dtst_dyndrops;			/* dynamic variable drops */
	uint64_t dtst_dyndrops_rinsing;		/* ... rinsing list non-empty */
	uint64_t dtst_dyndrops_dirty;		/* ... dirty list non-empty */
	uint64_t dtst_specdrops;		/* speculative drops */
	uint64_t dtst_specdrops_busy;		/* spec drops: busy */
	uint64_t dtst_specdrops_unavail;	/* spec drops: unavailable */
	uint64_t dtst_errors;			/* total errors */
	uint64_t dtst_filled;			/* a fill buffer filled */
	uint64_t dtst_stkstroverflows;		/* stack string overflows */
	uint64_t dtst_dblerrors;		/* errors in ERROR probes */
	char dtst_killed;			/* killed by an external force */
	char dtst_exiting;			/* exit() was called */
	char dtst_pad[6];
} dtrace_status_t;

/* ---------------------------------------------------------------------- */
/* Options                                                                */
/* ---------------------------------------------------------------------- */

#define DTRACEOPT_BUFSIZE	0	/* principal buffer size, per CPU */
#define DTRACEOPT_BUFPOLICY	1	/* DTRACEOPT_BUFPOLICY_* */
#define DTRACEOPT_DYNVARSIZE	2	/* dynamic variable space */
#define DTRACEOPT_AGGSIZE	3	/* aggregation buffer size, per CPU */
#define DTRACEOPT_SPECSIZE	4	/* speculation buffer size */
#define DTRACEOPT_NSPEC		5	/* number of speculations */
#define DTRACEOPT_STRSIZE	6	/* string size */
#define DTRACEOPT_CLEANRATE	7	/* dynvar cleaning rate */
#define DTRACEOPT_CPU		8	/* only trace on this CPU */
#define DTRACEOPT_BUFRESIZE	9	/* DTRACEOPT_BUFRESIZE_* */
#define DTRACEOPT_GRABANON	10
#define DTRACEOPT_FLOWINDENT	11
#define DTRACEOPT_QUIET		12
#define DTRACEOPT_STACKFRAMES	13
#define DTRACEOPT_USTACKFRAMES	14
#define DTRACEOPT_AGGRATE	15
#define DTRACEOPT_SWITCHRATE	16
#define DTRACEOPT_STATUSRATE	17
#define DTRACEOPT_DESTRUCTIVE	18
#define DTRACEOPT_STACKINDENT	19
#define DTRACEOPT_RAWBYTES	20
#define DTRACEOPT_JSTACKFRAMES	21
#define DTRACEOPT_JSTACKSTRSIZE	22
#define DTRACEOPT_AGGSORTKEY	23
#define DTRACEOPT_AGGSORTREV	24
#define DTRACEOPT_AGGSORTPOS	25
#define DTRACEOPT_AGGSORTKEYPOS	26
#define DTRACEOPT_AGGHIST	27
#define DTRACEOPT_AGGPACK	28
#define DTRACEOPT_AGGZOOM	29
#define DTRACEOPT_ZONE		30
#define DTRACEOPT_SCRATCHSIZE	31	/* scratch per firing (Oracle) */
#define DTRACEOPT_MAX		32

#define DTRACEOPT_UNSET		((dtrace_optval_t)-2)
#define DTRACEOPT_BUFPOLICY_RING	0
#define DTRACEOPT_BUFPOLICY_FILL	1
#define DTRACEOPT_BUFPOLICY_SWITCH	2
#define DTRACEOPT_BUFRESIZE_AUTO	0
#define DTRACEOPT_BUFRESIZE_MANUAL	1

/* ---------------------------------------------------------------------- */
/* The shim's ioctl-like commands (illumos numbering)                      */
/* ---------------------------------------------------------------------- */

#define DTRACEIOC_PROVIDER	1	/* provider information */
#define DTRACEIOC_PROBES	2	/* next probe with id >= dtpd_id */
#define DTRACEIOC_BUFSNAP	4	/* snapshot a CPU's principal buffer */
#define DTRACEIOC_PROBEMATCH	5	/* next probe matching globs */
#define DTRACEIOC_ENABLE	6	/* load and enable a DOF image */
#define DTRACEIOC_AGGSNAP	7	/* snapshot a CPU's aggregation buffer */
#define DTRACEIOC_EPROBE	8	/* describe an enabled probe */
#define DTRACEIOC_PROBEARG	9	/* describe a probe argument */
#define DTRACEIOC_CONF		10	/* configuration (ncpus...) */
#define DTRACEIOC_STATUS	11	/* status and drop counters */
#define DTRACEIOC_GO		12	/* start tracing (fires BEGIN) */
#define DTRACEIOC_STOP		13	/* stop tracing (fires END) */
#define DTRACEIOC_AGGDESC	15	/* describe an aggregation */
#define DTRACEIOC_FORMAT	16	/* fetch a format string */
/* dtui's own: illumos can only drop a whole consumer, but an interactive
 * session removes single enablings while it keeps tracing. */
#define DTRACEIOC_DISABLE	100	/* stop one enabling's ECBs firing */
/* dtui's own: what each ECB did since it was enabled (the enablings
 * pane), summed over CPUs. */
#define DTRACEIOC_ECBSTAT	101	/* per-ECB counters */

typedef struct dtrace_ecbstat {
	uint64_t dtes_fires;		/* runs: its probe fired while tracing */
	uint64_t dtes_predfalse;	/* runs its predicate ended (false) */
	uint64_t dtes_drops;		/* records or aggregation updates lost */
	uint64_t dtes_errors;		/* runs that faulted */
	uint64_t dtes_samples;		/* runs timed: one in 64 */
	uint64_t dtes_sampns;		/* their time in the shim, ns, less
					 * the clock's own cost */
} dtrace_ecbstat_t;

/* ECBSTAT's argument: room for dtess_room counters (EPID 1 first) in,
 * the state's number of ECBs out; min(room, necbs) are copied. */
typedef struct dtrace_ecbstats {
	uint32_t dtess_room;		/* in: entries dtess_stats holds */
	uint32_t dtess_necbs;		/* out: ECBs in the state */
	dtrace_ecbstat_t *dtess_stats;	/* in: where to copy, by EPID - 1 */
} dtrace_ecbstats_t;

typedef struct dtrace_conf {
	uint32_t dtc_difversion;	/* DIF_VERSION */
	uint32_t dtc_difintregs;	/* DIF_DIR_NREGS */
	uint32_t dtc_diftupregs;	/* DIF_DTR_NREGS */
	uint32_t dtc_ctfmodel;		/* CTF_MODEL_LP64 */
	uint32_t dtc_ncpus;		/* number of CPUs (max cpu id + 1) */
	uint32_t dtc_pad[7];
} dtrace_conf_t;

/* ENABLE's argument: a DOF image in, the number of matched probes out. */
typedef struct dtrace_enable_arg {
	const void *dtea_dof;		/* DOF image */
	uint64_t dtea_size;		/* its size in bytes */
	uint32_t dtea_nmatched;		/* out: probes enabled */
	uint32_t dtea_enabling;		/* out: id for DTRACEIOC_DISABLE */
	char dtea_errmsg[256];		/* out: why ENABLE refused */
} dtrace_enable_arg_t;

/* ---------------------------------------------------------------------- */
/* The clause protocol: how the compiler encodes D in DOF, what records   */
/* the shim writes, and how the consumer reads them.  All three halves    */
/* (engine compiler, kernel shim, engine consumer) follow this section.   */
/* ---------------------------------------------------------------------- */
/*
 * ECBs.  One ECBDESC per (clause, probe description): a clause with N
 * descriptions gives N ECBDESCs sharing its predicate DIFOHDR and its
 * ACTDESC section.  dofe_uarg is the compiler's statement id (clause
 * number, from 1); DT_ECB_ERROR marks the engine's own error clause.
 * Actions run in ACTDESC order; each gives one record (dtrace_recdesc_t,
 * in order), laid out after a dtrace_rechdr_t with each record aligned to
 * dtrd_alignment; dtepd_size (header + records) is rounded up to 8, and
 * records start at 8-byte-aligned offsets in the buffer.
 *
 * Clause-locals (LDLS/STLS, D's this->) live for one probe firing: zero
 * when the probe fires, shared by all of a consumer's clauses that run
 * for that firing (in ECB order); scratch space lives as long, and STLS
 * of a by-reference value copies it there.  The compiler's if/else pieces
 * (eng_cc_stmtinfo esi_piece) rely on this for their hidden condition.
 *
 * Values.  A DIFEXPR-like action with a DIFO records its result: integers
 * by dtdt_size (1, 2, 4, 8; alignment = size; a DIF_TYPE_CTF size of 0 is
 * "void", dtrace's expression statement such as an assignment: it runs
 * and records nothing, 0 bytes, alignment 1); DIF_TYPE_STRING records
 * strsize bytes, NUL-padded (alignment 1); other DIF_TF_BYREF types copy
 * dtdt_size bytes from the returned address (alignment 8).
 *
 * Actions (dofa_kind / what the record holds):
 *   DIFEXPR        trace(x): the value.
 *   PRINTF, SYSTEM, FREOPEN (printf-like): no DIFO, 0 bytes; the format
 *                  string is dofa_arg (offset in dofa_strtab); the shim gives
 *                  it a format id (dtrd_format, FORMAT ioctl).  dofa_uarg is
 *                  the number of following DIFEXPR actions that are its
 *                  arguments.
 *   PRINTA         like PRINTF (dofa_arg = DOF_STRIDX_NONE without a
 *                  format); its arguments are DIFEXPR actions returning the
 *                  aggregation variable ids (dofa_uarg = how many).
 *   EXIT           DIFO = status; 4-byte record.
 *   STACK          no DIFO; dofa_arg = frames; record frames * 8 bytes,
 *                  unused frames 0.  dtrd_arg = frames.
 *   USTACK, JSTACK no DIFO; dofa_arg = frames | (strsize << 32); record
 *                  (1 + frames) * 8: pid, then pcs.  dtrd_arg = dofa_arg.
 *   SYM, MOD       DIFO = kernel address; 8-byte record.
 *   USYM, UMOD, UADDR  DIFO = user address; 16-byte record: pid, address.
 *   TRACEMEM       DIFO = address, dofa_arg = size: record of size bytes,
 *                  dtrd_arg = DTRACE_TRACEMEM_STATIC, or _DYNAMIC when a
 *                  TRACEMEM_DYNSIZE action follows.
 *   TRACEMEM_DYNSIZE  DIFO = display size, dofa_arg = DTRACE_TRACEMEM_SIZE
 *                  or _SSIZE; recorded as dtrd_action = TRACEMEM, 8 bytes,
 *                  dtrd_arg = dofa_arg.
 *   SPECULATE, COMMIT, DISCARD  DIFO = speculation id; 0 bytes.  A clause
 *                  with speculate() records its other actions into that
 *                  speculation's buffer.
 *   STOP, RAISE (DIFO = signal), CHILL (DIFO = ns), BREAKPOINT, PANIC:
 *                  destructive; refused by the shim unless the DOF sets
 *                  DTRACEOPT_DESTRUCTIVE.  0 bytes (RAISE records 4).
 *   LIBACT         consumer-side actions: dofa_arg = DT_ACT_*; DIFO = the
 *                  first argument (aggregation variable id for clear/trunc/
 *                  normalize/denormalize, option name string for setopt),
 *                  dofa_uarg = number of following DIFEXPR arguments
 *                  (trunc's n, normalize's factor, setopt's value).
 *   Aggregations   @name[k1, ..., kn] = f(args): n DIFEXPR actions for the
 *                  keys, then for quantize/lquantize/llquantize always one
 *                  more DIFEXPR for the increment (constant 1 if not given),
 *                  then the DTRACEAGG_* action: DIFO = value (NONE for
 *                  count()), dofa_ntuple = number of DIFEXPR actions before
 *                  it that belong to it (keys + increment), dofa_arg = the
 *                  lquantize/llquantize encoding (0 otherwise), dofa_uarg =
 *                  the aggregation variable id (from 1; one id per @name).
 *                  None of these actions writes to the principal buffer.
 *
 * Aggregation records (AGGSNAP, AGGDESC): rec[0] is the aggregation id
 * (4 bytes at offset 0), rec[1..n-2] the keys (as above; stack keys as
 * STACK/USTACK records), rec[n-1] the value: dtrd_action = DTRACEAGG_*,
 * dtrd_arg = encoding, dtrd_uarg = aggregation variable id, sizes:
 * COUNT/SUM/MIN/MAX 8, AVG 16 (count, sum), STDDEV 32 (count, sum, sum of
 * squares high 64, low 64), QUANTIZE 127 * 8, LQUANTIZE (1 + levels + 2) *
 * 8 (encoding word, underflow, levels, overflow), LLQUANTIZE (1 + buckets)
 * * 8 (encoding word, underflow, buckets, overflow).  Each AGGSNAP record
 * is dtagd_size bytes, 8-byte aligned.
 *
 * Errors.  A fault stops the clause and fires dtrace:::ERROR with arg0 = 0,
 * arg1 = EPID, arg2 = action index (0 predicate, N = action #N from 1),
 * arg3 = DIF offset in bytes, arg4 = DTRACEFLT_*, arg5 = address.  The
 * engine enables its own ERROR clause (dofe_uarg = DT_ECB_ERROR) tracing
 * arg1..arg5 as 8-byte values, and formats the message when it meets it.
 *
 * Options: OPTDESC entries carry DTRACEOPT_* values the shim needs
 * (bufsize, bufpolicy, aggsize, dynvarsize, specsize, nspec, strsize,
 * cleanrate, cpu, destructive, stackframes, ustackframes).
 */
#define DT_ECB_ERROR		((uint64_t)-1)	/* dofe_uarg of the error clause */

#endif /* DTRACE_ABI_H */
