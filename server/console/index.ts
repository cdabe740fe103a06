export { consoleRoutes, consoleDir } from './console.routes.js';
