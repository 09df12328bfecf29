/*
 * Asserts: a printa format whose conversions want more than the
 * aggregation's keys, and no %@, is refused: the value is not a key
 */
BEGIN
{
	@c = count();
	printa("%d\n", @c);
}
