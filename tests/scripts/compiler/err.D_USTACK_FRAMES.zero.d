/*
 * Asserts: ustack frames must be positive
 */
BEGIN
{
	ustack(0);
}
