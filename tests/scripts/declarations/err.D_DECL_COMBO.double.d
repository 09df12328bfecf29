/*
 * Asserts: two type names in one declaration are refused
 */
double double x;

BEGIN
{
	exit(0);
}
