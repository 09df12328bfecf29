/*
 * Asserts: an integer cannot be cast to string
 */
BEGIN
{
	trace((string)1);
}
