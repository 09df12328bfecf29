# setopt() of an option that does not exist, or of one that cannot change
# while tracing, does not stop tracing: dtrace says why on stderr, in
# dtrace(1M)'s words (the engine hands the message to its error handler,
# as it does a provider's fault), the clause's other actions and later
# clauses run, and the exit status is exit()'s.
e=$(mktemp)
out=$($DTRACE -q -n 'BEGIN { setopt("nosuchopt"); setopt("bufsize", "zz");
    printf("after\n"); } BEGIN { exit(3); }' 2> "$e")
rc=$?
err=$(cat "$e"); rm -f "$e"
[ $rc = 3 ] || { echo "exit $rc"; exit 1; }
[ "$out" = "after" ] || { echo "stdout: $out"; exit 1; }
want='dtrace: couldn'"'"'t set option "nosuchopt" to "1": Invalid option name
dtrace: couldn'"'"'t set option "bufsize" to "zz": Operation illegal when tracing is active'
[ "$err" = "$want" ] || { echo "stderr: $err"; exit 1; }
exit 0
