import { createRequire } from 'node:module';

/**
 * BullMQ, ioredis and pino are CommonJS packages. Imported from an ES module, Node first runs
 * its export lexer over every file they re-export, to find their named exports: about 200 ms of a
 * `thm status` or `thm run` start on the 2-core reference machine, more than loading them
 * (target P7, docs/performance.md). Required, they load as they are. A later `import` of either
 * gets the same module instance (one CommonJS cache), so classes and `instanceof` agree.
 */
const require = createRequire(import.meta.url);

export function loadBullmq(): typeof import('bullmq') {
  return require('bullmq') as typeof import('bullmq');
}

export function loadIoredis(): typeof import('ioredis') {
  return require('ioredis') as typeof import('ioredis');
}

/** pino too: loaded when a logger is made (src/log.ts), not with every module that logs. */
export function loadPino(): typeof import('pino') {
  return require('pino') as typeof import('pino');
}
