/*
 * Asserts: a variable may not have a floating-point type (D has no
 * floating-point values)
 */
double d;
BEGIN
{
}
