/* Dropped without a word: its provider does not exist. */
#pragma D depends_on provider no_such_provider
inline int C = 7;
