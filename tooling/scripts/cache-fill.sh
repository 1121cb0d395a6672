# Sourced by pack-device.sh (bash). cache_fill DEST CMD [ARG...]: runs CMD with its stdout into a
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
