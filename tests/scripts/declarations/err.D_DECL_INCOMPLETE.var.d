/*
 * Asserts: a variable of an undefined struct type
 */
struct undefined u;

BEGIN
{
	exit(0);
}
