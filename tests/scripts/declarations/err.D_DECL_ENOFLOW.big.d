/*
 * Asserts: an enumerator above INT_MAX is refused
 */
enum e { BIG = 0x80000000 };

BEGIN
{
	exit(0);
}
