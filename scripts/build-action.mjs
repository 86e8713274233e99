// Bundles the GitHub Action into one file, so a checkout of a release runs without `npm install`.
import { writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

await build({
  entryPoints: ['src/action/main.ts'],
  outfile: 'dist-action/index.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // Bundled CommonJS packages call require(); ESM output has none unless given one.
  banner: {
    js: "import { createRequire as __selfdebugCreateRequire } from 'node:module'; const require = __selfdebugCreateRequire(import.meta.url);",
  },
  // Native add-ons cannot be bundled; the packages that try them fall back to JavaScript.
  external: ['cpu-features', '*.node'],
  legalComments: 'none',
  logLevel: 'warning',
});

// A checkout of a release may sit in a folder whose package.json (if any) is not ESM: say so beside the bundle.
await writeFile('dist-action/package.json', '{ "type": "module" }\n');
