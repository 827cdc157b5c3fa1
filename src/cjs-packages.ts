import { createRequire } from 'node:module';

/**
 * BullMQ, ioredis, pino and yaml are loaded as CommonJS packages. Imported from an ES module,
 * Node first runs its export lexer over every file they re-export, to find their named exports:
 * more of a `thm status` or `thm run` start than loading them. Required, they load as they are.
 * A later `import` of any of them gets the same module instance (one CommonJS cache), so classes
 * and `instanceof` agree.
 *
 * In the CLI's bundle (dist/cli/, what bin/thm.js runs) BullMQ and ioredis are required from
 * bundles of their own, dist/cli/vendor/bullmq.cjs and ioredis.cjs (scripts/bundle-cli.js says
 * why); the bundle's BullMQ requires that same ioredis. esbuild sets THM_VENDORED there;
 * everywhere else (tests, dist/src) it is undefined and the packages come from node_modules.
 */
declare const THM_VENDORED: boolean | undefined;
const vendored = typeof THM_VENDORED !== 'undefined' && THM_VENDORED;
const require = createRequire(import.meta.url);

export function loadBullmq(): typeof import('bullmq') {
  return (vendored ? require('./vendor/bullmq.cjs') : require('bullmq')) as typeof import('bullmq');
}

export function loadIoredis(): typeof import('ioredis') {
  return (
    vendored
      ? (require('./vendor/ioredis.cjs') as { ioredis: unknown }).ioredis
      : require('ioredis')
  ) as typeof import('ioredis');
}

/**
 * The YAML parser and writer, when a YAML document is read or written: a command whose config
 * is JSON never loads it. Bundled apart for the CLI, in dist/cli/vendor/yaml.cjs.
 */
export function loadYaml(): typeof import('yaml') {
  return (vendored ? require('./vendor/yaml.cjs') : require('yaml')) as typeof import('yaml');
}

/** pino too: loaded when a logger is made (src/log.ts), not with every module that logs. */
export function loadPino(): typeof import('pino') {
  return require('pino') as typeof import('pino');
}
