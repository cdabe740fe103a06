// The lab command line, parsed apart from running it so the parsing is tested on its own.
import { FAULT_NAMES, isFaultName, type FaultName } from './faults.js';

export type Command =
  | { readonly cmd: 'start' }
  | { readonly cmd: 'inject'; readonly fault: FaultName }
  | { readonly cmd: 'heal'; readonly fault?: FaultName }
  | { readonly cmd: 'status' }
  | { readonly cmd: 'faults' }
  | { readonly cmd: 'help' };

export class UsageError extends Error {}

export const USAGE = `usage: npm run lab [-- <command>]
  (no command)       start the lab in the foreground; Ctrl-C stops it
  inject <fault>     inject a named fault into the running lab
  heal [fault]       undo one fault, or every active fault
  status             what runs, which faults are active, which alerts fire
  faults             the faults with their ground truth
The lab folder is $SVC_LAB_DIR, else /tmp/svc-lab.`;

function fault(word: string | undefined, verb: string): FaultName {
  if (word === undefined) throw new UsageError(`${verb} needs a fault: ${FAULT_NAMES.join(', ')}`);
  if (!isFaultName(word))
    throw new UsageError(`unknown fault "${word}"; the faults are: ${FAULT_NAMES.join(', ')}`);
  return word;
}

export function parseArgs(argv: readonly string[]): Command {
  const [first, ...rest] = argv.filter((a) => a !== '--');
  const noMore = (cmd: string, max: number) => {
    if (rest.length > max) throw new UsageError(`${cmd}: unexpected "${rest[max] ?? ''}"`);
  };
  switch (first) {
    case undefined:
    case 'start':
    case 'up':
      noMore('start', 0);
      return { cmd: 'start' };
    case 'inject':
      noMore('inject', 1);
      return { cmd: 'inject', fault: fault(rest[0], 'inject') };
    case 'heal':
      noMore('heal', 1);
      return rest[0] === undefined
        ? { cmd: 'heal' }
        : { cmd: 'heal', fault: fault(rest[0], 'heal') };
    case 'status':
      noMore('status', 0);
      return { cmd: 'status' };
    case 'faults':
      noMore('faults', 0);
      return { cmd: 'faults' };
    case 'help':
    case '-h':
    case '--help':
      return { cmd: 'help' };
    default:
      throw new UsageError(`unknown command "${first}"\n${USAGE}`);
  }
}
