/*
 * type.c - the compiler's type table: C integer types and the fixed-width
 * typedefs D scripts use, string and void, pointers and arrays, and the
 * struct/union/enum/typedef types scripts declare.
 *
 * Named types live in a list on struct eng_cc (they outlive a compile:
 * a later compile on the same handle sees earlier declarations).  Types
 * made on the way (pointers, arrays) are allocated in eng_cc's arena too,
 * because identifiers that outlive the compile may refer to them.
 * Invariant: every type has t_size and t_align set once complete; a
 * TY_FORWARD type (declared, not yet defined) has size 0.
 */
#include <string.h>
#include "cc.h"

struct eng_type *eng_type_new(struct eng_cc *cc, enum eng_tkind k,
    const char *name)
{
	struct eng_type *t = eng_arena_alloc(&cc->cc_arena, sizeof(*t));
	size_t n;
	char *s;

	if (t == NULL)
		return NULL;
	t->t_kind = k;
	if (name != NULL) {
		n = strlen(name);
		s = eng_arena_alloc(&cc->cc_arena, n + 1);
		if (s != NULL)
			memcpy(s, name, n);
		t->t_name = s;
	}
	return t;
}

void eng_type_add(struct eng_cc *cc, struct eng_type *t)
{
	t->t_next = cc->cc_types;
	cc->cc_types = t;
}

struct eng_type *eng_type_lookup(struct eng_cc *cc, const char *name)
{
	for (struct eng_type *t = cc->cc_types; t != NULL; t = t->t_next)
		if (t->t_name != NULL && strcmp(t->t_name, name) == 0)
			return t;
	return NULL;
}

static struct eng_type *mkint(struct eng_cc *cc, const char *name, int size,
    int sgn)
{
	struct eng_type *t = eng_type_new(cc, TY_INT, name);

	t->t_size = t->t_align = (uint32_t)size;
	t->t_signed = sgn;
	eng_type_add(cc, t);
	return t;
}

/* The canonical integer type of a size and signedness. */
struct eng_type *eng_type_int(struct eng_cc *cc, int size, int sgn)
{
	static const char *const names[2][4] = {
		{ "unsigned char", "unsigned short", "unsigned int",
		  "unsigned long" },
		{ "char", "short", "int", "long" }
	};
	int i = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;

	return eng_type_lookup(cc, names[sgn != 0][i]);
}

struct eng_type *eng_type_string(struct eng_cc *cc)
{
	return eng_type_lookup(cc, "string");
}

struct eng_type *eng_type_void(struct eng_cc *cc)
{
	return eng_type_lookup(cc, "void");
}

/* The pointer type to base, made once per base (cached on base). */
struct eng_type *eng_type_ptr(struct eng_pcb *pc, struct eng_type *base)
{
	struct eng_type *t;

	if (base != NULL && base->t_ptrto != NULL)
		return base->t_ptrto;
	t = eng_type_new(pc->pc_cc, TY_PTR, NULL);
	if (t == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	t->t_size = t->t_align = 8;
	t->t_base = base;
	t->t_userland = base != NULL && base->t_userland;
	if (base != NULL)
		base->t_ptrto = t;
	return t;
}

struct eng_type *eng_type_array(struct eng_pcb *pc, struct eng_type *base,
    uint32_t n)
{
	struct eng_type *t = eng_type_new(pc->pc_cc, TY_ARRAY, NULL);

	if (t == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	t->t_base = base;
	t->t_nelems = n;
	t->t_size = base->t_size * n;
	t->t_align = base->t_align;
	return t;
}

/* Typedefs are copies of their type with a new name; nothing to follow. */
struct eng_type *eng_type_resolve(struct eng_type *t)
{
	return t;
}

/* Fill the table of built-in types: -1 if out of memory.  They fit in
 * the arena's first chunk, so only that allocation can fail. */
int eng_type_init(struct eng_cc *cc)
{
	static const struct { const char *n; int size, sgn; } ints[] = {
		{ "char", 1, 1 }, { "signed char", 1, 1 },
		{ "unsigned char", 1, 0 }, { "short", 2, 1 },
		{ "unsigned short", 2, 0 }, { "int", 4, 1 },
		{ "unsigned int", 4, 0 }, { "long", 8, 1 },
		{ "unsigned long", 8, 0 }, { "long long", 8, 1 },
		{ "unsigned long long", 8, 0 }, { "int8_t", 1, 1 },
		{ "int16_t", 2, 1 }, { "int32_t", 4, 1 }, { "int64_t", 8, 1 },
		{ "uint8_t", 1, 0 }, { "uint16_t", 2, 0 }, { "uint32_t", 4, 0 },
		{ "uint64_t", 8, 0 }, { "intptr_t", 8, 1 },
		{ "uintptr_t", 8, 0 }, { "size_t", 8, 0 }, { "ssize_t", 8, 1 },
		{ "pid_t", 4, 1 }, { "uid_t", 4, 0 }, { "gid_t", 4, 0 },
		{ "id_t", 4, 1 }, { "time_t", 8, 1 }, { "off_t", 8, 1 },
		{ "loff_t", 8, 1 }, { "dev_t", 8, 0 }, { "ino_t", 8, 0 },
		{ "mode_t", 4, 0 }, { "uchar_t", 1, 0 }, { "ushort_t", 2, 0 },
		{ "uint_t", 4, 0 }, { "ulong_t", 8, 0 }, { "u_int", 4, 0 },
		{ "u_long", 8, 0 }, { "hrtime_t", 8, 1 },
		{ "processorid_t", 4, 1 }, { "zoneid_t", 4, 1 },
		{ "boolean_t", 4, 1 }, { "_Bool", 1, 0 }, { "bool", 1, 0 },
		{ "major_t", 4, 0 }, { "minor_t", 4, 0 }, { "socklen_t", 4, 0 },
		{ "u8", 1, 0 }, { "u16", 2, 0 }, { "u32", 4, 0 },
		{ "u64", 8, 0 }, { "s8", 1, 1 }, { "s16", 2, 1 },
		{ "s32", 4, 1 }, { "s64", 8, 1 }, { "__u64", 8, 0 },
		{ "__s64", 8, 1 }, { "__u32", 4, 0 }, { "__s32", 4, 1 },
		{ "ipaddr_t", 4, 0 }, { "in_addr_t", 4, 0 },
		{ "in_port_t", 2, 0 }, { "sa_family_t", 2, 0 },
		{ "clockid_t", 4, 1 }, { "key_t", 4, 1 }, { "nlink_t", 8, 0 },
		{ "blksize_t", 8, 1 }, { "blkcnt_t", 8, 1 },
		/* the types of sym()/mod() and usym()/umod()/uaddr() keys */
		{ "_symaddr", 8, 0 }, { "_usymaddr", 8, 0 },
		{ NULL, 0, 0 }
	};
	static const struct { const char *n; int size; } floats[] = {
		{ "float", 4 }, { "double", 8 }, { "long double", 16 },
		{ "_Float32", 4 }, { "_Float64", 8 }, { "_Float128", 16 },
		{ "_Float32x", 8 }, { "_Float64x", 16 }, { NULL, 0 }
	};
	struct eng_type *t;

	if (eng_arena_alloc(&cc->cc_arena, 1) == NULL)
		return -1;
	for (int i = 0; ints[i].n != NULL; i++)
		mkint(cc, ints[i].n, ints[i].size, ints[i].sgn);
	/* D declares floating-point types (system headers use them) but
	 * has no floating-point values: sema refuses any use. */
	for (int i = 0; floats[i].n != NULL; i++) {
		t = eng_type_new(cc, TY_FLOAT, floats[i].n);
		t->t_size = t->t_align = (uint32_t)floats[i].size;
		eng_type_add(cc, t);
	}
	t = eng_type_new(cc, TY_VOID, "void");
	t->t_size = 0;
	t->t_align = 1;
	eng_type_add(cc, t);
	t = eng_type_new(cc, TY_STRING, "string");
	t->t_size = 256;
	t->t_align = 1;
	eng_type_add(cc, t);
	t = eng_type_new(cc, TY_STRUCT, "in6_addr_t");	/* 16 bytes */
	t->t_size = 16;
	t->t_align = 4;
	t->t_members = eng_arena_alloc(&cc->cc_arena, sizeof(*t->t_members));
	if (t->t_members != NULL) {
		t->t_members->m_name = "_S6_u8";
		t->t_members->m_type = eng_type_lookup(cc, "uint8_t");
	}
	eng_type_add(cc, t);
	t = eng_type_new(cc, TY_PTR, "caddr_t");
	t->t_size = t->t_align = 8;
	t->t_base = eng_type_lookup(cc, "char");
	eng_type_add(cc, t);
	return 0;
}

int eng_type_is_int(const struct eng_type *t)
{
	return t != NULL && (t->t_kind == TY_INT || t->t_kind == TY_ENUM);
}

int eng_type_is_ptr(const struct eng_type *t)
{
	return t != NULL && t->t_kind == TY_PTR;
}

int eng_type_is_string(const struct eng_type *t)
{
	return t != NULL && t->t_kind == TY_STRING;
}

int eng_type_is_scalar(const struct eng_type *t)
{
	return eng_type_is_int(t) || eng_type_is_ptr(t) ||
	    (t != NULL && t->t_kind == TY_ARRAY);
}

/* May a variable of type a be given a value of type b? */
int eng_type_compat(const struct eng_type *a, const struct eng_type *b)
{
	if (a == b)
		return 1;
	if (eng_type_is_int(a) && eng_type_is_int(b))
		return 1;
	if (a->t_kind != b->t_kind)
		return eng_type_is_ptr(a) && eng_type_is_int(b) == 0 &&
		    b->t_kind == TY_ARRAY;
	if (a->t_kind == TY_PTR)
		return a->t_base == NULL || b->t_base == NULL ||
		    a->t_base->t_kind == TY_VOID ||
		    b->t_base->t_kind == TY_VOID ||
		    eng_type_compat(a->t_base, b->t_base);
	if (a->t_kind == TY_STRUCT || a->t_kind == TY_UNION)
		return a->t_members == b->t_members;
	return a->t_kind == TY_STRING || a->t_kind == TY_VOID;
}

struct eng_member *eng_type_member(struct eng_type *t, const char *name)
{
	for (struct eng_member *m = t->t_members; m != NULL; m = m->m_next)
		if (strcmp(m->m_name, name) == 0)
			return m;
	return NULL;
}

/* dtrace's spelling of a type: "int", "char *", "struct foo", "string" */
const char *eng_type_name(const struct eng_type *t, char *buf, size_t len)
{
	char b[128];

	if (t == NULL) {
		snprintf(buf, len, "<unknown>");
	} else if (t->t_name != NULL) {
		snprintf(buf, len, "%s", t->t_name);
	} else if (t->t_kind == TY_PTR) {
		eng_type_name(t->t_base, b, sizeof(b));
		snprintf(buf, len, "%s%s*", b, b[strlen(b) - 1] == '*' ?
		    "" : " ");
	} else if (t->t_kind == TY_ARRAY) {
		eng_type_name(t->t_base, b, sizeof(b));
		snprintf(buf, len, "%s [%u]", b, t->t_nelems);
	} else {
		snprintf(buf, len, "<anonymous>");
	}
	return buf;
}

/*
 * The same in one of two static buffers that take turns, for compile
 * error messages (at most two types per message; not reentrant).
 */
const char *eng_type_tname(const struct eng_type *t)
{
	static char b[2][128];
	static int i;

	i ^= 1;
	return eng_type_name(t, b[i], sizeof(b[i]));
}

/* A type from a C type string of a probe argument ("const char *"). */
struct eng_type *eng_type_parse_name(struct eng_pcb *pc, const char *s)
{
	char buf[DTRACE_ARGTYPELEN], *w, *e;
	int nptr = 0;
	struct eng_type *t;

	snprintf(buf, sizeof(buf), "%s", s);
	for (e = buf + strlen(buf); e > buf && (e[-1] == '*' ||
	    e[-1] == ' '); e--)
		nptr += e[-1] == '*';
	*e = '\0';
	for (w = buf;;) {
		if (strncmp(w, "const ", 6) == 0)
			w += 6;
		else if (strncmp(w, "volatile ", 9) == 0)
			w += 9;
		else if (strncmp(w, "userland ", 9) == 0)
			w += 9;
		else
			break;
	}
	if ((e = strstr(w, " const")) != NULL)
		*e = '\0';
	t = eng_type_lookup(pc->pc_cc, w);
	if (t == NULL && strncmp(w, "struct ", 7) == 0) {
		t = eng_type_new(pc->pc_cc, TY_FORWARD, w);
		eng_type_add(pc->pc_cc, t);
	}
	if (t == NULL && strcmp(w, "signed") == 0)
		t = eng_type_int(pc->pc_cc, 4, 1);
	if (t == NULL && strcmp(w, "unsigned") == 0)
		t = eng_type_int(pc->pc_cc, 4, 0);
	if (t == NULL)
		t = eng_type_lookup(pc->pc_cc, "int64_t");
	while (nptr-- > 0)
		t = eng_type_ptr(pc, t);
	return t;
}
