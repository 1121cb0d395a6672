/**
 * The flags of `kerneltune sweep`, as a typed table: the command declares them and its
 * server/interleaved path reads them with the same types (no `any` between the two).
 */
import { SERVING_ENGINE_NAMES, SWEEP_BACKENDS as B, SWEEP_GGUF_ENGINE as GGUF } from '@kerneltune/compose'
import { SWEEP_GATE_DEFAULTS, SWEEP_METRICS } from '@kerneltune/experiment'
import { GATE_METHODS } from '@kerneltune/stats'
import type { FlagSpec } from '../cli/args.ts'
import { OBJECTIVE_FLAGS } from './shared/objectives-flags.ts'

export const SWEEP_FLAGS = [
  { name: 'engine', type: 'string', description: `Engine to sweep: ${GGUF} (a GGUF model) or onnx (ONNX Runtime's CPU execution provider through onnxruntime-node, an ONNX decoder); the other engines with a serving capability are launched by --backend server, where installed.`, choices: [GGUF, 'onnx', ...SERVING_ENGINE_NAMES.filter((n) => n !== GGUF)], default: GGUF },
  { name: 'gguf', type: 'string', description: 'The GGUF model file.', valueName: 'FILE' },
  { name: 'onnx', type: 'string', description: 'onnx: the ONNX decoder model (input_ids, attention_mask, past_key_values.* in; logits, present.* out). Without it, a llama of --params is synthesized into the cache folder.', valueName: 'FILE' },
  { name: 'params', type: 'string', description: 'onnx without --onnx: the parameter count of the llama shape to synthesize (as kerneltune model synth: 1B, 60M, 2M).', valueName: 'N', default: '1B', spelledElsewhere: ['model-shape'] },
  { name: 'weights', type: 'string', description: 'onnx without --onnx: the synthesized model\'s weights (q4: MatMulNBits 4-bit blocks of 32; fp32 and fp16 are capped by protobuf\'s 2 GiB).', choices: ['q4', 'fp16', 'fp32'], default: 'q4' },
  { name: 'vocab-size', type: 'integer', description: 'onnx without --onnx: the synthesized model\'s vocabulary (default 32000).', min: 16, max: 262144 },
  { name: 'plan', type: 'boolean', description: 'Print the plan (the space, the combinations to measure against the defaults and those the rules remove) and stop: nothing is launched or measured.' },
  { name: 'quick', type: 'boolean', description: 'Quick mode: a small space and short runs (1–2 minutes for a small model on 2 cores).' },
  { name: 'space', type: 'string', description: 'Replace dimensions of the space, as JSON: {"threads":["1","2"]}.', valueName: 'JSON' },
  { name: 'metric', type: 'string', description: 'Metric that ranks combinations.', choices: SWEEP_METRICS, default: 'decodeTps' },
  { name: 'gate', type: 'string', description: 'Quality gate.', choices: GATE_METHODS, default: SWEEP_GATE_DEFAULTS.gate },
  { name: 'epsilon', type: 'number', description: 'regression gate: largest worsening allowed on any metric.', default: SWEEP_GATE_DEFAULTS.epsilon, min: 0 },
  { name: 'margin', type: 'number', description: 'topk5 gate: improvement required.', default: SWEEP_GATE_DEFAULTS.margin, min: 0 },
  { name: 'reps', type: 'integer', description: 'Repetitions per combination at most (quick 4, standard 8).', min: 2, max: 1000 },
  { name: 'min-reps', type: 'integer', description: 'Repetitions before early termination may stop a combination.', min: 2, max: 1000 },
  { name: 'warmup', type: 'integer', description: 'Warm-up repetitions per combination.', default: 1, min: 0, max: 100 },
  { name: 'noise-floor', type: 'number', description: 'Early termination: interval width (fraction of the value) counted as tight.', default: 0.05, min: 0.001, max: 1 },
  { name: 'no-early-stop', type: 'boolean', description: 'Measure every combination to --reps.' },
  { name: 'prompt-tokens', type: 'integer', description: 'Prompt length per repetition (quick 64, standard 128).', min: 1 },
  { name: 'gen-tokens', type: 'integer', description: 'Tokens generated per repetition (quick 16, standard 32).', min: 2 },
  { name: 'gpu', type: 'string', description: 'The GGUF engine\'s in-process build: off (CPU), auto, cuda, vulkan.', choices: ['off', 'auto', 'cuda', 'vulkan'], default: 'off' },
  { name: 'backend', type: 'string', description: `${B.inProcess} (the default for ${GGUF}): the engine in-process, one request at a time. server: the engine's own server per combination under concurrent streaming load (adds slots and continuous batching to the space). onnxruntime (the only one for onnx): an onnxruntime-node InferenceSession per combination, in-process.`, choices: [B.inProcess, B.server, B.onnx] },
  { name: 'design', type: 'string', description: 'sequential: the defaults first, then each combination. interleaved: every combination once per round in a random order, paired against the defaults by round, with an A/A check (default with --backend server and --engine onnx).', choices: ['sequential', 'interleaved'] },
  { name: 'rounds', type: 'integer', description: 'Interleaved: rounds at most (quick 8, standard 12; the sign-flip test needs 7 to decide).', min: 2, max: 1000 },
  { name: 'time-budget', type: 'number', description: 'Interleaved: seconds for the whole command from its start: the rounds, the --capacity searches and the report (2 s of it, at most a tenth, are kept for the report). With --capacity the rounds get two thirds of the rest and the searches what the rounds leave. Each part stops at a measurement boundary (none starts that would end after its share; one running then may finish, and is cancelled only one measurement past it), the sweep decides with what it measured, stores the run, prints the result and says what the budget ended (--json: budget). It binds from the first round: a budget too short for 2 rounds keeps the defaults and says nothing could be compared (the sign-flip test needs 7 rounds to decide).', min: 1 },
  { name: 'out', type: 'string', description: 'Also write the --json result to FILE, and the result so far after every round and capacity search (partial: true, phase), each time to a temporary file renamed over FILE, so a sweep killed before its end leaves what it measured.', valueName: 'FILE' },
  { name: 'concurrency', type: 'integer', description: 'Server: requests in flight (closed loop).', default: 4, min: 1, max: 1024 },
  { name: 'requests', type: 'integer', description: 'Server: measured requests per repetition.', default: 8, min: 1, max: 100000 },
  { name: 'seed', type: 'integer', description: 'Interleaved: seed of the round orders.', default: 1, min: 0 },
  { name: 'prelaunch', type: 'string', description: 'Server, interleaved: on starts every arm\'s server before round 1 (several at a time on a GPU machine, one at a time on a CPU) and warms each with one wave of the measured load, so round 1 measures as later rounds do. off launches each on its first visit with one-at-a-time warm-up requests (the behaviour before it, for comparison).', choices: ['on', 'off'], default: 'on' },
  ...OBJECTIVE_FLAGS,
  { name: 'capacity', type: 'boolean', description: 'Server, with --slo: after the sweep, search the capacity of the defaults and of the winner under the objectives (bench capacity\'s search, at most 16 measurements each).' },
  { name: 'capacity-by', type: 'string', description: 'What --capacity searches: rate (open loop, Poisson arrivals, req/s) or concurrency (closed loop).', choices: ['rate', 'concurrency'], default: 'rate' },
  { name: 'test', type: 'string', description: 'Interleaved: how a combination is compared with the defaults of the same rounds. sign-flip: the 20% trimmed mean of its log ratios with a randomization p-value, exact (all 2^n sign patterns) up to 14 rounds and resampled from 10,000 patterns past them (robust to wild measurements; needs 7 rounds to decide). paired: a t-test on their mean. blocked: the noise pooled over every combination (more power in few rounds, but it assumes every combination is as noisy as the defaults, which a loaded CPU breaks).', choices: ['sign-flip', 'paired', 'blocked'], default: 'sign-flip' },
  { name: 'resume', type: 'string', description: 'Continue a sweep\'s stored run that was interrupted or whose process died, with the flags it stored (sequential: the combinations already measured are kept; interleaved: the rounds start again). Refused while the process measuring it is alive.', valueName: 'RUN_ID' },
  { name: 'force', type: 'boolean', description: 'With --resume: take the run over even if the process holding it looks alive (one that is hung).' },
  { name: 'db', type: 'string', description: 'Store the sweep\'s run here (default: the embedded store, $XDG_DATA_HOME/kerneltune/kerneltune.db).', valueName: 'PATH' },
] as const satisfies readonly FlagSpec[]
