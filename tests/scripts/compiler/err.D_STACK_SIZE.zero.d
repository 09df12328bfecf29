/*
 * Asserts: stack() frames must be a positive constant
 */
BEGIN
{
	stack(0);
}
