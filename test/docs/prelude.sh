# Sourced once before the README's blocks (test/docs/shell-run.ts). One bash process runs every block
# in README order, so a variable set in one block is visible in the next; the first failure ends it.
# Needs: __DT (a scratch dir the test owns).

# Which block runs now, what its calls may answer, where its README lines start.
__DT_BLOCK=-1
__DT_EXPECT=''
__DT_LINE=0

__dt_begin() {
  __DT_BLOCK=$1
  __DT_LINE=$2
  __DT_EXPECT=$3
  printf '%s\n' "$1" >"$__DT/current"
  rm -f "$__DT/expected"
  exec >"$__DT/out-$1" 2>&1
}

__dt_end() {
  if [[ -n $__DT_EXPECT && ! -s $__DT/expected ]]; then
    printf '\ndoc-test: the block is annotated expect-status %s but no curl call answered with it\n' "$__DT_EXPECT" >&2
    exit 1
  fi
  printf '%s\n' "$__DT_BLOCK" >>"$__DT/done"
}

__dt_expected() {
  local s=$1 p
  for p in $__DT_EXPECT; do
    if [[ $p == "$s" || ($p == ?xx && ${p:0:1} == "${s:0:1}") ]]; then return 0; fi
  done
  return 1
}

# Every README example calls curl without -f, so an HTTP error would pass unnoticed: this wrapper
# reads the final status from a header dump and fails the call on >= 400 unless the block expects it.
# Expected statuses are noted in a file because `X=$(curl ...)` runs the wrapper in a subshell.
curl() {
  local headers rc=0 status
  headers=$(mktemp "$__DT/headers.XXXXXX")
  command curl --max-time 20 -D "$headers" "$@" || rc=$?
  status=$(awk '/^HTTP\// { s = $2 } END { print s }' "$headers")
  rm -f "$headers"
  if ((rc != 0)); then
    printf '\ndoc-test: curl exited with status %s (curl %s)\n' "$rc" "$*" >&2
    return "$rc"
  fi
  [[ -n $status ]] || return 0
  if ((status < 400)); then return 0; fi
  if __dt_expected "$status"; then
    printf '%s\n' "$status" >>"$__DT/expected"
    return 0
  fi
  printf '\ndoc-test: HTTP %s from curl %s\n' "$status" "$*" >&2
  return 22
}

__dt_err() {
  printf '\ndoc-test: exit status %s; the failing command ends at README line %s\n' "$1" "$((__DT_LINE + $2))" >&2
}

trap '__dt_err $? $LINENO' ERR
set -euo pipefail
