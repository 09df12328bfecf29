/* sym.c - symbol lookup (being written). */
#include <stdlib.h>
#include "consume.h"

void eng_sym_free(struct eng_symtab *s)
{
	free(s);
}
