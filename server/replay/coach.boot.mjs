// The coach's thread entry (coach.ts): TypeScript through tsx, then the thread's loop.
import { register } from 'tsx/esm/api';

register();
await import('./coach.thread.ts');
