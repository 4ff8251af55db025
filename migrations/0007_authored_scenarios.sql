CREATE TABLE `scenario_contents` (
	`hash` text PRIMARY KEY NOT NULL,
	`simulator` text NOT NULL,
	`content` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scenarios` (
	`teacher_id` integer NOT NULL,
	`scenario_id` text NOT NULL,
	`simulator` text NOT NULL,
	`title` text NOT NULL,
	`hash` text NOT NULL,
	`version` integer NOT NULL,
	`share_token` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`teacher_id`, `scenario_id`),
	FOREIGN KEY (`teacher_id`) REFERENCES `teachers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`hash`) REFERENCES `scenario_contents`(`hash`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scenarios_share_token_unique` ON `scenarios` (`share_token`);--> statement-breakpoint
ALTER TABLE `rounds` ADD `scenario_hash` text REFERENCES scenario_contents(hash);