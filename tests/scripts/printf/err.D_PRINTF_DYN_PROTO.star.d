/*
 * Asserts: a '*' width with no argument for it is refused
 */
BEGIN
{
	printf("%*d\n");
}
