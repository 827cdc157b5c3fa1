// Bundles the compiled CLI (dist/src/cli/main.js, from `tsc`) into dist/cli/: what bin/thm.js
// runs. Part of `npm run build`.
//
// Why: a `thm` command spent most of its start loading modules, several hundred small files
// read, resolved and linked one by one (target P7; docs/performance.md, "What made the
// difference"). In a few chunks the same code starts about 0.1 s sooner. Each command's own
// modules stay in chunks of their own, loaded when the command runs (the CLI's dynamic imports).
//
// In the bundle: our code and the packages every command loads at its start (commander, zod,
// yaml, cron-parser and its luxon). Left out, loaded from node_modules when a command needs
// them, as before: every other dependency. They are CommonJS packages that a command requires
// once it knows it needs them (bullmq and ioredis: src/cjs-packages.ts; undici, nodemailer,
// prom-client), and pino, whose pino-pretty runs in a worker thread that pino starts from its
// own files. test/cli/startup.test.ts checks which of them each command loads.
//
// Not minified: stack traces keep the functions' names, and each module's code follows a
// comment naming its source file.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const BUNDLED = new Set(['commander', 'cron-parser', 'yaml', 'zod']);
const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
const external = Object.keys(dependencies).filter((name) => !BUNDLED.has(name));
for (const name of BUNDLED)
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

// Chunk names carry a hash of their content: last build's would stay beside this one's.
rmSync('dist/cli', { recursive: true, force: true });

await build({
  entryPoints: ['dist/src/cli/main.js'],
  outdir: 'dist/cli',
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
  plugins: [withoutZodLocales],
  logLevel: 'warning',
});
