/*
 * Asserts: %d wants an integer
 */
BEGIN
{
	printf("%d\n", "str");
}
