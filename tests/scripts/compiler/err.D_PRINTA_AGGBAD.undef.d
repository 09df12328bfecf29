/*
 * Asserts: printa of an unknown aggregation is refused
 */
BEGIN
{
	printa(@nosuch);
}
