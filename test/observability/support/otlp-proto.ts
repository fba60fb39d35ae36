/**
 * The part of the OTLP protocol (opentelemetry-proto, `collector/{trace,metrics}/v1`) that the
 * tests read, written from the published field numbers so that protobufjs decodes what an
 * exporter sends. Fields the tests do not read are left out; protobuf skips them.
 */

import protobuf from 'protobufjs';

const SCHEMA = `
syntax = "proto3";
package otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message InstrumentationScope { string name = 1; string version = 2; }

message Status { string message = 2; int32 code = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  repeated Link links = 13;
  Status status = 15;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }

message NumberDataPoint {
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  double as_double = 4;
  sfixed64 as_int = 6;
  repeated KeyValue attributes = 7;
}
message HistogramDataPoint {
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  double sum = 5;
  repeated fixed64 bucket_counts = 6;
  repeated double explicit_bounds = 7;
  repeated KeyValue attributes = 9;
}
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message Metric {
  string name = 1;
  string description = 2;
  string unit = 3;
  Gauge gauge = 5;
  Sum sum = 7;
  Histogram histogram = 9;
}
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
`;

const root = protobuf.parse(SCHEMA, { keepCase: false }).root;

/** `ExportTraceServiceRequest`. */
export const ExportTraceServiceRequest = root.lookupType('otlp.ExportTraceServiceRequest');
/** `ExportMetricsServiceRequest`. */
export const ExportMetricsServiceRequest = root.lookupType('otlp.ExportMetricsServiceRequest');

/**
 * A decoded message as plain JSON in the OTLP/JSON shape (camelCase fields, ids in hex as
 * OTLP/JSON writes them, 64-bit numbers as strings), so that both encodings read alike.
 */
export function toOtlpJson(type: protobuf.Type, bytes: Uint8Array): unknown {
  const message = type.decode(bytes);
  const object = type.toObject(message, {
    longs: String,
    bytes: Array,
    defaults: false,
    oneofs: false,
  });
  return hexIds(object);
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

function hexIds(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    if (key !== undefined && ID_FIELDS.has(key)) {
      return Buffer.from(value as number[]).toString('hex');
    }
    return value.map((item) => hexIds(item));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hexIds(v, k)]));
  }
  return value;
}
