// Concatenates the source files named in build.config.json into one bundle.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const config = JSON.parse(readFileSync('build.config.json', 'utf8'));
const parts = config.entries.map((file) => `// ${file}\n${readFileSync(file, 'utf8')}`);
mkdirSync(dirname(config.output), { recursive: true });
writeFileSync(config.output, `${config.banner}\n${parts.join('\n')}`);
console.log(`wrote ${config.output} from ${parts.length} files`);
