// A student's HTTP calls after a round: the finished rounds they played (their token is the key) —
// their replays and coach go through teacher-api.ts's calls with the token as the bearer.
import type { StudentRounds } from '$shared/protocol/types.ts';
import { call, type Result } from './api.ts';

export const fetchStudentRounds = (token: string): Promise<Result<StudentRounds>> =>
  call('/api/student/rounds', { headers: { authorization: `Bearer ${token}` } });
