/*
 * dtrace-flags: -q -C -I.
 * Asserts: a -C header's prototype naming a void parameter is refused as
 * in a D program ("void parameter may not have a name")
 */
#include "protoname.h"

BEGIN
{
	exit(0);
}
