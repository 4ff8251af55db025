CREATE TABLE `seat_turns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`round_id` integer NOT NULL,
	`team_id` integer NOT NULL,
	`player_id` integer,
	`name` text NOT NULL,
	`roles` text NOT NULL,
	`minute` integer NOT NULL,
	`pilot` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`round_id`) REFERENCES `rounds`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`player_id`) REFERENCES `players`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `seat_turns_round` ON `seat_turns` (`round_id`,`team_id`);--> statement-breakpoint
ALTER TABLE `changes` ADD `actor` text;