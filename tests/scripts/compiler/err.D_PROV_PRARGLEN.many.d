/*
 * Asserts: a probe declared with too many arguments is refused
 */
provider p {
	probe q(int, int, int, int, int, int, int, int, int, int, int, int,
	    int, int, int, int, int, int, int, int, int, int, int, int, int,
	    int, int, int, int, int, int, int, int, int, int, int, int, int,
	    int, int, int, int, int, int, int, int, int, int, int, int, int);
};
