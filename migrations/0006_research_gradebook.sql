CREATE TABLE `roster_ids` (
	`room_id` integer NOT NULL,
	`player_id` integer NOT NULL,
	`school_id` text NOT NULL,
	`email` text DEFAULT '' NOT NULL,
	PRIMARY KEY(`room_id`, `player_id`),
	FOREIGN KEY (`room_id`) REFERENCES `rooms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`player_id`) REFERENCES `players`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `snapshots` ADD `at` integer;