// Sign-in by e-mailed code, by password, and bootstrap with the admin token.
export {
  createSignInService,
  BOOTSTRAP,
  CODE_DIGITS,
  CODE_MAX_TRIES,
  CODE_REQUEST_LIMITS,
  CODE_TTL_MS,
  PASSWORD_SET,
  SIGN_IN_FAILED,
  type AdmitIdentity,
  type SignedIn,
  type SignInDeps,
  type SignInPeople,
  type SignInPerson,
  type SignInService,
} from './signin.service.js';
export { createSignInStore, type SignInStore } from './signin.store.js';
export { createPasswordsService, type PasswordsService } from './passwords.service.js';
export { answerThrottled, signInRoutes, ThrottledBody } from './signin.routes.js';
export { PASSWORD_MIN_LENGTH, SCRYPT, hashPassword, verifyPassword } from './passwords.js';
