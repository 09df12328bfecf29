/*
 * Asserts: trace() prints an integer by its type's signedness: a signed
 * char or short negative, an unsigned int or long as unsigned
 */
#pragma D option quiet

BEGIN
{
	trace((char)-2); trace(" ");
	trace((short)-300); trace(" ");
	trace((uchar_t)254); trace(" ");
	trace((unsigned int)-1); trace(" ");
	trace((uint64_t)-2); trace(" ");
	trace(-5); trace("\n");
	exit(0);
}
