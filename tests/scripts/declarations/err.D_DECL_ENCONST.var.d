/*
 * Asserts: an enumerator's value must be an integral constant
 */
int n;
enum e { A = n };

BEGIN
{
	exit(0);
}
