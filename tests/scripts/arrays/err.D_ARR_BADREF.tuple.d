/*
 * Asserts: a declared (non-associative) array takes one index; a tuple
 * of two is refused as D_ARR_BADREF, not as a pointer index error
 */
int slots[4];

BEGIN
{
	slots[0, 1] = 7;
}
