/*
 * Asserts: %@ belongs to printa
 */
BEGIN
{
	printf("%@d\n", 1);
}
