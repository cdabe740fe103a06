// Types for the plain-JS plugin that eslint.config.js loads (and its test imports).
import type { ESLint } from 'eslint';

declare const plugin: ESLint.Plugin;
export default plugin;
