/*
 * Asserts: llquantize steps must be a positive constant (zero and
 * negative steps are refused as the steps' type, as the Linux dtrace)
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 4, 0);
}
