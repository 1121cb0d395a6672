/**
 * Thin helpers over the onnx.proto messages that `onnx-proto` compiles for protobufjs (ONNX
 * v1.10.2, IR version 8): the encoding itself is protobufjs's, these only spell nodes, tensors and
 * value infos without repeating the message boilerplate.
 */
import onnxProto from 'onnx-proto'

export const onnx = onnxProto.onnx
export type Onnx = typeof onnx

/** TensorProto.DataType members this package writes. */
export const DT = {
  float: onnx.TensorProto.DataType.FLOAT,
  uint8: onnx.TensorProto.DataType.UINT8,
  int32: onnx.TensorProto.DataType.INT32,
  int64: onnx.TensorProto.DataType.INT64,
  float16: onnx.TensorProto.DataType.FLOAT16,
} as const
export type DataType = (typeof DT)[keyof typeof DT]

export type AttrValue = number | readonly number[] | { readonly float: number } | string

function attribute(name: string, value: AttrValue): InstanceType<Onnx['AttributeProto']> {
  const A = onnx.AttributeProto.AttributeType
  if (typeof value === 'number') return onnx.AttributeProto.create({ name, type: A.INT, i: value })
  if (typeof value === 'string') return onnx.AttributeProto.create({ name, type: A.STRING, s: new TextEncoder().encode(value) })
  if (Array.isArray(value)) return onnx.AttributeProto.create({ name, type: A.INTS, ints: [...value] })
  return onnx.AttributeProto.create({ name, type: A.FLOAT, f: (value as { float: number }).float })
}

export interface NodeSpec {
  readonly op: string
  readonly inputs: readonly string[]
  readonly outputs: readonly string[]
  readonly domain?: string
  readonly attrs?: Readonly<Record<string, AttrValue>>
}

export function node(spec: NodeSpec, name: string): InstanceType<Onnx['NodeProto']> {
  return onnx.NodeProto.create({
    name,
    opType: spec.op,
    domain: spec.domain ?? '',
    input: [...spec.inputs],
    output: [...spec.outputs],
    attribute: Object.entries(spec.attrs ?? {}).map(([k, v]) => attribute(k, v)),
  })
}

/** An initializer holding little-endian bytes (raw_data). */
export function tensor(name: string, dataType: DataType, dims: readonly number[], raw: Uint8Array): InstanceType<Onnx['TensorProto']> {
  return onnx.TensorProto.create({ name, dataType, dims: [...dims], rawData: raw })
}

/** A graph input or output; a string dim is symbolic (dim_param). */
export function valueInfo(name: string, elemType: DataType, dims: readonly (number | string)[]): InstanceType<Onnx['ValueInfoProto']> {
  return onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  })
}
