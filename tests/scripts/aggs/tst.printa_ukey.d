/*
 * Asserts: printa's %d of an unsigned key prints it unsigned (libdtrace's
 * pfcheck_dint makes the conversion %u), a signed key stays signed.
 */
BEGIN
{
	@a[(uint32_t)0xffffffff, (uint64_t)-1, -1, (unsigned char)255] =
	    count();
	printa("%d %d %d %d %@d\n", @a);
	exit(0);
}
