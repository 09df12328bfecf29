/*
 * Asserts: an inline's expression must suit its declared type
 */
inline int answer = "forty-two";
