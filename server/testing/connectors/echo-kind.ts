// A tiny connector kind for tests: `behaviour` decides whether health answers ok, fails,
// throws or hangs (ignoring its signal, like a server that stopped answering).
import type { Secret } from '../../shared/secret.js';
import type { ConnectorClient, ConnectorKind, ResolvedSettings } from '../../connectors/kind.js';

export interface EchoProbe {
  /** Tokens the clients were built with, revealed (to prove resolution works). */
  readonly tokens: string[];
  created: number;
  closed: number;
}

export const never = (): Promise<never> => new Promise<never>(() => undefined);

export function echoKind(
  probe: EchoProbe = { tokens: [], created: 0, closed: 0 },
): ConnectorKind & {
  probe: EchoProbe;
} {
  return {
    probe,
    kind: 'echo',
    title: 'Echo',
    description: 'answers what it is asked (tests only)',
    capabilities: ['query'],
    operations: ['echo', 'wait', 'hang'],
    settings: [
      { name: 'url', type: 'url', required: true, description: 'where it lives' },
      { name: 'token', type: 'secret', required: true, description: 'bearer token' },
      {
        name: 'behaviour',
        type: 'string',
        required: false,
        description: 'ok, fail, throw or hang',
        default: 'ok',
      },
      {
        name: 'retries',
        type: 'integer',
        required: false,
        description: 'retries',
        minimum: 0,
        maximum: 5,
      },
      { name: 'verbose', type: 'boolean', required: false, description: 'verbose' },
      { name: 'tags', type: 'string_list', required: false, description: 'tags' },
    ],
    create(settings: ResolvedSettings): ConnectorClient {
      const token = settings['token'] as Secret;
      probe.tokens.push(token.reveal());
      probe.created += 1;
      const behaviour = settings['behaviour'] as string;
      return {
        async health() {
          if (behaviour === 'hang') return never();
          if (behaviour === 'throw') throw new Error('connection refused');
          return { ok: behaviour === 'ok', detail: `echo ${behaviour}`, duration_ms: 1 };
        },
        async call(op, args, signal) {
          if (op === 'hang') return never();
          if (op === 'wait') {
            return new Promise((resolve, reject) => {
              const t = setTimeout(() => resolve(args), Number(args['ms']));
              signal.addEventListener('abort', () => {
                clearTimeout(t);
                reject(new Error('aborted'));
              });
            });
          }
          return args;
        },
        async close() {
          probe.closed += 1;
        },
      };
    },
  };
}
