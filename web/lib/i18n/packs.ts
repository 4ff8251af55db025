// Which messages the student's desk downloads. Each language's texts come in two packs: the desk's
// (everything a student's pages use: the desk, the join page, the layout) and the rest (the teacher's
// pages, the projector, replays, the model pages), which the desk never loads. A message belongs to
// the rest when its key starts with one of these prefixes; the build (one-language.ts) fails when a
// desk route uses such a message, naming it, so the split can only save bytes, never lose a word.
export const MORE_PREFIXES = [
  'model_',
  'ps_model_',
  'ps_rel_',
  'ps_const_',
  'ps_src_',
  'ps_randomness',
  'ws_model_',
  'ws_rel_',
  'ws_const_',
  'ws_src_',
  'ws_randomness',
  'ps_ledger_',
  'ws_ledger_',
  'ps_design_',
  'ws_design_',
  'teacher_',
  'proj_',
  'replay_',
  'history_',
  'csv_',
  'chapter_',
  'coach_',
  'home_',
  'setup_',
  'scores_',
  'access_',
  'data_',
  'practice_',
  'rehearsal_',
  'editor_',
  'debrief_',
  'skill_',
  'app_tagline',
] as const;

/** Keys under those prefixes that the desk uses all the same. */
export const DESK_KEEPS: readonly string[] = [
  'teacher_connected',
  'teacher_disconnected',
  'teacher_trend_label',
  'home_models_title',
];

/** Routes whose pages are the student's: they load the desk's pack only. */
export const DESK_ROUTES: readonly string[] = ['/play/[code]', '/join/[code]'];

export function isMoreKey(key: string): boolean {
  return !DESK_KEEPS.includes(key) && MORE_PREFIXES.some((p) => key.startsWith(p));
}
