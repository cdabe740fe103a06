import { writeFileSync } from 'node:fs';
import { eventsMarkdown } from '../server/compose/index.js';

writeFileSync('docs/events.md', eventsMarkdown());
