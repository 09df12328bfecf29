/*
 * Asserts: a double may not be assigned to a float (D has no conversion
 * between floating-point types)
 */
float f;
double d;

BEGIN
{
	f = d;
}
