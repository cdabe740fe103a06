// The keychain query's key, apart from the page's words so the frame's ledger refresh loads only this.
export const keychainKeys = {
  all: ['keychain'] as const,
};
