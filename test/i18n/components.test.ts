// No component holds user-visible text outside the message files.
//
// Every web/**/*.svelte is parsed with svelte/compiler (modern AST) and fails on:
//   - text in the markup that contains a letter (\p{L}), e.g. <p>Loading…</p>;
//   - a user-visible attribute with literal letters: aria-label, aria-description,
//     aria-roledescription, aria-valuetext, aria-placeholder, title, placeholder, alt, label, and
//     the value of <input type="button|submit|reset">; the same names (plus caption, hint, text,
//     message, description, legend, tooltip) given as props to a component;
//   - a string literal that is rendered as it is: {'Yes'}, {ok ? 'on' : 'off'}, {x ?? 'none'},
//     a template literal's text, in the markup or in one of those attributes.
// The <script> of every component and every web/**/*.ts (not the generated web/lib/paraglide/)
// are scanned for literals sent to the screen by the DOM or by chart.js: alert/confirm/prompt,
// assignments to textContent, innerText, innerHTML, title, placeholder, alt, ariaLabel,
// document.title, setAttribute('aria-label' | 'title' | 'alt' | 'placeholder', …), and object
// properties named label, title, text, placeholder, ariaLabel, caption, hint, message, tooltip
// (chart.js takes dataset and axis labels from `label`/`text`), including what a function given
// there returns.
//
// An object { code, message } is a protocol error: its message is for logs, the client renders the
// code's words (web/lib/i18n errorText), so it is not reported; rendering any `.message` in the
// markup ({err.message}, {e?.message ?? …}) is reported instead.
//
// Limits, on purpose: a literal that reaches the screen some other way — kept in a variable and
// rendered later, returned by a helper, an Error's message shown with {e.message} — is not seen
// here. Those are left to review: the protocol carries codes and web/lib/i18n/index.ts turns them
// into messages; a component must render messages, never an English fallback.
//
// Allowed without a message (not language), each with its reason:
//   - symbols that carry no letter: ▶ ⚙ · ✓ ⌛ ⇄ • ■ ✖ ▲ ↻ ⏳ — ✓ ×, punctuation, digits (they are
//     not \p{L}, so nothing to allow);
//   - unit symbols written beside a formatted number, identical in every language of the seed pages
//     (the pages print "330ms", "10,4bp", "400 tx/s", "36 u/h", "0,00 M u", "30 s", "4.00 $/h" in
//     every language, Nepali included): UNIT_TOKENS below;
//   - the Greek letters of the model's notation (σ, λ, μ, ω, Φ) and d′: formulas, not words.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'svelte/compiler';
import { describe, expect, test } from 'vitest';

const WEB = 'web';
const GENERATED = join(WEB, 'lib', 'paraglide');

/** Units and notation that are not language (see the header). Whole tokens only. */
const UNIT_TOKENS = new Set([
  'ms',
  's',
  'min',
  'h',
  'u',
  'bp',
  'tx',
  'req',
  'M',
  'k',
  'σ',
  'λ',
  'μ',
  'ω',
  'Φ',
  'd′',
  'p99',
  'TTL',
  'CSV',
  'QR',
]);

const VISIBLE_ATTRS = new Set([
  'aria-label',
  'aria-description',
  'aria-roledescription',
  'aria-valuetext',
  'aria-placeholder',
  'title',
  'placeholder',
  'alt',
  'label',
]);
const VISIBLE_PROPS = new Set([
  ...VISIBLE_ATTRS,
  'caption',
  'hint',
  'text',
  'message',
  'description',
  'legend',
  'tooltip',
]);
const VISIBLE_KEYS = new Set([
  'label',
  'title',
  'text',
  'placeholder',
  'ariaLabel',
  'aria-label',
  'caption',
  'hint',
  'message',
  'tooltip',
]);
const DOM_SINKS = new Set([
  'textContent',
  'innerText',
  'innerHTML',
  'outerHTML',
  'title',
  'placeholder',
  'alt',
  'ariaLabel',
  'ariaDescription',
]);

interface Finding {
  file: string;
  line: number;
  text: string;
  where: string;
}

function walkFiles(dir: string, ext: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (p === GENERATED) continue;
    if (statSync(p).isDirectory()) walkFiles(p, ext, out);
    else if (name.endsWith(ext)) out.push(p);
  }
  return out.sort();
}

/** Letters left once the unit symbols are taken out: language that needs a message. */
function hasWords(text: string): boolean {
  const tokens = text.split(/[^\p{L}\p{M}\p{N}′_]+/u).filter(Boolean);
  return tokens.some((t) => /\p{L}/u.test(t) && !UNIT_TOKENS.has(t));
}

type Node = { type: string; start?: number; end?: number; [k: string]: any };

/** The strings an expression puts on the screen as they are (see the header). */
function visibleLiterals(
  e: Node | null | undefined,
  out: { text: string; at: number }[] = [],
): { text: string; at: number }[] {
  if (!e) return out;
  switch (e.type) {
    case 'Literal':
      if (typeof e.value === 'string') out.push({ text: e.value, at: e.start ?? 0 });
      break;
    case 'TemplateLiteral':
      for (const q of e.quasis) out.push({ text: q.value.cooked ?? q.value.raw, at: q.start ?? e.start ?? 0 });
      for (const x of e.expressions) visibleLiterals(x, out);
      break;
    case 'ConditionalExpression':
      visibleLiterals(e.consequent, out);
      visibleLiterals(e.alternate, out);
      break;
    case 'LogicalExpression':
      visibleLiterals(e.left, out);
      visibleLiterals(e.right, out);
      break;
    case 'BinaryExpression':
      if (e.operator === '+') {
        visibleLiterals(e.left, out);
        visibleLiterals(e.right, out);
      }
      break;
    case 'SequenceExpression':
      visibleLiterals(e.expressions[e.expressions.length - 1], out);
      break;
    case 'TSAsExpression':
    case 'TSSatisfiesExpression':
    case 'TSNonNullExpression':
    case 'ParenthesizedExpression':
      visibleLiterals(e.expression, out);
      break;
    case 'ArrowFunctionExpression':
    case 'FunctionExpression':
      if (e.body?.type === 'BlockStatement') for (const r of returns(e.body)) visibleLiterals(r, out);
      else visibleLiterals(e.body, out);
      break;
  }
  return out;
}

/** An expression that renders an Error's or a server's `message` (English, not translated). */
function rendersMessage(e: Node | null | undefined): boolean {
  if (!e) return false;
  switch (e.type) {
    case 'MemberExpression':
      return propName(e.property) === 'message' && !e.computed;
    case 'ChainExpression':
    case 'TSNonNullExpression':
    case 'TSAsExpression':
      return rendersMessage(e.expression);
    case 'ConditionalExpression':
      return rendersMessage(e.consequent) || rendersMessage(e.alternate);
    case 'LogicalExpression':
      return rendersMessage(e.left) || rendersMessage(e.right);
    case 'TemplateLiteral':
      return e.expressions.some(rendersMessage);
    default:
      return false;
  }
}

/** The returned expressions of a function body, not those of nested functions. */
function returns(body: Node, out: Node[] = []): Node[] {
  if (!body || typeof body !== 'object') return out;
  if (body.type === 'ReturnStatement') {
    if (body.argument) out.push(body.argument);
    return out;
  }
  if (/Function/.test(body.type)) return out;
  for (const [k, v] of Object.entries(body)) {
    if (k === 'loc' || k === 'start' || k === 'end') continue;
    if (Array.isArray(v)) {
      for (const c of v) if (c && typeof c.type === 'string') returns(c, out);
    } else if (v && typeof v === 'object' && typeof (v as Node).type === 'string') returns(v as Node, out);
  }
  return out;
}

function lineOf(source: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < source.length; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

function propName(k: Node): string | undefined {
  if (!k) return undefined;
  if (k.type === 'Identifier') return k.name;
  if (k.type === 'Literal' && typeof k.value === 'string') return k.value;
  return undefined;
}

/** Literals a script sends to the screen (DOM sinks, dialogs, chart.js labels). */
function scanScript(program: Node, report: (text: string, at: number, where: string) => void): void {
  const visit = (n: Node) => {
    if (!n || typeof n !== 'object') return;
    if (n.type === 'CallExpression') {
      const c = n.callee;
      const name = c.type === 'Identifier' ? c.name : c.type === 'MemberExpression' ? propName(c.property) : undefined;
      if (
        name &&
        ['alert', 'confirm', 'prompt'].includes(name) &&
        (c.type === 'Identifier' || propName(c.object) === 'window')
      ) {
        for (const l of visibleLiterals(n.arguments[0])) report(l.text, l.at, `${name}()`);
      }
      if (name === 'setAttribute' && n.arguments[0]?.type === 'Literal' && VISIBLE_ATTRS.has(n.arguments[0].value)) {
        for (const l of visibleLiterals(n.arguments[1]))
          report(l.text, l.at, `setAttribute('${n.arguments[0].value}')`);
      }
    }
    if (n.type === 'AssignmentExpression' && n.left.type === 'MemberExpression') {
      const name = propName(n.left.property);
      if (
        name &&
        DOM_SINKS.has(name) &&
        !(name === 'title' && propName(n.left.object) !== 'document' && n.left.object.type !== 'Identifier')
      ) {
        for (const l of visibleLiterals(n.right)) report(l.text, l.at, `.${name} =`);
      }
    }
    if (n.type === 'ObjectExpression') {
      // { code, message }: a protocol error; its message is for logs, the client shows the code's words.
      const keys = n.properties.map((p: Node) => (p.type === 'Property' ? propName(p.key) : undefined));
      for (const p of n.properties) {
        const key = p.type === 'Property' && !p.computed ? propName(p.key) : undefined;
        if (!key || !VISIBLE_KEYS.has(key) || (key === 'message' && keys.includes('code'))) continue;
        for (const l of visibleLiterals(p.value)) report(l.text, l.at, `${key}:`);
      }
    }
    for (const [k, v] of Object.entries(n)) {
      if (k === 'loc' || k === 'start' || k === 'end' || k === 'leadingComments' || k === 'trailingComments') continue;
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c === 'object') visit(c);
      } else if (v && typeof v === 'object' && typeof (v as Node).type === 'string') visit(v as Node);
    }
  };
  visit(program);
}

/**
 * An element marked `lang="en"` that holds a sentence the shared code words in English only: the scenario checks'
 * findings (shared/scenarios, the same words as the CLI and the server's refusals), shown beside a translated level
 * and the field's path. Marked so that screen readers read it as English; words to translate have no place here.
 */
function englishByDesign(parent: Node | undefined): boolean {
  const lang = parent?.attributes?.find((a: Node) => a.type === 'Attribute' && a.name === 'lang');
  return Array.isArray(lang?.value) && lang.value[0]?.type === 'Text' && lang.value[0].data === 'en';
}

function scanSvelte(file: string, source: string): Finding[] {
  const findings: Finding[] = [];
  const report = (text: string, at: number, where: string) => {
    if (hasWords(text))
      findings.push({ file, line: lineOf(source, at), text: text.trim().replace(/\s+/g, ' '), where });
  };
  const ast = parse(source, { modern: true }) as unknown as {
    fragment: Node;
    instance?: { content: Node };
    module?: { content: Node };
  };

  const checkValue = (value: any, where: string) => {
    if (value === true || value == null) return;
    const parts: Node[] = Array.isArray(value) ? value : [value];
    for (const p of parts) {
      if (p.type === 'Text') report(p.data, p.start ?? 0, where);
      else if (p.type === 'ExpressionTag') {
        for (const l of visibleLiterals(p.expression)) report(l.text, l.at, where);
        if (rendersMessage(p.expression)) report('{….message}', p.start ?? 0, where);
      }
    }
  };

  const visit = (n: Node, parent?: Node) => {
    if (!n || typeof n !== 'object') return;
    switch (n.type) {
      case 'Text':
        // Text inside an element's markup (attribute values are reached through checkValue only).
        report(n.data, n.start ?? 0, `text in <${parent?.name ?? '?'}>`);
        return;
      case 'ExpressionTag':
      case 'HtmlTag':
        for (const l of visibleLiterals(n.expression)) report(l.text, l.at, `{…} in <${parent?.name ?? '?'}>`);
        if (rendersMessage(n.expression) && !englishByDesign(parent))
          report('{….message}', n.start ?? 0, `an untranslated message rendered in <${parent?.name ?? '?'}>`);
        return;
    }
    const isComponent = n.type === 'Component' || n.type === 'SvelteComponent';
    if (Array.isArray(n.attributes)) {
      const typeAttr = n.attributes.find((a: Node) => a.type === 'Attribute' && a.name === 'type');
      const inputType =
        typeAttr && Array.isArray(typeAttr.value) && typeAttr.value[0]?.type === 'Text' ? typeAttr.value[0].data : '';
      for (const a of n.attributes) {
        if (a.type !== 'Attribute') continue;
        const visible =
          (isComponent ? VISIBLE_PROPS : VISIBLE_ATTRS).has(a.name) ||
          (n.name === 'input' && a.name === 'value' && ['button', 'submit', 'reset'].includes(inputType));
        if (visible) checkValue(a.value, `${a.name}= on <${n.name}>`);
      }
    }
    for (const [k, v] of Object.entries(n)) {
      if (k === 'attributes' || k === 'loc' || k === 'metadata' || k === 'expression' || k === 'start' || k === 'end')
        continue;
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c === 'object') visit(c, n.name ? n : parent);
      } else if (v && typeof v === 'object' && typeof (v as Node).type === 'string')
        visit(v as Node, n.name ? n : parent);
    }
  };
  visit(ast.fragment);
  for (const s of [ast.instance, ast.module]) if (s) scanScript(s.content, report);
  return findings;
}

function scanTs(file: string, source: string): Finding[] {
  // svelte/compiler parses TypeScript scripts (acorn-typescript): wrap the module in a <script>.
  const wrapped = `<script lang="ts">${source}</script>`;
  const offset = '<script lang="ts">'.length;
  const findings: Finding[] = [];
  const ast = parse(wrapped, { modern: true }) as unknown as { instance?: { content: Node } };
  if (ast.instance)
    scanScript(ast.instance.content, (text, at, where) => {
      if (hasWords(text))
        findings.push({ file, line: lineOf(source, at - offset), text: text.trim().replace(/\s+/g, ' '), where });
    });
  return findings;
}

function allFindings(): Finding[] {
  const out: Finding[] = [];
  for (const f of walkFiles(WEB, '.svelte')) out.push(...scanSvelte(relative('.', f), readFileSync(f, 'utf8')));
  for (const f of walkFiles(WEB, '.ts')) out.push(...scanTs(relative('.', f), readFileSync(f, 'utf8')));
  return out;
}

describe('the scanner itself', () => {
  test('finds text, visible attributes and rendered literals, and lets symbols, units and messages through', () => {
    const src = [
      '<script lang="ts">',
      "  import { m } from '$lib/paraglide/messages.js';",
      "  const cfg = { label: 'Approval', id: 'approval' };",
      "  document.title = 'Opsroom desk';",
      '</script>',
      '<p>Loading…</p>',
      '<p>{m.loading()}</p>',
      '<span aria-hidden="true">▶ ⚙ · ✓ ⌛ ⇄ •</span>',
      '<span>{value} ms</span>',
      '<button aria-label="Close">✖</button>',
      '<button aria-label={m.loading()}>✖</button>',
      "<p>{ok ? 'on' : m.value_off()}</p>",
      '<p>{err?.message}</p>',
      '<input placeholder="Your name" />',
      '<input type="submit" value="Send" />',
      '<Chart label="Trend of {name}" />',
      '<p class="status-warning" data-testid="x">{n}</p>',
    ].join('\n');
    const texts = scanSvelte('x.svelte', src).map((f) => `${f.line}:${f.text}`);
    expect(texts).toEqual([
      '6:Loading…',
      '10:Close',
      '12:on',
      '13:{….message}',
      '14:Your name',
      '15:Send',
      '16:Trend of',
      '3:Approval',
      '4:Opsroom desk',
    ]);
  });

  test('TypeScript modules: chart labels, DOM sinks and dialogs', () => {
    const src = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned source holds a template literal on purpose
      "export const a = { label: 'Minute', tooltip: (c: { x: number }) => `${c.x} minutes` };",
      "el.textContent = 'Saved';",
      "confirm('Sure?');",
      "el.setAttribute('aria-label', m.x());",
      "const cls = { kind: 'warning' };",
      "resolve({ ok: false, error: { code: 'TIMEOUT', message: 'no answer from the server' } });",
    ].join('\n');
    expect(scanTs('x.ts', src).map((f) => `${f.line}:${f.text}`)).toEqual([
      '1:Minute',
      '1:minutes',
      '2:Saved',
      '3:Sure?',
    ]);
  });
});

describe('components hold no user-visible text outside the message files', () => {
  const findings = allFindings();

  test('the scan reaches every component and module', () => {
    expect(walkFiles(WEB, '.svelte').length).toBeGreaterThan(20);
    expect(walkFiles(WEB, '.ts').some((f) => f.startsWith(GENERATED))).toBe(false);
  });

  test('no literal text in web/**/*.svelte and web/**/*.ts', () => {
    expect(findings.map((f) => `${f.file}:${f.line} ${JSON.stringify(f.text)} (${f.where})`)).toEqual([]);
  });
});
