/*
 * Asserts: pragmas dtrace accepts are accepted: depends_on a provider
 * that exists, attributes of a declared name, binding, #ident, unknown
 * #pragma X (ignored), an empty #pragma, and #line resets the line number
 */
#pragma D depends_on provider dtrace
int x;
#pragma D attributes Evolving/Evolving/Common x
#pragma D binding "1.0" x
#ident "tst.pragmas.d"
#pragma weak foo
#pragma
#pragma D option quiet

BEGIN
{
	exit(0);
}
