/*
 * Asserts: a predicate ending with a parenthesis open is refused with
 * dtrace's text ("closing ) expected in predicate before /")
 */
BEGIN
/(timestamp > 0/
{
	exit(0);
}
