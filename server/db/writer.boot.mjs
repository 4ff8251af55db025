// The database writer thread's entry (writer.ts): TypeScript through tsx, then the thread's loop.
import { register } from 'tsx/esm/api';

register();
await import('./writer.thread.ts');
