ALTER TABLE "changes" ADD COLUMN "seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows before this migration: ordered by their ids, as they were read until now.
UPDATE "changes" SET "seq" = "id";