/* A library that needs b.d: compiled after it although found first. */
#pragma D depends_on library b.d
inline int A = B + 1;
