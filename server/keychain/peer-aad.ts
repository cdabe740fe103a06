// What binds a sealed peer body to its purpose, keychain and recipient (crypto/sealed-box.ts).
export const ENROL_AAD = 'svc-keychain/enrol/v1';
export const ROSTER_AAD = 'svc-keychain/roster/v1';
export const PARTS_AAD = 'svc-keychain/parts/v1';

/** Additional data binding a sealed body to its purpose, keychain and recipient. */
export function aadFor(purpose: string, keychainId: string, recipientFp: string): Buffer {
  return Buffer.from(`${purpose}\0${keychainId}\0${recipientFp}`, 'utf8');
}
