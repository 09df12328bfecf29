/*
 * Asserts: a %@ conversion is checked against the aggregation's value
 * ("printa( ) aggregating action is incompatible with conversion #1")
 */
BEGIN
{
	@a = sum(1);
	printa("%@s\n", @a);
}
