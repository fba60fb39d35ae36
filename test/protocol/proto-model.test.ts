/**
 * The drift guard between spec/a2a.proto and the TypeScript model: every message, field, enum
 * value and RPC of the proto must appear in the generated types (checked with the TypeScript type
 * checker, not by reading text) and in the generated descriptors, and the committed generated
 * files must be what the generator produces today.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import ts from 'typescript';
import { describe, it, expect } from 'vitest';
import type { FieldDescriptor, MessageDescriptor } from '../../src/protocol/descriptor.js';
import {
  enumDescriptors,
  messageDescriptors,
  methodDescriptors,
} from '../../src/protocol/generated/descriptors.js';

const repoPath = (relative: string): string =>
  fileURLToPath(new URL(`../../${relative}`, import.meta.url));

const PROTO_SOURCE = readFileSync(repoPath('spec/a2a.proto'), 'utf8');
const TYPES_PATH = repoPath('src/protocol/generated/types.ts');
const DESCRIPTORS_PATH = repoPath('src/protocol/generated/descriptors.ts');
const PROTO_NAMES_PATH = repoPath('src/protocol/generated/proto-names.ts');

// ---------------------------------------------------------------------------------------------
// The proto, read with protobufjs into a plain model that the assertions below work from.
// ---------------------------------------------------------------------------------------------

type Kind = FieldDescriptor['type'];

interface ProtoField {
  readonly protoName: string;
  readonly jsonName: string;
  readonly kind: Kind;
  readonly typeName?: string;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly required: boolean;
  readonly presence: boolean;
  readonly oneof?: string;
  readonly deprecated: boolean;
}

interface ProtoOneof {
  readonly name: string;
  readonly fields: readonly string[];
}

interface ProtoMessage {
  readonly name: string;
  readonly fields: readonly ProtoField[];
  readonly oneofs: readonly ProtoOneof[];
}

interface ProtoEnum {
  readonly name: string;
  readonly values: readonly string[];
}

interface HttpRule {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
}

interface ProtoMethod {
  readonly name: string;
  readonly requestType: string;
  readonly responseType: string;
  readonly streaming: boolean;
  readonly http: HttpRule;
  readonly additionalBindings: readonly HttpRule[];
}

/** The proto3 JSON name of a field (protobuf's ToJsonName: drop `_`, upper-case what follows). */
function jsonNameOf(protoName: string): string {
  let out = '';
  let upper = false;
  for (const ch of protoName) {
    if (ch === '_') upper = true;
    else {
      out += upper ? ch.toUpperCase() : ch;
      upper = false;
    }
  }
  return out;
}

const SCALAR_KINDS: Readonly<Record<string, Kind>> = {
  string: 'string',
  bytes: 'bytes',
  int32: 'int32',
  bool: 'bool',
  'google.protobuf.Timestamp': 'timestamp',
  'google.protobuf.Struct': 'struct',
  'google.protobuf.Value': 'value',
};

function optionsOf(object: protobuf.ReflectionObject): Record<string, unknown> {
  return object.options ?? {};
}

function parsedOptionsOf(object: protobuf.ReflectionObject): Record<string, unknown>[] {
  return (object.parsedOptions ?? []) as Record<string, unknown>[];
}

function isRequired(field: protobuf.Field): boolean {
  const option = '(google.api.field_behavior)';
  if (optionsOf(field)[option] === 'REQUIRED') return true;
  return parsedOptionsOf(field).some((o) => {
    const value = o[option];
    return value === 'REQUIRED' || (Array.isArray(value) && value.includes('REQUIRED'));
  });
}

const hasPresence = (field: protobuf.Field): boolean => optionsOf(field).proto3_optional === true;

/** A oneof written in the proto, as opposed to the synthetic one of a proto3 `optional` field. */
const isRealOneof = (oneof: protobuf.OneOf): boolean =>
  !oneof.fieldsArray.every((f) => hasPresence(f));

function toProtoField(message: protobuf.Type, field: protobuf.Field): ProtoField {
  const isMap = field instanceof protobuf.MapField;
  if (isMap && field.keyType !== 'string') {
    throw new Error(`${message.name}.${field.name}: map keys other than string are not modelled`);
  }
  let kind = SCALAR_KINDS[field.type];
  let typeName: string | undefined;
  if (kind === undefined) {
    const resolved = message.lookup(field.type);
    if (resolved instanceof protobuf.Enum) kind = 'enum';
    else if (resolved instanceof protobuf.Type) kind = 'message';
    else throw new Error(`${message.name}.${field.name}: unsupported type ${field.type}`);
    typeName = resolved.name;
  }
  const oneof = field.partOf && isRealOneof(field.partOf) ? field.partOf.name : undefined;
  return {
    protoName: field.name,
    jsonName: jsonNameOf(field.name),
    kind,
    ...(typeName === undefined ? {} : { typeName }),
    repeated: field.repeated && !isMap,
    map: isMap,
    required: isRequired(field),
    presence: hasPresence(field),
    ...(oneof === undefined ? {} : { oneof }),
    deprecated: optionsOf(field).deprecated === true,
  };
}

function httpRuleOf(rule: Record<string, unknown>, where: string): HttpRule {
  const verbs = ['get', 'post', 'put', 'delete', 'patch'].filter(
    (v) => typeof rule[v] === 'string',
  );
  if (verbs.length !== 1) throw new Error(`${where}: expected one HTTP verb, got ${verbs.join()}`);
  const verb = verbs[0]!;
  const body = rule.body;
  return {
    method: verb.toUpperCase(),
    path: rule[verb] as string,
    ...(typeof body === 'string' ? { body } : {}),
  };
}

function toProtoMethod(method: protobuf.Method): ProtoMethod {
  const http = parsedOptionsOf(method).find((o) => o['(google.api.http)'] !== undefined)?.[
    '(google.api.http)'
  ] as Record<string, unknown> | undefined;
  if (http === undefined) throw new Error(`${method.name} has no google.api.http option`);
  const extra = http.additional_bindings;
  const extras = (extra === undefined ? [] : Array.isArray(extra) ? extra : [extra]) as Record<
    string,
    unknown
  >[];
  return {
    name: method.name,
    requestType: method.requestType,
    responseType: method.responseType,
    streaming: method.responseStream === true,
    http: httpRuleOf(http, method.name),
    additionalBindings: extras.map((rule) => httpRuleOf(rule, `${method.name} binding`)),
  };
}

function loadProto(source: string) {
  const { root } = protobuf.parse(source, { keepCase: true });
  const pkg = root.lookup('lf.a2a.v1');
  if (!(pkg instanceof protobuf.Namespace)) throw new Error('package lf.a2a.v1 not found');
  const messages: ProtoMessage[] = [];
  const enums: ProtoEnum[] = [];
  const methods: ProtoMethod[] = [];
  const visit = (ns: protobuf.Namespace): void => {
    for (const item of ns.nestedArray) {
      if (item instanceof protobuf.Type) {
        messages.push({
          name: item.name,
          fields: item.fieldsArray.map((f) => toProtoField(item, f)),
          oneofs: item.oneofsArray.filter(isRealOneof).map((o) => ({
            name: o.name,
            fields: o.fieldsArray.map((f) => jsonNameOf(f.name)),
          })),
        });
        visit(item);
      } else if (item instanceof protobuf.Enum) {
        enums.push({ name: item.name, values: Object.keys(item.values) });
      } else if (item instanceof protobuf.Service) {
        methods.push(...item.methodsArray.map(toProtoMethod));
      } else if (item instanceof protobuf.Namespace) {
        visit(item);
      }
    }
  };
  visit(pkg);
  return { messages, enums, methods };
}

const proto = loadProto(PROTO_SOURCE);
const MESSAGE_NAMES = proto.messages.map((m) => m.name);

// ---------------------------------------------------------------------------------------------
// The generated types, read with the TypeScript type checker.
// ---------------------------------------------------------------------------------------------

interface TypesModel {
  readonly checker: ts.TypeChecker;
  readonly diagnostics: readonly ts.Diagnostic[];
  readonly exports: ReadonlyMap<string, ts.Symbol>;
}

let typesModel: TypesModel | undefined;

function types(): TypesModel {
  if (typesModel) return typesModel;
  const program = ts.createProgram([TYPES_PATH], {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(TYPES_PATH);
  if (!source) throw new Error(`${TYPES_PATH} is not in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${TYPES_PATH} is not a module`);
  const exports = new Map(checker.getExportsOfModule(moduleSymbol).map((s) => [s.name, s]));
  const diagnostics = [
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ];
  typesModel = { checker, diagnostics, exports };
  return typesModel;
}

function exportedType(name: string): ts.Type {
  const { checker, exports } = types();
  const symbol = exports.get(name);
  if (!symbol) throw new Error(`types.ts exports no type named ${name}`);
  if ((symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) === 0) {
    throw new Error(`types.ts exports ${name}, but not as an interface or type alias`);
  }
  return checker.getDeclaredTypeOfSymbol(symbol);
}

function constituentsOf(type: ts.Type): readonly ts.Type[] {
  return type.isUnion() ? type.types : [type];
}

/** The type a property is declared with (without the `undefined` an optional property adds). */
function declaredTypeOf(property: ts.Symbol): ts.Type {
  const { checker } = types();
  const declaration = property.valueDeclaration;
  if (declaration && ts.isPropertySignature(declaration) && declaration.type) {
    return checker.getTypeFromTypeNode(declaration.type);
  }
  return checker.getNonNullableType(checker.getTypeOfSymbol(property));
}

/** A short, stable description of a type: `string`, `Part[]`, `map<StringList>`, `TaskState`... */
function describeType(type: ts.Type): string {
  const { checker } = types();
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    return `${element ? describeType(element) : '?'}[]`;
  }
  if (type.aliasSymbol) return type.aliasSymbol.name;
  if (type.flags & ts.TypeFlags.Never) return 'never';
  if (type.flags & ts.TypeFlags.String) return 'string';
  if (type.flags & ts.TypeFlags.Number) return 'number';
  if (type.flags & ts.TypeFlags.Boolean) return 'boolean';
  if (type.flags & ts.TypeFlags.BooleanLiteral) return checker.typeToString(type);
  const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
  if (index && checker.getPropertiesOfType(type).length === 0) {
    return `map<${describeType(index.type)}>`;
  }
  const symbol = type.getSymbol();
  if (symbol && symbol.name !== '__type') return symbol.name;
  return checker.typeToString(type);
}

/** What a proto field must look like in TypeScript (ProtoJSON form). */
function expectedTsType(field: ProtoField): string {
  const scalar: Record<Kind, string | undefined> = {
    string: 'string',
    bytes: 'string',
    int32: 'number',
    bool: 'boolean',
    timestamp: 'string',
    struct: 'Struct',
    value: 'JsonValue',
    enum: field.typeName,
    message: field.typeName,
  };
  const item = scalar[field.kind] ?? '?';
  if (field.map) return `map<${item}>`;
  return field.repeated ? `${item}[]` : item;
}

interface PropertyInfo {
  readonly optional: boolean;
  readonly type: string;
  readonly deprecated: boolean;
}

function propertyIn(constituent: ts.Type, name: string): PropertyInfo | undefined {
  const property = types().checker.getPropertyOfType(constituent, name);
  if (!property) return undefined;
  const declaration = property.valueDeclaration;
  return {
    optional: (property.flags & ts.SymbolFlags.Optional) !== 0,
    type: describeType(declaredTypeOf(property)),
    deprecated: declaration !== undefined && ts.getJSDocDeprecatedTag(declaration) !== undefined,
  };
}

function propertyNames(type: ts.Type): Set<string> {
  const names = new Set<string>();
  for (const c of constituentsOf(type)) {
    for (const p of types().checker.getPropertiesOfType(c)) names.add(p.name);
  }
  return names;
}

// ---------------------------------------------------------------------------------------------

describe('spec/a2a.proto as parsed', () => {
  // Counted on the source text, so that a parser quirk cannot hide a whole construct.
  const count = (pattern: RegExp): number => PROTO_SOURCE.match(pattern)?.length ?? 0;

  it('has every message, enum and RPC of the source text', () => {
    expect(proto.messages).toHaveLength(count(/^\s*message\s+\w+\s*\{/gm));
    expect(proto.enums).toHaveLength(count(/^\s*enum\s+\w+\s*\{/gm));
    expect(proto.methods).toHaveLength(count(/^\s*rpc\s+\w+\s*\(/gm));
    expect(proto.methods).toHaveLength(11);
  });

  it('sees every REQUIRED annotation and every proto3 optional field', () => {
    const fields = proto.messages.flatMap((m) => m.fields);
    expect(fields.filter((f) => f.required)).toHaveLength(
      count(/\(google\.api\.field_behavior\)\s*=\s*REQUIRED/g),
    );
    expect(fields.filter((f) => f.presence)).toHaveLength(count(/^\s*optional\s+/gm));
  });
});

describe('generated/types.ts', () => {
  it('type-checks on its own', () => {
    const messages = types().diagnostics.map((d) =>
      ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    );
    expect(messages).toEqual([]);
  });

  describe.each(proto.messages)('message $name', (message) => {
    it('is an exported type with a property for every field and no other', () => {
      const type = exportedType(message.name);
      expect([...propertyNames(type)].sort()).toEqual(message.fields.map((f) => f.jsonName).sort());
    });

    it.each(message.fields.filter((f) => f.oneof === undefined))(
      'has $jsonName with the right type and optionality',
      (field) => {
        const constituents = constituentsOf(exportedType(message.name));
        for (const constituent of constituents) {
          const property = propertyIn(constituent, field.jsonName);
          expect(property, `${message.name}.${field.jsonName}`).toEqual({
            optional: !field.required,
            type: expectedTsType(field),
            deprecated: field.deprecated,
          });
        }
      },
    );

    it.each(message.fields.filter((f) => f.oneof !== undefined))(
      'has oneof member $jsonName required in exactly one constituent and never in the others',
      (field) => {
        const constituents = constituentsOf(exportedType(message.name));
        const required = constituents.filter(
          (c) => propertyIn(c, field.jsonName)?.optional === false,
        );
        expect(required).toHaveLength(1);
        expect(propertyIn(required[0]!, field.jsonName)).toEqual({
          optional: false,
          type: expectedTsType(field),
          deprecated: field.deprecated,
        });
        for (const other of constituents.filter((c) => !required.includes(c))) {
          const property = propertyIn(other, field.jsonName);
          if (property) expect(property).toMatchObject({ optional: true, type: 'never' });
        }
      },
    );
  });

  describe.each(proto.messages.filter((m) => m.oneofs.length > 0))('message $name', (message) => {
    it('is a union in which each constituent sets exactly one member of each oneof', () => {
      const constituents = constituentsOf(exportedType(message.name));
      for (const oneof of message.oneofs) {
        for (const constituent of constituents) {
          const set = oneof.fields.filter(
            (name) => propertyIn(constituent, name)?.optional === false,
          );
          expect(set, `${message.name}.${oneof.name}`).toHaveLength(1);
        }
      }
      const product = message.oneofs.reduce((n, o) => n * o.fields.length, 1);
      expect(constituents).toHaveLength(product);
    });
  });

  it.each(proto.enums)('exports enum $name as the union of its value names', (en) => {
    const type = exportedType(en.name);
    const literals = constituentsOf(type).map((t) => (t.isStringLiteral() ? t.value : undefined));
    expect(literals.every((l) => l !== undefined)).toBe(true);
    expect([...literals].sort()).toEqual([...en.values].sort());
  });

  it('lists every message in MessageTypes and every enum in EnumTypes', () => {
    expect([...propertyNames(exportedType('MessageTypes'))].sort()).toEqual(
      [...MESSAGE_NAMES].sort(),
    );
    for (const name of MESSAGE_NAMES) {
      expect(propertyIn(exportedType('MessageTypes'), name)?.type).toBe(name);
    }
    expect([...propertyNames(exportedType('EnumTypes'))].sort()).toEqual(
      proto.enums.map((e) => e.name).sort(),
    );
  });

  it('has every RPC in ServiceMethods and no other', () => {
    expect([...propertyNames(exportedType('ServiceMethods'))].sort()).toEqual(
      proto.methods.map((m) => m.name).sort(),
    );
  });

  it.each(proto.methods)('types ServiceMethods.$name from the RPC', (method) => {
    const { checker } = types();
    const property = checker.getPropertyOfType(exportedType('ServiceMethods'), method.name);
    expect(property).toBeDefined();
    const entry = declaredTypeOf(property!);
    const member = (name: string): string => {
      const symbol = checker.getPropertyOfType(entry, name);
      return symbol ? checker.typeToString(declaredTypeOf(symbol)) : '(missing)';
    };
    expect(member('request')).toBe(method.requestType);
    expect(member('response')).toBe(
      method.responseType === 'google.protobuf.Empty'
        ? 'Record<string, never>'
        : method.responseType,
    );
    expect(member('streaming')).toBe(String(method.streaming));
  });
});

describe('generated/descriptors.ts', () => {
  const descriptors = messageDescriptors as Record<string, MessageDescriptor | undefined>;

  it('describes every message and enum of the proto and nothing else', () => {
    expect(Object.keys(messageDescriptors).sort()).toEqual([...MESSAGE_NAMES].sort());
    expect(Object.keys(enumDescriptors).sort()).toEqual(proto.enums.map((e) => e.name).sort());
  });

  describe.each(proto.messages)('message $name', (message) => {
    it('has every field, in proto order, with its JSON name, kind and flags', () => {
      const descriptor = descriptors[message.name];
      expect(descriptor?.name).toBe(message.name);
      const expected = message.fields.map((f) => ({
        name: f.jsonName,
        protoName: f.protoName,
        type: f.kind,
        ...(f.typeName === undefined ? {} : { typeName: f.typeName }),
        ...(f.map ? { map: true } : {}),
        ...(f.repeated ? { repeated: true } : {}),
        ...(f.required ? { required: true } : {}),
        ...(f.presence ? { presence: true } : {}),
        ...(f.oneof === undefined ? {} : { oneof: f.oneof }),
        ...(f.deprecated ? { deprecated: true } : {}),
      }));
      expect(descriptor?.fields).toStrictEqual(expected);
    });

    it('has its oneofs, without the synthetic ones of proto3 optional fields', () => {
      expect(descriptors[message.name]?.oneofs).toStrictEqual(message.oneofs);
    });
  });

  it.each(proto.enums)('lists the values of enum $name in proto order', (en) => {
    const descriptor = (
      enumDescriptors as Record<string, { name: string; values: readonly string[] } | undefined>
    )[en.name];
    expect(descriptor).toStrictEqual({ name: en.name, values: en.values });
  });

  it('describes every RPC in proto order and nothing else', () => {
    expect(Object.keys(methodDescriptors)).toEqual(proto.methods.map((m) => m.name));
  });

  it.each(proto.methods)('describes $name with its types, streaming and HTTP rule', (method) => {
    const descriptor = (methodDescriptors as Record<string, unknown>)[method.name];
    expect(descriptor).toStrictEqual({
      name: method.name,
      requestType: method.requestType,
      responseType: method.responseType === 'google.protobuf.Empty' ? 'Empty' : method.responseType,
      streaming: method.streaming,
      http: method.http,
    });
  });

  // The descriptors carry only the primary HTTP rule; the REST binding derives the tenant form
  // by prefixing `/{tenant}`. This holds the proto to that assumption.
  it.each(proto.methods)('has only the /{tenant} form of $name as additional binding', (method) => {
    expect(method.additionalBindings).toStrictEqual([
      { ...method.http, path: `/{tenant}${method.http.path}` },
    ]);
  });
});

/** The generator's public surface (it is plain JavaScript, so the type is stated here). */
interface Generator {
  render: (protoSource?: string) => Promise<Record<string, string>>;
}

async function loadGenerator(): Promise<Generator> {
  // A computed specifier: TypeScript does not type-check the .mjs script itself.
  const url = new URL('../../scripts/generate-protocol.mjs', import.meta.url).href;
  return (await import(url)) as Generator;
}

describe('generated files', () => {
  it('are up to date with spec/a2a.proto (run `npm run generate` if not)', async () => {
    const { render } = await loadGenerator();
    const files = await render();
    expect(Object.keys(files).sort()).toEqual(['descriptors.ts', 'proto-names.ts', 'types.ts']);
    expect(files['types.ts']).toBe(readFileSync(TYPES_PATH, 'utf8'));
    expect(files['descriptors.ts']).toBe(readFileSync(DESCRIPTORS_PATH, 'utf8'));
    expect(files['proto-names.ts']).toBe(readFileSync(PROTO_NAMES_PATH, 'utf8'));
  });

  it('change when the proto changes (the comparison above is not vacuous)', async () => {
    const { render } = await loadGenerator();
    const changed = PROTO_SOURCE.replace(
      'message StringList {',
      'message StringList {\n  string drift_probe = 99;',
    );
    expect(changed).not.toBe(PROTO_SOURCE);
    const files = await render(changed);
    expect(files['types.ts']).toContain('driftProbe?: string;');
    expect(files['descriptors.ts']).toContain("protoName: 'drift_probe'");
    expect(files['proto-names.ts']).toContain('value.drift_probe !== undefined');
  });
});
