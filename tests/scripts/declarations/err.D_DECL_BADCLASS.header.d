/*
 * dtrace-flags: -q -C -I.
 * Asserts: the storage class check applies to declarations of -C
 * headers too (dtrace's dt_node_decl): a static variable in a header is
 * "specified storage class not appropriate in D".
 */
#include "badclass.h"

BEGIN
{
	exit(0);
}
