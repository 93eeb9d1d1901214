#!/usr/bin/env node
// The `realtime` command. V8's young generation is held at its smallest before the rest of the app is even parsed
// (see startup-heap.ts), which is why the commands are loaded by a dynamic import after it.
import { holdYoungGeneration } from './startup-heap.js';

holdYoungGeneration();
await import('./cli.js');
