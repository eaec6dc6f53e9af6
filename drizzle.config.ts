import { defineConfig } from 'drizzle-kit';

/**
 * drizzle-kit configuration: `npm run db:generate` writes a new migration into db/migrations after db/schema.ts
 * changed. The controller applies pending migrations itself at start (db/client.ts), so no `migrate` step is needed.
 */
export default defineConfig({
  dialect: 'turso',
  schema: './db/schema.ts',
  out: './db/migrations',
  dbCredentials: { url: process.env.DATABASE_URL ?? 'file:./data/controller.db' },
});
