/*
 * Asserts: subroutines check their argument types
 */
BEGIN
{
	trace(strlen(1));
}
