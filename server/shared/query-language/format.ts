import { type DurationUnit, type QueryNode, UNIT_SECONDS } from './ast.js';

// ---------------------------------------------------------------------------------------
// Printing: the shortest faithful spelling. parseQuery(formatQuery(n)) deep-equals n for
// nodes as parseQuery makes them (and/or with two or more items). An and/or of one item
// prints as that item, an empty and as `()` (everything), an empty or as `-()` (nothing).

export function formatQuery(node: QueryNode): string {
  return node.kind === 'all' ? '' : formatNode(node);
}

function formatNode(node: QueryNode): string {
  switch (node.kind) {
    case 'all':
      return '()';
    case 'and':
    case 'or':
      return formatList(node.kind, node.items);
    case 'not':
      return `-${formatOperand(node.item, 'not')}`;
    case 'eq':
      return `${node.field}:${formatValue(node.value)}`;
    case 'text':
      return `${node.field}~${quote(node.value)}`;
    case 'compare':
      return `${node.field}${node.op}${formatAmount(node.seconds, node.unit)}`;
    case 'age':
      return `opened${node.op}${formatDuration(node.seconds)}`;
    case 'last':
      return `last:${formatDuration(node.seconds)}`;
    case 'word':
      return formatWord(node.value);
  }
}

function formatList(kind: 'and' | 'or', items: readonly QueryNode[]): string {
  if (items.length === 0) return kind === 'and' ? '()' : '-()';
  if (items.length === 1) return formatNode(items[0]!);
  return items.map((item) => formatOperand(item, kind)).join(kind === 'and' ? ' ' : ' OR ');
}

/** Parenthesise where the parser would otherwise read a different tree. */
function formatOperand(item: QueryNode, parent: 'and' | 'or' | 'not'): string {
  if (item.kind !== 'and' && item.kind !== 'or') return formatNode(item);
  if (item.items.length === 1) return formatOperand(item.items[0]!, parent);
  // Only an AND inside an OR goes without brackets: juxtaposition binds tighter.
  const bare = item.items.length === 0 || (parent === 'or' && item.kind === 'and');
  return bare ? formatNode(item) : `(${formatNode(item)})`;
}

function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** After `field:` an unquoted value runs to a space or bracket, so only those need quotes. */
function formatValue(value: string): string {
  return /^[^\s()"]+$/.test(value) ? value : quote(value);
}

/** A bare word must not read as a negation, a field term or the OR keyword. */
function formatWord(value: string): string {
  const plain = /^[^\s()"\-:~<>][^\s()":~<>]*$/.test(value) && value !== 'OR';
  return plain ? value : quote(value);
}

function formatAmount(seconds: number, unit: DurationUnit | null): string {
  if (unit === null) return String(seconds);
  const factor = UNIT_SECONDS[unit]!.seconds;
  return seconds % factor === 0 ? `${seconds / factor}${unit}` : formatDuration(seconds);
}

/** The largest unit up to days that divides exactly: 604800 prints as 7d, 90 as 90s. */
function formatDuration(seconds: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    const factor = UNIT_SECONDS[unit]!.seconds;
    if (seconds !== 0 && seconds % factor === 0) return `${seconds / factor}${unit}`;
  }
  return `${seconds}s`;
}
