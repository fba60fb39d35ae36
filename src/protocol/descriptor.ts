/**
 * The shape of the generated proto descriptors (src/protocol/generated/descriptors.ts). They let
 * validation, query-string decoding and drift tests walk the wire model as data instead of
 * re-stating it by hand.
 */

/** How a field is written in ProtoJSON. */
export type FieldKind =
  'string' | 'bytes' | 'int32' | 'bool' | 'timestamp' | 'struct' | 'value' | 'enum' | 'message';

/** One field of a proto message. */
export interface FieldDescriptor {
  /** The JSON (camelCase) name. */
  readonly name: string;
  /** The proto (snake_case) name. */
  readonly protoName: string;
  readonly type: FieldKind;
  /** The enum or message name, for `enum` and `message` fields. */
  readonly typeName?: string;
  /** `repeated` field: a JSON array. */
  readonly repeated?: boolean;
  /** `map<string, T>` field: a JSON object. */
  readonly map?: boolean;
  /** Annotated `(google.api.field_behavior) = REQUIRED`. */
  readonly required?: boolean;
  /** Declared with the proto3 `optional` keyword (explicit presence). */
  readonly presence?: boolean;
  /** The oneof this field belongs to, if any. */
  readonly oneof?: string;
  readonly deprecated?: boolean;
}

/** A oneof group: exactly one of its fields is set in a valid message. */
export interface OneofDescriptor {
  readonly name: string;
  readonly fields: readonly string[];
}

/** One proto message. */
export interface MessageDescriptor {
  readonly name: string;
  readonly fields: readonly FieldDescriptor[];
  readonly oneofs: readonly OneofDescriptor[];
}

/** One proto enum, values in declaration order (the first is the `UNSPECIFIED` value). */
export interface EnumDescriptor {
  readonly name: string;
  readonly values: readonly string[];
}

/** One RPC of the `A2AService`, with its HTTP+JSON mapping from `google.api.http`. */
export interface MethodDescriptor {
  readonly name: string;
  readonly requestType: string;
  /** The response message; `Empty` for `google.protobuf.Empty`. */
  readonly responseType: string;
  /** Server-streaming RPC (answered with SSE on the HTTP bindings). */
  readonly streaming: boolean;
  readonly http: {
    readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
    readonly path: string;
    readonly body?: string;
  };
}
