/*
 * asserts: %hd %hi %hu %hx with short arguments (the types libdtrace's
 * conversions ask for) print the values as C's printf with h does
 */
BEGIN
{
	printf("%hd %hi %hu %hx %hX\n", (short)70000, (short)-2,
	    (unsigned short)-1, (short)70000, (unsigned short)0xbeef);
	printf("%hd %hu\n", (short)70000, (unsigned short)-1);
	exit(0);
}
