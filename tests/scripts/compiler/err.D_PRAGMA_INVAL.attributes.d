/*
 * Asserts: #pragma D attributes needs name/name/class stability
 */
#pragma D attributes Solid/Stable/Common x

BEGIN
{
	exit(0);
}
