/*
 * Asserts: in a script, a probe description needs a predicate or actions
 * ("expected predicate and/or actions following probe description")
 */
BEGIN
