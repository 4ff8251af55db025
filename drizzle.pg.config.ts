import { defineConfig } from 'drizzle-kit';

// The PostgreSQL twin of drizzle.config.ts (cluster mode): `npm run db:generate` runs both.
export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/schema.pg.ts',
  out: './migrations/pg',
});
