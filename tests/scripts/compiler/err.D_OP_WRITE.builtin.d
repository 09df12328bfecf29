/*
 * Asserts: built-in variables are read-only
 */
BEGIN
{
	pid = 3;
}
