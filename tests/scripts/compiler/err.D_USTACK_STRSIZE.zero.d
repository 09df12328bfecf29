/*
 * Asserts: ustack( )'s string size must be a positive integer constant
 */
BEGIN
{
	ustack(5, 0);
}
