// A small JSON-schema checker for model answers. Ajv is not a direct dependency, and answers
// only need the subset that structured-output endpoints and grammars honour anyway: type,
// enum, const, required, properties, additionalProperties: false, items, and length/range
// limits. Unknown keywords are ignored, not rejected.
import { ModelError } from './types.js';
import type { JsonSchema, ModelRequest } from './types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeOk(type: string, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    default:
      return true;
  }
}

function num(schema: JsonSchema, k: string): number | null {
  const v = schema[k];
  return typeof v === 'number' ? v : null;
}

/** Returns the problems found (empty when the value fits), each with a JSON-pointer-ish path. */
export function validate(schema: JsonSchema, value: unknown, path = '$'): string[] {
  const errors: string[] = [];
  const type = schema['type'];
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (!types.some((t) => typeof t === 'string' && typeOk(t, value))) {
      return [`${path}: expected ${types.join(' or ')}`];
    }
  }
  const allowed = schema['enum'];
  if (Array.isArray(allowed) && !allowed.some((a) => JSON.stringify(a) === JSON.stringify(value))) {
    errors.push(`${path}: not one of the allowed values`);
  }
  if ('const' in schema && JSON.stringify(schema['const']) !== JSON.stringify(value)) {
    errors.push(`${path}: not the constant value`);
  }
  if (typeof value === 'string') {
    const min = num(schema, 'minLength');
    const max = num(schema, 'maxLength');
    if (min !== null && value.length < min) errors.push(`${path}: shorter than ${min}`);
    if (max !== null && value.length > max) errors.push(`${path}: longer than ${max}`);
  }
  if (typeof value === 'number') {
    const min = num(schema, 'minimum');
    const max = num(schema, 'maximum');
    if (min !== null && value < min) errors.push(`${path}: below ${min}`);
    if (max !== null && value > max) errors.push(`${path}: above ${max}`);
  }
  if (Array.isArray(value)) {
    const min = num(schema, 'minItems');
    const max = num(schema, 'maxItems');
    if (min !== null && value.length < min) errors.push(`${path}: fewer than ${min} items`);
    if (max !== null && value.length > max) errors.push(`${path}: more than ${max} items`);
    const items = schema['items'];
    if (isObject(items)) {
      value.forEach((item, i) => errors.push(...validate(items, item, `${path}[${i}]`)));
    }
  }
  if (isObject(value)) {
    const required = schema['required'];
    if (Array.isArray(required)) {
      for (const name of required) {
        if (typeof name === 'string' && !(name in value)) errors.push(`${path}.${name}: missing`);
      }
    }
    const properties = isObject(schema['properties']) ? schema['properties'] : {};
    for (const [name, v] of Object.entries(value)) {
      const sub = properties[name];
      if (isObject(sub)) errors.push(...validate(sub, v, `${path}.${name}`));
      else if (schema['additionalProperties'] === false)
        errors.push(`${path}.${name}: not allowed`);
    }
  }
  return errors;
}

/** The invalid_answer error for a request; `source` names who answered ('model', 'local model'). */
export function invalidAnswer(request: ModelRequest, source: string, why: string): ModelError {
  return new ModelError('invalid_answer', `${source} answer for "${request.purpose}" ${why}`, {
    purpose: request.purpose,
  });
}

/**
 * The JSON value in an answer's content, checked against the request's schema: the one check
 * both the endpoint client and the local runtime apply, whatever the model claims to honour.
 */
export function answerValue(request: ModelRequest, content: string, source: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    throw invalidAnswer(request, source, 'content is not JSON (cut by max_tokens?)');
  }
  const problems = validate(request.schema, value);
  if (problems.length > 0) {
    throw invalidAnswer(
      request,
      source,
      `is outside its schema: ${problems.slice(0, 5).join('; ')}`,
    );
  }
  return value;
}
