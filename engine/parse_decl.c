/*
 * parse_decl.c - the D parser's declarations: storage classes, type
 * specifiers checked as dtrace's dt_decl.c checks them (D_DECL_COMBO,
 * _CHARATTR ...), declarators with their prototypes, variable
 * declarations checked as dt_node_decl() does, typedef, inline,
 * translator and provider definitions.  struct/union/enum bodies are in
 * parse_sou.c, expressions, statements and clauses in parse.c;
 * parse_impl.h says what they share.
 *
 * One function per grammar rule, the rule in the comment above it.
 * Declarations are entered into the tables as they are parsed, because
 * a typedef changes how a later "(name)" parses: struct/union/enum and
 * typedef names go into the handle's type table, variables, inlines,
 * enumerators and translators into its identifiers.  What outlives the
 * program (types, members, identifiers) is allocated in the handle's
 * arena (eng_cc_palloc); provider definitions go to the program (hdr.c).
 * C constructs that system headers hold under -C (function prototypes
 * and bodies, function pointer members, anonymous members) are accepted
 * and declare nothing D cannot use.
 */
#include <string.h>
#include "parse_impl.h"

/* ---- types in the grammar --------------------------------------------- */

static const char *const type_kws[] = {
	"char", "short", "int", "long", "signed", "unsigned", "void",
	"string", "struct", "union", "enum", "const", "volatile",
	"userland", "float", "double", "restrict", NULL
};

/* Does word w name a type (a keyword, or a typedef no variable hides)? */
int eng_parse_is_type(struct eng_pcb *pc, const char *w)
{
	for (int i = 0; type_kws[i] != NULL; i++)
		if (strcmp(w, type_kws[i]) == 0)
			return 1;
	return eng_type_lookup(pc->pc_cc, w) != NULL &&
	    eng_cc_ident(pc, w, SC_GLOBAL, 0) == NULL;
}

static int is_type_kw(const char *w)
{
	for (int i = 0; type_kws[i] != NULL; i++)
		if (strcmp(w, type_kws[i]) == 0)
			return 1;
	return 0;
}


/* ---- storage classes ---------------------------------------------------- */

/* dtrace's storage classes (dt_dclass_t); DC_NONE when none is given */
enum dclass { DC_NONE, DC_AUTO, DC_REGISTER, DC_STATIC, DC_EXTERN, DC_SELF,
	      DC_THIS };

static enum dclass class_of(const char *w)
{
	static const char *const kws[] = { "auto", "register", "static",
	    "extern", "self", "this", NULL };

	for (int i = 0; kws[i] != NULL; i++)
		if (strcmp(w, kws[i]) == 0)
			return (enum dclass)(i + 1);
	return DC_NONE;
}

/* storage-class = { "auto" | "register" | "static" | "extern" | "self"
 *                 | "this" }: at most one */
static enum dclass storage_class(struct eng_pcb *pc)
{
	enum dclass c = DC_NONE, k;

	while (peek(pc)->tk_kind == T_IDENT &&
	    (k = class_of(pc->pc_tok.tk_text)) != DC_NONE) {
		struct eng_token *t = next(pc);

		if (c != DC_NONE)
			eng_cc_error(pc, t->tk_line, t->tk_col, "D_DECL_CLASS",
			    "only one storage class allowed in a declaration");
		c = k;
	}
	return c;
}

/* ---- type specifiers ------------------------------------------------------ */

/* What a declaration's specifiers said so far (dtrace's dt_decl_t). */
struct spec {
	int nshort, nlong, nsigned, nunsigned, userland;
	enum { SK_NONE, SK_INT, SK_FLOAT, SK_VOID, SK_OTHER } kind;
	const char *name;		/* SK_INT/SK_FLOAT: "char", "double" */
	struct eng_type *t;		/* SK_OTHER: struct, enum, typedef */
};

static int has_attr(const struct spec *s)
{
	return s->nshort || s->nlong || s->nsigned || s->nunsigned;
}

static _Noreturn void spec_error(struct eng_pcb *pc, const char *tag,
    const char *msg)
{
	eng_cc_error(pc, pc->pc_prev.tk_line, pc->pc_prev.tk_col, tag, "%s",
	    msg);
}

/* dtrace's dt_decl_check: attributes that do not go with the type. */
static void spec_check(struct eng_pcb *pc, const struct spec *s)
{
	if (s->kind == SK_NONE)
		return;
	if (s->name != NULL && strcmp(s->name, "char") == 0 &&
	    (s->nshort || s->nlong))
		spec_error(pc, "D_DECL_CHARATTR", "invalid type declaration: "
		    "short and long may not be used with char type");
	if (s->kind == SK_VOID && has_attr(s))
		spec_error(pc, "D_DECL_VOIDATTR", "invalid type declaration: "
		    "attributes may not be used with void type");
	if (s->kind != SK_INT && (s->nsigned || s->nunsigned))
		spec_error(pc, "D_DECL_SIGNINT", "invalid type declaration: "
		    "signed and unsigned may only be used with integer type");
	if (s->kind != SK_INT && s->kind != SK_FLOAT && s->nlong)
		spec_error(pc, "D_DECL_LONGINT", "invalid type declaration: "
		    "long and long long may only be used with integer or "
		    "floating-point type");
}

/* short, long, signed, unsigned (dtrace's dt_decl_attr). */
static void spec_attr(struct eng_pcb *pc, struct spec *s, const char *w)
{
	static const char *const fmt = "the attribute '%s' may only be used "
	    "at most %s in a declaration";
	int *n = w[0] == 'l' ? &s->nlong : w[0] == 's' && w[1] == 'h' ?
	    &s->nshort : w[0] == 's' ? &s->nsigned : &s->nunsigned;

	if (*n == (w[0] == 'l' ? 2 : 1))
		eng_cc_error(pc, pc->pc_prev.tk_line, pc->pc_prev.tk_col,
		    "D_DECL_COMBO", fmt, w, w[0] == 'l' ? "twice" : "once");
	(*n)++;
}

/* A type word naming the type itself (dtrace's dt_decl_spec). */
static void spec_type(struct eng_pcb *pc, struct spec *s, const char *w)
{
	struct eng_cc *cc = pc->pc_cc;

	if (s->kind != SK_NONE)
		spec_error(pc, "D_DECL_COMBO", "invalid type combination");
	if (!strcmp(w, "char") || !strcmp(w, "int")) {
		s->kind = SK_INT;
		s->name = w[0] == 'c' ? "char" : "int";
	} else if (!strcmp(w, "float") || !strcmp(w, "double")) {
		s->kind = SK_FLOAT;
		s->name = w[0] == 'f' ? "float" : "double";
	} else if (!strcmp(w, "void")) {
		s->kind = SK_VOID;
	} else if (!strcmp(w, "struct") || !strcmp(w, "union") ||
	    !strcmp(w, "enum")) {
		s->kind = SK_OTHER;
		s->t = eng_parse_tagged(pc, w);
	} else {
		s->kind = SK_OTHER;
		s->t = eng_type_lookup(cc, w);
	}
}

/* The type the specifiers name. */
static struct eng_type *spec_result(struct eng_pcb *pc, const struct spec *s)
{
	struct eng_cc *cc = pc->pc_cc;
	int size;

	if (s->nshort && s->nlong)	/* no such type as "short long" */
		eng_cc_error(pc, pc->pc_prev.tk_line, pc->pc_prev.tk_col,
		    "D_UNKNOWN", "failed to resolve type: short and long may not "
		    "be combined");
	switch (s->kind) {
	case SK_FLOAT:
		return eng_type_lookup(cc, s->name[0] == 'f' ? "float" :
		    s->nlong ? "long double" : "double");
	case SK_VOID:
		return eng_type_void(cc);
	case SK_OTHER:
		return s->t;
	default:
		size = s->name != NULL && s->name[0] == 'c' ? 1 : s->nshort ?
		    2 : s->nlong ? 8 : 4;
		return eng_type_int(cc, size, !s->nunsigned);
	}
}

/* type-specifiers = { qualifier | "userland" | attribute | type-word
 *                   | typedef-name | tagged } */
static struct eng_type *specifiers(struct eng_pcb *pc)
{
	struct spec s = { 0 };
	struct eng_type *t;
	int any = 0;

	while (peek(pc)->tk_kind == T_IDENT) {
		const char *w = pc->pc_tok.tk_text;

		/* a typedef name after a type (or an attribute) is the name
		 * being declared: C headers redeclare D's typedefs */
		if (!is_type_kw(w) && (s.kind != SK_NONE || has_attr(&s) ||
		    !eng_parse_is_type(pc, w)))
			break;
		w = next(pc)->tk_text;
		any = 1;
		if (!strcmp(w, "const") || !strcmp(w, "volatile") ||
		    !strcmp(w, "restrict"))
			continue;
		if (!strcmp(w, "userland"))
			s.userland = 1;
		else if (!strcmp(w, "short") || !strcmp(w, "long") ||
		    !strcmp(w, "signed") || !strcmp(w, "unsigned"))
			spec_attr(pc, &s, w);
		else
			spec_type(pc, &s, w);
		spec_check(pc, &s);
	}
	if (!any)
		syntax(pc, peek(pc));
	t = spec_result(pc, &s);
	if (s.userland && eng_type_is_ptr(t)) {
		struct eng_type *u = eng_type_new(pc->pc_cc, TY_PTR, NULL);

		if (u == NULL)
			eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
		*u = *t;
		u->t_ptrto = NULL;
		u->t_userland = 1;
		t = u;
	}
	return t;
}

/* type-name = specifiers { "*" } */
struct eng_type *eng_parse_type_name(struct eng_pcb *pc)
{
	struct eng_type *t = specifiers(pc);

	while (accept(pc, '*'))
		t = eng_type_ptr(pc, t);
	return t;
}

/* ---- prototypes ------------------------------------------------------------ */

#define PP_VARARGS	0x1	/* "..." allowed */
#define PP_VOID		0x2	/* a sole "void" allowed */

/*
 * params = [ param { "," param } ] close, where param = "..." |
 * [storage-class] type-name [ name | "(" "*" [name] ")" "(" ... ")" ]
 * { "[" ... "]" }, checked as dtrace's dt_decl_prototype does for kind
 * ("function", "array").  Fills types[] (up to max) and returns the
 * number of parameters (0 for a sole void).
 */
static int params(struct eng_pcb *pc, const char *kind, int flags,
    int close, struct eng_type **types, int max)
{
	int i = 0, nvoid = 0;

	if (accept(pc, close))
		return 0;
	do {
		struct eng_token at = *peek(pc);
		const char *name = NULL;
		struct eng_type *t;
		enum dclass c;

		i++;
		if (accept(pc, T_DOTS)) {
			if (!(flags & PP_VARARGS))
				eng_cc_error(pc, at.tk_line, at.tk_col,
				    "D_DECL_PROTO_VARARGS", "%s prototype may not "
				    "use a variable-length argument list", kind);
			continue;
		}
		c = storage_class(pc);
		if (c != DC_NONE && c != DC_REGISTER)
			eng_cc_error(pc, at.tk_line, at.tk_col, "D_DECL_PARMCLASS",
			    "inappropriate storage class for function or "
			    "associative array parameter");
		t = c != DC_NONE && !is(pc, T_IDENT) ? eng_type_int(pc->pc_cc,
		    4, 1) : eng_parse_type_name(pc);
		if (is(pc, T_IDENT) && !eng_parse_is_type(pc, pc->pc_tok.tk_text))
			name = next(pc)->tk_text;
		if (accept(pc, '(')) {		/* (*name)(...) */
			while (accept(pc, '*'))
				;
			if (is(pc, T_IDENT))
				name = next(pc)->tk_text;
			expect(pc, ')');
			eng_parse_skip(pc, '(', ')');
			t = eng_type_ptr(pc, eng_type_void(pc->pc_cc));
		}
		while (is(pc, '[')) {
			eng_parse_skip(pc, '[', ']');
			t = eng_type_ptr(pc, t);
		}
		if (t->t_kind == TY_VOID) {
			nvoid++;
			if (!(flags & PP_VOID))
				eng_cc_error(pc, at.tk_line, at.tk_col,
				    "D_DECL_PROTO_TYPE", "%s prototype may not use "
				    "parameter of type %s: %s, parameter #%d", kind,
				    eng_type_tname(t), name ? name : "(anonymous)",
				    i);
			if (name != NULL)
				eng_cc_error(pc, at.tk_line, at.tk_col,
				    "D_DECL_PROTO_NAME", "void parameter may not "
				    "have a name: %s", name);
		}
		if (types != NULL && i <= max)
			types[i - 1] = t;
	} while (accept(pc, ','));
	expect(pc, close);
	if (nvoid != 0 && i > 1)
		eng_cc_error(pc, pc->pc_prev.tk_line, 0, "D_DECL_PROTO_VOID",
		    "void must be sole parameter");
	return nvoid ? 0 : i;
}

/*
 * A -C header's prototype "(" ... ")": C's parameters (GNU attributes,
 * __restrict, nested declarators) are skipped, but for dtrace's checks
 * of void parameters, which its parser makes in headers as in programs:
 * a named void (D_DECL_PROTO_NAME) and void beside other parameters
 * (D_DECL_PROTO_VOID).
 */
static void header_params(struct eng_pcb *pc)
{
	int depth = 0, nparam = 0, ntok = 0, isvoid = 0, nvoid = 0;
	const char *name = NULL;

	expect(pc, '(');
	for (;;) {
		const struct eng_token *t = next(pc);
		int k = t->tk_kind;

		if (k == T_EOF)
			syntax(pc, t);
		if (depth == 0 && (k == ',' || k == ')')) {
			nparam += ntok > 0 || k == ',';
			nvoid += isvoid && ntok == 1;
			if (isvoid && ntok == 2 && name != NULL)
				eng_cc_error(pc, t->tk_line, 0,
				    "D_DECL_PROTO_NAME", "void parameter may not "
				    "have a name: %s", name);
			if (k == ')')
				break;
			ntok = isvoid = 0;
			name = NULL;
			continue;
		}
		if (depth == 0 && ++ntok <= 2) {
			if (ntok == 1)
				isvoid = k == T_IDENT && !strcmp(t->tk_text, "void");
			else if (k == T_IDENT)
				name = t->tk_text;
		}
		depth += (k == '(' || k == '[') - (k == ')' || k == ']');
	}
	if (nvoid != 0 && nparam > 1)
		eng_cc_error(pc, pc->pc_prev.tk_line, 0, "D_DECL_PROTO_VOID",
		    "void must be sole parameter");
}

/* ---- declarations ------------------------------------------------------- */

/* One declarator of a declaration. */
struct declarator {
	const char *name;
	struct eng_type *t;
	int nkeys;			/* -1: not an associative array */
	struct eng_type *keys[DIF_DTR_NREGS];
	int func;			/* a function: declares nothing */
	int arrnull;			/* "[]": no dimension */
	int line;
};

/* A type for "pointer to function" (function pointer declarators). */
static struct eng_type *func_ptr(struct eng_pcb *pc)
{
	struct eng_type *f = eng_type_new(pc->pc_cc, TY_FUNC, NULL);

	if (f == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	f->t_align = 1;
	return eng_type_ptr(pc, f);
}

/* The "[...]" after a declarator's name: a tuple signature, "[]", or
 * dimensions. */
static void brackets(struct eng_pcb *pc, struct declarator *d)
{
	uint64_t dims[16];
	int n = 0;

	while (accept(pc, '[')) {
		if (n == 0 && d->nkeys < 0 && (is(pc, T_DOTS) ||
		    (is(pc, T_IDENT) && (eng_parse_is_type(pc,
		    pc->pc_tok.tk_text) || class_of(pc->pc_tok.tk_text))))) {
			d->nkeys = params(pc, "array", 0, ']', d->keys,
			    DIF_DTR_NREGS);
			if (d->nkeys > DIF_DTR_NREGS)
				syntax(pc, &pc->pc_prev);
			return;
		}
		if (n == 16)
			syntax(pc, peek(pc));
		if (is(pc, ']'))
			d->arrnull = 1;
		dims[n++] = is(pc, ']') ? 0 : eng_parse_dim(pc, d->t);
		expect(pc, ']');
	}
	while (n-- > 0)
		d->t = eng_type_array(pc, d->t, (uint32_t)dims[n]);
}

/*
 * declarator = { "*" } ( name | "(" { "*" } name ")" "(" params ")" )
 *              [ "(" params ")" ] { "[" ( dim | params ) "]" }
 * A function (name followed by its parameters) declares nothing D can
 * use; its prototype is checked in D programs (C headers' are skipped).
 */
static void declarator(struct eng_pcb *pc, struct eng_type *base,
    struct declarator *d)
{
	memset(d, 0, sizeof(*d));
	d->t = base;
	d->nkeys = -1;
	while (accept(pc, '*'))
		d->t = eng_type_ptr(pc, d->t);
	d->line = peek(pc)->tk_line;
	if (accept(pc, '(')) {
		while (accept(pc, '*'))
			;
		d->name = expect_ident(pc);
		expect(pc, ')');
		expect(pc, '(');
		params(pc, "function", PP_VARARGS | PP_VOID, ')', NULL, 0);
		d->t = func_ptr(pc);
	} else {
		d->name = expect_ident(pc);
	}
	if (strchr(d->name, '`') != NULL)	/* int `x; */
		eng_cc_error(pc, d->line, 0, "D_DECL_SCOPE", "scope operator may "
		    "not be used in a declaration: %s", d->name);
	if (is(pc, '(')) {
		d->func = 1;
		if (pc->pc_curfile != NULL) {
			header_params(pc);
		} else {
			next(pc);
			params(pc, "function", PP_VARARGS | PP_VOID, ')', NULL, 0);
		}
		return;
	}
	brackets(pc, d);
}

static const char *idkind(int assoc)
{
	return assoc ? "array" : "scalar";
}

/* Are a and b the same type (dtrace's ctf_type_cmp)? */
static int same_type(const struct eng_type *a, const struct eng_type *b)
{
	if (a == b)
		return 1;
	if (a == NULL || b == NULL || a->t_kind != b->t_kind)
		return 0;
	if (a->t_kind == TY_ARRAY)
		return a->t_nelems == b->t_nelems &&
		    same_type(a->t_base, b->t_base);
	if (a->t_kind == TY_PTR && a->t_name == NULL && b->t_name == NULL)
		return same_type(a->t_base, b->t_base) &&
		    a->t_userland == b->t_userland;
	return 0;
}

/* A declaration of an identifier that exists: the same kind and type. */
static void redeclared(struct eng_pcb *pc, const struct eng_ident *id,
    const struct declarator *d)
{
	int assoc = d->nkeys >= 0, was = id->i_kind == ID_ARRAY;

	if (id->i_kind != ID_VAR && id->i_kind != ID_ARRAY)
		eng_cc_error(pc, d->line, 0, "D_DECL_IDRED", "identifier "
		    "redeclared: %s", d->name);
	if (id->i_type == NULL)
		return;
	if (assoc != was || !same_type(id->i_type, d->t))
		eng_cc_error(pc, d->line, 0, "D_DECL_IDRED", "identifier "
		    "redeclared: %s\n\t current: %s %s\n\tprevious: %s %s",
		    d->name, idkind(assoc), eng_type_tname(d->t), idkind(was),
		    eng_type_tname(id->i_type));
	if (!assoc || id->i_nkeys < 0)
		return;
	for (int i = 0; i < d->nkeys && i < id->i_nkeys; i++)
		if (!same_type(d->keys[i], id->i_keys[i]))
			eng_cc_error(pc, d->line, 0, "D_DECL_IDRED", "identifier "
			    "redeclared: %s\n\t current: %s, key #%d of type "
			    "%s\n\tprevious: %s, key #%d of type %s", d->name,
			    idkind(1), i + 1, eng_type_tname(d->keys[i]),
			    idkind(1), i + 1, eng_type_tname(id->i_keys[i]));
	if (d->nkeys != id->i_nkeys)
		eng_cc_error(pc, d->line, 0, "D_DECL_IDRED", "identifier "
		    "redeclared: %s\n\t current: %s of %s, tuple length %d\n"
		    "\tprevious: %s of %s, tuple length %d", d->name, idkind(1),
		    eng_type_tname(d->t), d->nkeys, idkind(1),
		    eng_type_tname(id->i_type), id->i_nkeys);
}

/* dtrace's checks of a new variable's declaration (dt_node_decl). */
static void check_decl(struct eng_pcb *pc, enum dclass cls,
    const struct declarator *d)
{
	const struct eng_type *t = d->t;
	int own = pc->pc_curfile == NULL;

	/* also in a -C header, as dtrace's dt_node_decl */
	if (cls == DC_AUTO || cls == DC_REGISTER || cls == DC_STATIC)
		eng_cc_error(pc, d->line, 0, "D_DECL_BADCLASS", "specified "
		    "storage class not appropriate in D");
	if (cls == DC_EXTERN)
		return;
	if (d->arrnull)
		eng_cc_error(pc, d->line, 0, "D_DECL_ARRNULL", "array "
		    "declaration requires array dimension or tuple signature: "
		    "%s", d->name);
	if (eng_sema_builtin(d->name) != NULL || eng_sema_func(d->name) != NULL)
		eng_cc_error(pc, d->line, 0, "D_DECL_IDRED", "built-in "
		    "identifier redeclared: %s", d->name);
	if (own && eng_type_lookup(pc->pc_cc, d->name) != NULL)
		eng_cc_error(pc, d->line, 0, "D_DECL_IDRED", "typedef "
		    "identifier redeclared: %s", d->name);
	if (d->nkeys >= 0 && cls == DC_THIS)
		eng_cc_error(pc, d->line, 0, "D_DECL_LOCASSC", "associative "
		    "arrays may not be declared as local variables: %s",
		    d->name);
	if (t->t_kind == TY_VOID)
		eng_cc_error(pc, d->line, 0, "D_DECL_VOIDOBJ", "cannot have "
		    "void object: %s", d->name);
	if (t->t_kind == TY_FORWARD || ((t->t_kind == TY_STRUCT ||
	    t->t_kind == TY_UNION) && t->t_size == 0))
		eng_cc_error(pc, d->line, 0, "D_DECL_INCOMPLETE", "incomplete "
		    "struct/union/enum %s: %s", eng_type_tname(t), d->name);
}

/* Enter declarator d of storage class cls into the identifiers. */
static void declare(struct eng_pcb *pc, enum dclass cls,
    const struct declarator *d)
{
	int scope = cls == DC_SELF ? SC_THREAD : cls == DC_THIS ? SC_LOCAL :
	    SC_GLOBAL;
	struct eng_ident *id = eng_cc_ident(pc, d->name, scope, 0);

	check_decl(pc, cls, d);
	if (id != NULL) {
		redeclared(pc, id, d);
		id->i_flags |= IDF_DECL;
		if (id->i_type != NULL)
			return;
	} else {
		id = eng_cc_ident(pc, d->name, scope, 1);
		id->i_flags |= IDF_DECL;
	}
	id->i_type = d->t;
	id->i_line = d->line;
	if (d->nkeys >= 0) {
		id->i_kind = ID_ARRAY;
		id->i_nkeys = d->nkeys;
		id->i_keys = eng_cc_palloc(pc, sizeof(*id->i_keys) *
		    (size_t)(d->nkeys + 1));
		memcpy(id->i_keys, d->keys, sizeof(*d->keys) *
		    (size_t)d->nkeys);
	}
}

/*
 * declaration = [storage-class] [specifiers] declarator
 *               { "," declarator } ";"
 *             | [storage-class] specifiers ";"
 * With a storage class and no specifiers the type is int (self x;).
 * A C function definition, as system headers hold under -C, is skipped.
 */
static void declaration(struct eng_pcb *pc, enum dclass cls)
{
	struct eng_type *base;

	if (cls != DC_NONE && (!is(pc, T_IDENT) ||
	    !eng_parse_is_type(pc, pc->pc_tok.tk_text)))
		base = eng_type_int(pc->pc_cc, 4, 1);
	else
		base = eng_parse_type_name(pc);
	if (accept(pc, ';')) {
		if (base->t_kind != TY_STRUCT && base->t_kind != TY_UNION &&
		    base->t_kind != TY_ENUM && base->t_kind != TY_FORWARD)
			eng_cc_error(pc, pc->pc_prev.tk_line, 0,
			    "D_DECL_USELESS", "useless declaration");
		return;		/* struct/union/enum definition only */
	}
	do {
		struct declarator d;

		declarator(pc, base, &d);
		if (d.func && is(pc, '{')) {
			eng_parse_skip(pc, '{', '}');
			return;
		}
		/* a prototype is extern, also when static; auto and
		 * register are refused as for variables (dt_node_decl) */
		if (d.func && (cls == DC_AUTO || cls == DC_REGISTER))
			eng_cc_error(pc, d.line, 0, "D_DECL_BADCLASS",
			    "specified storage class not appropriate in D");
		if (!d.func)
			declare(pc, cls, &d);
	} while (accept(pc, ','));
	expect(pc, ';');
}

/* typedef = "typedef" type-name { "*" } ( name | "(" "*" name ")" "(" ... ")"
 *           | name "(" ... ")" ) dims ";" */
static void typedef_decl(struct eng_pcb *pc)
{
	struct eng_type *t = eng_parse_type_name(pc), *td, *old;
	const char *name;
	int fn = accept(pc, '('), line;	/* (*name)(params): C headers */

	if (fn)
		expect(pc, '*');
	line = peek(pc)->tk_line;
	name = expect_ident(pc);
	if (fn)
		expect(pc, ')');
	if (is(pc, '(')) {		/* name(params): a function type */
		eng_parse_skip(pc, '(', ')');
		fn = 1;
	}
	if (fn)
		t = eng_type_ptr(pc, eng_type_lookup(pc->pc_cc, "void"));
	t = eng_parse_dims(pc, t);
	expect(pc, ';');
	/* in -C headers too, as dtrace's dt_node_decl; the D library's own
	 * typedefs may be declared again, and a header's by the same header
	 * in another program of the handle (-C -s a.d -s b.d) */
	if (eng_cc_ident(pc, name, SC_GLOBAL, 0))
		eng_cc_error(pc, line, 0, "D_DECL_IDRED", "global variable "
		    "identifier redeclared: %s", name);
	old = eng_type_lookup(pc->pc_cc, name);
	if (old != NULL && (old->t_decl == 1 || (old->t_decl == 2 &&
	    old->t_gen == pc->pc_cc->cc_gen)))
		eng_cc_error(pc, line, 0, "D_DECL_IDRED", "typedef "
		    "redeclared: %s", name);
	td = eng_type_new(pc->pc_cc, t->t_kind, name);
	*td = *t;
	td->t_name = eng_cc_pstrdup(pc, name);
	td->t_next = NULL;
	td->t_ptrto = NULL;
	td->t_decl = pc->pc_cc->cc_inprelude ? 0 : pc->pc_curfile == NULL ?
	    1 : 2;
	td->t_gen = pc->pc_cc->cc_gen;
	eng_type_add(pc->pc_cc, td);
}

/* inline = "inline" type-name name "=" expr ";" */
static void inline_decl(struct eng_pcb *pc)
{
	struct eng_type *t = eng_parse_type_name(pc);
	struct eng_ident *id;
	const char *name;
	struct eng_node *e;

	struct eng_node *params = NULL, **ptail = &params;

	while (accept(pc, '*'))
		t = eng_type_ptr(pc, t);
	name = expect_ident(pc);
	if (accept(pc, '[')) {		/* inline int f[int x, int y] = ... */
		do {
			struct eng_type *pt = eng_parse_type_name(pc);
			struct eng_node *p = mknode(pc, N_IDENT, peek(pc));

			p->n_ctype = pt;
			p->n_name = expect_ident(pc);
			*ptail = p;
			ptail = &p->n_next;
		} while (accept(pc, ','));
		expect(pc, ']');
	}
	expect(pc, '=');
	e = eng_parse_expr(pc);
	expect(pc, ';');
	if (params != NULL) {	/* cooked where used, its keys given */
		struct eng_node *w = mknode(pc, N_INLINE, &pc->pc_prev);

		w->n_left = e;
		w->n_args = params;
		e = w;
	} else if (e->n_kind == N_XLATE)
		eng_sema_xlate(pc, e);	/* used as xlate<>()->member */
	else
		eng_sema_expr(pc, e);
	if (params == NULL && !eng_type_compat(t, e->n_type) &&
	    !(eng_type_is_int(t) &&
	    eng_type_is_int(e->n_type)))
		eng_cc_nerror(pc, e, "D_OP_INCOMPAT", "inline %s definition uses "
		    "incompatible types: \"%s\" = \"%s\"", name,
		    eng_type_tname(t), eng_type_tname(e->n_type));
	id = eng_cc_ident(pc, name, SC_GLOBAL, 1);
	/* a built-in function or variable, or an inline of this same
	 * program (those of the library or of earlier programs of the
	 * handle may be given again) */
	if ((id->i_kind != ID_VAR || id->i_type != NULL ||
	    eng_sema_func(name) != NULL || eng_sema_builtin(name) != NULL) &&
	    (id->i_kind != ID_INLINE || id->i_gen == pc->pc_cc->cc_gen))
		eng_cc_nerror(pc, e, "D_DECL_IDRED", "identifier redeclared: %s",
		    name);
	if (id->i_kind == ID_VAR)
		eng_ident_not_var(pc, id);
	id->i_kind = ID_INLINE;
	id->i_gen = pc->pc_cc->cc_gen;
	id->i_type = t;
	id->i_inline = eng_node_copy(pc, e);
}

/* translator = "translator" type "<" type name ">" "{" {m "=" expr ";"} "}" */
static void translator(struct eng_pcb *pc)
{
	struct eng_node *x = mknode(pc, N_XLATOR, &pc->pc_prev);
	struct eng_node **tail = &x->n_args;
	struct eng_ident *id;
	char key[256], b1[128], b2[128];

	x->n_ctype = eng_parse_type_name(pc);
	expect(pc, '<');
	x->n_type = eng_parse_type_name(pc);
	x->n_name = expect_ident(pc);
	expect(pc, '>');
	expect(pc, '{');
	while (!accept(pc, '}')) {
		struct eng_node *m = mknode(pc, N_ASSIGN, peek(pc));

		m->n_name = expect_ident(pc);
		expect(pc, '=');
		m->n_right = eng_parse_expr(pc);
		expect(pc, ';');
		*tail = m;
		tail = &m->n_next;
	}
	accept(pc, ';');
	snprintf(key, sizeof(key), "xlate %s <%s>", eng_type_name(x->n_ctype,
	    b1, sizeof(b1)), eng_type_name(x->n_type, b2, sizeof(b2)));
	/* once per handle, as dtrace's translators outlive their program */
	if ((id = eng_cc_ident(pc, key, SC_GLOBAL, 0)) != NULL &&
	    id->i_kind == ID_XLATOR)
		eng_cc_nerror(pc, x, "D_XLATE_REDECL", "translator from %s to %s "
		    "has already been declared", b2, b1);
	eng_sema_xlator_check(pc, x);
	id = eng_cc_ident(pc, eng_cc_strdup(pc, key, strlen(key)),
	    SC_GLOBAL, 1);
	if (id->i_kind == ID_VAR)
		eng_ident_not_var(pc, id);
	id->i_kind = ID_XLATOR;
	id->i_inline = eng_node_copy(pc, x);
}

/* One probe argument's type: its tokens joined by spaces ("char *"). */
static const char *probe_arg(struct eng_pcb *pc)
{
	char buf[256];
	size_t n = 0;
	int depth = 0, prev = 0;

	for (;;) {
		struct eng_token *t = peek(pc);
		int k = t->tk_kind;

		if (k == T_EOF || k == ';' || (depth == 0 && (k == ',' ||
		    k == ')')))
			break;
		if (n + t->tk_len + 2 >= sizeof(buf))
			eng_cc_error(pc, t->tk_line, t->tk_col, "D_PROV_PRARGLEN",
			    "probe argument type is too long");
		depth += (k == '(' || k == '[') - (k == ')' || k == ']');
		if (n > 0 && !(prev == '*' && k == '*') && prev != '(' &&
		    prev != '[' && k != ')' && k != ']')
			buf[n++] = ' ';
		memcpy(buf + n, t->tk_pos, t->tk_len);
		n += t->tk_len;
		prev = k;
		next(pc);
	}
	if (n == 0)
		syntax(pc, peek(pc));
	return eng_cc_strdup(pc, buf, n);
}

/* probe = "probe" name "(" [ type { "," type } ] ")" [ ":" "(" ... ")" ] ";" */
static void probe_decl(struct eng_pcb *pc, struct eng_provdef *pv)
{
	const char *args[ENG_PROV_MAXARGS];
	struct eng_token *t = expect(pc, T_IDENT);
	const char *name;
	int nargs = 0, line, col;

	if (strcmp(t->tk_text, "probe") != 0)
		syntax(pc, t);
	t = expect(pc, T_IDENT);
	name = eng_cc_strdup(pc, t->tk_text, strlen(t->tk_text));
	line = t->tk_line;
	col = t->tk_col;
	expect(pc, '(');
	while (!accept(pc, ')')) {
		if (nargs == ENG_PROV_MAXARGS)
			eng_cc_error(pc, line, col, "D_PROV_PRARGLEN",
			    "probe %s:%s has more than %d arguments",
			    pv->pv_name, name, ENG_PROV_MAXARGS);
		if (nargs > 0)
			expect(pc, ',');
		args[nargs++] = probe_arg(pc);
	}
	if (nargs == 1 && strcmp(args[0], "void") == 0)
		nargs = 0;
	if (accept(pc, ':')) {		/* translated argument types */
		expect(pc, '(');
		for (int depth = 1; depth > 0; next(pc)) {
			if (peek(pc)->tk_kind == T_EOF)
				syntax(pc, peek(pc));
			depth += is(pc, '(') - is(pc, ')');
		}
	}
	expect(pc, ';');
	eng_prov_probe(pc, pv, name, args, nargs, line);
}

/* provider = "provider" name "{" { probe } "}" */
static void provider(struct eng_pcb *pc)
{
	struct eng_token *t = expect(pc, T_IDENT);
	struct eng_provdef *pv = eng_prov_def(pc, eng_cc_strdup(pc,
	    t->tk_text, strlen(t->tk_text)), t->tk_line);

	expect(pc, '{');
	while (!accept(pc, '}'))
		probe_decl(pc, pv);
	accept(pc, ';');
}

/* Does the next top-level item start with a declaration keyword? */
int eng_parse_at_decl(struct eng_pcb *pc)
{
	size_t len;
	const char *w = eng_lex_peek_word(pc, &len);
	char buf[128];
	static const char *const kws[] = { "inline", "typedef", "translator",
	    "provider", NULL };

	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, w, len);
	buf[len] = '\0';
	if (w[len] == ':')
		return 0;	/* a probe description */
	for (int i = 0; kws[i] != NULL; i++)
		if (!strcmp(buf, kws[i]))
			return 1;
	return class_of(buf) != DC_NONE || eng_parse_is_type(pc, buf);
}

/* A top-level declaration; eng_parse_at_decl() said one starts here. */
void eng_parse_decl(struct eng_pcb *pc)
{
	struct eng_token *t = next(pc);
	const char *w = t->tk_text;

	if (!strcmp(w, "inline")) {
		inline_decl(pc);
	} else if (!strcmp(w, "typedef")) {
		typedef_decl(pc);
	} else if (!strcmp(w, "translator")) {
		translator(pc);
	} else if (!strcmp(w, "provider")) {
		provider(pc);
	} else {
		pc->pc_tokvalid = 1;
		pc->pc_tok = *t;
		declaration(pc, storage_class(pc));
	}
	if (pc->pc_tokvalid)
		syntax(pc, peek(pc));
}
