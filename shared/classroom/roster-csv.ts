// A school's roster as a CSV (exported from Canvas, Moodle or a spreadsheet) matched to a room's students by name:
// the teacher's page reads the file, shows the matches for checking, and stores them (docs/gradebook.md).

export interface RosterRow {
  name: string;
  schoolId: string;
  email: string;
}

/** RFC 4180 records of a CSV text with separator `sep` (quoted fields, doubled quotes, any line end). */
export function csvRecords(text: string, sep = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === sep) {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** The records of a class list, the separator guessed from its first line (comma, semicolon or tab), blank lines left out. */
export function parseDelimited(text: string): string[][] {
  const body = text.replace(/^\uFEFF/, '');
  const first = body.split(/\r?\n/, 1)[0] ?? '';
  const sep = [',', ';', '\t'].reduce((a, b) => (first.split(b).length > first.split(a).length ? b : a));
  return csvRecords(body, sep).filter((r) => r.some((c) => c.trim() !== ''));
}

const norm = (h: string) => h.trim().toLowerCase().replace(/[_-]+/g, ' ');
/** Header names, best first: the id a gradebook matches on, the name, the email. */
const ID_HEADERS = [
  'sis user id',
  'id number',
  'idnumber',
  'student id',
  'school id',
  'student number',
  'username',
  'sis login id',
  'login',
  'id',
];
const NAME_HEADERS = ['student', 'name', 'full name', 'student name', 'display name'];
const FIRST_HEADERS = ['first name', 'given name', 'firstname'];
const LAST_HEADERS = ['last name', 'surname', 'family name', 'lastname'];
const EMAIL_HEADERS = ['email address', 'email', 'e mail', 'mail'];

function column(header: readonly string[], names: readonly string[]): number {
  const h = header.map(norm);
  for (const n of names) {
    const i = h.indexOf(n);
    if (i >= 0) return i;
  }
  return -1;
}

/**
 * The roster's rows: a header naming a name column (or first and last names) and an id or email column; rows
 * without a name are left out. Canvas's "Points Possible" row is skipped. Throws when the header names neither.
 */
export function readRoster(text: string): RosterRow[] {
  const [header, ...rows] = parseDelimited(text);
  if (!header) throw new RangeError('the file is empty');
  const id = column(header, ID_HEADERS);
  const email = column(header, EMAIL_HEADERS);
  const name = column(header, NAME_HEADERS);
  const first = column(header, FIRST_HEADERS);
  const last = column(header, LAST_HEADERS);
  if (name < 0 && first < 0) throw new RangeError('no name column (name, student, or first name and last name)');
  if (id < 0 && email < 0)
    throw new RangeError('no id column (id, id number, sis user id, student id, username or email)');
  const out: RosterRow[] = [];
  for (const r of rows) {
    const cell = (i: number) => (i >= 0 ? (r[i] ?? '').trim() : '');
    const n = name >= 0 ? cell(name) : `${cell(first)} ${cell(last)}`.trim();
    if (!n || /^points possible$/i.test(n)) continue;
    out.push({ name: n, schoolId: cell(id), email: cell(email) });
  }
  return out;
}

/** A name as compared: no accents, no case, single spaces; "Last, First" also read as "First Last". */
export function nameKeys(name: string): string[] {
  const plain = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
  const comma = plain.match(/^([^,]+),\s*(.+)$/);
  return comma ? [plain, `${comma[2]} ${comma[1]}`] : [plain];
}

/**
 * The roster's rows matched to students by name (each row to at most one student, each student once): matched
 * pairs, and the rows and students left without a match for the teacher to pair by hand.
 */
export function matchRoster<S extends { playerId: number; name: string }>(
  rows: readonly RosterRow[],
  students: readonly S[],
): { matched: { student: S; row: RosterRow }[]; rows: RosterRow[]; students: S[] } {
  const byKey = new Map<string, S[]>();
  for (const s of students)
    for (const k of nameKeys(s.name)) {
      const list = byKey.get(k) ?? [];
      byKey.set(k, list);
      list.push(s);
    }
  const taken = new Set<number>();
  const matched: { student: S; row: RosterRow }[] = [];
  const left: RosterRow[] = [];
  for (const row of rows) {
    const hit = nameKeys(row.name)
      .flatMap((k) => byKey.get(k) ?? [])
      .find((s) => !taken.has(s.playerId));
    if (hit) {
      taken.add(hit.playerId);
      matched.push({ student: hit, row });
    } else left.push(row);
  }
  return { matched, rows: left, students: students.filter((s) => !taken.has(s.playerId)) };
}
