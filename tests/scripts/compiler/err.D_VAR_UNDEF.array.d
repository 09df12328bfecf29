/*
 * Asserts: reading an associative array no statement has stored into
 * is refused as dtrace refuses it
 */
BEGIN
{
	trace(counts["x"]);
}
