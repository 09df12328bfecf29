/*
 * Asserts: a conversion outside dtrace's dictionary is refused as dtrace
 * refuses it ("format conversion #1 is undefined: %y")
 */
BEGIN
{
	printf("%y\n", 1);
}
