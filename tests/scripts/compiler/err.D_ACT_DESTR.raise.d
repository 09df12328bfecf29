/*
 * Asserts: raise() is destructive
 */
BEGIN
{
	raise(9);
}
