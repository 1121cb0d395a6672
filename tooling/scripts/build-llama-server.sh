#!/usr/bin/env bash
# Build llama.cpp's `llama-server` (CPU) from the source that node-llama-cpp ships inside its npm
# package (llama/gitRelease.bundle), so the in-process binding and the server are the same
# llama.cpp version. The build lands in the user's cache directory, keyed by that version, so
# later CI runs and test runs on the same machine reuse it; it is rebuilt only when the version
# changes. Prints the absolute path of the binary on stdout (progress goes to stderr).
#
# Usage: bash tooling/scripts/build-llama-server.sh [--print-path-only]
#   --print-path-only  print where the binary would be and exit 0 if it is there, 1 if not.
# Environment: KERNELTUNE_CACHE_DIR (default $XDG_CACHE_HOME/kerneltune or ~/.cache/kerneltune),
#   KERNELTUNE_BUILD_JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$(pwd)"

# node-llama-cpp's exports map hides package.json, so find the package folder on disk.
pkg_dir="$(cd "$ROOT/packages/engines-llamacpp/node_modules/node-llama-cpp" 2>/dev/null && pwd -P || true)"
if [ -z "$pkg_dir" ] || [ ! -f "$pkg_dir/llama/gitRelease.bundle" ]; then
  echo "build-llama-server: node-llama-cpp is not installed (run 'npm test' or 'pnpm install' first)" >&2
  exit 2
fi
bundle="$pkg_dir/llama/gitRelease.bundle"
nlc_version="$(node -p "require('$pkg_dir/package.json').version")"
llama_tag="$(node -p "require('$pkg_dir/llama/llama.cpp.info.json').tag")"
commit="$(git bundle list-heads "$bundle" | awk '$2=="HEAD"{print $1}' | head -n1)"
# GGML_NATIVE=ON compiles for this processor's instruction set, so a binary is only valid on a
# processor with the same features: the key carries a hash of them (a build from an AMD EPYC
# would die with SIGILL on an older Xeon, and the machines this project runs on change kind).
# (The same hash as cpuSignature in packages/serving/src/adapters/llama-server-binary.node.ts.)
cpu_flags="$(awk -F: '/^(flags|Features)[ \t]*:/ { print $2; exit }' /proc/cpuinfo 2>/dev/null | tr -s ' \t' '\n\n' | grep -v '^$' | LC_ALL=C sort -u | tr '\n' ' ' || true)"
cpu_sig="$(printf '%s' "$(uname -m) $cpu_flags" | sha256sum | cut -c1-8)"
key="${llama_tag}-${commit:0:12}-${cpu_sig}"
# ggml's AMX path (chosen by -march=native on Xeons with AMX) crashes this llama.cpp version with
# SIGSEGV in ggml_backend_amx_mul_mat on the first multiply of our synthetic models (seen on
# 2026-11-26 on a Xeon with amx_int8/amx_tile/amx_bf16). GCC lets an explicit -mno-amx-* win
# over -march=native whatever the order, so AMX is compiled out and AVX-512 serves instead;
# BUILD-INFO.json records it.
extra_flags=""
amx_note="none on this processor"
case " $cpu_flags " in
  *" amx_int8 "*|*" amx_tile "*)
    extra_flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    amx_note="compiled out (-mno-amx-*): ggml_backend_amx_mul_mat crashed this version"
    ;;
esac

cache_root="${KERNELTUNE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kerneltune}"
dest="$cache_root/llama-server/$key"
bin="$dest/bin/llama-server"

if [ "${1:-}" = "--print-path-only" ]; then
  echo "$bin"
  [ -x "$bin" ] && exit 0 || exit 1
fi
if [ -x "$bin" ] && [ -f "$dest/BUILD-INFO.json" ]; then
  echo "$bin"
  exit 0
fi

for tool in cmake g++ git; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build-llama-server: '$tool' is missing; install it (Debian: apt-get install -y cmake g++ git)" >&2
    exit 2
  fi
done

mkdir -p "$cache_root/llama-server"
# Build in a scratch folder next to the destination, then rename into place, so a crash or a
# concurrent build never leaves a half-written binary under the version key.
work="$(mktemp -d "$cache_root/llama-server/.build-XXXXXX")"
trap 'rm -rf "$work"' EXIT
jobs="${KERNELTUNE_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
echo "build-llama-server: llama.cpp $llama_tag ($commit) from node-llama-cpp $nlc_version, $jobs jobs; this takes ~17 CPU-minutes on a 2-core machine" >&2
start=$(date +%s)
git clone -q "$bundle" "$work/src" >&2
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
  -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=OFF -DCMAKE_C_FLAGS="$extra_flags" -DCMAKE_CXX_FLAGS="$extra_flags" \
  >"$work/cmake-configure.log" 2>&1 || {
  tail -n 40 "$work/cmake-configure.log" >&2; exit 1; }
cmake --build "$work/build" -j "$jobs" --target llama-server >"$work/cmake-build.log" 2>&1 || {
  tail -n 60 "$work/cmake-build.log" >&2; exit 1; }
mkdir -p "$work/out/bin"
cp "$work/build/bin/llama-server" "$work/out/bin/"
# With BUILD_SHARED_LIBS=OFF the binary is self-contained; copy any shared library anyway in
# case a future llama.cpp version ignores the option.
find "$work/build/bin" -maxdepth 1 -name '*.so*' -exec cp {} "$work/out/bin/" \; 2>/dev/null || true
seconds=$(( $(date +%s) - start ))
version_line="$("$work/out/bin/llama-server" --version 2>&1 | head -n 2 | tr '\n' ' ' || true)"
cat >"$work/out/BUILD-INFO.json" <<EOF
{"llamaCppTag":"$llama_tag","commit":"$commit","nodeLlamaCppVersion":"$nlc_version","builtAt":"$(date -u +%Y-%m-%dT%H:%M:%SZ)","buildSeconds":$seconds,"jobs":$jobs,"cpuSignature":"$cpu_sig","amx":"$amx_note","version":"${version_line//\"/\'}"}
EOF
rm -rf "$dest.old"
[ -d "$dest" ] && mv "$dest" "$dest.old"
mv "$work/out" "$dest"
rm -rf "$dest.old"
echo "build-llama-server: built in ${seconds}s: $bin" >&2
echo "$bin"
