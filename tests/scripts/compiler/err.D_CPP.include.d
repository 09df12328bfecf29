/*
 * Asserts: a script the C preprocessor fails on is refused
 * dtrace-flags: -q -C
 */
#include "no-such-header-for-dtui.h"

BEGIN
{
	exit(0);
}
