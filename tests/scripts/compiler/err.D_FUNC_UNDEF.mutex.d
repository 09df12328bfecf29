/*
 * Asserts: subroutines that do not exist on Linux say so
 */
BEGIN
{
	trace(mutex_owned(0));
}
