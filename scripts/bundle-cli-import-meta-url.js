// Injected into the CommonJS bundles of scripts/bundle-cli.mjs, where `import.meta.url` is
// defined as this value: the file URL of the bundle itself, as the ES module would have had.
import { pathToFileURL } from 'node:url';

export const importMetaUrl = pathToFileURL(__filename).href;
