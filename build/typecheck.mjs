// Type-checks each runtime folder with its own tsconfig (its own lib and types), the
// compile-time form of the folder rules: no DOM in server/, no Node in renderer/.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import process from 'node:process';

const projects = ['.', 'models', 'server', 'main', 'e2e', 'bench', 'renderer'].filter(
  (p) =>
    existsSync(`${p}/tsconfig.json`) &&
    readdirSync(p, { recursive: true }).some((f) => /\.tsx?$/.test(String(f))),
);
let failed = false;
for (const p of projects) {
  try {
    execFileSync('npx', ['tsc', '-p', `${p}/tsconfig.json`], { stdio: 'inherit' });
  } catch {
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
