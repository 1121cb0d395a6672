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
#   KT_KIT_PREBUILT binaries a build of the kit exported (prebuilt-KEY.tar.xz, see below); default
#                   $KIT/prebuilt-KEY.tar.xz when pack-device.sh packed one. Used instead of building
#                   when they were built from the same llama.cpp commit for the same mode and
#                   architecture and start here; otherwise the kit builds as usual.
#   KT_KIT_EXPORT=0 do not export the binaries a build made (default: $OUT/prebuilt-KEY.tar.xz, when
#                   it fits the 16 MiB a device call returns per file)
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
for f in MANIFEST.json kerneltune.mjs kit.mjs node.xz; do
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

# 2. llama.cpp's sources, unpacked once per archive (a kept build then only relinks, if that), and
# only when the kit builds: prebuilt binaries need none.
# A kit packed with prebuilt binaries may leave the sources out (pack-device.sh, to stay in 64 MiB).
src_sha="$( [ -f "$KIT/llama.cpp.tar.xz" ] && sha256sum "$KIT/llama.cpp.tar.xz" | cut -d' ' -f1 || echo none)"
unpack_sources() {
  [ "$(cat "$WORK/src/.kit-archive-sha256" 2>/dev/null)" != "$src_sha" ] || return 0
  say "unpacking llama.cpp ${llama_commit:0:12}"
  rm -rf "$WORK/src" && mkdir -p "$WORK/src"
  unxz_to "$KIT/llama.cpp.tar.xz" "$WORK/src.tar"
  tar -xf "$WORK/src.tar" -C "$WORK/src" && rm -f "$WORK/src.tar"
  # git archive stamps every file with the commit's time, so a kept build sees nothing newer.
  echo "$src_sha" >"$WORK/src/.kit-archive-sha256"
}

# 3. Build llama-server and llama-bench: CUDA for this GPU's architecture only, or the CPU.
# The sources come without git history, so llama.cpp's cmake/build-info.cmake would stamp the
# binaries "b0-unknown" (what the H100 run's llama-server reported); its CMakeLists.txt takes
# LLAMA_BUILD_COMMIT when given (de3ff815 L153-158), so the binaries name the commit they were built
# from. The build number stays 0: node-llama-cpp's bundle is one squashed commit, so it cannot be counted.
flags=(-DCMAKE_BUILD_TYPE=Release "-DLLAMA_BUILD_COMMIT=${llama_commit:-unknown}" -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF)
nvcc_version=""
if [ "$mode" = cuda ]; then
  [ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
  arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')"
  # GGML_NATIVE off: the host code then targets x86-64 with AVX2/FMA/F16C (ggml/CMakeLists.txt
  # L141-166 at de3ff815), not this host's own extensions, so the exported binaries also start on
  # the next lease's host, whose processor may differ; the model runs on the GPU either way.
  flags+=(-DGGML_NATIVE=OFF -DGGML_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=$arch" -DGGML_CUDA_NCCL=OFF)
  nvcc_version="$(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || true)"
  build="$WORK/build-cuda-$arch"
else
  flags+=(-DGGML_NATIVE=ON)
  # As tooling/scripts/build-llama-server.sh: ggml's AMX path crashes this llama.cpp version.
  if grep -qw amx_int8 /proc/cpuinfo 2>/dev/null; then
    flags+=("-DCMAKE_C_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" "-DCMAKE_CXX_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16")
  fi
  build="$WORK/build-cpu"
fi
# The key a build's binaries are exported and found under: what they were built from and for.
if [ "$mode" = cuda ]; then key="cuda-sm$arch-${llama_commit:0:12}"; else key="cpu-$cpu_sig-${llama_commit:0:12}"; fi
prebuilt="${KT_KIT_PREBUILT:-$KIT/prebuilt-$key.tar.xz}"
bin_dir="$build/bin"
prebuilt_json=""
build_s=0
if [ -f "$prebuilt" ]; then
  # A prebuilt is used only if it is what this run would build and it starts here (its CUDA
  # libraries resolve); anything else is said and the kit builds.
  rm -rf "$WORK/prebuilt" && mkdir -p "$WORK/prebuilt"
  why=""
  if ! unxz_to "$prebuilt" "$WORK/prebuilt.tar" || ! tar -xf "$WORK/prebuilt.tar" -C "$WORK/prebuilt"; then why="it does not unpack"
  elif ! grep -q "\"key\": *\"$key\"" "$WORK/prebuilt/prebuilt.json" 2>/dev/null; then why="it was built for another commit, mode or architecture than $key"
  elif ! "$WORK/prebuilt/bin/llama-server" --version >"$WORK/prebuilt/version.txt" 2>&1; then why="its llama-server does not start here: $(tail -n 2 "$WORK/prebuilt/version.txt" | tr '\n' ' ')"
  fi
  rm -f "$WORK/prebuilt.tar"
  if [ -z "$why" ]; then
    bin_dir="$WORK/prebuilt/bin"
    prebuilt_json="\"prebuilt\":{\"file\":\"$(basename "$prebuilt")\",\"sha256\":\"$(sha256sum "$prebuilt" | cut -d' ' -f1)\",\"builtBy\":$(cat "$WORK/prebuilt/prebuilt.json")},"
    say "using the prebuilt binaries $(basename "$prebuilt"): no build"
  else
    say "not using $(basename "$prebuilt"): $why"
  fi
fi
if [ -z "$prebuilt_json" ]; then
  [ "$src_sha" != none ] || { say "this kit has no llama.cpp sources and no usable prebuilt binaries: pack it again without --prebuilt"; exit 4; }
  unpack_sources
  command -v ninja >/dev/null 2>&1 && [ ! -f "$build/Makefile" ] && flags+=(-G Ninja)
  say "building llama-server and llama-bench ($mode${arch:+, sm_$arch}, $JOBS jobs)"
  b0=$(date +%s)
  if ! { cmake -S "$WORK/src" -B "$build" "${flags[@]}" && cmake --build "$build" -j "$JOBS" --target llama-server llama-bench; } >"$WORK/build.log" 2>&1; then
    tail -n 80 "$WORK/build.log" >"$OUT/build.log"
    say "the build failed; the last lines:"; tail -n 30 "$WORK/build.log" >&2
    exit 4
  fi
  build_s=$(( $(date +%s) - b0 ))
fi
# The build's tail goes into build-info.json rather than a file of its own: a device call returns
# at most 8 files, and the exported binaries take the place build.log had.
log_tail="$( [ -f "$WORK/build.log" ] && [ -z "$prebuilt_json" ] && tail -n 12 "$WORK/build.log" | "$NODE" -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>process.stdout.write(JSON.stringify(s.split("\n").filter(Boolean))))' || echo '[]')"
export_json=""
# Not for KT_KIT_BUILD_ONLY (CI's build ahead of the tests): nothing reads an export there.
if [ -z "$prebuilt_json" ] && [ "${KT_KIT_EXPORT:-1}" != 0 ] && [ "${KT_KIT_BUILD_ONLY:-}" != 1 ]; then
  # Both binaries link ggml statically (BUILD_SHARED_LIBS=OFF) and each other lib is the system's
  # (glibc; CUDA's runtime and cuBLAS from the toolkit), so the two files are the whole build.
  # xz -9 uses a 64 MiB window, so the kernels both binaries hold are stored about once.
  exp="$WORK/export" && rm -rf "$exp" && mkdir -p "$exp/bin"
  cp "$build/bin/llama-server" "$build/bin/llama-bench" "$exp/bin/"
  printf '{"key":"%s","mode":"%s","cudaArchitectures":"%s","nvcc":"%s","llamaCppCommit":"%s","kerneltuneCommit":"%s","builtAt":"%s","buildSeconds":%s,"host":"%s","cmakeFlags":"%s"}\n' \
    "$key" "$mode" "${arch:-}" "$nvcc_version" "$llama_commit" "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$build_s" "$(uname -srm)" "${flags[*]//\"/\'}" >"$exp/prebuilt.json"
  tar -C "$exp" -cf - prebuilt.json bin | xz -9 -T1 >"$WORK/prebuilt-$key.tar.xz"
  bytes=$(stat -c %s "$WORK/prebuilt-$key.tar.xz")
  if [ "$bytes" -le $((16 * 1024 * 1024)) ]; then
    cp "$WORK/prebuilt-$key.tar.xz" "$OUT/"
    export_json="\"export\":{\"file\":\"prebuilt-$key.tar.xz\",\"bytes\":$bytes},"
  else
    export_json="\"export\":{\"bytes\":$bytes,\"skipped\":\"over the 16 MiB a device call returns per file; kept in $WORK\"},"
  fi
fi
# With prebuilt binaries, the flags they were built with are under prebuilt.builtBy.
cmake_flags="$( [ -n "$prebuilt_json" ] && echo 'see prebuilt.builtBy.cmakeFlags' || echo "${flags[*]//\"/\'}")"
cat >"$OUT/build-info.json" <<JSON
{"mode":"$mode","cudaArchitectures":"${arch:-}","nvcc":"$nvcc_version","buildSeconds":$build_s,$prebuilt_json$export_json"jobs":$JOBS,"cmakeFlags":"$cmake_flags","llamaCppCommit":"$llama_commit","kerneltuneCommit":"$commit","logTail":$log_tail}
JSON
[ -n "$prebuilt_json" ] || say "built in ${build_s}s"
[ "${KT_KIT_BUILD_ONLY:-}" = 1 ] && { echo "$bin_dir"; exit 0; }

# 4. The measurements, in what is left of the budget (a minute is kept for writing up).
left=$(( BUDGET - ($(date +%s) - t0) - 20 ))
if [ "$left" -lt 30 ]; then
  say "only ${left}s of the ${BUDGET}s budget is left after the build: nothing measured (raise KT_KIT_BUDGET_S)"
  exit 1
fi
"$NODE" "$KIT/kit.mjs" --cli "$KIT/kerneltune.mjs" --bin-dir "$bin_dir" --out "$OUT" --work "$WORK" \
  --mode "$mode" --budget-s "$left" --manifest "$KIT/MANIFEST.json" --build-info "$OUT/build-info.json"
