/*
 * dtrace-flags: -q -x strsize=8
 * Asserts: with a string size of 8 bytes or less a traced string is still
 * printed as a string (not as the integer its record is as big as): one
 * that fits with its NUL as itself, a longer one cut to strsize bytes and
 * printed as dtrace prints printable bytes with no NUL ("  %-33s").
 */
BEGIN
{
	trace("abc");
	printf("|\n");
	trace("abcdefghijk");
	printf("|\n");
	exit(0);
}
