// Entry point of `npm run sim`.
import { runCli } from './sim-cli.ts';

const { stdout, stderr, code } = runCli(process.argv.slice(2));
process.stdout.write(stdout);
process.stderr.write(stderr);
process.exitCode = code;
