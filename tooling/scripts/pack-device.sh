#!/usr/bin/env bash
# Packs what the GPU evidence kit (bench/gpu/run.sh) needs on a machine with no npm, no Node and
# no network: the CLI and the kit's driver bundled into single files, this machine's Node runtime
# compressed, and the llama.cpp sources node-llama-cpp ships (the files llama-server and
# llama-bench need, not the history). Everything lands in one git-ignored folder that a device
# call carries beside the working tree, so it must stay within 64 MiB.
#
# Usage: bash tooling/scripts/pack-device.sh [--prebuilt FILE] [DIR]      (default DIR: .device-kit)
#   --prebuilt FILE  binaries a GPU lease's kit run exported (prebuilt-KEY.tar.xz in its $OUT):
#                    packed beside the rest, so the next lease's run.sh uses them and builds
#                    nothing; they must come from the llama.cpp commit packed here. When the kit
#                    would then exceed 64 MiB, the llama.cpp sources are left out (MANIFEST says so).
# Exit codes: 0 packed; 2 a prerequisite is missing or --prebuilt is unusable; 3 the folder is over
#   the size limit.
# Environment: KERNELTUNE_CACHE_DIR (default ~/.cache/kerneltune): the compressed Node and the
#   source archive are cached there by version, since compressing Node takes most of a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$(pwd)"
PREBUILT=""
if [ "${1:-}" = --prebuilt ]; then
  PREBUILT="$(cd "$(dirname "${2:?--prebuilt needs a file}")" && pwd)/$(basename "$2")"
  shift 2
fi
DIR="${1:-.device-kit}"
LIMIT_BYTES=$((64 * 1024 * 1024))
say() { echo "pack-device: $*" >&2; }
# shellcheck source=cache-fill.sh
source "$ROOT/tooling/scripts/cache-fill.sh"

for tool in node git xz sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || { say "'$tool' is missing (Debian: apt-get install -y nodejs git xz-utils coreutils)"; exit 2; }
done
pkg_dir="$(cd "$ROOT/packages/engines-llamacpp/node_modules/node-llama-cpp" 2>/dev/null && pwd -P || true)"
if [ -z "$pkg_dir" ] || [ ! -f "$pkg_dir/llama/gitRelease.bundle" ]; then
  say "node-llama-cpp is not installed: run the workspace install first (npm test does it)"; exit 2
fi

cache_root="${KERNELTUNE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kerneltune}/device-kit"
mkdir -p "$cache_root" "$DIR"
# Write into a scratch folder and swap it in at the end, so an interrupted pack never leaves a
# kit that looks complete.
stage="$(mktemp -d "$DIR.stage-XXXXXX")"
tmp_src=''
trap 'rm -rf "$stage" ${tmp_src:+"$tmp_src"}' EXIT

# 1. The CLI and the kit driver, bundled.
say "bundling the CLI and the kit driver"
node tooling/scripts/bundle-cli.mjs --out-dir "$stage" >&2

# The embedded store (sweeps are stored runs) needs libsql's prebuilt binary for this platform:
# libsql, its two small dependencies and the linux-x64-gnu binary, copied (not linked) beside the bundle.
libsql_dir="$(ls -d "$ROOT"/node_modules/.pnpm/libsql@*/node_modules 2>/dev/null | sort | tail -n1)"
[ -n "$libsql_dir" ] || { say "libsql is not installed: run the workspace install first"; exit 2; }
mkdir -p "$stage/node_modules/@libsql" "$stage/node_modules/@neon-rs"
cp -rL "$libsql_dir/libsql" "$libsql_dir/detect-libc" "$stage/node_modules/"
cp -rL "$libsql_dir/@neon-rs/load" "$stage/node_modules/@neon-rs/"
cp -rL "$libsql_dir/@libsql/linux-x64-gnu" "$stage/node_modules/@libsql/"

# 2. Node: the binary running here, xz-compressed (the device has xz or Python's lzma).
node_bin="$(node -p 'process.execPath')"
node_version="$(node -p 'process.version')"
node_key="node-${node_version}-$(uname -m)-$(sha256sum "$node_bin" | cut -c1-12).xz"
if [ ! -f "$cache_root/$node_key" ]; then
  say "compressing Node $node_version (once per version; about a minute on 2 cores)"
  cache_fill "$cache_root/$node_key" xz -6 -T0 -c "$node_bin"
fi
cp "$cache_root/$node_key" "$stage/node.xz"

# 3. llama.cpp: the version node-llama-cpp ships, without the backends the kit never builds
# (the CUDA and CPU backends stay) and without tests, examples and model conversion scripts
# (of scripts/, only the CMake script that embeds llama-server's web page).
bundle="$pkg_dir/llama/gitRelease.bundle"
llama_tag="$(node -p "require('$pkg_dir/llama/llama.cpp.info.json').tag")"
nlc_version="$(node -p "require('$pkg_dir/package.json').version")"
commit="$(git bundle list-heads "$bundle" | awk '$2=="HEAD"{print $1}' | head -n1)"
src_key="llama.cpp-${commit:0:12}-v3.tar.xz"
if [ ! -f "$cache_root/$src_key" ]; then
  say "archiving llama.cpp $llama_tag ($commit)"
  tmp_src="$(mktemp -d)"
  git clone -q --no-checkout "$bundle" "$tmp_src"
  archive_sources() {
    git -C "$tmp_src" archive --format=tar "$commit" -- \
      CMakeLists.txt cmake common ggml include src tools vendor LICENSE licenses scripts/ui-assets.cmake \
      ':(exclude)ggml/src/ggml-sycl' ':(exclude)ggml/src/ggml-opencl' ':(exclude)ggml/src/ggml-vulkan' \
      ':(exclude)ggml/src/ggml-metal' ':(exclude)ggml/src/ggml-hexagon' ':(exclude)ggml/src/ggml-cann' \
      ':(exclude)ggml/src/ggml-musa' ':(exclude)ggml/src/ggml-et' ':(exclude)ggml/src/ggml-webgpu' \
      ':(exclude)ggml/src/ggml-zdnn' ':(exclude)ggml/src/ggml-openvino' \
      | xz -6 -T0
  }
  cache_fill "$cache_root/$src_key" archive_sources
  rm -rf "$tmp_src"
  tmp_src=''
fi
cp "$cache_root/$src_key" "$stage/llama.cpp.tar.xz"

# 3b. Binaries a lease built from these sources, when given: checked against the commit packed here.
prebuilt_json='null'
sources_json='"llama.cpp.tar.xz"'
if [ -n "$PREBUILT" ]; then
  [ -f "$PREBUILT" ] || { say "--prebuilt $PREBUILT: no such file"; exit 2; }
  info="$(xz -dc "$PREBUILT" | tar -xOf - prebuilt.json 2>/dev/null || true)"
  [ -n "$info" ] || { say "--prebuilt $PREBUILT: not a kit export (no prebuilt.json inside)"; exit 2; }
  built_from="$(printf '%s' "$info" | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).llamaCppCommit??""))')"
  [ "$built_from" = "$commit" ] || { say "--prebuilt $PREBUILT was built from llama.cpp ${built_from:-an unknown commit}, not ${commit} (the one packed here): build anew on the lease"; exit 2; }
  cp "$PREBUILT" "$stage/$(basename "$PREBUILT")"
  prebuilt_json="{ \"file\": \"$(basename "$PREBUILT")\", \"builtBy\": $info }"
  if [ "$(du -sb "$stage" | cut -f1)" -gt "$LIMIT_BYTES" ]; then
    rm -f "$stage/llama.cpp.tar.xz"
    sources_json='null'
    say "the sources are left out to stay within 64 MiB: the lease cannot build if the prebuilt binaries do not start"
  fi
fi

# 4. What is in the kit, so every figure it produces can name its versions.
kt_commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
kt_dirty="$( [ -n "$(git status --porcelain 2>/dev/null)" ] && echo true || echo false)"
# What was dirty, not only that it was (the H200 run came from a dirty tree no file described).
kt_dirty_files="$(git status --porcelain 2>/dev/null | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>process.stdout.write(JSON.stringify(s.split("\n").filter((l)=>l.trim()))))')"
cat >"$stage/MANIFEST.json" <<JSON
{
  "kind": "kerneltune-device-kit",
  "packedAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "kerneltune": { "commit": "$kt_commit", "dirty": $kt_dirty, "dirtyFiles": $kt_dirty_files },
  "node": { "version": "$node_version", "arch": "$(uname -m)", "file": "node.xz", "sha256": "$(sha256sum "$node_bin" | cut -d' ' -f1)" },
  "llamaCpp": { "tag": "$llama_tag", "commit": "$commit", "nodeLlamaCppVersion": "$nlc_version", "file": $sources_json },
  "prebuilt": $prebuilt_json,
  "files": {
$(cd "$stage" && for f in kerneltune.mjs kit.mjs node.xz llama.cpp.tar.xz prebuilt-*.tar.xz; do [ -f "$f" ] || continue; printf '    "%s": { "bytes": %s, "sha256": "%s" },\n' "$f" "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"; done | sed '$ s/,$//')
  }
}
JSON

install_kit "$stage" "$DIR" "$LIMIT_BYTES"
