// A check of a Frictionless Data Package against its own descriptor, written from the Data Package and Table Schema
// specifications (v1: specs.frictionlessdata.io/data-package, /tabular-data-resource, /table-schema, /csv-dialect):
// no maintained validator for Node installs from npm (the frictionlessdata JS libraries are archived), so this
// checks what a validator checks: the descriptor's required properties and names, each resource's file, its header
// against the fields in order, every cell against its field's type, format and constraints, missing values, and
// primary keys unique. It returns every problem found, so a test can show them all.
import { inflateRawSync } from 'node:zlib';
import { csvRecords } from '../../shared/classroom/roster-csv.ts';

/** The files of a ZIP, read from its central directory (stored or deflated entries). */
export function unzip(buf: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a ZIP: no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const method = buf.readUInt16LE(p + 10);
    const packed = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extra = buf.readUInt16LE(p + 30);
    const comment = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + packed);
    out.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    p += 46 + nameLen + extra + comment;
  }
  return out;
}

/** RFC 4180 rows of a CSV text (comma unless given). */
export const csvRows = (text: string, delimiter = ','): string[][] => csvRecords(text, delimiter);

interface FieldDescriptor {
  name: string;
  type: string;
  format?: string;
  description?: string;
  trueValues?: string[];
  falseValues?: string[];
  constraints?: { required?: boolean; enum?: string[]; minimum?: number; unique?: boolean };
}
interface ResourceDescriptor {
  name: string;
  path: string;
  profile?: string;
  format?: string;
  encoding?: string;
  dialect?: { delimiter?: string; header?: boolean };
  schema?: { fields: FieldDescriptor[]; missingValues?: string[]; primaryKey?: string | string[] };
}

const NAME = /^[a-z0-9._-]+$/;
const INTEGER = /^[+-]?\d+$/;
// Table Schema's number: a decimal with an optional exponent, or NaN, INF, -INF.
const NUMBER = /^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|NaN|INF|-INF)$/;
// ISO 8601 / RFC 3339 date-time in UTC, as `datetime`'s default format.
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function cellProblem(f: FieldDescriptor, v: string): string | null {
  switch (f.type) {
    case 'string':
    case 'any':
      return null;
    case 'integer':
      return INTEGER.test(v) ? null : 'not an integer';
    case 'number':
      return NUMBER.test(v) ? null : 'not a number';
    case 'boolean': {
      const t = f.trueValues ?? ['true', 'True', 'TRUE', '1'];
      const fl = f.falseValues ?? ['false', 'False', 'FALSE', '0'];
      return t.includes(v) || fl.includes(v) ? null : 'not a boolean';
    }
    case 'datetime':
      return DATETIME.test(v) && !Number.isNaN(Date.parse(v)) ? null : 'not an ISO 8601 date-time';
    default:
      return `unknown type ${f.type}`;
  }
}

/** Every problem of the package (file name → bytes) against its `datapackage.json`; [] when it is valid. */
export function validatePackage(files: ReadonlyMap<string, Buffer>): string[] {
  const problems: string[] = [];
  const raw = files.get('datapackage.json');
  if (!raw) return ['no datapackage.json'];
  const dp = JSON.parse(raw.toString('utf8')) as { name?: string; resources?: ResourceDescriptor[]; profile?: string };
  if (dp.name !== undefined && !NAME.test(dp.name))
    problems.push(`package name ${dp.name} is not lower-case a-z0-9._-`);
  if (!Array.isArray(dp.resources) || dp.resources.length === 0) return [...problems, 'no resources'];
  const names = new Set<string>();
  for (const r of dp.resources) {
    const at = `resource ${r.name}`;
    if (!r.name || !NAME.test(r.name)) problems.push(`${at}: name is not lower-case a-z0-9._-`);
    if (names.has(r.name)) problems.push(`${at}: name used twice`);
    names.add(r.name);
    if (typeof r.path !== 'string' || r.path.startsWith('/') || r.path.split('/').includes('..'))
      problems.push(`${at}: path must be relative and inside the package`);
    const data = files.get(r.path);
    if (!data) {
      problems.push(`${at}: no file ${r.path}`);
      continue;
    }
    if (r.profile !== 'tabular-data-resource') {
      if (r.format === 'json') {
        try {
          JSON.parse(data.toString('utf8'));
        } catch {
          problems.push(`${at}: not JSON`);
        }
      }
      continue;
    }
    const schema = r.schema;
    if (!schema || !Array.isArray(schema.fields) || schema.fields.length === 0) {
      problems.push(`${at}: a tabular resource needs a schema with fields`);
      continue;
    }
    for (const f of schema.fields) {
      if (!f.name) problems.push(`${at}: a field without a name`);
      if (!f.description) problems.push(`${at}: field ${f.name} has no description`);
    }
    const text = data.toString('utf8');
    if (text.startsWith('\uFEFF') && (r.encoding ?? 'utf-8') === 'utf-8') problems.push(`${at}: a BOM in utf-8 data`);
    const rows = csvRows(text, r.dialect?.delimiter ?? ',');
    const [header, ...body] = rows;
    const want = schema.fields.map((f) => f.name);
    if (header?.join('\u0000') !== want.join('\u0000'))
      problems.push(`${at}: header ${JSON.stringify(header)} is not the fields ${JSON.stringify(want)}`);
    const missing = new Set(schema.missingValues ?? ['']);
    const keys = schema.primaryKey === undefined ? [] : [schema.primaryKey].flat();
    const keyIdx = keys.map((k) => want.indexOf(k));
    if (keyIdx.includes(-1)) problems.push(`${at}: primary key ${keys} names a missing field`);
    const seen = new Set<string>();
    for (const [n, row] of body.entries()) {
      const line = `${at} row ${n + 2}`;
      if (row.length !== want.length) {
        problems.push(`${line}: ${row.length} cells for ${want.length} fields`);
        continue;
      }
      for (const [i, f] of schema.fields.entries()) {
        const v = row[i];
        if (missing.has(v)) {
          if (f.constraints?.required || keys.includes(f.name)) problems.push(`${line}: ${f.name} is required`);
          continue;
        }
        const bad = cellProblem(f, v);
        if (bad) problems.push(`${line}: ${f.name} = ${JSON.stringify(v)} is ${bad}`);
        else if (f.constraints?.enum && !f.constraints.enum.includes(v))
          problems.push(`${line}: ${f.name} = ${JSON.stringify(v)} is not one of ${f.constraints.enum}`);
        else if (f.constraints?.minimum !== undefined && Number(v) < f.constraints.minimum)
          problems.push(`${line}: ${f.name} = ${v} is below ${f.constraints.minimum}`);
      }
      if (keys.length) {
        const k = keyIdx.map((i) => row[i]).join('\u0000');
        if (seen.has(k)) problems.push(`${line}: primary key ${keys} repeated`);
        seen.add(k);
      }
    }
  }
  return problems;
}
