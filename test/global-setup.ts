import { execFileSync } from 'node:child_process';

/** Tests that spawn child processes (crash tests, the CLI) run the compiled output: build it once. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
