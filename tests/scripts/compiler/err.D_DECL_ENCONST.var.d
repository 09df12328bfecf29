/*
 * Asserts: an enumerator's value must be an integer constant
 */
enum e { E1 = timestamp };
