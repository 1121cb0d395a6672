#!/usr/bin/env bash
# The GPU evidence kit (issue 28): on a machine with an NVIDIA GPU, no npm and no network, it
# unpacks what tooling/scripts/pack-device.sh packed, builds llama-server and llama-bench with CUDA
# for this GPU's architecture only, and runs bench/gpu/kit.ts: predictions next to llama-bench
# measurements on synthesized models, a serving sweep with latency objectives, and `bench serve`
# of the defaults at rising concurrency. Without a GPU (or with --cpu) the same lines run with a
# CPU build, tiny models and shortened steps: that is how CI tests it.
#
# Usage: bash bench/gpu/run.sh [--cpu]
# Environment:
#   KIT             the packed folder (default .device-kit)
#   OUT             where the JSON, summary and logs go (default bench/gpu/out); at most 8 files
#   KT_KIT_WORK     the unpacked sources, the build and the models (default: a folder per mode and
#                   processor under $KERNELTUNE_CACHE_DIR or ~/.cache/kerneltune/device-kit, so a
#                   second run on the same machine reuses the build)
#   KT_KIT_BUILD_ONLY=1  stop after the build (CI builds ahead of the tests with it)
#   KT_KIT_BUDGET_S wall-clock seconds for the whole run, build included (default 540): steps that
#                   would not finish in time are skipped and reported, never cut mid-figure
#   KT_KIT_JOBS     build jobs (default: every core)
# Exit codes: 0 figures measured; 1 nothing measured or a step broke; 2 the kit is missing or
#   incomplete (run pack-device.sh); 4 the build failed (its log's tail is in $OUT/build.log).
set -euo pipefail
# The command line as the shell received it, recorded verbatim in every file the kit writes (issue 34).
KT_KIT_RUN_ARGV="$(printf '%q ' "$0" "$@")"
export KT_KIT_RUN_ARGV
cd "$(dirname "$0")/../.."
t0=$(date +%s)
KIT="${KIT:-.device-kit}"
OUT="${OUT:-bench/gpu/out}"
BUDGET="${KT_KIT_BUDGET_S:-540}"
JOBS="${KT_KIT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
say() { echo "gpu-kit: $*" >&2; }

mode=cuda
if [ "${1:-}" = "--cpu" ]; then
  mode=cpu
elif ! nvidia-smi -L >/dev/null 2>&1; then
  mode=cpu
  say "no NVIDIA GPU answers nvidia-smi: running the CPU variant (tiny models, shortened steps)"
fi
# GGML_NATIVE builds for this processor, so the default work folder is keyed by its features.
cpu_sig="$(awk -F: '/^(flags|Features)[ \t]*:/ { print $2; exit }' /proc/cpuinfo 2>/dev/null | tr -s ' \t' '\n\n' | LC_ALL=C sort -u | tr '\n' ' ' | sha256sum | cut -c1-8)"
WORK="${KT_KIT_WORK:-${KERNELTUNE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kerneltune}/device-kit/work-$mode-$cpu_sig}"
for f in MANIFEST.json kerneltune.mjs kit.mjs node.xz llama.cpp.tar.xz; do
  [ -f "$KIT/$f" ] || { say "$KIT/$f is missing: run 'bash tooling/scripts/pack-device.sh' on a machine with Node first"; exit 2; }
done
mkdir -p "$OUT" "$WORK"
OUT="$(cd "$OUT" && pwd)"; WORK="$(cd "$WORK" && pwd -P)"; KIT="$(cd "$KIT" && pwd)"

# xz where it exists, else Python's lzma module (one of them is on any machine with CMake).
unxz_to() {
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" >"$2"
  else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$1" "$2"; fi
}
manifest_field() { grep -o "\"$1\": *\"[^\"]*\"" "$KIT/MANIFEST.json" | head -n1 | sed 's/.*: *"\(.*\)"/\1/'; }
commit="$(manifest_field commit | tail -n1)"
llama_commit="$(grep -o '"commit": *"[0-9a-f]\{40\}"' "$KIT/MANIFEST.json" | head -n1 | sed 's/.*"\([0-9a-f]*\)"/\1/')"

# 1. Node, unpacked once per kit.
node_sha="$(grep -o '"sha256": *"[0-9a-f]*"' "$KIT/MANIFEST.json" | head -n1 | sed 's/.*"\([0-9a-f]*\)"/\1/')"
if [ ! -x "$WORK/node" ] || [ "$(cat "$WORK/node.sha256" 2>/dev/null)" != "$node_sha" ]; then
  say "unpacking Node"
  unxz_to "$KIT/node.xz" "$WORK/node.partial" && chmod +x "$WORK/node.partial" && mv "$WORK/node.partial" "$WORK/node"
  echo "$node_sha" >"$WORK/node.sha256"
fi
NODE="$WORK/node"
"$NODE" --version >/dev/null

# 2. llama.cpp's sources, unpacked once per archive (a kept build then only relinks, if that).
src_sha="$(sha256sum "$KIT/llama.cpp.tar.xz" | cut -d' ' -f1)"
if [ "$(cat "$WORK/src/.kit-archive-sha256" 2>/dev/null)" != "$src_sha" ]; then
  say "unpacking llama.cpp ${llama_commit:0:12}"
  rm -rf "$WORK/src" && mkdir -p "$WORK/src"
  unxz_to "$KIT/llama.cpp.tar.xz" "$WORK/src.tar"
  tar -xf "$WORK/src.tar" -C "$WORK/src" && rm -f "$WORK/src.tar"
  # git archive stamps every file with the commit's time, so a kept build sees nothing newer.
  echo "$src_sha" >"$WORK/src/.kit-archive-sha256"
fi

# 3. Build llama-server and llama-bench: CUDA for this GPU's architecture only, or the CPU.
# The sources come without git history, so llama.cpp's cmake/build-info.cmake would stamp the
# binaries "b0-unknown" (what the H100 run's llama-server reported); its CMakeLists.txt takes
# LLAMA_BUILD_COMMIT when given (de3ff815 L153-158), so the binaries name the commit they were built
# from. The build number stays 0: node-llama-cpp's bundle is one squashed commit, so it cannot be counted.
flags=(-DCMAKE_BUILD_TYPE=Release "-DLLAMA_BUILD_COMMIT=${llama_commit:-unknown}" -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DGGML_NATIVE=ON)
nvcc_version=""
if [ "$mode" = cuda ]; then
  [ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
  arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')"
  flags+=(-DGGML_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=$arch" -DGGML_CUDA_NCCL=OFF)
  nvcc_version="$(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || true)"
  build="$WORK/build-cuda-$arch"
else
  # As tooling/scripts/build-llama-server.sh: ggml's AMX path crashes this llama.cpp version.
  if grep -qw amx_int8 /proc/cpuinfo 2>/dev/null; then
    flags+=("-DCMAKE_C_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" "-DCMAKE_CXX_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16")
  fi
  build="$WORK/build-cpu"
fi
command -v ninja >/dev/null 2>&1 && [ ! -f "$build/Makefile" ] && flags+=(-G Ninja)
say "building llama-server and llama-bench ($mode${arch:+, sm_$arch}, $JOBS jobs)"
b0=$(date +%s)
if ! { cmake -S "$WORK/src" -B "$build" "${flags[@]}" && cmake --build "$build" -j "$JOBS" --target llama-server llama-bench; } >"$WORK/build.log" 2>&1; then
  tail -n 80 "$WORK/build.log" >"$OUT/build.log"
  say "the build failed; the last lines:"; tail -n 30 "$WORK/build.log" >&2
  exit 4
fi
build_s=$(( $(date +%s) - b0 ))
tail -n 20 "$WORK/build.log" >"$OUT/build.log"
cat >"$OUT/build-info.json" <<JSON
{"mode":"$mode","cudaArchitectures":"${arch:-}","nvcc":"$nvcc_version","buildSeconds":$build_s,"jobs":$JOBS,"cmakeFlags":"${flags[*]//\"/\'}","llamaCppCommit":"$llama_commit","kerneltuneCommit":"$commit"}
JSON
say "built in ${build_s}s"
[ "${KT_KIT_BUILD_ONLY:-}" = 1 ] && { echo "$build/bin"; exit 0; }

# 4. The measurements, in what is left of the budget (a minute is kept for writing up).
left=$(( BUDGET - ($(date +%s) - t0) - 20 ))
if [ "$left" -lt 30 ]; then
  say "only ${left}s of the ${BUDGET}s budget is left after the build: nothing measured (raise KT_KIT_BUDGET_S)"
  exit 1
fi
"$NODE" "$KIT/kit.mjs" --cli "$KIT/kerneltune.mjs" --bin-dir "$build/bin" --out "$OUT" --work "$WORK" \
  --mode "$mode" --budget-s "$left" --manifest "$KIT/MANIFEST.json" --build-info "$OUT/build-info.json"
