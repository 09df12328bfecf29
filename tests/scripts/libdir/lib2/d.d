/* Dropped: it needs c.d, which failed to load. */
#pragma D depends_on library c.d
inline int D = C + 1;
