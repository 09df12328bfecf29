/*
 * Asserts: reading a variable never assigned is refused
 */
BEGIN
{
	trace(nosuchvar);
}
