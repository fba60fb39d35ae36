// Types of scripts/generate-protocol.mjs, for the tests that import it.

/** Renders the generated files from a proto source (default: spec/a2a.proto). */
export function render(
  protoSource?: string,
): Promise<Record<'types.ts' | 'descriptors.ts' | 'proto-names.ts', string>>;

/** Converts a proto field name to its JSON name. */
export function toJsonName(snake: string): string;
