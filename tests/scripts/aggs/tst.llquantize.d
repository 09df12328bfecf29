/* asserts: llquantize() buckets by factor, magnitude and steps */
BEGIN
{
	@ll = llquantize(15, 10, 0, 2, 10);
	@ll = llquantize(17, 10, 0, 2, 10);
	@ll = llquantize(250, 10, 0, 2, 10);
	exit(0);
}
