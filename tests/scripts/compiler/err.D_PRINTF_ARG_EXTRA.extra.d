/*
 * Asserts: extra arguments are refused
 */
BEGIN
{
	printf("%d\n", 1, 2);
}
