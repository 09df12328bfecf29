/*
 * Asserts: a predicate must be of scalar type; a string is not.
 */
BEGIN
/execname/
{
}
