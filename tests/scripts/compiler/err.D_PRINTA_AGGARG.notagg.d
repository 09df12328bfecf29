/*
 * Asserts: printa takes aggregations
 */
BEGIN
{
	printa(1);
}
