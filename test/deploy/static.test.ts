// The Dockerfile and compose.yaml checked without a Docker engine: the Dockerfile by dockerfile-utils (the validator
// of VS Code's Docker support) and by the rules the image must keep; compose.yaml against the Compose
// Specification's JSON Schema (test/deploy/compose-spec.json, vendored from compose-spec/compose-spec, Apache-2.0)
// and for consistency with the image and the Caddyfile; the Caddyfile by Caddy's own `caddy validate`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { parse } from 'yaml';
import { describe, expect, test } from 'vitest';
import { copiedFromBuild, dockerfileText, envOf, execForm, root, stages } from './dockerfile.ts';

const all = stages();
const runtime = all.at(-1)!;

describe('Dockerfile', () => {
  test('dockerfile-utils finds nothing, and finds what it should in a broken one', () => {
    expect(lintDockerfile(dockerfileText).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
    const broken = lintDockerfile('FROM node:20\nEXPOSE http\nHEALTHCHECK --interval=soon CMD true\nUSER\n');
    expect(broken.map((d) => d.range.start.line + 1)).toEqual([2, 3, 4]);
  });

  test('multi-stage; the runtime is a slim Node LTS image, non-root, started with node under an init', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(runtime.from).toMatch(/^node:\$\{NODE_VERSION\}-\w+-slim$/);
    const version = /^ARG NODE_VERSION=(\d+)/m.exec(dockerfileText)?.[1];
    // An even major: an LTS line, and one the project's engines field accepts.
    expect(Number(version) % 2).toBe(0);
    const engines = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node;
    expect(Number(version)).toBeGreaterThanOrEqual(Number(/(\d+)/.exec(engines)![1]));
    const users = runtime.instructions.filter((i) => i.keyword === 'USER');
    expect(users.at(-1)?.args).toBe('node');
    expect(execForm(runtime, 'ENTRYPOINT')).toEqual(['/usr/bin/tini', '--']);
    expect(runtime.instructions.some((i) => i.keyword === 'RUN' && /apt-get install .*\btini\b/.test(i.args))).toBe(
      true,
    );
    // node itself, not npm: npm does not pass SIGTERM on to the server.
    expect(execForm(runtime, 'CMD')).toEqual(['node', 'dist/server/main.js']);
    expect(execForm(runtime, 'HEALTHCHECK')).toEqual(['node', 'scripts/healthcheck.mjs', '/api/health']);
    expect(envOf(runtime)).toMatchObject({
      HOST: '0.0.0.0',
      DATABASE_PATH: '/data/opsroom.db',
      NODE_ENV: 'production',
    });
    expect(runtime.instructions.find((i) => i.keyword === 'VOLUME')?.args).toBe('["/data"]');
  });

  test('the runtime copies from a stage that exists, files that the build stage has', () => {
    const names = all.map((s) => s.name);
    const copies = copiedFromBuild(runtime);
    expect(copies.length).toBeGreaterThan(0);
    for (const c of copies) {
      expect(names).toContain(c.from);
      // The build stage's /app is the project folder after `npm ci` and `npm run build`.
      const path = c.source.replace(/^\/app\/?/, '');
      if (!/^(node_modules|dist|build)$/.test(path)) expect(existsSync(join(root, path)), path).toBe(true);
    }
    // The build stage builds what the runtime copies, and leaves production dependencies only.
    const build = all.find((s) => s.name === copies[0].from)!;
    const runs = build.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.join('\n')).toMatch(/npm ci\b/);
    expect(runs.join('\n')).toMatch(/npm run build\b/);
    expect(runs.join('\n')).toMatch(/npm prune --omit=dev/);
  });

  test('.dockerignore keeps what is built, installed or secret out of the build context', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    for (const p of ['node_modules', 'dist', 'build', 'data', '.env', '.git']) expect(ignored).toContain(p);
    // Nothing the build needs is ignored.
    for (const p of ['package.json', 'package-lock.json', 'server', 'shared', 'web', 'migrations', 'scripts'])
      expect(ignored).not.toContain(p);
  });
});

describe('compose.yaml', () => {
  const text = readFileSync(join(root, 'compose.yaml'), 'utf8');
  const compose = parse(text, { merge: true });

  test('valid against the Compose Specification schema, which refuses a broken one', () => {
    const schema = JSON.parse(readFileSync(join(root, 'test', 'deploy', 'compose-spec.json'), 'utf8'));
    delete schema.$schema; // draft-07, Ajv's default; its https:// spelling is not Ajv's key for it
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    const check = ajv.compile(schema);
    expect(check(compose), JSON.stringify(check.errors, null, 1)).toBe(true);
    const broken = structuredClone(compose);
    broken.services.opsroom.healthcheck = { test: 'x', interval: 5 };
    broken.services.redis.restrt = 'always';
    expect(check(broken)).toBe(false);
  });

  test('profiles: single is one container on SQLite; cluster is PostgreSQL, Redis, two members and Caddy', () => {
    const byProfile = (p: string) =>
      Object.entries<any>(compose.services)
        .filter(([, s]) => s.profiles?.includes(p))
        .map(([n]) => n)
        .sort();
    expect(byProfile('single')).toEqual(['opsroom']);
    expect(byProfile('cluster')).toEqual(['caddy', 'opsroom-1', 'opsroom-2', 'postgres', 'redis']);
    for (const [name, s] of Object.entries<any>(compose.services))
      expect(s.profiles?.length, `${name} has a profile`).toBe(1);

    const single = compose.services.opsroom;
    expect(single.build).toBe('.');
    // Its volume holds the image's DATABASE_PATH folder, and it has no cluster settings.
    expect(single.volumes).toContain('opsroom-data:/data');
    expect(compose.volumes).toHaveProperty('opsroom-data');
    expect(single.environment).not.toHaveProperty('DATABASE_URL');
  });

  test('cluster: health checks on every service, members on readiness, Caddy in front of both', () => {
    const s = compose.services;
    for (const name of ['postgres', 'redis', 'opsroom-1', 'opsroom-2']) expect(s[name].healthcheck?.test).toBeDefined();
    const members = ['opsroom-1', 'opsroom-2'];
    for (const m of members) {
      expect(s[m].healthcheck.test).toEqual(['CMD', 'node', 'scripts/healthcheck.mjs', '/api/ready']);
      expect(s[m].depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
      expect(s[m].environment.DATABASE_URL).toMatch(
        /^postgres:\/\/opsroom:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/opsroom$/,
      );
      expect(s[m].environment.REDIS_URL).toBe('redis://redis:6379');
      expect(s[m].environment.TRUST_PROXY).toBeTruthy();
      // Only Caddy is published: a member reached directly would see every student as the proxy.
      expect(s[m].ports).toBeUndefined();
    }
    expect(s.caddy.environment.OPSROOM_UPSTREAMS.split(' ')).toEqual(members.map((m) => `${m}:3000`));
    expect(Object.keys(s.caddy.depends_on).sort()).toEqual(members);
    const mount = s.caddy.volumes.find((v: string) => v.endsWith(':/etc/caddy/Caddyfile:ro'));
    expect(existsSync(join(root, mount.split(':')[0]))).toBe(true);
  });
});

test('Caddy validates deploy/Caddyfile as compose fills it in, and refuses a broken one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-caddyfile-'));
  const validate = (config: string, env: Record<string, string> = {}) =>
    spawnSync('caddy', ['validate', '--adapter', 'caddyfile', '--config', config], {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, ...env },
      encoding: 'utf8',
    });
  try {
    const ok = validate(join(root, 'deploy', 'Caddyfile'), { SITE_ADDRESS: ':80' });
    expect(ok.status, ok.stderr).toBe(0);
    // The same file with the stickiness misspelt: refused, naming the policy.
    const bad = join(dir, 'Caddyfile');
    writeFileSync(
      bad,
      readFileSync(join(root, 'deploy', 'Caddyfile'), 'utf8').replace('lb_policy cookie', 'lb_policy sticky'),
    );
    const broken = validate(bad);
    expect(broken.status).not.toBe(0);
    expect(broken.stderr).toMatch(/sticky/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
