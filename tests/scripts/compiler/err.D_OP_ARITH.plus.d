/*
 * Asserts: arithmetic on a string is refused
 */
BEGIN
{
	trace(execname + 1);
}
