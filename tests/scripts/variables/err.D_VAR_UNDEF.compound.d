/*
 * Asserts: a compound assignment to an identifier never declared or
 * assigned is refused (there is no value to add to)
 */
BEGIN
{
	x += 1;
	exit(0);
}
