#!/bin/bash
# The bash completion as the build generates it (packaging/from_help.sh over this binary's help):
# every subcommand `ibgpu --help` lists completes from its first letters, nested ones too (probe
# list), each command's options complete after "-", and --profile completes the profile names
# beside the binary and in $IBGPU_PROFILE_DIR.
source "$(dirname "$0")/lib.sh"
gen=$IBGPU_SOURCE_DIR/packaging/from_help.sh
comp=$WORK/ibgpu.bash
bash "$gen" completion "$IBGPU" "$IBGPU_SOURCE_DIR/packaging/bash-completion/ibgpu.in" "$comp" ||
  fail "from_help.sh completion failed"
bash -n "$comp" || fail "the generated completion does not parse"
if command -v shellcheck >/dev/null; then shellcheck -s bash "$comp" || fail "shellcheck on the generated completion (above)"; fi

# completes WORD...: what the completion offers for the command line WORD... (the last one being
# completed), one per line, in a fresh bash that has only sourced the completion.
completes() {
  # shellcheck disable=SC2016  # expanded by that bash
  env -u IBGPU_PROFILE_DIR ${PROFILE_DIR:+IBGPU_PROFILE_DIR="$PROFILE_DIR"} bash -c '
    comp=$1; shift
    source "$comp"
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _ibgpu
    printf "%s\n" "${COMPREPLY[@]}"' completes "$comp" "$@"
}
# offers LIST WORD: true when LIST (one per line) holds WORD.
offers() { grep -qxF -- "$2" <<<"$1"; }

# The top-level commands, read from the help here (not by the generator): CLI11's "Subcommands:".
mapfile -t commands < <("$IBGPU" --help | awk '/^[A-Za-z ]*ubcommands:$/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }')
[ ${#commands[@]} -ge 7 ] || fail "only ${#commands[@]} subcommands found in ibgpu --help: ${commands[*]}"
for cmd in "${commands[@]}"; do
  got=$(completes ibgpu "${cmd:0:2}")
  offers "$got" "$cmd" || fail "ibgpu ${cmd:0:2}<TAB> does not offer $cmd: $(xargs <<<"$got")"
  got=$(completes ibgpu "$cmd" --h)
  offers "$got" --help || fail "ibgpu $cmd --h<TAB> does not offer --help: $(xargs <<<"$got")"
done
[ "$(completes ibgpu ch)" = check ] || fail "ibgpu ch<TAB>: '$(completes ibgpu ch | xargs)', not check"
[ -z "$(completes ibgpu zz)" ] || fail "ibgpu zz<TAB> offers something"

# Nested commands, and each command's own options (not another's).
got=$(completes ibgpu probe l)
if ! offers "$got" list || ! offers "$got" lat; then fail "ibgpu probe l<TAB>: $(xargs <<<"$got")"; fi
got=$(completes ibgpu check --prof)
offers "$got" --profile || fail "ibgpu check --prof<TAB>: $(xargs <<<"$got")"
offers "$(completes ibgpu simulate --)" --nodes || fail "ibgpu simulate --<TAB> lacks --nodes"
"$IBGPU" report --help | grep -q -- '--sizes' && fail "report takes --sizes: pick another option here"
if offers "$(completes ibgpu report --)" --sizes; then fail "ibgpu report --<TAB> offers check's --sizes"; fi
# Options before the command word do not hide it.
got=$(completes ibgpu probe --help l)
offers "$got" list || fail "ibgpu probe --help l<TAB>: $(xargs <<<"$got")"

# --profile NAME: the names beside the binary (<bin>/../share/ibgpu/profiles) and in IBGPU_PROFILE_DIR.
mkdir -p "$WORK/inst/bin" "$WORK/inst/share/ibgpu/profiles" "$WORK/own"
ln -s "$IBGPU" "$WORK/inst/bin/ibgpu"
cp "$IBGPU_SOURCE_DIR"/profiles/*.toml "$WORK/inst/share/ibgpu/profiles/"
got=$(completes "$WORK/inst/bin/ibgpu" check --profile "")
for p in "$IBGPU_SOURCE_DIR"/profiles/*.toml; do
  name=$(basename "$p" .toml)
  offers "$got" "$name" || fail "--profile <TAB> lacks $name: $(xargs <<<"$got")"
done
[ "$(completes "$WORK/inst/bin/ibgpu" check --profile cp)" = cpu ] || fail "--profile cp<TAB> is not cpu"
touch "$WORK/own/site-a100.toml"
got=$(PROFILE_DIR=$WORK/own completes "$WORK/inst/bin/ibgpu" check --profile site)
[ "$got" = site-a100 ] || fail "--profile site<TAB> with IBGPU_PROFILE_DIR: '$(xargs <<<"$got")'"
echo "bash completion: ok (${#commands[@]} commands)"
