import { writeFileSync } from 'node:fs';
import { excerptHashes, GOLDEN } from '../test/ci-logs/excerpt-golden.js';

// Writes test/fixtures/excerpt-golden/sha256.json from the current excerpt code: run it only when
// an output change is meant (a new line class, a new CI shape), and say so in the commit.
writeFileSync(GOLDEN, `${JSON.stringify(await excerptHashes(), null, 2)}\n`);
