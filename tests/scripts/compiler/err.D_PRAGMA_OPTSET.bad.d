/*
 * Asserts: an unknown option in a pragma is refused
 */
#pragma D option nosuchoption=1
BEGIN
{
}
