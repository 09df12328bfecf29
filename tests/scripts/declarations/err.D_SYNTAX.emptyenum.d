/*
 * Asserts: an enum needs at least one enumerator ("{ }" is a syntax error,
 * a trailing comma is not)
 */
enum fine { ONE, TWO, };
enum empty { };
