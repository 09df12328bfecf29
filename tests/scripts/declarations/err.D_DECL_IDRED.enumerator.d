/*
 * Asserts: an enumerator redeclared in another enum
 */
enum e1 { RED };
enum e2 { RED };

BEGIN
{
	exit(0);
}
