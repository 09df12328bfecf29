/*
 * Asserts: a description matching no probe is refused without -Z
 */
nosuchprovider:::nosuchprobe
{
}
