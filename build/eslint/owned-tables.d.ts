// Types of the plain-JS rule, for its test and eslint.config.js.
import type { ESLint, Rule } from 'eslint';

export function tablesIn(sql: string): string[];
export function domainOf(filename: string): string | null;
export const ownedTables: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
