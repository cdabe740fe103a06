// Secret files and secret references, shared by connectors, mail and single sign-on:
// owner-only files under SVC_DATA/secrets/ (files.ts) and what a {file}/{env} reference may
// name (refs.ts). The masked value type, Secret, lives in shared/secret.ts.
export {
  ensureSecretsDir,
  readSecretFile,
  removeFiles,
  SecretFileProblem,
  writeSecretFile,
} from './files.js';
export { NO_SECRET_DIRS, secretRefProblem, type SecretRefRules } from './refs.js';
