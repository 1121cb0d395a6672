# Sourced by pack-device.sh and pack-kernels-kit.sh (bash). cache_fill DEST CMD [ARG...]: runs CMD with its stdout into a
# temporary file of a unique name beside DEST, then renames it to DEST. Two packs on one machine
# once shared one fixed DEST.partial: the first renamed it away and the second failed with
# `mv: cannot stat …partial`. With a name of its own, each run writes its own file, and rename(2)
# within one folder is atomic: a reader sees the old DEST or a whole new one, never a part, and
# the last of two identical fills wins. A failed CMD leaves no temporary file behind.
cache_fill() {
  local dest="$1"
  shift
  local tmp
  tmp="$(mktemp "$(dirname "$dest")/.$(basename "$dest").XXXXXX.partial")"
  if ! "$@" >"$tmp"; then
    rm -f "$tmp"
    return 1
  fi
  # mktemp makes the file 0600; the cache keeps the mode a plain redirection gives.
  chmod "$(printf '%o' $((0666 & ~0$(umask))))" "$tmp"
  mv -f "$tmp" "$dest"
}

# install_kit STAGE DIR LIMIT_BYTES: the packed kit in STAGE replaces DIR if it fits the bytes a
# device call carries (exit 3 otherwise, DIR untouched); prints the size line on stderr via `say`
# and DIR on stdout. rename(2) onto a folder that is there fails (mv -T) instead of moving the new
# kit into it; a pack of the same DIR beside this one may swap its kit in between, hence the tries.
install_kit() {
  local stage="$1" dir="$2" limit="$3" total try
  total=$(du -sb "$stage" | cut -f1)
  if [ "$total" -gt "$limit" ]; then
    say "the kit is $total bytes, over the 64 MiB a device call carries; nothing was replaced"
    exit 3
  fi
  for try in 1 2 3; do
    rm -rf "$dir"
    mv -T "$stage" "$dir" 2>/dev/null && break
    [ "$try" -lt 3 ] || { say "could not replace $dir (another pack keeps writing it)"; exit 1; }
  done
  trap - EXIT
  say "packed $dir: $total bytes of $limit ($(( total * 100 / limit ))%)"
  echo "$dir"
}
