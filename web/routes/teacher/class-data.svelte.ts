// A room's class data on the teacher's history: the gradebook's choices, the roster mapping being edited (loaded from
// the server, filled from an uploaded class list or typed), and what each download or save said.
import { matchRoster, readRoster } from '$shared/classroom/roster-csv.ts';
import type { RosterView } from '$shared/protocol/types.ts';
import {
  downloadGradebook,
  downloadResearch,
  fetchRoster,
  type GradebookChoice,
  saveRoster,
} from '$lib/net/teacher-api.ts';

export type RosterStudent = RosterView['students'][number];

export class ClassData {
  choice = $state<GradebookChoice>({
    rule: 'participation',
    layout: 'canvas',
    points: 100,
    weights: { participation: 1, score: 1, rank: 1 },
  });
  names = $state(false);
  students = $state<RosterStudent[] | null>(null);
  busy = $state(false);
  /** The last outcome, for the status line: a file saved, ids stored, an upload matched. */
  said = $state<
    | { kind: 'file'; file: string }
    | { kind: 'saved'; count: number }
    | { kind: 'matched'; matched: number; left: number }
    | null
  >(null);
  /** An error code (errorText) or 'BAD_FILE' for a class list that could not be read. */
  error = $state<string | null>(null);

  constructor(
    private readonly key: string,
    readonly code: string,
  ) {}

  /** Students without a school id (and no email, for Moodle): their rows would not import. */
  get missing(): number {
    return (this.students ?? []).filter((s) => !s.removed && !s.schoolId.trim() && !s.email.trim()).length;
  }

  async load(): Promise<void> {
    const res = await fetchRoster(this.key, this.code);
    if (res.ok) this.students = res.value.students;
    else this.error = res.code;
  }

  /** Fills the ids from a class list (CSV), matched to the students by name; nothing is stored until saved. */
  upload(text: string): void {
    this.error = null;
    try {
      const { matched, rows } = matchRoster(readRoster(text), this.students ?? []);
      for (const { student, row } of matched) {
        student.schoolId = row.schoolId;
        student.email = row.email || student.email;
      }
      this.said = { kind: 'matched', matched: matched.length, left: rows.length };
    } catch {
      this.error = 'BAD_FILE';
    }
  }

  async save(): Promise<void> {
    if (!this.students) return;
    await this.run(async () => {
      const entries = (this.students ?? []).map((s) => ({
        playerId: s.playerId,
        schoolId: s.schoolId,
        email: s.email,
      }));
      const res = await saveRoster(this.key, this.code, entries);
      if (res.ok) this.said = { kind: 'saved', count: res.value.mapped };
      return res;
    });
  }

  gradebook = () => this.run(() => this.file(downloadGradebook(this.key, this.code, this.choice)));
  research = () => this.run(() => this.file(downloadResearch(this.key, { code: this.code }, this.names)));

  private async file(p: ReturnType<typeof downloadGradebook>) {
    const res = await p;
    if (res.ok) this.said = { kind: 'file', file: res.value };
    return res;
  }

  private async run(job: () => Promise<{ ok: true } | { ok: false; code: string }>): Promise<void> {
    this.busy = true;
    this.error = null;
    this.said = null;
    const res = await job();
    this.busy = false;
    if (!res.ok) this.error = res.code;
  }
}
