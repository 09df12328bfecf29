/*
 * Asserts: += on a string is refused with D_OP_VFPTR
 */
BEGIN
{
	s = "x";
	s += 1;
}
