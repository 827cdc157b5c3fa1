#!/usr/bin/env -S node --max-semi-space-size=32
// --max-semi-space-size=32: a traffic-check parses a large response and classifies it in one
// burst; a 32 MB young generation lets most of that die young instead of being promoted and
// marked (the commit stage of a 10,000-pair run went from ~27 ms to ~12 ms; see README).
// The compiled CLI lives in dist/ (built by `npm ci` through the `prepare` script).
import { main } from '../dist/src/cli/main.js';

main();
