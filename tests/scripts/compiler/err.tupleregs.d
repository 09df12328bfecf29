/*
 * Asserts: more keys than DIF's eight tuple registers is refused, with
 * dtrace's "Insufficient tuple registers to generate code"
 */
BEGIN
{
	a[1, 2, 3, 4, 5, 6, 7, 8, 9] = 1;
}
