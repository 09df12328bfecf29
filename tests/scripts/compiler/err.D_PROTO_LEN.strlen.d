/*
 * Asserts: subroutines check their argument count
 */
BEGIN
{
	trace(strlen("a", "b"));
}
