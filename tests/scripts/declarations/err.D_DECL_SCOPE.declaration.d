/*
 * Asserts: a declared variable's name may not carry the ` scope operator
 */
long `mine;

BEGIN
{
	exit(0);
}
