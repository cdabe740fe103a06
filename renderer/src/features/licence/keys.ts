// The licence queries' keys, apart from the hooks in queries.ts: the shell's ledger refresh
// imports them through index.ts, and this keeps the calls and hooks out of the first load.
export const licenceKeys = {
  all: ['licence'] as const,
  installs: ['licence', 'installs'] as const,
};
