/*
 * Asserts: an unknown D pragma is refused
 */
#pragma D nosuchthing
BEGIN
{
}
