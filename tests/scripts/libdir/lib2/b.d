/* Skipped: lib1 (the earlier -L) already has a b.d. */
inline int B = 1000;
