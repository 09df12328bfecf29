/*
 * Asserts: floating point types do not exist in D here
 */
double d;
BEGIN
{
}
