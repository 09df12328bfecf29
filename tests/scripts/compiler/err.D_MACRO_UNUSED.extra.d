/*
 * Asserts: every macro argument must be used
 * dtrace-flags: -q unused-argument
 */
BEGIN
{
	exit(0);
}
