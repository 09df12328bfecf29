/*
 * ccinfo.h - what the compiler tells the consumer about a program it
 * compiled: per statement, whether it is a piece of a split clause and
 * what its actions record; per aggregation variable, its name, function
 * and key types.  The consumer half (record.c, agg.c) includes this, not
 * the compiler's own header cc.h; the answers live in the handle's
 * compiler state (h->eh_cc, freed by eng_cc_free() from eng_close()).
 */
#ifndef ENG_CCINFO_H
#define ENG_CCINFO_H

#include <stdint.h>
#include "eng_impl.h"

/*
 * dofa_uarg of a DIFEXPR action whose value is a string (trace("x")): with
 * -x strsize of 8 or less its record is as small as an integer's, and the
 * consumer tells them apart by this mark (dtrd_uarg of the record).
 */
#define ENG_UARG_STRING	0x53545247	/* "STRG" */

/* A trace() record's dtrd_arg: the traced integer's signedness, so that
 * (char)-2 prints -2 and (unsigned)-1 4294967295, as the Linux dtrace
 * prints them (0: not said; 1- and 2-byte values unsigned, others signed). */
#define ENG_REC_SIGNED		1
#define ENG_REC_UNSIGNED	2

/* What the consumer may ask about a statement's actions. */
typedef struct eng_cc_actinfo {
	uint32_t eca_kind;		/* DTRACEACT_* */
	int eca_string;			/* DIFEXPR value is a string */
	int eca_signed;			/* DIFEXPR integer is signed */
	uint32_t eca_size;		/* value size */
	const char *eca_fmt;		/* printf/printa format, or NULL */
} eng_cc_actinfo_t;

typedef struct eng_cc_stmtinfo {
	uint64_t esi_id;
	/*
	 * A clause with actions inside if/else is split into pieces that fire
	 * in order on the same probe: esi_piece is 1 for the first piece, 2
	 * for the others, 0 for an ordinary clause.  Without -q, print one
	 * probe line per firing of the whole clause (e.g. not for a later
	 * piece that recorded nothing).
	 */
	int esi_piece;
	const char *esi_pred;		/* its predicate as written; NULL */
	int esi_nacts;
	eng_cc_actinfo_t *esi_acts;
} eng_cc_stmtinfo_t;

/* What the consumer may ask about an aggregation. */
typedef struct eng_cc_agginfo {
	const char *eai_name;		/* without '@'; "" for @ */
	dtrace_aggvarid_t eai_varid;
	int eai_func;			/* DTRACEAGG_*, 0 if unused */
	uint64_t eai_arg;		/* lquantize/llquantize encoding */
	int eai_nkeys;
	const int *eai_keystring;	/* per key: 1 if a string */
	const int *eai_keysigned;	/* per key: 1 if signed */
} eng_cc_agginfo_t;

/* Name of aggregation variable varid, without '@' ("" for @); NULL if none. */
const char *eng_cc_aggname(eng_hdl_t *h, dtrace_aggvarid_t varid);
/* Description of aggregation variable varid, NULL if none. */
const eng_cc_agginfo_t *eng_cc_agginfo(eng_hdl_t *h, dtrace_aggvarid_t varid);
/* Description of statement id (dofe_uarg), NULL if none. */
const eng_cc_stmtinfo_t *eng_cc_stmtinfo(eng_hdl_t *h, uint64_t stmtid);

#endif /* ENG_CCINFO_H */
