/*
 * Asserts: a '*' precision must come from an integer argument
 */
BEGIN
{
	printf("%.*s\n", "two", "abc");
}
