/*
 * args.c - the operand specifiers of USDT probes ("-4@%eax 8@-16(%rbp)
 * 8@$5"), parsed once when the notes are read, evaluated at each hit from
 * the sampled user registers and stack (uprobe.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "usdt_impl.h"
#include "uprobe.h"

/* x86_64 register names by width: the 64-bit register and bit shift. */
static const struct regname {
	const char *rn_name;
	int8_t rn_reg;
	uint8_t rn_size, rn_shift;
} regs[] = {
#define R4(q, d, w, b, r) \
	{ q, r, 8, 0 }, { d, r, 4, 0 }, { w, r, 2, 0 }, { b, r, 1, 0 }
	R4("rax", "eax", "ax", "al", PROV_UREG_RAX),
	R4("rbx", "ebx", "bx", "bl", PROV_UREG_RBX),
	R4("rcx", "ecx", "cx", "cl", PROV_UREG_RCX),
	R4("rdx", "edx", "dx", "dl", PROV_UREG_RDX),
	R4("rsi", "esi", "si", "sil", PROV_UREG_RSI),
	R4("rdi", "edi", "di", "dil", PROV_UREG_RDI),
	R4("rbp", "ebp", "bp", "bpl", PROV_UREG_RBP),
	R4("rsp", "esp", "sp", "spl", PROV_UREG_RSP),
	R4("r8", "r8d", "r8w", "r8b", PROV_UREG_R8),
	R4("r9", "r9d", "r9w", "r9b", PROV_UREG_R9),
	R4("r10", "r10d", "r10w", "r10b", PROV_UREG_R10),
	R4("r11", "r11d", "r11w", "r11b", PROV_UREG_R11),
	R4("r12", "r12d", "r12w", "r12b", PROV_UREG_R12),
	R4("r13", "r13d", "r13w", "r13b", PROV_UREG_R13),
	R4("r14", "r14d", "r14w", "r14b", PROV_UREG_R14),
	R4("r15", "r15d", "r15w", "r15b", PROV_UREG_R15),
#undef R4
	{ "ah", PROV_UREG_RAX, 1, 8 }, { "bh", PROV_UREG_RBX, 1, 8 },
	{ "ch", PROV_UREG_RCX, 1, 8 }, { "dh", PROV_UREG_RDX, 1, 8 },
	{ "rip", PROV_UREG_RIP, 8, 0 },
};

typedef struct cursor {
	const char *p;
	char *err;
	size_t errlen;
	const char *what;		/* the operand, for messages */
	int (*lookup)(void *, const char *, uint64_t *);
	void *larg;
} cursor_t;

static int bad(cursor_t *c, const char *why)
{
	snprintf(c->err, c->errlen, "operand '%.40s': %s", c->what, why);
	return -1;
}

/* "%name" at c->p: its entry, or NULL. */
static const struct regname *reg(cursor_t *c)
{
	char name[8];
	size_t n = 0;

	if (*c->p != '%')
		return NULL;
	c->p++;
	while (isalnum((unsigned char)*c->p) && n + 1 < sizeof(name))
		name[n++] = *c->p++;
	name[n] = '\0';
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (strcmp(regs[i].rn_name, name) == 0)
			return &regs[i];
	return NULL;
}

/* A decimal or 0x number with an optional sign at c->p; 0 or -1. */
static int number(cursor_t *c, int64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*c->p) && !((*c->p == '-' ||
	    *c->p == '+') && isdigit((unsigned char)c->p[1])))
		return -1;
	errno = 0;
	*v = (int64_t)strtoll(c->p, &end, 0);
	if (errno != 0)
		return -1;
	c->p = end;
	return 0;
}

/* "sym", "sym+N" or "sym-N" before "(%rip)": its link-time address. */
static int symbol(cursor_t *c, int64_t *v)
{
	char name[256];
	size_t n = 0;
	uint64_t addr;
	int64_t off = 0;

	while ((isalnum((unsigned char)*c->p) || *c->p == '_' ||
	    *c->p == '.' || *c->p == '$') && n + 1 < sizeof(name))
		name[n++] = *c->p++;
	name[n] = '\0';
	if (n == 0)
		return bad(c, "no displacement or symbol");
	if ((*c->p == '+' || *c->p == '-') && number(c, &off) != 0)
		return bad(c, "bad offset after the symbol");
	if (c->lookup == NULL || c->lookup(c->larg, name, &addr) != 0)
		return bad(c, "symbol not in the symbol table");
	*v = (int64_t)(addr + (uint64_t)off);
	return 0;
}

/* disp(%base[,%index[,scale]]) with c->p after the displacement. */
static int memory(cursor_t *c, usdt_arg_t *a, int sym)
{
	const struct regname *r;
	int64_t scale;

	if (*c->p++ != '(')
		return bad(c, "expected '('");
	a->ua_kind = USDT_ARG_MEM;
	a->ua_base = a->ua_index = -1;
	a->ua_scale = 1;
	if (*c->p != ',') {
		if ((r = reg(c)) == NULL || r->rn_size != 8)
			return bad(c, "unknown base register");
		a->ua_base = r->rn_reg;
	}
	if (a->ua_base == PROV_UREG_RIP) {
		if (!sym || *c->p != ')')
			return bad(c, "%rip without a symbol");
		a->ua_kind = USDT_ARG_ABS;
		a->ua_base = -1;
	} else if (sym) {
		return bad(c, "a symbol is only read relative to %rip");
	}
	if (*c->p == ',') {
		c->p++;
		if ((r = reg(c)) == NULL || r->rn_size != 8 ||
		    r->rn_reg == PROV_UREG_RIP)
			return bad(c, "unknown index register");
		a->ua_index = r->rn_reg;
		if (*c->p == ',') {
			c->p++;
			if (number(c, &scale) != 0 || (scale != 1 &&
			    scale != 2 && scale != 4 && scale != 8))
				return bad(c, "scale is not 1, 2, 4 or 8");
			a->ua_scale = (uint8_t)scale;
		}
	}
	if (*c->p++ != ')')
		return bad(c, "expected ')'");
	return 0;
}

static int operand(cursor_t *c, usdt_arg_t *a)
{
	const struct regname *r;
	int64_t v = 0;

	if (*c->p == '%') {
		if ((r = reg(c)) == NULL || r->rn_reg == PROV_UREG_RIP)
			return bad(c, "unknown register");
		a->ua_kind = USDT_ARG_REG;
		a->ua_base = r->rn_reg;
		a->ua_shift = r->rn_shift;
		return 0;
	}
	if (*c->p == '$') {
		c->p++;
		if (number(c, &a->ua_disp) != 0)
			return bad(c, "immediate is not a number");
		a->ua_kind = USDT_ARG_IMM;
		return 0;
	}
	if (*c->p == '(')
		return memory(c, a, 0);
	if (number(c, &v) == 0) {
		a->ua_disp = v;
		return memory(c, a, 0);
	}
	if (symbol(c, &a->ua_disp) != 0)
		return -1;
	return memory(c, a, 1);
}

int usdt_args_parse(const char *spec, usdt_arg_t *out, int max,
    int (*lookup)(void *arg, const char *name, uint64_t *vaddr),
    void *lookup_arg, char *err, size_t errlen)
{
	cursor_t c = { spec, err, errlen, spec, lookup, lookup_arg };
	int n = 0;
	int64_t size;

	for (;;) {
		while (*c.p == ' ')
			c.p++;
		if (*c.p == '\0')
			return n;
		if (n == max) {
			snprintf(err, errlen, "more than %d arguments", max);
			return -1;
		}
		c.what = c.p;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].ua_base = out[n].ua_index = -1;
		out[n].ua_size = 8;
		/* "[-]N@" is optional: old notes give only the operand */
		if (strchr(c.p, '@') != NULL && (strchr(c.p, ' ') == NULL ||
		    strchr(c.p, '@') < strchr(c.p, ' '))) {
			if (number(&c, &size) != 0 || *c.p++ != '@')
				return bad(&c, "bad size before '@'");
			out[n].ua_signed = size < 0;
			size = size < 0 ? -size : size;
			if (size != 1 && size != 2 && size != 4 && size != 8)
				return bad(&c, "size is not 1, 2, 4 or 8");
			out[n].ua_size = (uint8_t)size;
		}
		if (operand(&c, &out[n]) != 0)
			return -1;
		if (*c.p != ' ' && *c.p != '\0')
			return bad(&c, "trailing characters");
		n++;
	}
}

/* Sign- or zero-extend the low size bytes of v. */
static uint64_t extend(uint64_t v, int size, int is_signed)
{
	int bits = size * 8;

	if (bits >= 64)
		return v;
	v &= (1ull << bits) - 1;
	if (is_signed && (v >> (bits - 1)) != 0)
		v |= ~0ull << bits;
	return v;
}

uint64_t usdt_arg_value(const usdt_arg_t *a, const prov_perf_sample_t *s,
    uint64_t bias)
{
	uint64_t v = 0, addr;

	switch (a->ua_kind) {
	case USDT_ARG_REG:
		v = prov_perf_ureg(s, a->ua_base) >> a->ua_shift;
		break;
	case USDT_ARG_IMM:
		v = (uint64_t)a->ua_disp;
		break;
	case USDT_ARG_MEM:
	case USDT_ARG_ABS:
		addr = (uint64_t)a->ua_disp;
		if (a->ua_kind == USDT_ARG_ABS)
			addr += bias;
		if (a->ua_base >= 0)
			addr += prov_perf_ureg(s, a->ua_base);
		if (a->ua_index >= 0)
			addr += prov_perf_ureg(s, a->ua_index) * a->ua_scale;
		if (prov_uprobe_read(s, addr, &v, a->ua_size) != 0)
			v = 0;
		break;
	}
	return extend(v, a->ua_size, a->ua_signed);
}

const char *usdt_arg_type(const usdt_arg_t *a)
{
	static const char *const names[2][4] = {
		{ "uint8_t", "uint16_t", "uint32_t", "uint64_t" },
		{ "int8_t", "int16_t", "int32_t", "int64_t" },
	};
	int i = a->ua_size == 1 ? 0 : a->ua_size == 2 ? 1 :
	    a->ua_size == 4 ? 2 : 3;

	return names[a->ua_signed != 0][i];
}

void usdt_site_fill(const usdt_arg_t *args, int n, unsigned caps,
    prov_uprobe_site_t *site)
{
	int k = 0;

	for (int a = 0; a < n && a < 32 && k < PROV_UPROBE_NCAP; a++) {
		const usdt_arg_t *ua = &args[a];
		prov_uprobe_cap_t *c = &site->pus_caps[k];

		if (!(caps & (1u << a)) || ua->ua_size != 8 || ua->ua_base < 0)
			continue;
		if (ua->ua_kind == USDT_ARG_REG && ua->ua_shift == 0) {
			c->puc_kind = PROV_UCAP_REG;
		} else if (ua->ua_kind == USDT_ARG_MEM && ua->ua_index < 0 &&
		    ua->ua_disp >= INT32_MIN && ua->ua_disp <= INT32_MAX) {
			c->puc_kind = PROV_UCAP_MEM;
			c->puc_disp = (int32_t)ua->ua_disp;
		} else {
			continue;
		}
		c->puc_reg = (uint8_t)ua->ua_base;
		k++;
	}
	site->pus_regargs = PROV_UPROBE_ARGS_REGS;
	for (int a = 0; a < DTRACE_MAXARGS; a++) {
		const usdt_arg_t *ua = &args[a];

		site->pus_argreg[a] = -1;
		if (a >= n || ua->ua_kind != USDT_ARG_REG || ua->ua_shift != 0)
			continue;
		site->pus_argreg[a] = ua->ua_base;
		site->pus_argsize[a] = ua->ua_size;
		site->pus_argsigned[a] = ua->ua_signed;
	}
}

/* Keep in every site only the register arguments all n sites agree on
 * (inlined copies of a probe may hold an operand in different places):
 * the kernel's filter reads one map for the probe. */
void usdt_sites_agree(prov_uprobe_site_t *sites, int n)
{
	for (int a = 0; a < DTRACE_MAXARGS; a++) {
		int same = 1;

		for (int i = 1; i < n; i++)
			same &= sites[i].pus_argreg[a] == sites[0].pus_argreg[a] &&
			    sites[i].pus_argsize[a] == sites[0].pus_argsize[a] &&
			    sites[i].pus_argsigned[a] ==
			    sites[0].pus_argsigned[a];
		for (int i = 0; i < n && !same; i++)
			sites[i].pus_argreg[a] = -1;
	}
}
