/*
 * Asserts: an inline may not take the name of a built-in subroutine
 */
inline int strlen = 4;
