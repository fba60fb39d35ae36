// Bundled into the dispatcher of scripts/bundle-cli.mjs: loads `serve.cjs` or `client.cjs` as
// require() would, but compiled with the V8 code cache that the build wrote beside it
// (`<bundle>.cache`). With it V8 neither parses the bundle nor compiles the module bodies it
// runs at load: ~10 ms of `tandem serve`'s start on Node 20, whose require() keeps no code cache
// (Node 22 has module.enableCompileCache() for that). A missing cache, or one V8 refuses (another
// Node version, other V8 flags), costs only the saving: the bundle is compiled from its source.
'use strict';

const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

/** The bundle's source, as require() would wrap it, and the code cache for exactly that text. */
function compileBundle(file) {
  const source = Module.wrap(readFileSync(file, 'utf8'));
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  return new Script(source, { filename: file, cachedData });
}

/**
 * Runs the compiled bundle `file` as a CommonJS module. The module is registered in require()'s
 * cache under the bundle's path before it runs, so that its parts (`<name>.<part>.cjs`, loaded
 * by plain require()) reach this very module.
 */
function runBundle(file, script) {
  const wrapper = script.runInThisContext();
  const bundle = new Module(file, module);
  bundle.filename = file;
  bundle.paths = Module._nodeModulePaths(dirname(file));
  require.cache[file] = bundle;
  try {
    wrapper.call(
      bundle.exports,
      bundle.exports,
      Module.createRequire(file),
      bundle,
      file,
      dirname(file),
    );
  } catch (error) {
    delete require.cache[file];
    throw error;
  }
  bundle.loaded = true;
  return bundle.exports;
}

/** The exports of the sibling bundle `name` (`serve.cjs`), loaded once. */
function loadBundle(name) {
  const file = join(__dirname, name);
  return require.cache[file]?.exports ?? runBundle(file, compileBundle(file));
}

module.exports = { compileBundle, loadBundle, runBundle };
