/*
 * Asserts: calling an unknown function is refused
 */
BEGIN
{
	trace(nosuchfunc(1));
}
