/*
 * Asserts: a variable is declared with one type
 */
int x;
string x;
BEGIN
{
}
