#!/bin/sh
# Keeps doc/msperf.1 in sync with the CLI: every command listed by `msperf --help` has a
# COMMANDS entry, and every long option printed by `msperf --help` and by each command's
# --help (plugins list/info and the att models too) appears in the man page. A new option
# without documentation fails here. TAP output for automake's tap-driver.
set -u

: "${MSPERF_BIN:?}" "${MSPERF_TOP_SRCDIR:?}"
bin=$MSPERF_BIN
man=$MSPERF_TOP_SRCDIR/doc/msperf.1
. "$MSPERF_TOP_SRCDIR/tests/cli/lib.sh"

# The man page as plain text for grepping: roff's escaped hyphen "\-" becomes "-", font
# escapes (\fB, \fI, \fR, \fP) disappear.
plain=$tmp/man.txt
if [ -r "$man" ]; then
  sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(em/-/g' "$man" >"$plain"
else
  : >"$plain"
fi

t_man_exists() { [ -s "$man" ] || { echo "missing $man"; return 1; }; }
ok "doc/msperf.1 exists" t_man_exists

t_sections() {
  for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" FILES ENVIRONMENT EXAMPLES \
    "SEE ALSO"; do
    grep -q "^\.SH \"*$s\"*\$" "$man" || { echo "no .SH $s section"; return 1; }
  done
}
ok "the man page has every required section" t_sections

# Long options of one --help text: "--name" of each "  --name=ARG  text" / "  -v, --name" line.
long_options() { grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z0-9-]*' "$1" | sed 's/.*--/--/' | sort -u; }

# Every option of the help text in $1 (named $2 in messages) must occur in the man page as a
# whole word (so --format does not pass for --format-foo only).
check_help() {
  help=$1; what=$2; missing=0
  [ -s "$help" ] || { echo "$what printed no help"; return 1; }
  for o in $(long_options "$help"); do
    grep -qE -- "(^|[^a-z0-9-])$o([^a-z0-9-]|\$)" "$plain" \
      || { echo "$what: $o is not documented in doc/msperf.1"; missing=1; }
  done
  [ "$missing" -eq 0 ]
}

t_global() {
  "$bin" --help >"$tmp/global.txt" 2>&1 || { echo "msperf --help failed"; return 1; }
  check_help "$tmp/global.txt" "msperf --help"
}
ok "every global option of msperf --help is in the man page" t_global

# The commands, from the "Commands:" block of msperf --help ("  name   text" lines).
"$bin" --help 2>/dev/null | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' \
  >"$tmp/commands"

t_commands_listed() {
  for c in estimate query validate plugins; do
    grep -qx "$c" "$tmp/commands" || { echo "msperf --help does not list $c"; return 1; }
  done
}
ok "msperf --help lists estimate, query, validate and plugins" t_commands_listed

# An entry is ".TP" followed by ".B name" (or .BR/.BI) inside the COMMANDS section.
t_command_entry() {
  awk -v c="$1" '
    /^\.SH/ { in_cmds = ($0 ~ /COMMANDS/) }
    in_cmds && prev == ".TP" && $1 ~ /^\.B[RI]?$/ && $2 == c { found = 1 }
    { prev = $1 }
    END { exit !found }' "$man" || { echo "no COMMANDS entry (.TP, .B $1) in doc/msperf.1"; return 1; }
}
t_command_help() {
  "$bin" "$1" --help >"$tmp/$1.txt" 2>&1 || { echo "msperf $1 --help failed"; return 1; }
  check_help "$tmp/$1.txt" "msperf $1 --help"
}
for c in $(cat "$tmp/commands"); do
  ok "command '$c' has an entry in the man page" t_command_entry "$c"
  ok "every option of msperf $c --help is in the man page" t_command_help "$c"
done

# Commands with subcommands: their help texts are separate.
t_sub_help() {
  "$bin" "$1" "$2" --help >"$tmp/$1-$2.txt" 2>&1 || { echo "msperf $1 $2 --help failed"; return 1; }
  check_help "$tmp/$1-$2.txt" "msperf $1 $2 --help"
}
for sub in list info; do
  ok "every option of msperf plugins $sub --help is in the man page" t_sub_help plugins "$sub"
done
if grep -qx att "$tmp/commands"; then
  for sub in cast broadcast duplicate; do
    # A model not implemented yet may refuse even --help; document it once it answers.
    if "$bin" att "$sub" --help >/dev/null 2>&1; then
      ok "every option of msperf att $sub --help is in the man page" t_sub_help att "$sub"
    fi
  done
fi

# Defaults of the model commands (trace, e2e, sweep): every "(default X)" of an option in
# their --help must be in the man page's section for them as "--option X" (followed by a
# separator, so --tp 1 is not satisfied by --tp 1,2,4,8), so help and man page cannot drift.
sed -n '/^\.SS Options of trace, e2e, sweep/,/^\.SS Options of validate/p' "$man" \
  | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' | tr '\n' ' ' >"$tmp/model-section"
t_defaults() {
  "$bin" "$1" --help >"$tmp/$1-defaults.txt" 2>&1 || { echo "msperf $1 --help failed"; return 1; }
  grep -E '^ +--[a-z-]+=[^ ]+ .*\(default [^):]+\)' "$tmp/$1-defaults.txt" \
    | sed -E 's/^ +(--[a-z-]+)=.*\(default ([^) ]+)[) ].*/\1 \2/; s/,$//' >"$tmp/$1-pairs"
  [ -s "$tmp/$1-pairs" ] || { echo "no (default X) in msperf $1 --help"; return 1; }
  missing=0
  while read -r opt def; do
    grep -qE -- "$opt $def([^0-9,.]|\$)" "$tmp/model-section" \
      || { echo "msperf $1: $opt (default $def) is not in doc/msperf.1 as '$opt $def'"; missing=1; }
  done <"$tmp/$1-pairs"
  [ "$missing" -eq 0 ]
}
for c in trace e2e sweep; do
  ok "every default of msperf $c --help is in the man page" t_defaults "$c"
done

t_env() { grep -q 'MSPERF_PLUGIN_PATH' "$plain" || { echo "MSPERF_PLUGIN_PATH not documented"; return 1; }; }
ok "the ENVIRONMENT section names MSPERF_PLUGIN_PATH" t_env

# groff's own checks: no warning when formatting (a typo in a macro shows here).
t_renders() {
  command -v groff >/dev/null 2>&1 || { echo "groff not installed: cannot check"; return 0; }
  LC_ALL=C groff -man -Tutf8 -ww -z "$man" >"$tmp/groff.err" 2>&1 || { cat "$tmp/groff.err"; return 1; }
  [ ! -s "$tmp/groff.err" ] || { cat "$tmp/groff.err"; return 1; }
}
ok "the man page formats without groff warnings" t_renders

tap_end
