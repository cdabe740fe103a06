import { writeFileSync } from 'node:fs';
import { configurationMarkdown } from '../server/config-doc.js';

writeFileSync('docs/configuration.md', configurationMarkdown());
