/*
 * Asserts: #pragma D depends_on a provider that does not exist is refused
 * ("program requires provider nosuchprovider")
 */
#pragma D depends_on provider nosuchprovider

BEGIN
{
	exit(0);
}
