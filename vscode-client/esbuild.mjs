// Bundle the extension and vscode-languageclient into one CommonJS file; `vscode` is provided by the host.
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const ctx = await esbuild.context({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: 'dist/extension.js',
  external: ['vscode'],
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'info',
  metafile: true,
});

if (watch) {
  await ctx.watch();
} else {
  const result = await ctx.rebuild();
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  console.log(`dist/extension.js: ${(bytes / 1024).toFixed(1)} KiB${production ? ' (minified)' : ''}`);
  await ctx.dispose();
  if (production) {
    // The .vsix ships the README without the screenshots (they live in media/ for the repository only).
    const readme = readFileSync('README.md', 'utf8').replace(/^!\[[^\]]*\]\(media\/[^)]+\)\n\n?/gm, '');
    writeFileSync('dist/README.md', readme);
  }
}
