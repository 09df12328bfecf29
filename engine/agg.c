/* agg.c - aggregation snapshots (being written). */
#include <stdlib.h>
#include "consume.h"

void eng_agg_free(struct eng_aggstate *a)
{
	free(a);
}
