/*
 * Asserts: lquantize's limit must be above its base, and that is checked
 * before the step (a zero step would be D_LQUANT_STEPTYPE)
 */
BEGIN
{
	@a = lquantize(1, 0, 0, 0);
}
