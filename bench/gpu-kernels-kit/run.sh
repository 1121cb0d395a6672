#!/usr/bin/env bash
# The kernels kit (issue 40): on a machine with a GPU, no Node, no Deno, no network and perhaps no
# Vulkan loader, it unpacks what tooling/scripts/pack-kernels-kit.sh packed (Deno, the bundled
# script, the loader .debs), finds the Vulkan driver, records what WebGPU cannot tell (GPU name,
# driver, loader and ICD versions), and runs the script: adapter, correctness suite, copy and FMA
# probes, the autotuners on an 8B model's decode and prefill shapes. On Mesa's lavapipe (a CPU
# adapter) the shapes shrink by 8 and the output says so: that is how CI runs it.
#
# Usage: bash bench/gpu-kernels-kit/run.sh [--quick]
# Environment:
#   KIT              the packed folder (default .kernels-kit)
#   OUT              where results.json, results.md and kit.log go (default bench/gpu-kernels-kit/out;
#                    results.invalid.json instead of results.json if the figures do not fit the schema)
#   KT_KIT_BUDGET_S  wall-clock seconds for the whole run, unpacking included (default 280: a
#                    5-minute lease slot with room to spare); what would not fit is skipped and listed
#   KT_KIT_WORK      where Deno is unpacked (default a folder under $KERNELTUNE_CACHE_DIR or
#                    ~/.cache/kerneltune/device-kit)
#   KT_KIT_LOADERS   auto (default): the system's libvulkan.so.1 if ldconfig knows one, else the kit's
#                    .debs unpacked into / when root (the device tool's recipe) or into the work
#                    folder with LD_LIBRARY_PATH otherwise; private: always the latter (CI checks the
#                    carried loader that way); system: never the kit's
# Exit codes: 0 figures written and the correctness suite passed; 1 the suite failed or nothing was
#   measured; 2 the kit is missing or incomplete; 3 no WebGPU adapter (no Vulkan driver found).
set -euo pipefail
KT_KIT_RUN_ARGV="$(printf '%q ' "$0" "$@")"
cd "$(dirname "$0")/../.."
t0=$(date +%s)
KIT="${KIT:-.kernels-kit}"
OUT="${OUT:-bench/gpu-kernels-kit/out}"
BUDGET="${KT_KIT_BUDGET_S:-280}"
LOADERS="${KT_KIT_LOADERS:-auto}"
say() { echo "kernels-kit: $*" >&2; }
QUICK=()
[ "${1:-}" = --quick ] && QUICK=(--quick)

for f in MANIFEST.json kit.mjs deno.xz; do
  [ -f "$KIT/$f" ] || { say "$KIT/$f is missing: run 'bash tooling/scripts/pack-kernels-kit.sh' on a machine with Node first"; exit 2; }
done
WORK="${KT_KIT_WORK:-${KERNELTUNE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kerneltune}/device-kit/kernels-kit-work}"
mkdir -p "$OUT" "$WORK"
OUT="$(cd "$OUT" && pwd)"; WORK="$(cd "$WORK" && pwd -P)"; KIT="$(cd "$KIT" && pwd)"

# 1. Deno, unpacked once per binary (xz, else Python's lzma).
deno_sha="$(grep -o '"sha256": *"[0-9a-f]*"' "$KIT/MANIFEST.json" | head -n1 | sed 's/.*"\([0-9a-f]*\)"/\1/')"
if [ ! -x "$WORK/deno" ] || [ "$(cat "$WORK/deno.sha256" 2>/dev/null)" != "$deno_sha" ]; then
  say "unpacking Deno"
  if command -v xz >/dev/null 2>&1; then xz -dc "$KIT/deno.xz" >"$WORK/deno.partial"
  else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$KIT/deno.xz" "$WORK/deno.partial"; fi
  chmod +x "$WORK/deno.partial" && mv "$WORK/deno.partial" "$WORK/deno"
  echo "$deno_sha" >"$WORK/deno.sha256"
fi
DENO="$WORK/deno"
export DENO_DIR="$WORK/deno-dir" DENO_NO_UPDATE_CHECK=1 XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$WORK/xdg}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
deno_version="$("$DENO" --version | head -n1 | awk '{print $2}')"

# 2. The Vulkan loader: the system's, or the kit's .debs.
system_loader="$( (ldconfig -p 2>/dev/null || true) | awk '/libvulkan\.so\.1 /{print $NF; exit}')"
loader_source=system
loader="$system_loader"
if [ "$LOADERS" = private ] || { [ "$LOADERS" = auto ] && [ -z "$system_loader" ]; }; then
  compgen -G "$KIT/debs/*.deb" >/dev/null || { say "no libvulkan.so.1 on this machine and the kit has no loader .debs: pack it without --no-loaders"; exit 2; }
  if [ "$LOADERS" = auto ] && [ "$(id -u)" = 0 ]; then
    # The device tool's recipe: unpack into / and refresh the linker cache (what ran on the lent GPUs).
    for f in "$KIT"/debs/*.deb; do dpkg -x "$f" /; done
    ldconfig
    loader="$(ldconfig -p | awk '/libvulkan\.so\.1 /{print $NF; exit}')"
    loader_source=kit-root
  else
    rm -rf "$WORK/gl" && mkdir -p "$WORK/gl"
    for f in "$KIT"/debs/*.deb; do dpkg -x "$f" "$WORK/gl"; done
    libdir="$(dirname "$(find "$WORK/gl" -name 'libvulkan.so.1' | head -n1)")"
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    loader="$libdir/libvulkan.so.1"
    loader_source=kit-private
  fi
  say "Vulkan loader from the kit ($loader_source): $(readlink -f "$loader")"
fi
[ -n "$loader" ] || loader_source=none
# The NVIDIA driver's ICD lives outside the loader's search path on the lent machines.
nv_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f "$nv_icd" ] && ! compgen -G '/usr/share/vulkan/icd.d/nvidia*.json' >/dev/null && ! compgen -G '/etc/vulkan/icd.d/nvidia*.json' >/dev/null; then
  export VK_DRIVER_FILES="$nv_icd"
  say "using the NVIDIA ICD at $nv_icd"
fi

# 3. What WebGPU cannot tell: the GPU and driver, the loader's version, the ICDs' API versions.
gpu=""; driver=""; driver_source=""
if command -v nvidia-smi >/dev/null 2>&1 && q="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)" && [ -n "$q" ]; then
  gpu="${q%%,*}"; driver="NVIDIA ${q##*, }"; driver_source="nvidia-smi"
elif v="$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null)" && [ -n "$v" ]; then
  driver="Mesa $v"; driver_source="dpkg: mesa-vulkan-drivers"
else
  driver_source="not found (no nvidia-smi, no mesa-vulkan-drivers package)"
fi
icd_list() { local f; for f in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json; do [ -f "$f" ] && printf '%s:' "$f"; done; true; }
icd_files="${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-$(icd_list)}}"
kt_commit="$(grep -o '"commit": *"[^"]*"' "$KIT/MANIFEST.json" | head -n1 | sed 's/.*: *"\(.*\)"/\1/')"
kt_dirty="$(grep -o '"dirty": *[a-z]*' "$KIT/MANIFEST.json" | head -n1 | awk '{print $NF}')"
packed_at="$(grep -o '"packedAt": *"[^"]*"' "$KIT/MANIFEST.json" | sed 's/.*: *"\(.*\)"/\1/')"
cpu="$(awk -F: '/^model name/{gsub(/^ +/, "", $2); print $2; exit}' /proc/cpuinfo 2>/dev/null || true), $(nproc 2>/dev/null || echo '?') cores"
KT_GPU="$gpu" KT_DRIVER="$driver" KT_DRIVER_SOURCE="$driver_source" KT_LOADER="$( [ -n "$loader" ] && basename "$(readlink -f "$loader")" || true)" \
KT_LOADER_SOURCE="$loader_source" KT_ICDS="$icd_files" KT_OS="$(uname -srm)" KT_CPU="$cpu" KT_DENO="$deno_version" \
KT_COMMIT="${kt_commit:-unknown}" KT_DIRTY="${kt_dirty:-false}" KT_PACKED="${packed_at:-unknown}" KT_ARGV="$KT_KIT_RUN_ARGV" \
  "$DENO" eval --no-config '
const e = Deno.env.toObject()
const icds = (e.KT_ICDS ?? "").split(":").filter(Boolean).map((file) => {
  try { const j = JSON.parse(Deno.readTextFileSync(file)); return { file, apiVersion: j.ICD?.api_version ?? null, libraryPath: j.ICD?.library_path ?? null } }
  catch { return { file, apiVersion: null, libraryPath: null } }
})
const host = {
  gpu: e.KT_GPU || null, driver: e.KT_DRIVER || null, driverSource: e.KT_DRIVER_SOURCE,
  vulkan: { loader: e.KT_LOADER || null, loaderSource: e.KT_LOADER_SOURCE, icds },
  os: e.KT_OS, cpu: e.KT_CPU, kit: { deno: e.KT_DENO, kerneltuneCommit: e.KT_COMMIT, dirty: e.KT_DIRTY === "true", packedAt: e.KT_PACKED }, argv: e.KT_ARGV.trim(),
}
console.log(JSON.stringify(host))' >"$WORK/host.json"

# 4. The script, in what is left of the budget; its log comes back with the results.
left=$(( BUDGET - ($(date +%s) - t0) ))
[ "$left" -ge 20 ] || { say "only ${left}s of the ${BUDGET}s budget left after unpacking: raise KT_KIT_BUDGET_S"; exit 1; }
set +e
"$DENO" run -A --no-config --no-lock "$KIT/kit.mjs" --out "$OUT" --host "$WORK/host.json" --budget-s "$left" "${QUICK[@]}" 2>&1 | tee "$OUT/kit.log"
rc=${PIPESTATUS[0]}
if [ "$rc" = 3 ]; then
  # No adapter: what a lease needs to know to fix it, into the log that comes back.
  {
    echo "--- diagnostics: no WebGPU adapter"
    echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-} VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-} LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    (ldconfig -p 2>/dev/null || true) | grep -iE 'vulkan|GLX_nvidia|GLdispatch' || echo "ldconfig knows no Vulkan library"
    ls -l /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1 || true
    nvidia-smi -L 2>&1 || true
    echo "--- the Vulkan loader's own account (VK_LOADER_DEBUG=error,warn,driver)"
    VK_LOADER_DEBUG=error,warn,driver timeout 60 "$DENO" eval --no-config 'console.log(String(await navigator.gpu?.requestAdapter()))' 2>&1 | tail -n 60 || true
  } 2>&1 | tee -a "$OUT/kit.log" >&2
fi
set -e
exit "$rc"
