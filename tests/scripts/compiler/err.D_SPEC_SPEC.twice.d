/*
 * Asserts: speculate() may not follow speculate()
 */
BEGIN
{
	speculate(1);
	speculate(2);
}
