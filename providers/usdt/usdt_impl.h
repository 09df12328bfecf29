/*
 * usdt_impl.h - what the usdt provider's files share: the .note.stapsdt
 * reader (note.c), the operand specifiers of each probe's arguments
 * (args.c), and their values at a hit.
 *
 * A <sys/sdt.h> probe is an NT_STAPSDT note (owner "stapsdt", type 3) in
 * section .note.stapsdt whose description holds three addresses (the
 * probe's pc, the link-time address of section .stapsdt.base, the
 * semaphore's address or 0), then three NUL-terminated strings: provider,
 * probe name and the arguments, a space-separated list of "[-]N@operand"
 * (N bytes, '-' signed; operand in the assembler's syntax: %reg, $imm,
 * disp(%reg), disp(%base,%index,scale), sym+disp(%rip); %rip with a
 * bare number is refused: the note does not say where the instruction
 * ends).
 */
#ifndef USDT_IMPL_H
#define USDT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "prov_impl.h"

#define USDT_MAXARGS	12	/* sys/sdt.h's most */

enum usdt_argkind {
	USDT_ARG_REG,		/* the register's value */
	USDT_ARG_IMM,		/* ua_disp itself */
	USDT_ARG_MEM,		/* memory at base + index * scale + disp */
	USDT_ARG_ABS		/* memory at load bias + ua_disp (a symbol) */
};

typedef struct usdt_arg {
	uint8_t ua_kind;	/* enum usdt_argkind */
	uint8_t ua_size;	/* 1, 2, 4 or 8 bytes */
	uint8_t ua_signed;
	uint8_t ua_shift;	/* REG: bit offset (8 for %ah ...) */
	int8_t ua_base;		/* PROV_UREG_*, or -1 (none) */
	int8_t ua_index;	/* PROV_UREG_*, or -1 (none) */
	uint8_t ua_scale;	/* 1, 2, 4, 8 */
	int64_t ua_disp;	/* IMM value, MEM displacement, ABS link-time
				 * address */
} usdt_arg_t;

/* One note, its addresses made file offsets for the uprobe source. */
typedef struct usdt_note {
	char *un_prov, *un_name;	/* as in the note ("gc__start") */
	char *un_func;			/* the function holding the pc, "" */
	char *un_argstr;		/* the operand list as written */
	uint64_t un_pc;			/* link-time address (adjusted) */
	uint64_t un_off;		/* file offset of the pc */
	uint64_t un_semaoff;		/* file offset of the semaphore, 0 */
	int un_nargs;			/* -1: operands not understood */
	usdt_arg_t un_args[USDT_MAXARGS];
} usdt_note_t;

typedef struct usdt_notes {
	int un_n;
	usdt_note_t *un_notes;
} usdt_notes_t;

/*
 * Read the notes of an ELF image of len bytes.  0 with *out filled (n
 * may be 0: no notes), or -1 with a message in err: not ELF, corrupt
 * headers, a note that points outside the loaded segments.  Notes whose
 * operands cannot be read keep un_nargs -1 (the probe fires without
 * arguments).  usdt_notes_free releases *out.
 */
int usdt_notes_read(const void *img, size_t len, usdt_notes_t *out,
    char *err, size_t errlen);
/* The same for a file (mapped privately, read only). */
int usdt_notes_file(const char *path, usdt_notes_t *out, char *err,
    size_t errlen);
void usdt_notes_free(usdt_notes_t *n);

/*
 * Parse an operand list ("-4@%eax 8@-16(%rbp)") into at most max
 * arguments.  The count, or -1 with a message in err.  Symbols
 * (sym+8(%rip)) are resolved by lookup(arg, name, &vaddr) (0 found);
 * lookup may be NULL.
 */
int usdt_args_parse(const char *spec, usdt_arg_t *out, int max,
    int (*lookup)(void *arg, const char *name, uint64_t *vaddr),
    void *lookup_arg, char *err, size_t errlen);
/* The value of argument a at hit s; bias: run-time address minus
 * link-time address of the object (pps_ip - un_pc at entry). */
uint64_t usdt_arg_value(const usdt_arg_t *a, const prov_perf_sample_t *s,
    uint64_t bias);
/* What a uprobe site of a probe whose n operands are args needs besides
 * its place: the memory to copy at each hit for the arguments in caps
 * (bit N: argN; the 8-byte operands in a register or at a register plus
 * a displacement), and where the register operands are for filters in
 * the kernel (PROV_UPROBE_ARGS_REGS). */
struct prov_uprobe_site;
void usdt_site_fill(const usdt_arg_t *args, int n, unsigned caps,
    struct prov_uprobe_site *site);
/* Keep in every one of a probe's n sites only the register arguments
 * they all agree on (inlined copies of a probe may hold an operand in
 * different places): the kernel's filter reads one map for the probe. */
void usdt_sites_agree(struct prov_uprobe_site *sites, int n);
/* "int32_t", "uint8_t"... for the argument's size and signedness. */
const char *usdt_arg_type(const usdt_arg_t *a);

#endif /* USDT_IMPL_H */
