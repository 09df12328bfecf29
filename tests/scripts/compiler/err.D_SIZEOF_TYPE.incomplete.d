/*
 * Asserts: sizeof of an incomplete type
 */
struct undefined;
BEGIN
{
	trace(sizeof (struct undefined));
}
