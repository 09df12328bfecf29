/*
 * Asserts: a main program may not depend on a D library
 */
#pragma D depends_on library net.d

BEGIN
{
	exit(0);
}
