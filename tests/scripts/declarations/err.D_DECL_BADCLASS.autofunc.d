/*
 * Asserts: auto on a function declaration is refused as on a variable
 * ("specified storage class not appropriate in D").
 */
auto int g(int);

BEGIN
{
	exit(0);
}
