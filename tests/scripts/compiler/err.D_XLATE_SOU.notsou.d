/*
 * Asserts: a translator's output type must be a struct or union
 */
translator int < int x > {
	a = x;
};
