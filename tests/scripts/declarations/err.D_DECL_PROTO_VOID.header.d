/*
 * dtrace-flags: -q -C -I.
 * Asserts: a -C header's prototype with void beside another parameter is
 * refused as in a D program ("void must be sole parameter")
 */
#include "protovoid.h"

BEGIN
{
	exit(0);
}
