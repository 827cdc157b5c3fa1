#!/usr/bin/env -S node --max-semi-space-size=32 --heap-growing-percent=200 --no-allocation-site-pretenuring
// V8 flags, chosen with `npm run bench` (docs/performance.md); the Dockerfile's ENTRYPOINT and
// the benchmark's processes use the same ones (a test keeps them equal):
// --max-semi-space-size=32: a traffic-check parses a large response and classifies it in one
//   burst; a 32 MB young generation lets most of that die young instead of being promoted.
// --heap-growing-percent=200: the old generation may grow to 3x what survived the last full
//   collection, not V8's adaptive up-to-4x, which keeps the worker's peak RSS lower.
// --no-allocation-site-pretenuring: a run's objects live until its commit; seeing them survive
//   a scavenge or two, V8 would allocate them straight into the old generation, where they die.
// The CLI, compiled and bundled, lives in dist/cli/ (`npm run build`, which `npm ci` runs through
// the `prepare` script; scripts/bundle-cli.js says why it is bundled).
import { main } from '../dist/cli/main.js';

main();
