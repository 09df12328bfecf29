/* asserts: quantize() rows trimmed to the data, bars scaled to the total */
BEGIN
{
	@q = quantize(1);
	@q = quantize(5);
	@q = quantize(6);
	@q = quantize(7);
	exit(0);
}
