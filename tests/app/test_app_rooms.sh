#!/bin/sh
# core/app is one folder per concern, stacked (doc/design.md §5): a folder includes only its own
# headers and those of the folders below it — trace and run at the bottom, then report, model,
# import, serve and recommend; a folder not in that list (a new command's) may include all of them but not another
# such folder. No app file includes a CLI header. TAP output.
set -u
: "${MSPERF_TOP_SRCDIR:?}"
app=$MSPERF_TOP_SRCDIR/core/app
order="trace run report model import serve recommend"
n=0
failed=0

# The folders a file of folder $1 may include (its own and those below it).
allowed() {
  below=""
  for r in $order; do
    below="$below $r"
    [ "$r" = "$1" ] && { echo "$below"; return; }
  done
  echo "$order $1"
}

for dir in "$app"/*/; do
  room=$(basename "$dir")
  ok_rooms=$(allowed "$room")
  for f in "$dir"*.c "$dir"*.h; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    bad=$(sed -n 's/^#include "\([a-z_]*\)\/\([a-z_]*\)\/.*"$/\1 \2/p; s/^#include "\(cli\)\/.*"$/\1 -/p' "$f" |
      while read -r top sub; do
        if [ "$top" = cli ]; then echo "cli/"; continue; fi
        [ "$top" = app ] || continue
        case " $ok_rooms " in *" $sub "*) ;; *) echo "app/$sub/" ;; esac
      done)
    if [ -z "$bad" ]; then
      echo "ok $n - core/app/$room/$(basename "$f")"
    else
      echo "not ok $n - core/app/$room/$(basename "$f") includes $(echo $bad) (may include: $ok_rooms)"
      failed=$((failed + 1))
    fi
  done
done
# Every app file is in a folder: nothing left at the top of core/app but the Makefile.inc.
n=$((n + 1))
loose=$(find "$app" -maxdepth 1 -type f ! -name Makefile.inc)
if [ -z "$loose" ]; then
  echo "ok $n - no source file at the top of core/app"
else
  echo "not ok $n - source files at the top of core/app: $loose"
  failed=$((failed + 1))
fi
echo "1..$n"
[ "$failed" -eq 0 ]
