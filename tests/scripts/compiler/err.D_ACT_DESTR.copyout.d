/*
 * Asserts: the destructive subroutine copyout( ) needs -w
 */
BEGIN
{
	copyout(0, 0, 0);
}
