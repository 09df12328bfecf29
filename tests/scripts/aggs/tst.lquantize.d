/* asserts: lquantize() labels, underflow and overflow rows */
BEGIN
{
	@l = lquantize(-1, 0, 10, 5);
	@l = lquantize(3, 0, 10, 5);
	@l = lquantize(12, 0, 10, 5);
	@l = lquantize(100, 0, 10, 5);
	exit(0);
}
