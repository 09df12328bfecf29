/*
 * Asserts: a destructive action compiles but is refused when tracing is
 * enabled without -w (exit status 1)
 */
BEGIN
{
	raise(0);
	exit(0);
}
