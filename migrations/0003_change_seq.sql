ALTER TABLE `changes` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows before this migration: their ids were drawn in order (one process) and give their order.
UPDATE `changes` SET `seq` = `id`;