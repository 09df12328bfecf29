/*
 * Asserts: an enumerator may not be named after a type ("int", a typedef)
 */
typedef long width_t;

enum sizes {
	narrow,
	width_t
};
