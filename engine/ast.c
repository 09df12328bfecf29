/*
 * ast.c - what the passes share about parse nodes besides the parser:
 * splitting a probe description into its four fields as dtrace does
 * (one field is the name, or the field the probe specifier kind says; a
 * fifth field is refused), deep copies of nodes into the handle's arena
 * (for inline and translator bodies that outlive a program), and the AST
 * dump the tests compare.
 */
#include <errno.h>
#include <string.h>
#include "cc.h"

/*
 * Split a probe description into its fields as dtrace does: from the
 * right, the last field goes where the specifier kind says (the name for
 * -n, -i and scripts; the provider for -P, the module for -m, the function
 * for -f) and each field before it one place to the left; a field left
 * over with no place is an overspecified description.
 */
void eng_parse_pdesc(struct eng_pcb *pc, const char *text,
    dtrace_probedesc_t *pd, int line)
{
	static const size_t lens[4] = { DTRACE_PROVNAMELEN,
	    DTRACE_MODNAMELEN, DTRACE_FUNCNAMELEN, DTRACE_NAMELEN };
	char *dst[4];
	const char *end = text + strlen(text), *p;
	int k;

	switch (eng_pdesc_kind(pc)) {
	case ENG_SPEC_PROVIDER: k = 0; break;
	case ENG_SPEC_MODULE: k = 1; break;
	case ENG_SPEC_FUNC: k = 2; break;
	default: k = 3; break;
	}
	memset(pd, 0, sizeof(*pd));
	dst[0] = pd->dtpd_provider;
	dst[1] = pd->dtpd_mod;
	dst[2] = pd->dtpd_func;
	dst[3] = pd->dtpd_name;
	for (;;) {
		size_t len;

		for (p = end; p > text && p[-1] != ':'; p--)
			;
		len = (size_t)(end - p);
		if (k < 0)
			eng_cc_error(pc, line, 0, "D_PDESC_INVAL", "invalid "
			    "probe description \"%s\": Overspecified probe "
			    "description", text);
		if (len >= lens[k])
			eng_cc_error(pc, line, 0, "D_PDESC_INVAL", "invalid "
			    "probe description \"%s\": %s", text,
			    strerror(ENAMETOOLONG));
		memcpy(dst[k--], p, len);
		if (p == text)
			break;
		end = p - 1;
	}
}

/* The kind of specifier the descriptions being compiled are (-P ...). */
int eng_pdesc_kind(const struct eng_pcb *pc)
{
	if (pc->pc_args == NULL || !(pc->pc_cflags & ENG_C_PROBESPEC) ||
	    pc->pc_args->spec_kind == ENG_SPEC_ANY)
		return ENG_SPEC_NAME;
	return pc->pc_args->spec_kind;
}

/* A deep copy of n (and its list) in the handle's arena, for inlines and
 * translators that outlive the program they were declared in. */
struct eng_node *eng_node_copy(struct eng_pcb *pc, const struct eng_node *n)
{
	struct eng_node *head = NULL, **tail = &head;

	for (; n != NULL; n = n->n_next) {	/* lists iterate, trees recurse */
		struct eng_node *c = eng_cc_palloc(pc, sizeof(*c));

		*c = *n;
		if (n->n_name != NULL)
			c->n_name = eng_cc_pstrdup(pc, n->n_name);
		c->n_left = eng_node_copy(pc, n->n_left);
		c->n_right = eng_node_copy(pc, n->n_right);
		c->n_third = eng_node_copy(pc, n->n_third);
		c->n_args = eng_node_copy(pc, n->n_args);
		c->n_next = NULL;
		c->n_pdescs = NULL;
		c->n_pred = NULL;
		*tail = c;
		tail = &c->n_next;
	}
	return head;
}

/* A deep copy of n (and its list) in the program's arena, sharing names:
 * a fresh tree to cook again after a first attempt changed the old one. */
struct eng_node *eng_node_dup(struct eng_pcb *pc, const struct eng_node *n)
{
	struct eng_node *head = NULL, **tail = &head;

	for (; n != NULL; n = n->n_next) {
		struct eng_node *c = eng_cc_alloc(pc, sizeof(*c));

		*c = *n;
		c->n_left = eng_node_dup(pc, n->n_left);
		c->n_right = eng_node_dup(pc, n->n_right);
		c->n_third = eng_node_dup(pc, n->n_third);
		c->n_args = eng_node_dup(pc, n->n_args);
		c->n_next = NULL;
		*tail = c;
		tail = &c->n_next;
	}
	return head;
}

/* ---- AST dump, for tests and debugging --------------------------------- */

static const char *const kind_names[] = {
	"INT", "STR", "IDENT", "VAR", "AGG", "OP1", "OP2", "OP3", "ASSIGN",
	"POSTINC", "POSTDEC", "PREINC", "PREDEC", "CALL", "INDEX", "MEMBER",
	"PTRMEMBER", "CAST", "SIZEOF", "OFFSETOF", "STRINGOF", "XLATE",
	"ADDR", "DEREF", "EXPR", "AGGSTMT", "IF", "BLOCK", "CLAUSE", "DECL",
	"INLINE", "XLATOR", "PROVIDER", "PDESC"
};

/* Write n and its children, one node a line, indented by depth. */
void eng_node_dump(const struct eng_node *n, FILE *fp, int depth)
{
	char b[16];

	for (; n != NULL; n = n->n_next) {
		fprintf(fp, "%*s%s", depth * 2, "", kind_names[n->n_kind]);
		if (n->n_kind == N_INT)
			fprintf(fp, " %llu", (unsigned long long)n->n_int);
		if (n->n_name != NULL)
			fprintf(fp, " \"%s\"", n->n_name);
		if (n->n_kind == N_OP1 || n->n_kind == N_OP2 ||
		    n->n_kind == N_ASSIGN)
			fprintf(fp, " %s", eng_tok_name(n->n_op, b, sizeof(b)));
		if (n->n_kind == N_VAR)
			fprintf(fp, " %s", n->n_scope == SC_THREAD ? "self" :
			    "this");
		fputc('\n', fp);
		if (n->n_kind == N_CLAUSE) {
			eng_node_dump(n->n_pdescs, fp, depth + 1);
			if (n->n_pred != NULL)
				eng_node_dump(n->n_pred, fp, depth + 1);
		}
		if (n->n_left != NULL)
			eng_node_dump(n->n_left, fp, depth + 1);
		if (n->n_right != NULL)
			eng_node_dump(n->n_right, fp, depth + 1);
		if (n->n_third != NULL)
			eng_node_dump(n->n_third, fp, depth + 1);
		if (n->n_args != NULL)
			eng_node_dump(n->n_args, fp, depth + 1);
	}
}
