/*
 * Asserts: args[] index beyond the probe's arguments
 */
BEGIN
{
	trace(args[3]);
}
