#!/usr/bin/env bash
# Packs the kernels kit (bench/gpu-kernels-kit/run.sh, issue 40) for a machine with a GPU but no
# Node, no Deno, no network and no Vulkan loader: the kit's script bundled into one ES module, the
# Deno the project pins (package.json devDependencies, from node_modules) compressed with xz, and
# the Vulkan loader packages the device tool's recipe brings as Debian .debs (libvulkan1 and the
# glvnd libraries the NVIDIA ICD links against). One git-ignored folder that a device call
# carries beside the working tree, within 64 MiB.
#
# Usage: bash tooling/scripts/pack-kernels-kit.sh [--no-loaders] [DIR]      (default DIR: .kernels-kit)
#   --no-loaders  leave the .debs out (a machine that has libvulkan1 needs none; MANIFEST says so)
# Exit codes: 0 packed; 2 a prerequisite is missing; 3 the folder is over the size limit.
# Environment: KERNELTUNE_CACHE_DIR (default ~/.cache/kerneltune): the compressed Deno and the
#   .debs are cached there (compressing Deno takes most of a minute on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$(pwd)"
LOADERS=1
if [ "${1:-}" = --no-loaders ]; then LOADERS=0; shift; fi
DIR="${1:-.kernels-kit}"
LIMIT_BYTES=$((64 * 1024 * 1024))
# The device tool's recipe (/work/.library/device/README.md): what ran Vulkan on the lent machines.
DEBS=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
say() { echo "pack-kernels-kit: $*" >&2; }
# shellcheck source=cache-fill.sh
source "$ROOT/tooling/scripts/cache-fill.sh"

for tool in node git xz sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || { say "'$tool' is missing (Debian: apt-get install -y nodejs git xz-utils coreutils)"; exit 2; }
done
deno_bin="$ROOT/node_modules/deno/deno"
pinned="$(node -p "require('./package.json').devDependencies.deno")"
[ -x "$deno_bin" ] || { say "Deno is not installed in node_modules: run the workspace install first (npm test does it)"; exit 2; }
deno_version="$("$deno_bin" --version | head -n1 | awk '{print $2}')"
[ "$deno_version" = "$pinned" ] || { say "node_modules holds Deno $deno_version, package.json pins $pinned: run the workspace install again"; exit 2; }

cache_root="${KERNELTUNE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kerneltune}/device-kit"
mkdir -p "$cache_root" "$(dirname "$DIR")"
stage="$(mktemp -d "$DIR.stage-XXXXXX")"
trap 'rm -rf "$stage"' EXIT

# 1. The script, bundled.
say "bundling bench/gpu-kernels-kit/kit.ts"
node tooling/scripts/bundle-kernels-kit.mjs --out "$stage/kit.mjs" >&2

# 2. Deno, xz-compressed once per binary (the device has xz or Python's lzma).
deno_sha="$(sha256sum "$deno_bin" | cut -d' ' -f1)"
deno_key="deno-${deno_version}-$(uname -m)-${deno_sha:0:12}.xz"
if [ ! -f "$cache_root/$deno_key" ]; then
  say "compressing Deno $deno_version (once per version; about a minute on 2 cores)"
  cache_fill "$cache_root/$deno_key" xz -6 -T0 -c "$deno_bin"
fi
cp "$cache_root/$deno_key" "$stage/deno.xz"

# 3. The Vulkan loader packages, amd64 (the device machines are x86-64), from this machine's
# Debian release, downloaded once into the cache with a package list of their own.
debs_json='null'
if [ "$LOADERS" = 1 ]; then
  deb_cache="$cache_root/vulkan-debs-$(. /etc/os-release 2>/dev/null && echo "${ID:-linux}-${VERSION_ID:-unknown}")"
  have=1
  for p in "${DEBS[@]}"; do compgen -G "$deb_cache/${p}_*_amd64.deb" >/dev/null || have=0; done
  if [ "$have" = 0 ]; then
    command -v apt-get >/dev/null 2>&1 || { say "apt-get is missing, so the Vulkan loader .debs cannot be fetched: pack with --no-loaders on a machine that has libvulkan1"; exit 2; }
    say "downloading the Vulkan loader packages: ${DEBS[*]}"
    lists="$(mktemp -d)"
    mkdir -p "$lists/partial" "$deb_cache"
    o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists" -oDebug::NoLocking=1)
    if ! { apt-get "${o[@]}" update -qq && (cd "$deb_cache" && apt-get "${o[@]}" download -qq "${DEBS[@]}"); } >&2 2>&1; then
      rm -rf "$lists"; say "could not download the Vulkan loader packages (no network or no Debian sources?): pack with --no-loaders to leave them out"; exit 2
    fi
    rm -rf "$lists"
  fi
  mkdir -p "$stage/debs"
  for p in "${DEBS[@]}"; do cp "$(ls "$deb_cache/${p}"_*_amd64.deb | sort -V | tail -n1)" "$stage/debs/"; done
  debs_json="[$(cd "$stage/debs" && for f in *.deb; do printf '"%s",' "$f"; done | sed 's/,$//')]"
fi

# 4. What is in the kit, so every figure it produces can name its versions.
kt_commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
kt_dirty="$( [ -n "$(git status --porcelain 2>/dev/null)" ] && echo true || echo false)"
cat >"$stage/MANIFEST.json" <<JSON
{
  "kind": "kerneltune-kernels-kit",
  "packedAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "kerneltune": { "commit": "$kt_commit", "dirty": $kt_dirty },
  "deno": { "version": "$deno_version", "arch": "$(uname -m)", "file": "deno.xz", "sha256": "$deno_sha" },
  "vulkanLoaderDebs": $debs_json,
  "files": {
$(cd "$stage" && find . -type f ! -name MANIFEST.json | sed 's|^\./||' | sort | while read -r f; do printf '    "%s": { "bytes": %s, "sha256": "%s" },\n' "$f" "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"; done | sed '$ s/,$//')
  }
}
JSON

install_kit "$stage" "$DIR" "$LIMIT_BYTES"
