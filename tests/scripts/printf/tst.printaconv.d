/*
 * Asserts: a width before '@' (%8@d), flags with %@, and %@ conversions
 * that name the value more than once
 */
BEGIN
{
	@a["k"] = sum(42);
	printa("[%8@d] [%-8@d] [%s] [%@x]\n", @a);
	exit(0);
}
