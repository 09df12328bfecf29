/*
 * Asserts: a macro argument whose integer text overflows 64 bits is
 * refused ("macro argument $1 constant ... results in integer overflow")
 * dtrace-flags: -q 99999999999999999999
 */
BEGIN
{
	trace($1);
}
