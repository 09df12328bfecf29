/*
 * dtrace-flags: -q -w
 * Asserts: a destructive action may not follow speculate( )
 */
BEGIN
{
	speculate(speculation());
	raise(9);
}
