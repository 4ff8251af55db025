CREATE TABLE `changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`round_id` integer NOT NULL,
	`team_id` integer NOT NULL,
	`minute` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`player_id` integer,
	`author_name` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`round_id`) REFERENCES `rounds`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`player_id`) REFERENCES `players`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `changes_round_team` ON `changes` (`round_id`,`team_id`,`minute`);--> statement-breakpoint
CREATE TABLE `goal_results` (
	`round_id` integer NOT NULL,
	`team_id` integer NOT NULL,
	`goal_id` text NOT NULL,
	`indicator` text NOT NULL,
	`op` text NOT NULL,
	`value` real NOT NULL,
	`target` real NOT NULL,
	`met` integer NOT NULL,
	PRIMARY KEY(`round_id`, `team_id`, `goal_id`),
	FOREIGN KEY (`round_id`) REFERENCES `rounds`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `players` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`room_id` integer NOT NULL,
	`team_id` integer,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`seq` integer NOT NULL,
	`roles` text DEFAULT '[]' NOT NULL,
	`removed` integer DEFAULT false NOT NULL,
	`joined_at` integer NOT NULL,
	FOREIGN KEY (`room_id`) REFERENCES `rooms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `players_token_hash_unique` ON `players` (`token_hash`);--> statement-breakpoint
CREATE INDEX `players_room` ON `players` (`room_id`);--> statement-breakpoint
CREATE TABLE `rooms` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`code` text NOT NULL,
	`teacher_id` integer NOT NULL,
	`config` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`teacher_id`) REFERENCES `teachers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rooms_code_unique` ON `rooms` (`code`);--> statement-breakpoint
CREATE INDEX `rooms_teacher` ON `rooms` (`teacher_id`);--> statement-breakpoint
CREATE TABLE `round_teams` (
	`round_id` integer NOT NULL,
	`team_id` integer NOT NULL,
	`idx` integer NOT NULL,
	`name` text NOT NULL,
	PRIMARY KEY(`round_id`, `team_id`),
	FOREIGN KEY (`round_id`) REFERENCES `rounds`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `rounds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`room_id` integer NOT NULL,
	`number` integer NOT NULL,
	`simulator` text NOT NULL,
	`scenario` text NOT NULL,
	`seed` integer,
	`minutes` integer NOT NULL,
	`tempo` integer NOT NULL,
	`noise` integer DEFAULT true NOT NULL,
	`state` text NOT NULL,
	`minute` integer DEFAULT -1 NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`fork_of_round_id` integer,
	`fork_of_team_id` integer,
	`fork_minute` integer,
	FOREIGN KEY (`room_id`) REFERENCES `rooms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rounds_room_number` ON `rounds` (`room_id`,`number`);--> statement-breakpoint
CREATE INDEX `rounds_state` ON `rounds` (`state`);--> statement-breakpoint
CREATE INDEX `rounds_fork_of` ON `rounds` (`fork_of_round_id`);--> statement-breakpoint
CREATE TABLE `scores` (
	`round_id` integer NOT NULL,
	`team_id` integer NOT NULL,
	`score` real,
	PRIMARY KEY(`round_id`, `team_id`),
	FOREIGN KEY (`round_id`) REFERENCES `rounds`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `snapshots` (
	`round_id` integer NOT NULL,
	`team_id` integer NOT NULL,
	`minute` integer NOT NULL,
	`data` text NOT NULL,
	PRIMARY KEY(`round_id`, `team_id`, `minute`),
	FOREIGN KEY (`round_id`) REFERENCES `rounds`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `teachers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teachers_key_hash_unique` ON `teachers` (`key_hash`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`room_id` integer NOT NULL,
	`idx` integer NOT NULL,
	`name` text NOT NULL,
	FOREIGN KEY (`room_id`) REFERENCES `rooms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_room_idx` ON `teams` (`room_id`,`idx`);