# ustack() of profile samples shows the workload's own call path: the leaf
# (which keeps no frame, so its caller is skipped) and the thread function
# (printed
# while the workload still runs, so its symbols can be read).
. ./lib.sh
need_root
build spin
cat > "$W/u.d" <<'D'
int n;
profile-199 /pid == $target/ { ustack(); n++; }
profile-199 /n >= 40/ { exit(0); }
D
out=$($DTRACE -q -c "$W/spin 5000" -s "$W/u.d") || fail "dtrace failed: $out"
echo "$out" | grep -q 'dtui_spin_leaf' || fail "no dtui_spin_leaf: $out"
echo "$out" | grep -q 'spin`spin+' || fail "no caller spin: $out"
