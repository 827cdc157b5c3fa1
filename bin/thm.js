#!/usr/bin/env -S node --max-semi-space-size=32 --heap-growing-percent=200 --no-allocation-site-pretenuring
// V8 flags, measured with `npm run bench` (docs/performance.md); the Dockerfile's ENTRYPOINT
// and the benchmark's worker use the same ones (a test keeps them equal):
// --max-semi-space-size=32: a traffic-check parses a large response and classifies it in one
//   burst; a 32 MB young generation lets most of that die young instead of being promoted and
//   marked (the commit stage of a 10,000-pair run went from ~27 ms to ~12 ms).
// --heap-growing-percent=200: the old generation may grow to 3x what survived the last full
//   collection, not V8's adaptive up-to-4x; that cut the worker's peak RSS outliers (306-328 MB
//   -> at most 281 MB over 8 fleet runs) at no measurable throughput cost.
// --no-allocation-site-pretenuring: a run's objects live until its commit, so V8 saw them
//   survive a scavenge or two and began allocating them straight into the old generation, where
//   they then died: classifying a first day of 10,000 new pairs took 17 ms instead of 4, and a
//   10,000-pair check used ~15-25% more CPU. The 32 MB young generation holds a run's objects.
// The CLI, compiled and bundled, lives in dist/cli/ (`npm run build`, which `npm ci` runs through
// the `prepare` script; scripts/bundle-cli.js says why it is bundled).
import { main } from '../dist/cli/main.js';

main();
