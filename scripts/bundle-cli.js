// Bundles the compiled CLI (dist/src/cli/main.js, from `tsc`) into dist/cli/: what bin/thm.js
// runs. Part of `npm run build`.
//
// Why: a `thm` command spent most of its start loading modules, several hundred small files
// read, resolved and linked one by one (target P7; docs/performance.md, "What made the
// difference"). In a few chunks the same code starts about 0.1 s sooner. Each command's own
// modules stay in chunks of their own, loaded when the command runs (the CLI's dynamic imports).
//
// In the bundle: our code and the packages every command loads at its start (commander, zod).
// BullMQ, ioredis and yaml, which a command requires once it knows it needs them
// (src/cjs-packages.ts), are bundled apart into dist/cli/vendor/: ioredis.cjs, bullmq.cjs,
// which requires that same ioredis, and yaml.cjs, which a command whose config is JSON never
// reads (a quarter of the source every command compiled at its start). Required from
// node_modules, the ~200 files of the first two cost `thm run --wait` ~60 ms of resolving,
// stat-ing and reading before any of their code ran (target P7, docs/performance.md); the
// worker starts sooner too. Left out, loaded from node_modules:
// cron-parser and luxon, under it, which src/cron.ts requires on first use and sets up (a
// command whose crons are plain and in UTC never needs them; bundled, luxon would be a second
// copy beside the one src/cron.ts requires), and what a command requires when it needs it: undici,
// nodemailer, prom-client, and pino, whose pino-pretty runs in a worker thread that pino starts
// from its own files. test/cli/startup.test.ts checks which of them each command loads.
//
// Not minified: stack traces keep the functions' names, and each module's code follows a
// comment naming its source file.
//
// Replaced under running commands without breaking them: the bundle is written to a directory
// of its own, then each file is renamed into dist/cli/, main.js last. A command that starts
// meanwhile reads the old main.js or the new one, each whole, and finds every chunk that one
// imports (chunk names carry a hash of their content: an old chunk stays beside the new ones).
// Files no build has written for an hour are removed then: long enough for a process started
// from an older build to have loaded what it imports.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const OUT = 'dist/cli';
const KEEP_UNUSED_MS = 3_600_000;
mkdirSync('dist', { recursive: true });
const staging = mkdtempSync('dist/.cli-');
// A build that fails leaves dist/cli as it was, and nothing of its own.
process.on('exit', () => rmSync(staging, { recursive: true, force: true }));

const BUNDLED = new Set(['commander', 'zod']);
const VENDORED = ['bullmq', 'ioredis', 'yaml'];
const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
const external = Object.keys(dependencies).filter((name) => !BUNDLED.has(name));
for (const name of [...BUNDLED, ...VENDORED])
  if (!(name in dependencies)) throw new Error(`bundle-cli: ${name} is not a dependency`);

/**
 * zod's `z.locales`: its error messages in 60-odd languages, about 0.4 MB of the 0.76 MB of zod
 * every command compiles at its start. We use its English only, which zod loads on its own
 * (zod/v4/classic/schemas.js imports locales/en.js); `z.locales` and `z.core.locales` are left
 * empty.
 */
const withoutZodLocales = {
  name: 'without-zod-locales',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'without-zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'without-zod-locales' }, () => ({ contents: '' }));
  },
};

await build({
  entryPoints: ['dist/src/cli/main.js'],
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // CommonJS code bundled into an ES module still calls `require` (for Node's built-ins).
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // src/cjs-packages.ts: require BullMQ and ioredis from dist/cli/vendor/.
  define: { THM_VENDORED: 'true' },
  plugins: [withoutZodLocales],
  logLevel: 'warning',
});

/**
 * ioredis tells Redis its version (CLIENT SETINFO LIB-VER) from its package.json, read at
 * `__dirname/../../package.json` on the first connection: bundled, that path is not ioredis's.
 * The version is written in at build time instead, which also spares a file read per process.
 */
const ioredisVersion = {
  name: 'ioredis-version',
  setup(build) {
    build.onLoad({ filter: /[\\/]ioredis[\\/]built[\\/]utils[\\/]index\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const read = /const filePath = [^;]*"package\.json"\);\s*const data = await [^;]*;/;
      if (!read.test(source)) throw new Error('bundle-cli: ioredis no longer reads its version so');
      const { version } = JSON.parse(readFileSync('node_modules/ioredis/package.json', 'utf8'));
      const data = JSON.stringify(JSON.stringify({ version }));
      return { contents: source.replace(read, `const data = ${data};`), loader: 'js' };
    });
  },
};

/** In bullmq.cjs, `ioredis` and `ioredis/built/utils` are ioredis.cjs's, not copies of them. */
const sharedIoredis = {
  name: 'shared-ioredis',
  setup(build) {
    build.onResolve({ filter: /^ioredis(\/built\/utils)?$/ }, (args) => ({
      path: args.path,
      namespace: 'shared-ioredis',
    }));
    build.onLoad({ filter: /.*/, namespace: 'shared-ioredis' }, (args) => ({
      contents: `module.exports = require('./ioredis.cjs').${args.path === 'ioredis' ? 'ioredis' : 'utils'};`,
      loader: 'js',
    }));
    build.onResolve({ filter: /^\.\/ioredis\.cjs$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

const vendor = {
  outdir: path.join(staging, 'vendor'),
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // msgpackr's optional native codec (a prebuilt .node file found from its own directory).
  external: ['msgpackr-extract'],
  logLevel: 'warning',
};
await build({
  ...vendor,
  stdin: {
    contents:
      "module.exports = { ioredis: require('ioredis'), utils: require('ioredis/built/utils') };",
    resolveDir: '.',
    sourcefile: 'ioredis-vendor.cjs',
  },
  outfile: path.join(staging, 'vendor', 'ioredis.cjs'),
  outdir: undefined,
  plugins: [ioredisVersion],
});
await build({ ...vendor, entryPoints: { bullmq: 'bullmq' }, plugins: [sharedIoredis] });
await build({ ...vendor, entryPoints: { yaml: 'yaml' } });

// Into place: the vendor bundles and the chunks first, the entry last.
const written = new Set(
  readdirSync(staging, { recursive: true })
    .map(String)
    .filter((file) => statSync(path.join(staging, file)).isFile()),
);
const entry = 'main.js';
mkdirSync(path.join(OUT, 'vendor'), { recursive: true });
for (const file of [...[...written].filter((f) => f !== entry).sort(), entry])
  renameSync(path.join(staging, file), path.join(OUT, file));
for (const file of readdirSync(OUT, { recursive: true }).map(String)) {
  const full = path.join(OUT, file);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (stat?.isFile() && !written.has(file) && Date.now() - stat.mtimeMs > KEEP_UNUSED_MS)
    rmSync(full, { force: true });
}
