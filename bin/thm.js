#!/usr/bin/env node
// The compiled CLI lives in dist/ (built by `npm ci` through the `prepare` script).
import { main } from '../dist/src/cli/main.js';

main();
