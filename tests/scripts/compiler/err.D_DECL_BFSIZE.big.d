/*
 * Asserts: a bit-field cannot be wider than its type
 */
struct s { char a : 9; };
BEGIN
{
}
