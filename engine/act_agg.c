/*
 * act_agg.c - aggregation statements, @name[k1, ..., kn] = f(args), as
 * the clause protocol encodes them: one DIFEXPR per key (or a STACK/SYM
 * ... action for stack() and sym() keys), one more DIFEXPR for the
 * increment of quantize/lquantize/llquantize, then the DTRACEAGG_*
 * action.  Checked as dtrace checks them: an aggregating function with
 * scalar arguments, one function per aggregation (D_AGG_REDEF), constant
 * lquantize/llquantize parameters within dtrace's ranges and equal for
 * every use (D_LQUANT_*, D_LLQUANT_*).
 */
#include <string.h>
#include "cc.h"

/* ---- aggregations ------------------------------------------------------- */

static uint64_t lquant(struct eng_pcb *pc, struct eng_node *agg,
    struct eng_node *a1, struct eng_node **incr);
static uint64_t llquant(struct eng_pcb *pc, struct eng_node *agg,
    struct eng_node *a1, struct eng_node **incr);

/*
 * An integer key takes the type of the aggregation's first key there
 * (dtrace's key prototype): @[(int64_t)1] after @[(int32_t)1] is the
 * same key, recorded as an int32_t.
 */
static void key_as_proto(struct eng_pcb *pc, struct eng_node *k,
    struct eng_type *want)
{
	struct eng_node *v;

	if (want == NULL || k->n_type == NULL || !eng_type_is_int(want) ||
	    !eng_type_is_int(k->n_type) ||
	    eng_type_resolve(want)->t_size == eng_type_resolve(k->n_type)->t_size)
		return;
	v = eng_node_new(pc, k->n_kind, k->n_line, k->n_col);
	*v = *k;
	v->n_next = NULL;
	k->n_kind = N_CAST;
	k->n_ctype = want;
	k->n_type = want;
	k->n_left = v;
	k->n_const = 0;
}

/* A key of an aggregation: a value, or stack()/sym() and friends. */
static void agg_key(struct eng_pcb *pc, struct eng_node *k,
    struct eng_type *proto)
{
	const struct eng_func *f;

	if (k->n_kind == N_CALL && (f = eng_sema_func(k->n_name)) != NULL &&
	    (f->f_flags & F_KEYOK)) {
		eng_act_check_proto(pc, k, f);
		if (f->f_id == DTRACEACT_STACK || f->f_id == DTRACEACT_USTACK ||
		    f->f_id == DTRACEACT_JSTACK)
			eng_act_stack(pc, k, f);
		else
			eng_act_value(pc, k, (uint32_t)f->f_id, 0);
		return;
	}
	struct eng_act *a = eng_act_new(pc, DTRACEACT_DIFEXPR);

	key_as_proto(pc, k, proto);
	a->a_difo = eng_cg_difo(pc, k, "aggregation key");
}

static void agg_func_check(struct eng_pcb *pc, struct eng_node *agg,
    struct eng_ident *id, const struct eng_func *f)
{
	if (id->i_aggfunc != 0 && id->i_aggfunc != f->f_id) {
		const char *prev = eng_d_actname((uint32_t)id->i_aggfunc);

		eng_cc_xerror(pc, agg, "D_AGG_REDEF", "aggregation redefined: "
		    "@%s\n\t current: @%s = %s( )\n\tprevious: @%s = %s( ) : "
		    "line %d", id->i_name, id->i_name, f->f_name, id->i_name,
		    prev, id->i_line);
	}
}

/* @name[keys] = f(args): keys, increment, then the DTRACEAGG_* action. */
void eng_act_aggregation(struct eng_pcb *pc, struct eng_node *st)
{
	struct eng_node *agg = st->n_left->n_left, *call = st->n_left->n_right;
	struct eng_node *incr = NULL, *val;
	const struct eng_func *f;
	struct eng_ident *id;
	struct eng_act *a;
	uint64_t enc = 0;
	int nkeys, before, i;

	if (st->n_left->n_op == '=' && call->n_kind == N_CALL &&
	    eng_sema_func(call->n_name) == NULL &&
	    eng_cc_ident(pc, call->n_name, SC_GLOBAL, 0) == NULL)
		eng_cc_xerror(pc, call, "D_FUNC_UNDEF", "undefined function "
		    "name: %s", call->n_name);	/* cooked first, as dtrace */
	if (st->n_left->n_op != '=' || call->n_kind != N_CALL ||
	    (f = eng_sema_func(call->n_name)) == NULL || f->f_kind != F_AGG)
		eng_cc_xerror(pc, st->n_left, "D_AGG_FUNC", "@%s must be assigned "
		    "the result of an aggregating function", agg->n_name);
	eng_act_check_proto(pc, call, f);
	eng_sema_stmt(pc, st);		/* keys */
	id = agg->n_ident;
	agg_func_check(pc, agg, id, f);
	val = call->n_args;
	if (val != NULL) {
		eng_sema_expr(pc, val);
		if (!eng_type_is_scalar(val->n_type))
			eng_cc_nerror(pc, call, "D_AGG_SCALAR", "%s( ) argument #1 "
			    "must be of scalar type", f->f_name);
	}
	if (f->f_id == DTRACEAGG_LQUANTIZE)
		enc = lquant(pc, agg, val->n_next, &incr);
	else if (f->f_id == DTRACEAGG_LLQUANTIZE)
		enc = llquant(pc, agg, val->n_next, &incr);
	else if (f->f_id == DTRACEAGG_QUANTIZE)
		incr = val->n_next;
	if (id->i_aggfunc == 0) {
		id->i_aggfunc = f->f_id;
		id->i_aggarg = enc;
		id->i_line = agg->n_line;
	}
	eng_act_order(pc, agg, (uint32_t)f->f_id);
	before = pc->pc_stmt->s_nacts;
	i = 0;
	for (struct eng_node *k = agg->n_args; k != NULL; k = k->n_next, i++)
		agg_key(pc, k, id->i_keys != NULL && i < id->i_nkeys ?
		    id->i_keys[i] : NULL);
	nkeys = pc->pc_stmt->s_nacts - before;
	if (f->f_id == DTRACEAGG_QUANTIZE || f->f_id == DTRACEAGG_LQUANTIZE ||
	    f->f_id == DTRACEAGG_LLQUANTIZE) {
		a = eng_act_new(pc, DTRACEACT_DIFEXPR);
		if (incr != NULL) {
			eng_sema_expr(pc, incr);
			if (!eng_type_is_scalar(incr->n_type))
				eng_cc_xerror(pc, incr, "D_PROTO_ARG", "%s( ) "
				    "increment value must be of scalar type",
				    f->f_name);
			a->a_difo = eng_cg_difo(pc, incr, "increment");
		} else {
			a->a_difo = eng_cg_const(pc, 1, "increment");
		}
		nkeys++;
	}
	a = eng_act_new(pc, (uint32_t)f->f_id);
	a->a_ntuple = (uint32_t)nkeys;
	a->a_arg = enc;
	a->a_uarg = id->i_id;
	if (val != NULL)
		a->a_difo = eng_cg_difo(pc, val, f->f_name);
}

static int is_int_const(struct eng_pcb *pc, struct eng_node *n)
{
	eng_sema_expr(pc, n);
	return n->n_const && eng_type_is_int(n->n_type);
}

static uint64_t lquant(struct eng_pcb *pc, struct eng_node *agg,
    struct eng_node *a1, struct eng_node **incr)
{
	struct eng_node *a2 = a1->n_next, *a3 = a2->n_next;
	struct eng_ident *id = agg->n_ident;
	int64_t base, lim;
	uint64_t step = 1, nlevels, enc;

	if (!is_int_const(pc, a1))
		eng_cc_nerror(pc, a1, "D_LQUANT_BASETYPE", "lquantize( ) argument "
		    "#1 must be an integer constant");
	base = (int64_t)a1->n_int;
	if (base < INT32_MIN || base > INT32_MAX)
		eng_cc_nerror(pc, a1, "D_LQUANT_BASEVAL", "lquantize( ) argument "
		    "#1 must be a 32-bit quantity");
	if (!is_int_const(pc, a2))
		eng_cc_nerror(pc, a2, "D_LQUANT_LIMTYPE", "lquantize( ) argument "
		    "#2 must be an integer constant");
	lim = (int64_t)a2->n_int;
	if (lim < INT32_MIN || lim > INT32_MAX)
		eng_cc_nerror(pc, a2, "D_LQUANT_LIMVAL", "lquantize( ) argument "
		    "#2 must be a 32-bit quantity");
	if (lim <= base)	/* before the step, as dtrace checks */
		eng_cc_nerror(pc, agg, "D_LQUANT_MISMATCH", "lquantize( ) base "
		    "(argument #1) must be less than limit (argument #2)");
	if (a3 != NULL) {
		if (!is_int_const(pc, a3) || (int64_t)a3->n_int <= 0)
			eng_cc_nerror(pc, a3, "D_LQUANT_STEPTYPE", "lquantize( ) "
			    "argument #3 must be a non-zero positive integer "
			    "constant");
		if ((step = a3->n_int) > UINT16_MAX)
			eng_cc_nerror(pc, a3, "D_LQUANT_STEPVAL", "lquantize( ) "
			    "argument #3 must be a 16-bit quantity");
	}
	nlevels = (uint64_t)(lim - base) / step;
	if (nlevels == 0)
		eng_cc_nerror(pc, agg, "D_LQUANT_STEPLARGE", "lquantize( ) step "
		    "(argument #3) too large: must have at least one "
		    "quantization level");
	if (nlevels > UINT16_MAX)
		eng_cc_nerror(pc, agg, "D_LQUANT_STEPSMALL", "lquantize( ) step "
		    "(argument #3) too small: number of quantization levels must "
		    "be a 16-bit quantity");
	enc = DTRACE_LQUANTIZE_ENCODE(step, nlevels, base);
	if (id->i_aggfunc == DTRACEAGG_LQUANTIZE && id->i_aggarg != enc) {
		uint64_t o = id->i_aggarg;
		int ob = DTRACE_LQUANTIZE_BASE(o), ol = DTRACE_LQUANTIZE_LEVELS(o);
		int os = DTRACE_LQUANTIZE_STEP(o);

		if (ob != base)
			eng_cc_nerror(pc, agg, "D_LQUANT_MATCHBASE", "lquantize( ) "
			    "base (argument #1) doesn't match previous "
			    "declaration: expected %d, found %d", ob, (int)base);
		if ((uint64_t)ol * (uint64_t)os != nlevels * step)
			eng_cc_nerror(pc, agg, "D_LQUANT_MATCHLIM", "lquantize( ) "
			    "limit (argument #2) doesn't match previous "
			    "declaration: expected %d, found %d", ob + ol * os,
			    (int)base + (int)nlevels * (int)step);
		eng_cc_nerror(pc, agg, "D_LQUANT_MATCHSTEP", "lquantize( ) step "
		    "(argument #3) doesn't match previous declaration: expected "
		    "%d, found %d", os, (int)step);
	}
	*incr = a3 != NULL ? a3->n_next : NULL;
	return enc;
}

/* factor raised to the power p overflows 63 bits (the buckets' bounds
 * are signed)? */
static int pow_overflows(uint64_t factor, uint64_t p)
{
	uint64_t x = 1;

	for (uint64_t i = 0; i < p; i++) {
		if (x > (uint64_t)INT64_MAX / factor)
			return 1;
		x *= factor;
	}
	return 0;
}

/* factor to the power p, modulo m (m > 0) */
static uint64_t pow_mod(uint64_t factor, uint64_t p, uint64_t m)
{
	unsigned __int128 x = 1;

	for (uint64_t i = 0; i < p; i++)
		x = x * factor % m;
	return (uint64_t)x;
}

/*
 * llquantize(v, factor, lmag, hmag, steps): each argument is checked as
 * it comes (type, then range), the way the Linux dtrace does; the steps
 * must divide the factor when fewer, or be a multiple of it that divides
 * factor^(lmag + 1) (factor^2 when lmag is 0) when more.
 */
static uint64_t llquant(struct eng_pcb *pc, struct eng_node *agg,
    struct eng_node *a, struct eng_node **incr)
{
	static const struct { const char *str, *type, *val, *match; int sh; }
	    args[4] = {
		{ "factor", "D_LLQUANT_FACTORTYPE", "D_LLQUANT_FACTORVAL",
		  "D_LLQUANT_MATCHFACTOR", DTRACE_LLQUANTIZE_FACTORSHIFT },
		{ "lmag", "D_LLQUANT_LMAGTYPE", "D_LLQUANT_LMAGVAL",
		  "D_LLQUANT_MATCHLMAG", DTRACE_LLQUANTIZE_LOWSHIFT },
		{ "hmag", "D_LLQUANT_HMAGTYPE", "D_LLQUANT_HMAGVAL",
		  "D_LLQUANT_MATCHHMAG", DTRACE_LLQUANTIZE_HIGHSHIFT },
		{ "steps", "D_LLQUANT_STEPTYPE", "D_LLQUANT_STEPVAL",
		  "D_LLQUANT_MATCHSTEPS", DTRACE_LLQUANTIZE_NSTEPSHIFT }
	};
	struct eng_ident *id = agg->n_ident;
	uint64_t v[4], enc = 0;

	for (int i = 0; i < 4; i++, a = a->n_next) {
		if (!is_int_const(pc, a) || (i == 3 && (int64_t)a->n_int <= 0))
			eng_cc_nerror(pc, a, args[i].type, "llquantize( ) argument "
			    "#%d must be %s integer constant", i + 1, i == 3 ?
			    "a positive" : "an");
		v[i] = a->n_int;
		if (v[i] > UINT16_MAX || (i == 0 && v[i] < 2))
			eng_cc_nerror(pc, a, args[i].val, "llquantize( ) argument "
			    "#%d must be an unsigned 16-bit quantity%s", i + 1,
			    i == 0 ? " greater than or equal to 2" : "");
		if (i == 2 && v[2] < v[1])
			eng_cc_nerror(pc, a, args[i].val, "llquantize( ) argument "
			    "#3 (high magnitude) must be at least argument #2 "
			    "(low magnitude)");
		if (i == 2 && v[2] == v[1])	/* one magnitude: not here */
			eng_cc_nerror(pc, a, args[i].val, "llquantize( ) argument "
			    "#3 (high magnitude) must be greater than argument #2 "
			    "(low magnitude)");
		if (i == 2 && pow_overflows(v[0], v[2] + 1))
			eng_cc_nerror(pc, a, args[i].val, "llquantize( ) argument "
			    "#3 (high magnitude) will cause overflow of 64 bits");
		enc |= v[i] << args[i].sh;
	}
	if (v[3] < v[0] && v[0] % v[3] != 0)
		eng_cc_nerror(pc, agg, "D_LLQUANT_STEPVAL", "llquantize() argument "
		    "#4 (steps) must evenly divide argument #1 (factor) when "
		    "steps<factor");
	if (v[3] < v[0])	/* fewer steps than the factor: not here */
		eng_cc_nerror(pc, agg, "D_LLQUANT_STEPVAL", "llquantize() argument "
		    "#4 (steps) must be at least argument #1 (factor)");
	if (v[3] > v[0] && v[3] % v[0] != 0)
		eng_cc_nerror(pc, agg, "D_LLQUANT_STEPVAL", "llquantize() argument "
		    "#4 (steps) must be a multiple of argument #1 (factor) when "
		    "steps>factor");
	if (v[3] > v[0] && pow_mod(v[0], v[1] == 0 ? 2 : v[1] + 1, v[3]) != 0)
		eng_cc_nerror(pc, agg, "D_LLQUANT_STEPVAL", "llquantize() argument "
		    "#4 (steps) must evenly divide %s when steps>factor and "
		    "lmag%s0", v[1] == 0 ? "the square of argument #1 (factor)" :
		    "pow(argument #1 (factor), lmag (argument #2) + 1)",
		    v[1] == 0 ? "==" : ">");
	if (id->i_aggfunc == DTRACEAGG_LLQUANTIZE && id->i_aggarg != enc) {
		for (int i = 0; i < 4; i++) {
			int e = (int)((id->i_aggarg >> args[i].sh) & 0xffff);
			int f = (int)((enc >> args[i].sh) & 0xffff);

			if (e != f)
				eng_cc_nerror(pc, agg, args[i].match, "llquantize() "
				    "%s (argument #%d) doesn't match previous "
				    "declaration: expected %d, found %d",
				    args[i].str, i + 1, e, f);
		}
	}
	*incr = a;
	return enc;
}

