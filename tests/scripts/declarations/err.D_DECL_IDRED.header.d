/*
 * dtrace-flags: -q -C -I.
 * Asserts: a typedef declared twice in a -C header is refused as in a D
 * program (dtrace's dt_node_decl checks headers' declarations too); the
 * D library's own typedefs may still be declared again by system headers
 * (tst.cppheaders.sh).
 */
#include "tdred.h"

BEGIN
{
	exit(0);
}
