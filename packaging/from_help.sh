#!/bin/bash
# What the package generates from the binary's own help at build time, so that the man page's
# subcommand section and the bash completion list exactly the commands and options the binary has
# (CLI11's help: "Subcommands:" lists a command's subcommands, option lines start with "-").
#   from_help.sh man-include IBGPU OUT          help2man --include file: a SUBCOMMANDS section
#                                               with the --help of every subcommand
#   from_help.sh completion IBGPU TEMPLATE OUT  the bash completion: TEMPLATE with the function
#                                               bodies @IBGPU_SUBCOMMANDS@, @IBGPU_OPTIONS@ and
#                                               @IBGPU_VALUE_OPTIONS@ filled in
#   from_help.sh commands IBGPU                 every command path, one per line ("check", "probe bw")
set -euo pipefail
what=${1:?man-include, completion or commands} ibgpu=${2:?the ibgpu binary}

help_of() { "$ibgpu" "$@" --help; }

# subcommands PATH...: the subcommands `ibgpu PATH... --help` lists, one per line.
subcommands() {
  help_of "$@" | awk '/^[A-Za-z ]*ubcommands:$/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }'
}

# option_lines PATH...: each option line's names, and its value's TYPE where it takes one
# ("-h,--help", "--json FILE", "--timeout FLOAT:", '--drain-cmd "PROG '): a word of capitals
# right after the names.
option_lines() { help_of "$@" | sed -nE 's/^ +(-[^ ]*( "?[A-Z][A-Z_]+([:=| ]|$))?).*/\1/p'; }

# options PATH...: every option name, short and long, on one line.
options() { option_lines "$@" | sed 's/ .*//' | tr ',' '\n' | grep -E '^-' | sort -u | xargs; }

# value_options PATH...: the options that take a value (a TYPE follows the name in the help).
value_options() { option_lines "$@" | grep ' ' | sed 's/ .*//' | tr ',' '\n' | grep -E '^-' | sort -u | xargs; }

# commands [PATH...]: every command path below PATH, depth first: "check", "probe", "probe bw", ...
commands() {
  local sub
  for sub in $(subcommands "$@"); do
    echo "${*:+$* }$sub"
    commands "$@" "$sub"
  done
}

# case_body FUNCTION: a case arm per command path (and the top level, ''), each echoing FUNCTION's words.
case_body() {
  local fn=$1 path words
  local -a paths=("")
  mapfile -t -O 1 paths < <(commands)
  for path in "${paths[@]}"; do
    # shellcheck disable=SC2086  # the path is words on purpose
    words=$($fn $path | xargs)
    [ -n "$words" ] || continue
    printf "    '%s') echo '%s' ;;\n" "$path" "$words"
  done
}

# roff_text: the text as it is, for a no-fill block: backslashes escaped, and a leading dot or quote
# (roff requests) or "[" (help2man's section headers in an include file, e.g. CLI11's
# "[Option Group: ...]") behind a zero-width \&.
roff_text() { sed -e 's/\\/\\e/g' -e "s/^\([.'[]\)/\\\\\&\1/"; }

case $what in
  commands)
    commands
    ;;
  man-include)
    out=${3:?output file}
    all=$(commands)
    if [ -z "$all" ]; then echo "from_help.sh: no subcommands in $ibgpu --help" >&2; exit 1; fi
    {
      echo "[SUBCOMMANDS]"
      echo "Each command's own help (ibgpu COMMAND --help):"
      while read -r path; do
        echo ".SS \"ibgpu $path\""
        echo ".nf"
        # shellcheck disable=SC2086  # the path is words on purpose
        help_of $path | roff_text
        echo ".fi"
      done <<<"$all"
    } >"$out.tmp"
    mv "$out.tmp" "$out"
    ;;
  completion)
    template=${3:?template} out=${4:?output file}
    subs=$(case_body subcommands) opts=$(case_body options) values=$(case_body value_options)
    if [ -z "$subs" ] || [ -z "$opts" ]; then echo "from_help.sh: no subcommands or options in $ibgpu --help" >&2; exit 1; fi
    while IFS= read -r line; do
      case $line in
        *@IBGPU_SUBCOMMANDS@*) echo "$subs" ;;
        *@IBGPU_OPTIONS@*) echo "$opts" ;;
        *@IBGPU_VALUE_OPTIONS@*) echo "$values" ;;
        *) echo "$line" ;;
      esac
    done <"$template" >"$out.tmp"
    mv "$out.tmp" "$out"
    ;;
  *)
    echo "from_help.sh: unknown '$what' (man-include, completion or commands)" >&2
    exit 64
    ;;
esac
