/*
 * Asserts: an unknown conversion is refused
 */
BEGIN
{
	printf("%y\n", 1);
}
