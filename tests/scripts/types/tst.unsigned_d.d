/*
 * Asserts: %d (and %i) of an unsigned value prints it as unsigned, as
 * libdtrace turns the conversion into %u; %.0s prints nothing
 */
BEGIN
{
	printf("%d %d %i %5d|\n", (uint32_t)0xffffffff, (uint64_t)-1,
	    (unsigned)4000000000, (uint16_t)65535);
	printf("%d %d\n", (int32_t)-1, (int64_t)-1);
	printf("[%.0s][%.2s]\n", "abc", "abc");
	exit(0);
}
