/*
 * Asserts: a program with nothing in it is refused ("empty D program
 * translation unit")
 */
