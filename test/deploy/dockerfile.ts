// The Dockerfile read as data (its instructions, stage by stage), so that the tests check and reproduce the image
// the file describes rather than a copy of its contents.
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const dockerfileText = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');

export interface Instruction {
  keyword: string;
  /** The arguments as written, continuation lines joined. */
  args: string;
}
export interface Stage {
  from: string;
  name: string | null;
  instructions: Instruction[];
}

/** The stages of a Dockerfile, in order (instructions before the first FROM — ARG — are left out). */
export function stages(text = dockerfileText): Stage[] {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!current && (line === '' || line.startsWith('#'))) continue;
    if (current && line.startsWith('#')) continue;
    if (line.endsWith('\\')) current += `${line.slice(0, -1).trim()} `;
    else {
      logical.push((current + line).trim());
      current = '';
    }
  }
  const out: Stage[] = [];
  for (const l of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(l)!;
    if (keyword.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      out.push({ from: m[1], name: m[2] ?? null, instructions: [] });
    } else out.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return out;
}

/** The runtime stage's `COPY --from=<stage> … <source> <target>` lines: what the image takes from the build. */
export function copiedFromBuild(stage: Stage): { from: string; source: string; target: string }[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY' && /--from=/.test(i.args))
    .flatMap((i) => {
      const words = i.args.split(/\s+/);
      const from = /--from=(\S+)/.exec(i.args)![1];
      const paths = words.filter((w) => !w.startsWith('--'));
      const target = paths.pop()!;
      // As COPY does: into a folder when the target ends with / (or there are several sources), else onto it.
      const into = target.endsWith('/') || paths.length > 1;
      return paths.map((source) => ({
        from,
        source,
        target: into ? posix.join(target, posix.basename(source)) : target,
      }));
    });
}

/** The ENV settings of a stage (`ENV A=1 B=2` form). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.instructions.filter((x) => x.keyword === 'ENV'))
    for (const [, k, v] of i.args.matchAll(/(\w+)=(\S*)/g)) env[k] = v;
  return env;
}

/** The exec-form arguments of the stage's last instruction of this kind (CMD, ENTRYPOINT), or null. */
export function execForm(stage: Stage, keyword: string): string[] | null {
  const last = stage.instructions.filter((i) => i.keyword === keyword).at(-1);
  if (!last) return null;
  const args = last.args.replace(/^(--\S+\s+)*(CMD\s+)?/, '');
  return args.startsWith('[') ? (JSON.parse(args) as string[]) : null;
}
