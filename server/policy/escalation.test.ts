// The escalation section of the policy: default, accepted steps, and 400s naming the field.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../shared/errors.js';
import { checkPolicy, DEFAULT_POLICY } from './policy.schemas.js';

const step = (after_s: number, channel = 'ops-mail', who: unknown = { role: 'responder' }) => ({
  after_s,
  who,
  channel,
});

function refusal(input: unknown): { field: unknown; message: string } {
  try {
    checkPolicy(input);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    const e = err as InvalidInputError;
    return { field: e.details['field'], message: e.message };
  }
  throw new Error('accepted');
}

describe('policy escalation', () => {
  it('defaults to no steps', () => {
    expect(DEFAULT_POLICY.escalation).toEqual({ steps: [] });
    expect(checkPolicy({}).escalation).toEqual({ steps: [] });
  });

  it('accepts steps with users, teams or a role, after_s not decreasing', () => {
    const escalation = {
      steps: [
        step(0),
        step(0, 'ops-chat'),
        step(900, 'ops-chat', { users: ['u-1', 'u-2'], teams: ['t-dba'] }),
        step(86_400, 'pager', { role: 'admin', users: ['u-3'] }),
      ],
    };
    expect(checkPolicy({ escalation }).escalation).toEqual(escalation);
  });

  it('refuses after_s out of range or going back, naming the field', () => {
    expect(refusal({ escalation: { steps: [step(0), step(86_401)] } }).field).toBe(
      'escalation.steps.1.after_s',
    );
    expect(refusal({ escalation: { steps: [step(-1)] } }).field).toBe('escalation.steps.0.after_s');
    expect(refusal({ escalation: { steps: [step(1.5)] } }).field).toBe(
      'escalation.steps.0.after_s',
    );
    expect(refusal({ escalation: { steps: [step(600), step(300)] } })).toEqual({
      field: 'escalation.steps.1.after_s',
      message: 'escalation.steps.1.after_s must not be less than the step before (600)',
    });
  });

  it('refuses an empty or blank channel, an empty who and unknown fields', () => {
    expect(refusal({ escalation: { steps: [step(0, '')] } }).field).toBe(
      'escalation.steps.0.channel',
    );
    expect(refusal({ escalation: { steps: [step(0, '  ')] } })).toEqual({
      field: 'escalation.steps.0.channel',
      message: 'escalation.steps.0.channel must name a connector',
    });
    expect(refusal({ escalation: { steps: [step(0, 'x', {})] } }).field).toBe(
      'escalation.steps.0.who',
    );
    expect(refusal({ escalation: { steps: [step(0, 'x', { users: [] })] } })).toEqual({
      field: 'escalation.steps.0.who',
      message: 'escalation.steps.0.who must name at least one user, team or role',
    });
    expect(refusal({ escalation: { steps: [{ ...step(0), wait: 1 }] } })).toEqual({
      field: 'escalation.steps.0.wait',
      message: 'escalation.steps.0.wait is not a known field',
    });
    expect(refusal({ escalation: { steps: [{ after_s: 0, who: { role: 'admin' } }] } })).toEqual({
      field: 'escalation.steps.0.channel',
      message: 'escalation.steps.0.channel is required',
    });
    expect(refusal({ escalation: { steps: [step(0, 'x', { role: 'viewer' })] } }).field).toBe(
      'escalation.steps.0.who.role',
    );
    expect(refusal({ escalation: {} }).field).toBe('escalation.steps');
  });
});
