/*
 * cg_type.c - the DIF type (dtrace_diftype_t) of a value of a D type, as
 * DIF objects' return types and variable tables carry it: integers and
 * pointers by value with their size, strings and structs, unions and
 * arrays by reference with theirs.
 */
#include <string.h>
#include "cc.h"

dtrace_diftype_t eng_cg_rtype(struct eng_pcb *pc, const struct eng_type *t)
{
	dtrace_diftype_t d;

	memset(&d, 0, sizeof(d));
	d.dtdt_kind = DIF_TYPE_CTF;
	if (t == NULL || t->t_kind == TY_VOID) {
		d.dtdt_ckind = CTF_K_INTEGER;
		return d;
	}
	switch (t->t_kind) {
	case TY_STRING:
		d.dtdt_kind = DIF_TYPE_STRING;
		d.dtdt_flags = DIF_TF_BYREF;
		d.dtdt_size = (uint32_t)pc->pc_strsize;
		break;
	case TY_PTR:
		d.dtdt_ckind = CTF_K_POINTER;
		d.dtdt_size = 8;
		break;
	case TY_FLOAT:
		d.dtdt_ckind = CTF_K_FLOAT;
		d.dtdt_size = t->t_size;
		if (t->t_size > 8)	/* long double: by reference */
			d.dtdt_flags = DIF_TF_BYREF;
		break;
	case TY_STRUCT: case TY_UNION: case TY_ARRAY:
		d.dtdt_ckind = t->t_kind == TY_ARRAY ? CTF_K_ARRAY :
		    t->t_kind == TY_UNION ? CTF_K_UNION : CTF_K_STRUCT;
		d.dtdt_flags = DIF_TF_BYREF;
		d.dtdt_size = t->t_size;
		break;
	default:
		d.dtdt_ckind = t->t_kind == TY_ENUM ? CTF_K_ENUM : CTF_K_INTEGER;
		d.dtdt_size = t->t_size;
	}
	return d;
}
