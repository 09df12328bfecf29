/*
 * Asserts: each conversion needs an argument
 */
BEGIN
{
	printf("%d %d\n", 1);
}
