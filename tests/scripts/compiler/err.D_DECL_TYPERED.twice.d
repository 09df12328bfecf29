/*
 * Asserts: a struct is defined once
 */
struct s { int a; };
struct s { int b; };
BEGIN
{
}
