/*
 * Asserts: an integer aggregation key takes the type of the first key
 * given in that place, so keys of other sizes with the same value add up
 */
#pragma D option quiet

BEGIN
{
	@n[(int)7, 2] = count();
	@n[(long long)7, 2] = count();
	@n[(char)7, 2] = count();
	exit(0);
}
