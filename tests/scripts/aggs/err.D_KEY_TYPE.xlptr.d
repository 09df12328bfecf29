/*
 * Asserts: a translated pointer (curpsinfo) cannot key an associative
 * array
 */
BEGIN
{
	seen[curpsinfo] = 1;
}
